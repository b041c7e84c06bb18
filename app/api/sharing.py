"""Sharing a match: its board as a PNG (the link preview), the match as an animated GIF,
and a live read-only board for other sites' iframes (``/embed/matches/{id}``).

Every picture is a spectator's: drawn from ``ruleset.view(state, None)`` (app/sharing.py).
A picture of a version never changes, so each is cached here by (match, version) and
answered with an ETag of its version: a repeated fetch costs a 304.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any
from weakref import WeakKeyDictionary

from anyio import CapacityLimiter, to_thread
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response

from app import sharing
from app.api.deps import ServiceDep
from app.api.pages import page, ruleset_name
from app.rules import get_ruleset
from app.services import records, views
from app.services.errors import ServiceError
from app.services.matches import MatchService
from app.services.store import MatchRecord

router = APIRouter(include_in_schema=False)

RENDERING = "2"
"""Bumped when the drawing changes, so that caches let go of the old pictures."""
MARKS_LOOK_BACK = 50
"""How many entries back the board picture looks for the last move to mark."""
CACHE_BYTES = 32 * 1024 * 1024
"""The pictures kept in memory, the most recently used, at most this many bytes in all."""
_pictures: OrderedDict[tuple[str, str, int], bytes] = OrderedDict()
DRAWN_AT_ONCE = 2
"""Pictures drawn at the same time, in threads of their own: drawing is CPU, and it neither
waits behind nor takes the threads other work of the server uses (anyio's shared 40)."""
_drawing: WeakKeyDictionary[asyncio.AbstractEventLoop, CapacityLimiter] = WeakKeyDictionary()
"""A limiter for each event loop (one a server; the tests run several in one process)."""


def _drawing_threads() -> CapacityLimiter:
    loop = asyncio.get_running_loop()
    if loop not in _drawing:
        _drawing[loop] = CapacityLimiter(DRAWN_AT_ONCE)
    return _drawing[loop]


async def _picture(key: tuple[str, str, int], render: Callable[[], Awaitable[Callable[[], bytes]]]) -> bytes:
    """The picture for ``key``, from memory or drawn now: ``render`` reads what to draw
    (on the event loop) and returns the drawing, which runs in a worker thread. The
    cache itself is only touched here, on the event loop."""
    if key in _pictures:
        _pictures.move_to_end(key)
        return _pictures[key]
    picture = await to_thread.run_sync(await render(), limiter=_drawing_threads())
    _pictures[key] = picture
    while sum(map(len, _pictures.values())) > CACHE_BYTES and len(_pictures) > 1:
        _pictures.popitem(last=False)
    return picture


def _asked_version(request: Request, match: MatchRecord) -> int | PlainTextResponse:
    """``?v=N`` (default: the latest version), or a 422 saying what is allowed."""
    asked = request.query_params.get("v")
    if asked is None:
        return match.version
    if not (asked.isascii() and asked.isdecimal()) or int(asked) > match.version:  # ASCII digits only
        message = f"v: must be a whole number from 0 to {match.version}, the match's latest version"
        return PlainTextResponse(message, status_code=422)
    return int(asked)


def _picture_response(body: bytes | None, etag: str, media_type: str, fixed: bool) -> Response:
    # A past version never changes; the latest one is revalidated, cheaply, by its ETag.
    cache = "public, max-age=86400, immutable" if fixed else "public, no-cache"
    headers = {"ETag": etag, "Cache-Control": cache}
    if body is None:
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


def _not_modified(request: Request, etag: str) -> bool:
    return etag in [tag.strip() for tag in request.headers.get("if-none-match", "").split(",")]


async def _spectator_view(service: MatchService, match: MatchRecord, version: int) -> dict[str, Any]:
    """A spectator's view after ``version``, with the last move's spaces to mark
    (``sharing.LAST_MARKS``), read from the latest entries as a spectator reads them."""
    if version == match.version:
        view = await service.view(match, None)
    else:
        view = await records.view_at(service.store, match.id, version, with_log=False)
    entries = await service.store.entries(match, max(0, version - MARKS_LOOK_BACK), version)
    shown = spectator_entries(match, entries)
    pieces = (view.get("state") or {}).get("pieces") or []
    return {**view, sharing.LAST_MARKS: sharing.last_marks(shown, pieces, version)}


def spectator_entries(match: MatchRecord, entries: list[Any]) -> list[dict[str, Any]]:
    """Log entries as a spectator sees them (another seat's hidden choice hidden)."""
    ruleset, finished = get_ruleset(match.ruleset), match.status == "finished"
    return [views.entry_for(ruleset, entry, None, finished) for entry in entries]


@router.get("/matches/{match_id}/board.png")
async def board_png(match_id: str, request: Request, service: ServiceDep) -> Response:
    """The board after version ``v`` (default: now) as a spectator sees it, 1200 × 630."""
    try:
        match = await service.get(match_id)
    except ServiceError as error:
        return PlainTextResponse(error.message, status_code=error.status)
    version = _asked_version(request, match)
    if isinstance(version, Response):
        return version
    etag = f'"board-{match.id}-{version}-{RENDERING}"'
    fixed = "v" in request.query_params
    if _not_modified(request, etag):
        return _picture_response(None, etag, "image/png", fixed)

    async def render() -> Callable[[], bytes]:
        view = await _spectator_view(service, match, version)
        return lambda: sharing.board_png(view, ruleset_name(match.ruleset), version)

    picture = await _picture((match.id, "png", version), render)
    return _picture_response(picture, etag, "image/png", fixed)


def replay_frames(match: MatchRecord, entries: list[Any], creator: Any) -> list[tuple[dict[str, Any], int]]:
    """(spectator view, version) from the start of play to now, a frame an action,
    at most ``GIF_MAX_FRAMES`` of them spread evenly (always the first and the last).
    Replaying the log is CPU: it runs in the drawing thread, not on the event loop."""
    start = next((e.version for e in entries if e.kind == "start"), match.version)
    shown = spectator_entries(match, entries)
    frames = []
    for version in sharing.sample_versions(list(range(start, match.version + 1))):
        then, state = records.record_at(match, entries, version, creator)
        view = views.body(then, None, state=state)
        pieces = (view.get("state") or {}).get("pieces") or []
        frames.append(({**view, sharing.LAST_MARKS: sharing.last_marks(shown, pieces, version)}, version))
    return frames


@router.get("/matches/{match_id}/replay.gif")
async def replay_gif(match_id: str, request: Request, service: ServiceDep) -> Response:
    """The match as an animated GIF, 600 × 315, one frame an action; the last held longer."""
    try:
        match = await service.get(match_id)
    except ServiceError as error:
        return PlainTextResponse(error.message, status_code=error.status)
    etag = f'"replay-{match.id}-{match.version}-{RENDERING}"'
    if _not_modified(request, etag):
        return _picture_response(None, etag, "image/gif", False)

    async def render() -> Callable[[], bytes]:
        entries, creator = await records.log_and_creator(service.store, match, match.version)
        name = ruleset_name(match.ruleset)
        return lambda: sharing.replay_gif(replay_frames(match, entries, creator), name)

    picture = await _picture((match.id, "gif", match.version), render)
    return _picture_response(picture, etag, "image/gif", False)


@router.get("/embed/matches/{match_id}", response_class=HTMLResponse)
async def embed_match(match_id: str, request: Request, service: ServiceDep) -> Response:
    """The live board alone, read-only, for an iframe on any site (app/api/headers.py lets
    any origin frame ``/embed/``); it follows the match like the table view does."""
    try:
        match = await service.get(match_id)
    except ServiceError as error:
        return page(request, "error.html", {"message": error.message, "back": "/"}, error.status)
    view = await service.view(match, None)
    return page(request, "embed.html", {"view": view, "ruleset_name": ruleset_name(match.ruleset)})
