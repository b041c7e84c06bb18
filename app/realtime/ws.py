"""``WS /ws/matches/{id}``: snapshot on connect, updates after every commit, actions in.

Every frame a client sends is answered (an ack, an error, a pong or a snapshot),
and no frame closes the socket: a frame that is too big, too deeply nested, not
JSON, or holds what the server cannot store (``app/api/json_input.py``) gets an
error naming the problem. While the database is away the socket is kept, told
``{"type": "status", ...}`` (``app/realtime/outage.py``) and resynced when it is back.
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from app.api.errors import DATABASE_ERRORS, DATABASE_UNAVAILABLE, notice_outage
from app.api.json_input import INT32_MAX, MAX_SAFE_INT, UnsafeInput, parse, text_problem
from app.api.limits import Allowance, RateLimited, client_address
from app.api.origin import origin_refusal, same_origin
from app.realtime.hub import Viewer
from app.services.errors import NotFound, ServiceError, Unavailable
from app.services.matches import MatchService, as_player
from app.services.players import player_by_token

MATCH_SOCKET_PATH = re.compile(r"/ws/matches/([^/]+)")
TRUE, FALSE = {"1", "true", "on", "yes"}, {"0", "false", "off", "no", ""}
SYNC_WINDOW_S = 10  # ``ws_syncs_per_10s``
MATCH_ID_MAX = 32
"""The longest match id stored (a longer one names no match)."""


async def serve(scope: Scope, receive: Receive, send: Send) -> None:
    """The ASGI app of ``/ws/matches/{id}``. The application calls it directly, ahead of
    the HTTP middleware and the router (see ``DejarikApp``): none of them applies to a
    websocket, and each would keep a frame alive for as long as the socket is open."""
    websocket = WebSocket(scope, receive, send)
    found = MATCH_SOCKET_PATH.fullmatch(scope["path"])
    assert found is not None, "DejarikApp routes only this path here"
    query = websocket.query_params
    spectator = query.get("spectator", "").lower()
    if spectator not in TRUE | FALSE:
        await _refuse(websocket, 422, '"spectator" must be true or false')
        return
    await match_socket(websocket, found.group(1), query.get("token"), query.get("since"), spectator in TRUE)


async def _refuse(websocket: WebSocket, code: int, message: str, **extra: Any) -> None:
    await websocket.accept()
    await websocket.send_text(json.dumps({"type": "error", "code": code, "message": message, **extra}))
    await websocket.close(code=4000 + code)


def _since(raw: str | None) -> int | None:
    """``since`` from the query: absent, or a version (-1 … 2^31-1)."""
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise UnsafeInput("since", "must be an integer") from None
    if not -1 <= value <= INT32_MAX:
        raise UnsafeInput("since", f"must be a version between -1 and {INT32_MAX}")
    return value


def _handshake_problem(websocket: WebSocket, match_id: str, from_cookie: bool) -> tuple[int, str] | None:
    """Why this handshake is refused before touching the database, or None."""
    settings = websocket.app.state.settings
    origin = websocket.headers.get("origin")
    if origin is not None and not same_origin(origin, websocket.headers.get("host"), settings):
        return 403, origin_refusal(origin)
    if origin is None and from_cookie:
        # Browsers always send Origin; the cookie without one is not a page of ours.
        return 403, "a browser's cookie is accepted only with the Origin of this server's pages"
    problem = text_problem(match_id)
    if problem:
        return 404, f"match id: {problem}"
    return None


async def match_socket(
    websocket: WebSocket,
    match_id: str,
    token: str | None = None,
    since: str | None = None,
    spectator: bool = False,
) -> None:
    """``?spectator=1`` watches anonymously even from a signed-in browser (the TV at
    the table must never show a seat's private view)."""
    app = websocket.app
    settings, hub = app.state.settings, app.state.hub
    from_cookie = not spectator and not token and settings.cookie_name in websocket.cookies
    token = None if spectator else token or websocket.cookies.get(settings.cookie_name)
    try:
        await app.state.limiter.take("websockets", client_address(websocket))
        start = _since(since)
    except RateLimited as limited:
        await _refuse(websocket, 429, limited.message, retry_after=limited.retry_after)
        return
    except UnsafeInput as problem:
        await _refuse(websocket, 422, problem.message)
        return
    refusal = _handshake_problem(websocket, match_id, from_cookie)
    if refusal is not None:
        await _refuse(websocket, *refusal)
        return
    player = None
    if token:  # an anonymous spectator needs no database session at all
        try:
            async with app.state.sessionmaker() as session:
                player = await player_by_token(session, token)
        except DATABASE_ERRORS as error:
            notice_outage(app, error)
            await _refuse(websocket, 503, DATABASE_UNAVAILABLE, retry_after=1)
            return
        if player is None:
            await _refuse(websocket, 401, "the token is not valid")
            return
    await websocket.accept()
    viewer = Viewer(websocket, match_id, as_player(player))
    if viewer.player_id and len(match_id) <= MATCH_ID_MAX:
        # Every process's notifier knows at once (the snapshot follows): no "your turn" push.
        await app.state.presence.opened(viewer.player_id, match_id)
    syncs = app.state.limiter.allowance(settings.ws_syncs_per_10s, SYNC_WINDOW_S)
    try:
        await hub.snapshot(viewer, start)
    except NotFound as missing:
        await websocket.send_text(json.dumps({"type": "error", "code": 404, "message": missing.message}))
        await websocket.close(code=4404)
        return
    except (*DATABASE_ERRORS, Unavailable) as error:
        # The snapshot could not be read: keep the socket; the database watch
        # resyncs it when the database is back.
        notice_outage(app, error)
        hub.rooms[match_id].add(viewer)
        await viewer.send(_error(None, 503, DATABASE_UNAVAILABLE, retry_after=1))
    try:
        while True:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            try:
                reply = await _handle(app, viewer, syncs, frame.get("text") or frame.get("bytes") or "")
            except (*DATABASE_ERRORS, Unavailable) as error:  # a sync that could not read the match
                notice_outage(app, error)
                reply = _error(None, 503, DATABASE_UNAVAILABLE)
            if reply is not None:
                await viewer.send(reply)
    except WebSocketDisconnect:
        pass
    finally:
        hub.leave(viewer)


def _error(client_id: Any, code: int, message: str, **extra: Any) -> dict[str, Any]:
    return {"type": "error", "id": client_id, "code": code, "message": message, **extra}


def _client_id(raw: str | bytes) -> Any:
    """The frame's ``id``, when it can be echoed (for an error about the rest of the frame)."""
    try:
        message = json.loads(raw, parse_constant=lambda _: None)
    except (ValueError, RecursionError):
        return None
    client_id = message.get("id") if isinstance(message, dict) else None
    if isinstance(client_id, str) and len(client_id) <= 200 and text_problem(client_id) is None:
        return client_id
    if isinstance(client_id, int) and not isinstance(client_id, bool) and abs(client_id) <= MAX_SAFE_INT:
        return client_id
    return None


def _version(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -1 <= value <= INT32_MAX


async def _handle(
    app: Any, viewer: Viewer, syncs: Allowance | None, raw: str | bytes
) -> dict[str, Any] | None:
    """One client frame in; the reply frame (if any) out. Same rules as REST."""
    limit = app.state.settings.max_body_bytes
    if len(raw) > limit:
        return _error(None, 413, f"a frame may be at most {limit // 1024} KB")
    try:
        message = parse(raw, "frame")
    except UnsafeInput as problem:
        return _error(_client_id(raw), 422, problem.message)
    except ValueError:
        return _error(None, 400, "the frame is not valid JSON")
    if not isinstance(message, dict):
        return _error(None, 400, "a frame must be a JSON object")
    kind, client_id = message.get("type"), message.get("id")
    if kind == "sync":
        since = message.get("since")
        if since is not None and not _version(since):
            return _error(client_id, 422, f'"since" must be a version between -1 and {INT32_MAX}')
        if syncs is not None and (retry_after := await syncs.take()):
            at_most = f"at most {syncs.item.amount} in {SYNC_WINDOW_S} s"
            message = f"too many syncs on this socket ({at_most}): retry in {retry_after} s"
            return _error(client_id, 429, message, retry_after=retry_after)
        await app.state.hub.snapshot(viewer, since)
        return None
    if kind == "ping":
        return {"type": "pong", "id": client_id}
    if kind != "action":
        return _error(client_id, 400, 'type must be "action", "sync" or "ping"')
    if viewer.player is None:
        return _error(client_id, 401, "spectators cannot act: connect with a token")
    action, version = message.get("action"), message.get("version")
    if not isinstance(action, dict) or not _version(version):
        return _error(client_id, 422, '"action" must be an object and "version" an integer version')
    try:
        await app.state.limiter.take("actions", client_address(viewer.websocket))
    except RateLimited as limited:
        return _error(client_id, 429, limited.message, retry_after=limited.retry_after)
    # Holding this socket's send lock, the ack goes out before the update of the same
    # version, which the hub may have ready before this handler resumes.
    async with viewer.send_lock:
        service = MatchService(app.state.store, app.state.publish, lambda: app.state.now())
        try:
            applied = await service.act(viewer.match_id, viewer.player, action, version)
            reply = {"type": "ack", "id": client_id, "version": applied.version}
        except ServiceError as error:
            reply = _error(client_id, error.status, error.message, **error.extra)
        except DATABASE_ERRORS as error:  # see app/api/errors.py
            notice_outage(app, error)
            reply = _error(client_id, 503, DATABASE_UNAVAILABLE, retry_after=1)
        await viewer.write(reply)
    return None
