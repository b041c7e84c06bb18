"""Draw the app's icons (static/icons/*.png) from an SVG of the circular board.

Run once, and again only when the look changes; the PNG files are committed:

    .venv/bin/python tools/make_icons.py

The board is the one the pages draw (``static/js/renderers/board.js``): the core, ring B
and ring A of twelve spaces each, in the stylesheet's tones (``static/style.css``).
A maskable icon keeps everything inside the central circle of 80 % of its width, which
every launcher's mask leaves visible, and fills the rest with the background.
"""

from __future__ import annotations

import io
import math
from pathlib import Path

import resvg_py
from PIL import Image

ICONS = Path(__file__).resolve().parents[1] / "static" / "icons"
BACKGROUND = "#0b1220"  # --bg
LIGHT, DARK, CORE, ACCENT = "#d9c88f", "#27364f", "#7a5b2e", "#6fd3ff"  # --tone0, --tone1, --core, --accent


def sector(cx: float, cy: float, inner: float, outer: float, start: float, end: float) -> str:
    """The SVG path of a ring sector between two angles (radians)."""

    def point(radius: float, angle: float) -> str:
        return f"{cx + radius * math.cos(angle):.2f},{cy + radius * math.sin(angle):.2f}"

    return (
        f"M{point(inner, start)} L{point(outer, start)} A{outer},{outer} 0 0 1 {point(outer, end)} "
        f"L{point(inner, end)} A{inner},{inner} 0 0 0 {point(inner, start)} Z"
    )


def board_svg(size: int, board_radius: float, full_bleed: bool) -> str:
    """The board of ``board_radius`` centred on a ``size`` square: on the background
    colour edge to edge (``full_bleed``), or on a dark disc with transparent corners."""
    c = size / 2
    r = board_radius
    shapes = [f'<rect width="{size}" height="{size}" fill="{BACKGROUND}"/>'] if full_bleed else []
    shapes.append(f'<circle cx="{c}" cy="{c}" r="{r}" fill="{BACKGROUND}"/>')
    ring_a, ring_b, core = (0.94 * r, 0.62 * r), (0.62 * r, 0.30 * r), 0.30 * r
    step = 2 * math.pi / 12
    for (outer, inner), offset in ((ring_a, 1), (ring_b, 0)):
        for space in range(12):
            start = -math.pi / 2 + space * step
            tone = LIGHT if (space + offset) % 2 else DARK
            path = sector(c, c, inner, outer, start, start + step)
            edge = f'stroke="{BACKGROUND}" stroke-width="{r * 0.015}"'
            shapes.append(f'<path d="{path}" fill="{tone}" {edge}/>')
    shapes.append(f'<circle cx="{c}" cy="{c}" r="{core}" fill="{CORE}"/>')
    shapes.append(
        f'<circle cx="{c}" cy="{c}" r="{0.97 * r}" fill="none" stroke="{ACCENT}" stroke-width="{r * 0.04}"/>'
    )
    body = "".join(shapes)
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}">{body}</svg>'


def render(svg: str, path: Path) -> None:
    png = bytes(resvg_py.svg_to_bytes(svg_string=svg))
    Image.open(io.BytesIO(png)).save(path, optimize=True)


def main() -> None:
    ICONS.mkdir(exist_ok=True)
    for size in (192, 512):
        render(board_svg(size, size * 0.48, full_bleed=False), ICONS / f"icon-{size}.png")
    render(board_svg(512, 512 * 0.40, full_bleed=True), ICONS / "icon-maskable-512.png")
    # iOS puts a transparent icon on black and rounds the corners itself: edge to edge.
    render(board_svg(180, 180 * 0.44, full_bleed=True), ICONS / "apple-touch-icon.png")


if __name__ == "__main__":
    main()
