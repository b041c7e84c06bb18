"""Pictures of a match to share: the board as a spectator sees it (a link preview's
1200 × 630 PNG) and the whole match as an animated GIF.

The drawing follows the board the pages draw in the browser
(``static/js/renderers/board-draw.js``, which also draws the rules pages' diagrams):
the same geometry (core C, rings B and A, each side's home at the bottom), the same
colours (``static/style.css``), owner shapes and the creatures' figures, read from
``static/js/art.js`` itself. Only a spectator's view is ever drawn
(``ruleset.view(state, None)``), so nothing hidden (an eote setting, a face-down
piece) can reach a picture. The SVG is rasterised by resvg (``resvg-py``) and the GIF
written by Pillow.
"""

from __future__ import annotations

import io
import json
import math
import re
from functools import cache
from html import escape
from typing import Any

import resvg_py
from PIL import Image, ImageDraw

from app.config import ROOT
from app.rules import registry

PREVIEW_SIZE = (1200, 630)
GIF_SIZE = (600, 315)
GIF_MAX_FRAMES = 300
GIF_FRAME_MS = 700
GIF_LAST_FRAME_MS = 3000

# board-draw.js's geometry, in the board's own units (the board is 204 across).
CORE_R, INNER_R, OUTER_R = 20, 60, 98
B_CENTRE, A_CENTRE, TOKEN_R = 41, 79, 9.2
SPACES = ["C", *(f"B{i}" for i in range(1, 13)), *(f"A{i}" for i in range(1, 13))]

# static/style.css and static/art.css
BACKGROUND, PANEL, TEXT, MUTED, ACCENT = "#0b1220", "#121c2e", "#e6edf7", "#9fb0c8", "#6fd3ff"
TONES = {"0": "#d9c88f", "1": "#27364f", "core": "#7a5b2e"}
SEAT_COLOURS = ["#2f7fe0", "#d2423a", "#3aa655", "#a55ad2"]
CHESS_COLOURS = ["#eceae2", "#24262b"]
FIGURE_FILL = ["#e3f0ff", "#ffe9e4", "#e6ffe9", "#f6e8ff"]
FIGURE_ACCENT = ["#0b3f86", "#8a1712", "#14591f", "#5a1d7e"]
CHESS_GLYPHS = {"king": "♚", "queen": "♛", "knight": "♞", "pawn": "♟"}
FONT = "Liberation Sans, DejaVu Sans, Arial, sans-serif"


@cache
def figures() -> dict[str, dict[str, Any]]:
    """The pieces' figures from ``static/js/art.js`` (its ``FIGURES`` object, read as JSON)."""
    source = (ROOT / "static" / "js" / "art.js").read_text()
    body = source.split("export const FIGURES = ", 1)[1].split("\n};", 1)[0] + "\n}"
    body = re.sub(r"^\s*//.*$", "", body, flags=re.MULTILINE)  # comments
    body = re.sub(r'"\s*\+\s*"', "", body)  # "…" + "…"
    body = re.sub(r"^(\s*)([a-z_]+):", r'\1"\2":', body, flags=re.MULTILINE)  # bare keys
    body = re.sub(r"(\{|,)\s*([a-z_]+):", r'\1"\2":', body)
    body = re.sub(r",(\s*[}\]])", r"\1", body)  # trailing commas
    return json.loads(body)


def _polar(r: float, degrees: float) -> tuple[float, float]:
    a = math.radians(degrees)
    return r * math.cos(a), r * math.sin(a)


def _ray_angle(i: int) -> float:
    """board-draw.js's rayAngle for a spectator (seat 0 at the bottom: A1..A4)."""
    return 90 + (i - 2.5) * 30


def space_centre(space: str) -> tuple[float, float]:
    if space == "C":
        return 0.0, 0.0
    return _polar(A_CENTRE if space[0] == "A" else B_CENTRE, _ray_angle(int(space[1:])))


def _cell(space: str, fill: str) -> str:
    if space == "C":
        return f'<circle r="{CORE_R}" fill="{fill}" stroke="{BACKGROUND}" stroke-width="0.8"/>'
    centre = _ray_angle(int(space[1:]))
    r0, r1 = (INNER_R, OUTER_R) if space[0] == "A" else (CORE_R, INNER_R)
    (x0, y0), (x1, y1) = _polar(r1, centre - 15), _polar(r1, centre + 15)
    (x2, y2), (x3, y3) = _polar(r0, centre + 15), _polar(r0, centre - 15)
    d = (
        f"M{x0:.2f} {y0:.2f}A{r1} {r1} 0 0 1 {x1:.2f} {y1:.2f}"
        f"L{x2:.2f} {y2:.2f}A{r0} {r0} 0 0 0 {x3:.2f} {y3:.2f}Z"
    )
    return f'<path d="{d}" fill="{fill}" stroke="{BACKGROUND}" stroke-width="0.8"/>'


def _tone(space: str) -> str:
    if space == "C":
        return "core"
    return str((int(space[1:]) + (1 if space[0] == "A" else 0)) % 2)


def _token_shape(owner: int, fill: str, stroke: str) -> str:
    """Owner shapes, so colour is never the only signal: circle, hexagon, square, triangle."""
    if owner == 0:
        return f'<circle r="{TOKEN_R}" fill="{fill}" stroke="{stroke}" stroke-width="1.2"/>'
    corners, offset = {1: (6, 0), 2: (4, 45)}.get(owner, (3, -90))
    points = " ".join(
        "{:.2f},{:.2f}".format(*_polar(TOKEN_R * 1.08, offset + 360 / corners * k)) for k in range(corners)
    )
    return f'<polygon points="{points}" fill="{fill}" stroke="{stroke}" stroke-width="1.2"/>'


def _figure(kind: str, owner: int) -> str:
    art = figures()[kind]
    scale = TOKEN_R * 1.8 / 25  # art.js draws on a 25-unit grid; a token shows it 1.8 radii wide
    fill, accent = FIGURE_FILL[owner % 4], FIGURE_ACCENT[owner % 4]
    details = "".join(f'<path d="{d}" fill="none" stroke-linecap="round"/>' for d in art["details"])
    eyes = "".join(
        f'<circle cx="{x}" cy="{y}" r="{r}" fill="{accent}" stroke="none"/>' for x, y, r in art["eyes"]
    )
    return (
        f'<g transform="scale({scale:.4f})" fill="{fill}" stroke="#06101d" stroke-width="1.1">'
        f'<path d="{art["body"]}" stroke-linejoin="round"/>{details}{eyes}</g>'
    )


def _monogram(piece: dict[str, Any], legend: dict[str, Any]) -> str:
    kind = piece.get("kind", "?")
    if kind in CHESS_GLYPHS:
        return CHESS_GLYPHS[kind]
    name = piece.get("name") or (legend.get(kind) or {}).get("name") or kind
    letters = re.sub(r"[^A-Za-z]", "", name)
    return (letters[:1].upper() + letters[1:2].lower()) or "?"


def _token(piece: dict[str, Any], legend: dict[str, Any], chess_colours: bool) -> str:
    owner = int(piece.get("owner") or 0)
    colours = CHESS_COLOURS if chess_colours else SEAT_COLOURS
    fill = colours[owner % len(colours)]
    stroke = "#d7dce6" if chess_colours and owner == 1 else "#f4f7fb"
    parts = []
    if piece.get("kind") == "king":
        parts.append(f'<circle r="{TOKEN_R + 2.2}" fill="none" stroke="#ffcf4d" stroke-width="1.2"/>')
    parts.append(_token_shape(owner, fill, stroke))
    if piece.get("kind") in figures():
        parts.append(_figure(piece["kind"], owner))
    else:
        ink = "#111" if chess_colours and owner == 0 else "#fff"
        parts.append(
            f'<text y="3" font-size="8" font-weight="bold" text-anchor="middle" fill="{ink}" '
            f'font-family="{FONT}">{escape(_monogram(piece, legend))}</text>'
        )
    return "".join(parts)


def board_group(state: dict[str, Any]) -> str:
    """The Dejarik board with the pieces of a spectator's view, centred on 0, 204 across."""
    parts = [board_spaces()]
    for piece, x, y in placed_pieces(state):
        parts.append(f'<g transform="translate({x:.2f} {y:.2f})">{token_markup(piece, state)}</g>')
    return "".join(parts)


@cache
def board_spaces() -> str:
    """The empty board: the core, rings B and A in alternating tones, each space named."""
    parts = [f'<circle r="102" fill="{ACCENT}" fill-opacity="0.12"/>']
    for space in SPACES:
        tone = _tone(space)
        parts.append(_cell(space, TONES[tone]))
        x, y = space_centre(space) if space != "C" else (0, -CORE_R + 5)
        if space != "C":
            x, y = x * (1.165 if space[0] == "A" else 1.3), y * (1.165 if space[0] == "A" else 1.3)
        ink = {"0": "#3a2f10", "1": "#d6e0ee", "core": "#fff4de"}[tone]
        parts.append(
            f'<text x="{x:.1f}" y="{y + 1.6:.1f}" font-size="4.6" text-anchor="middle" fill="{ink}" '
            f'font-family="{FONT}">{space}</text>'
        )
    return "".join(parts)


def placed_pieces(state: dict[str, Any]) -> list[tuple[dict[str, Any], float, float]]:
    """Each piece on the board with its centre; several on one space (To-The-Death in
    the core) sit side by side, as on the match page."""
    on_board = [p for p in state.get("pieces") or [] if p.get("at") in SPACES]
    placed = []
    for piece in on_board:
        sharing = [p for p in on_board if p["at"] == piece["at"]]
        x, y = space_centre(piece["at"])
        x += (sharing.index(piece) - (len(sharing) - 1) / 2) * TOKEN_R * 2.1
        placed.append((piece, x, y))
    return placed


def token_markup(piece: dict[str, Any], state: dict[str, Any]) -> str:
    chess_colours = " ".join(state.get("seat_names") or []).lower() == "white black"
    return _token(piece, state.get("legend") or {}, chess_colours)


def table_group(state: dict[str, Any]) -> str:
    """eote's table (it has no board): each character's piles of pieces and strain,
    as the spectator sees them; drawn in a 204 × 204 box centred on 0 like the board."""
    parts = [f'<rect x="-102" y="-102" width="204" height="204" rx="10" fill="{PANEL}"/>']
    names = state.get("seat_names") or []
    for column, character in enumerate((state.get("characters") or [])[:2]):
        seat = int(character.get("seat", column))
        x0 = -94 + column * 98
        colour = SEAT_COLOURS[seat % 4]
        title = character.get("name") or (names[seat] if seat < len(names) else f"Seat {seat + 1}")
        parts.append(
            f'<text x="{x0}" y="-80" font-size="11" font-weight="bold" fill="{colour}" '
            f'font-family="{FONT}">{escape(str(title))}</text>'
        )
        piles = character.get("piles") or {}
        for row, (pile, label) in enumerate((("active", "Active"), ("inactive", "Inactive"), ("set", "Set"))):
            y = -58 + row * 34
            parts.append(
                f'<text x="{x0}" y="{y}" font-size="8" fill="{MUTED}" font-family="{FONT}">{label}</text>'
            )
            for k in range(min(int(piles.get(pile) or 0), 8)):
                cx, cy = x0 + 10 + (k % 4) * 21, y + 13 + (k // 4) * 8
                token = _token_shape(seat, colour, "#f4f7fb")
                parts.append(f'<g transform="translate({cx} {cy})">{token}</g>')
        strain, threshold = int(character.get("strain") or 0), int(character.get("strain_threshold") or 1)
        parts.append(
            f'<text x="{x0}" y="52" font-size="8" fill="{MUTED}" font-family="{FONT}">'
            f"Strain {strain} of {threshold}</text>"
            f'<rect x="{x0}" y="57" width="80" height="6" rx="3" fill="#26344d"/>'
            f'<rect x="{x0}" y="57" width="{80 * min(strain, threshold) / threshold:.1f}" height="6" rx="3" '
            f'fill="#ff6b5e"/>'
        )
    step = str(state.get("step") or "").replace("_", " ")
    parts.append(
        f'<text x="0" y="88" font-size="9" text-anchor="middle" fill="{TEXT}" font-family="{FONT}">'
        f"Round {escape(str(state.get('round', '')))}{' · ' + escape(step) if step else ''}</text>"
    )
    return "".join(parts)


def player_words(view: dict[str, Any]) -> str:
    """Who plays: "Ana (Blue) vs Ben (Red)"; an open seat is "an open seat"."""
    words = []
    for seat in view.get("seats") or []:
        who = (seat.get("player") or {}).get("name") or (seat.get("bot") or {}).get("name") or "an open seat"
        words.append(f"{who} ({seat.get('name')})")
    return " vs ".join(words)


def status_words(view: dict[str, Any]) -> str:
    """Where the match stands, in a spectator's words."""
    seats = {s["seat"]: s for s in view.get("seats") or []}

    def who(seat: int) -> str:
        row = seats.get(seat) or {}
        return (row.get("player") or {}).get("name") or str(row.get("name") or f"Seat {seat + 1}")

    if view.get("status") == "waiting":
        return "Waiting for players"
    if view.get("status") == "finished":
        winner = (view.get("result") or {}).get("winner")
        return "A draw" if winner is None else f"{who(winner)} won"
    to_act = view.get("to_act") or []
    return f"{' and '.join(who(s) for s in to_act)} to play" if to_act else "In play"


BOARD_AT, BOARD_SCALE = (320, 315), 2.95
"""Where the board's centre sits on the 1200 × 630 canvas, and its units' size there."""


def preview_svg(
    view: dict[str, Any], ruleset_name: str, version: int | None, size: tuple[int, int] = PREVIEW_SIZE
) -> str:
    """The share picture: the board (or eote's table) left, the title lines right,
    on a 1200 × 630 canvas scaled to ``size``; ``version`` None leaves out the move line."""
    state = view.get("state") or {}
    drawing = table_group(state) if state.get("kind") == "eote" else board_group(state)
    title_lines = [
        (ruleset_name, 46, TEXT, "bold"),
        (player_words(view), 30, TEXT, "normal"),
        (status_words(view), 30, ACCENT, "normal"),
    ]
    if version is not None:
        title_lines.append((f"Dejarik · step {version}", 24, MUTED, "normal"))
    text, y = [], 150
    for line, font_size, colour, weight in title_lines:
        for part in _wrap(line, int(900 / font_size)):
            text.append(
                f'<text x="650" y="{y}" font-size="{font_size}" font-weight="{weight}" fill="{colour}" '
                f'font-family="{FONT}">{escape(part)}</text>'
            )
            y += int(font_size * 1.35)
        y += 18
    width, height = size
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 1200 630">'
        f'<rect width="1200" height="630" fill="{BACKGROUND}"/>'
        f'<g transform="translate({BOARD_AT[0]} {BOARD_AT[1]}) scale({BOARD_SCALE})">{drawing}</g>'
        f"{''.join(text)}</svg>"
    )


def _wrap(line: str, width: int) -> list[str]:
    """At most two lines of about ``width`` characters, the second cut short with "…"."""
    words, lines, current = line.split(), [], ""
    for word in words:
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    lines.append(current)
    if len(lines) > 2:
        lines = [lines[0], lines[1][: max(1, width - 1)] + "…"]
    return lines


def to_png(svg: str) -> bytes:
    return bytes(resvg_py.svg_to_bytes(svg_string=svg))


def board_png(view: dict[str, Any], ruleset_name: str, version: int) -> bytes:
    """The 1200 × 630 PNG of a spectator's ``view``; Pillow checks its size and
    letterboxes it onto the canvas should the renderer return another."""
    png = to_png(preview_svg(view, ruleset_name, version))
    image = Image.open(io.BytesIO(png))
    if image.size == PREVIEW_SIZE:
        return png
    canvas = Image.new("RGB", PREVIEW_SIZE, BACKGROUND)
    image.thumbnail(PREVIEW_SIZE)
    canvas.paste(image, ((PREVIEW_SIZE[0] - image.width) // 2, (PREVIEW_SIZE[1] - image.height) // 2))
    out = io.BytesIO()
    canvas.save(out, "PNG")
    return out.getvalue()


def sample_versions(versions: list[int], cap: int = GIF_MAX_FRAMES) -> list[int]:
    """At most ``cap`` of ``versions``, evenly spread, always the first and the last."""
    if len(versions) <= cap:
        return versions
    step = (len(versions) - 1) / (cap - 1)
    return [versions[round(k * step)] for k in range(cap)]


def replay_gif(frames: list[tuple[dict[str, Any], int]], ruleset_name: str) -> bytes:
    """An animated GIF, one frame for each (view, version) given, the last one held longer.
    Every frame shares the first one's palette, so Pillow stores only what changed."""
    images = gif_frames(frames, ruleset_name)
    palette = images[0].convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    shared = [image.convert("RGB").quantize(palette=palette, dither=Image.Dither.NONE) for image in images]
    durations = [GIF_FRAME_MS] * (len(shared) - 1) + [GIF_LAST_FRAME_MS]
    out = io.BytesIO()
    shared[0].save(out, "GIF", save_all=True, append_images=shared[1:], duration=durations, loop=0)
    return out.getvalue()


def gif_frames(frames: list[tuple[dict[str, Any], int]], ruleset_name: str) -> list[Image.Image]:
    """The GIF's pictures. Drawing is the slow part, so each distinct picture is drawn once:
    the board and words without pieces, and each piece's token, which Pillow then puts
    on its space; eote's table (no board) is drawn whole, once a distinct table."""
    drawn: dict[str, Image.Image] = {}
    scale = GIF_SIZE[0] / PREVIEW_SIZE[0] * BOARD_SCALE  # pixels per board unit
    sprite_px = round(2 * TOKEN_SPRITE_R * scale)

    def draw(svg: str) -> Image.Image:
        if svg not in drawn:
            drawn[svg] = Image.open(io.BytesIO(to_png(svg))).convert("RGBA")
        return drawn[svg]

    pictures = []
    for index, (view, _version) in enumerate(frames):
        state = view.get("state") or {}
        if state.get("kind") == "eote":
            picture = draw(preview_svg(view, ruleset_name, None, GIF_SIZE)).copy()
        else:
            empty = {**view, "state": {**state, "pieces": []}}
            picture = draw(preview_svg(empty, ruleset_name, None, GIF_SIZE)).copy()
            for piece, x, y in placed_pieces(state):
                sprite = draw(token_svg(piece, state, sprite_px))
                left = GIF_SIZE[0] / PREVIEW_SIZE[0] * BOARD_AT[0] + x * scale - sprite_px / 2
                top = GIF_SIZE[1] / PREVIEW_SIZE[1] * BOARD_AT[1] + y * scale - sprite_px / 2
                picture.alpha_composite(sprite, (round(left), round(top)))
        # How far the replay has got: a bar along the bottom. It also keeps an action that
        # changed nothing to see its own frame (Pillow merges identical ones).
        done = round(GIF_SIZE[0] * (index + 1) / len(frames))
        ImageDraw.Draw(picture).rectangle((0, GIF_SIZE[1] - 4, done - 1, GIF_SIZE[1] - 1), fill=ACCENT)
        pictures.append(picture)
    return pictures


TOKEN_SPRITE_R = 12.5
"""Half the side of the square a token is drawn in (the king's ring reaches 11.4)."""


def token_svg(piece: dict[str, Any], state: dict[str, Any], pixels: int) -> str:
    r = TOKEN_SPRITE_R
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{pixels}" height="{pixels}" '
        f'viewBox="{-r} {-r} {2 * r} {2 * r}">{token_markup(piece, state)}</svg>'
    )


def share_words(view: dict[str, Any]) -> dict[str, str]:
    """A link preview's words for a match (templates/_share_tags.html)."""
    ruleset = registry().get(view.get("ruleset", ""))
    name = ruleset.name if ruleset is not None else str(view.get("ruleset", ""))
    return {"ruleset": name, "players": player_words(view), "status": status_words(view)}
