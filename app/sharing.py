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

The last move's or attack's two spaces are marked as the board page marks them
(``lastMarks`` in ``static/js/state.js``, ``.last-mark`` in ``static/style.css``): read
from the log as a spectator reads it (:func:`last_marks`), never from a hidden choice.
"""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache, lru_cache
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
# .last-mark in static/style.css: a tint and a rim in the colour that stands out on the space;
# where the move ended brighter than where it started (dashed).
LAST_FILL = "#2fb8ff"
LAST_RIM = {"0": "#0a3a80", "1": "#9fe6ff", "core": "#9fe6ff"}
LAST_OPACITY = {"from": 0.22, "to": 0.42}
LAST_MARKS = "last_marks"
"""The key of a view (as given to :func:`preview_svg`) holding ``{"from", "to"}``: the
spaces to mark (:func:`last_marks`)."""
BOARD_SPACE = re.compile(r"(C|[AB]([1-9]|1[0-2]))")


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


def _cell_shape(space: str, attributes: str) -> str:
    """The space's outline (board-draw.js's cellShape) with these SVG attributes."""
    if space == "C":
        return f'<circle r="{CORE_R}" {attributes}/>'
    centre = _ray_angle(int(space[1:]))
    r0, r1 = (INNER_R, OUTER_R) if space[0] == "A" else (CORE_R, INNER_R)
    (x0, y0), (x1, y1) = _polar(r1, centre - 15), _polar(r1, centre + 15)
    (x2, y2), (x3, y3) = _polar(r0, centre + 15), _polar(r0, centre - 15)
    d = (
        f"M{x0:.2f} {y0:.2f}A{r1} {r1} 0 0 1 {x1:.2f} {y1:.2f}"
        f"L{x2:.2f} {y2:.2f}A{r0} {r0} 0 0 0 {x3:.2f} {y3:.2f}Z"
    )
    return f'<path d="{d}" {attributes}/>'


def _cell(space: str, fill: str) -> str:
    return _cell_shape(space, f'fill="{fill}" stroke="{BACKGROUND}" stroke-width="0.8"')


def _last_mark(space: str, end: str) -> str:
    """The mark of the last move's start (``end`` "from") or end ("to") on ``space``."""
    dashes = ' stroke-dasharray="2.6 1.6"' if end == "from" else ""
    return _cell_shape(
        space,
        f'fill="{LAST_FILL}" fill-opacity="{LAST_OPACITY[end]}" stroke="{LAST_RIM[_tone(space)]}" '
        f'stroke-width="1.5"{dashes}',
    )


def _is_space(value: Any) -> bool:
    return isinstance(value, str) and BOARD_SPACE.fullmatch(value) is not None


def last_marks(
    entries: Sequence[Mapping[str, Any]], pieces: Iterable[Mapping[str, Any]], version: int | None = None
) -> dict[str, str] | None:
    """The two spaces of the last move or attack, ``{"from", "to"}``, or None: state.js's
    ``lastMarks``, from log entries as a spectator sees them (``views.entry_for``) and
    the pieces where they stand after ``version`` (entries past it are left out). An
    attack names pieces: where its two stood is found by walking the later events back
    (a push moved one, a kill took one off) from where they stand now."""
    at = {p["id"]: p["at"] for p in pieces if p.get("at")}
    for entry in reversed(entries):
        if version is not None and entry["version"] > version:
            continue
        for event in reversed(entry.get("events") or []):
            kind = event.get("type")
            if kind == "move" and _is_space(event.get("from")) and _is_space(event.get("to")):
                return {"from": event["from"], "to": event["to"]}
            if kind == "attack" and event.get("piece") in at and event.get("target") in at:
                return {"from": at[event["piece"]], "to": at[event["target"]]}
            if "piece" not in event:
                continue
            if _is_space(event.get("from")):
                at[event["piece"]] = event["from"]
            elif _is_space(event.get("at")):
                at[event["piece"]] = event["at"]
            elif kind == "place":
                at.pop(event["piece"], None)
    return None


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


def _marked(marks: Mapping[str, str] | None) -> tuple[str | None, str | None]:
    """(from, to) of ``marks``, each a board space or None."""
    marks = marks or {}
    start, end = marks.get("from"), marks.get("to")
    return (start if _is_space(start) else None), (end if _is_space(end) else None)


def board_group(state: dict[str, Any], marks: Mapping[str, str] | None = None) -> str:
    """The Dejarik board with the pieces of a spectator's view, centred on 0, 204 across;
    ``marks``: the last move's two spaces (:func:`last_marks`), marked under the pieces."""
    parts = [board_spaces(*_marked(marks))]
    for piece, x, y in placed_pieces(state):
        parts.append(f'<g transform="translate({x:.2f} {y:.2f})">{token_markup(piece, state)}</g>')
    return "".join(parts)


@lru_cache(maxsize=64)
def board_spaces(start: str | None = None, end: str | None = None) -> str:
    """The empty board: the core, rings B and A in alternating tones, each space named;
    the last move's ``start`` and ``end`` spaces marked (under their names, as on the page)."""
    parts = [f'<circle r="102" fill="{ACCENT}" fill-opacity="0.12"/>']
    for space in SPACES:
        parts.append(_cell(space, TONES[_tone(space)]))
        if space in (start, end):
            parts.append(_last_mark(space, "from" if space == start else "to"))
        parts.append(_space_label(space))
    return "".join(parts)


def _space_label(space: str) -> str:
    tone = _tone(space)
    x, y = space_centre(space) if space != "C" else (0, -CORE_R + 5)
    if space != "C":
        x, y = x * (1.165 if space[0] == "A" else 1.3), y * (1.165 if space[0] == "A" else 1.3)
    ink = {"0": "#3a2f10", "1": "#d6e0ee", "core": "#fff4de"}[tone]
    return (
        f'<text x="{x:.1f}" y="{y + 1.6:.1f}" font-size="4.6" text-anchor="middle" fill="{ink}" '
        f'font-family="{FONT}">{space}</text>'
    )


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
    eote = state.get("kind") == "eote"  # a table: no board, no spaces to mark
    drawing = table_group(state) if eote else board_group(state, view.get(LAST_MARKS))
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


PALETTE_MARK_SPACES = ("A1", "B1", "A2", "B2", "C")
"""Where marks are laid on the pictures the GIF's palette is chosen from: each tone."""


def replay_gif(frames: list[tuple[dict[str, Any], int]], ruleset_name: str) -> bytes:
    """An animated GIF, one frame for each (view, version) given, the last one held longer.
    Every frame shares the first one's palette (with the last move's marks laid on it, so
    their tints are in it), so Pillow stores only what changed."""
    images = gif_frames(frames, ruleset_name)
    source = images[0]
    if ((frames[0][0].get("state") or {}).get("kind")) != "eote":
        # Each end's tint on each tone (the core's too): the start of a match has no marks.
        source = Image.new("RGBA", (GIF_SIZE[0], 2 * GIF_SIZE[1]))
        for row, ends in enumerate((("from", "to"), ("to", "from"))):
            marked = images[0].copy()
            for space in PALETTE_MARK_SPACES:
                end = ends[0] if space in ("A1", "B1") else ends[1]
                svg, corner = mark_sprite(space, end)
                marked.alpha_composite(Image.open(io.BytesIO(to_png(svg))).convert("RGBA"), corner)
            source.paste(marked, (0, row * GIF_SIZE[1]))
    palette = source.convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    shared = [image.convert("RGB").quantize(palette=palette, dither=Image.Dither.NONE) for image in images]
    durations = [GIF_FRAME_MS] * (len(shared) - 1) + [GIF_LAST_FRAME_MS]
    out = io.BytesIO()
    shared[0].save(out, "GIF", save_all=True, append_images=shared[1:], duration=durations, loop=0)
    return out.getvalue()


def gif_frames(frames: list[tuple[dict[str, Any], int]], ruleset_name: str) -> list[Image.Image]:
    """The GIF's pictures. Drawing is the slow part, so each distinct picture is drawn once:
    the board and words without pieces, the last move's marks and each piece's token,
    which Pillow then lays on the board; eote's table (no board) is drawn whole, once a
    distinct table."""
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
            empty = {**view, "state": {**state, "pieces": []}, LAST_MARKS: None}
            picture = draw(preview_svg(empty, ruleset_name, None, GIF_SIZE)).copy()
            start, end = _marked(view.get(LAST_MARKS))
            for space, which in ((start, "from"), (end, "to")):
                if space is not None and not (which == "to" and space == start):
                    svg, corner = mark_sprite(space, which)
                    picture.alpha_composite(draw(svg), corner)
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


def mark_sprite(space: str, end: str) -> tuple[str, tuple[int, int]]:
    """The last move's mark on ``space`` (and the space's name over it, as on the board)
    for a GIF frame: the SVG of the pixels around the space alone, and where its top left
    corner goes on the frame (whole pixels, so it lies exactly where the board has it)."""
    scale = GIF_SIZE[0] / PREVIEW_SIZE[0] * BOARD_SCALE  # pixels per board unit
    origin = (GIF_SIZE[0] / PREVIEW_SIZE[0] * BOARD_AT[0], GIF_SIZE[1] / PREVIEW_SIZE[1] * BOARD_AT[1])
    if space == "C":
        corners = [(-CORE_R, -CORE_R), (CORE_R, CORE_R)]
    else:
        centre = _ray_angle(int(space[1:]))
        radii = (INNER_R, OUTER_R) if space[0] == "A" else (CORE_R, INNER_R)
        corners = [_polar(r, centre + step) for r in radii for step in range(-15, 16, 5)]
    margin = 2  # half the rim, and a little
    left, top = (math.floor(origin[k] + (min(c[k] for c in corners) - margin) * scale) for k in (0, 1))
    right, bottom = (math.ceil(origin[k] + (max(c[k] for c in corners) + margin) * scale) for k in (0, 1))
    x, y = (left - origin[0]) / scale, (top - origin[1]) / scale
    width, height = right - left, bottom - top
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="{x:.4f} {y:.4f} {width / scale:.4f} {height / scale:.4f}">'
        f"{_last_mark(space, end)}{_space_label(space)}</svg>"
    )
    return svg, (left, top)


def share_words(view: dict[str, Any]) -> dict[str, str]:
    """A link preview's words for a match (templates/_share_tags.html)."""
    ruleset = registry().get(view.get("ruleset", ""))
    name = ruleset.name if ruleset is not None else str(view.get("ruleset", ""))
    return {"ruleset": name, "players": player_words(view), "status": status_words(view)}
