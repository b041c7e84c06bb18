"""``WS /ws/matches/{id}``: snapshot on connect, updates after every commit, actions in."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from sqlalchemy.exc import DBAPIError

from app.realtime.hub import Viewer
from app.services.errors import NotFound, ServiceError
from app.services.matches import MatchService
from app.services.players import player_by_token

router = APIRouter()


async def _refuse(websocket: WebSocket, code: int, message: str) -> None:
    await websocket.accept()
    await websocket.send_text(json.dumps({"type": "error", "code": code, "message": message}))
    await websocket.close(code=4000 + code)


@router.websocket("/ws/matches/{match_id}")
async def match_socket(
    websocket: WebSocket,
    match_id: str,
    token: str | None = None,
    since: int | None = None,
    spectator: bool = False,
) -> None:
    """``?spectator=1`` watches anonymously even from a signed-in browser (the TV at
    the table must never show a seat's private view)."""
    app = websocket.app
    settings, hub = app.state.settings, app.state.hub
    token = None if spectator else token or websocket.cookies.get(settings.cookie_name)
    async with app.state.sessionmaker() as session:
        player = await player_by_token(session, token) if token else None
        if token and player is None:
            await _refuse(websocket, 401, "the token is not valid")
            return
        try:
            await MatchService(session).get(match_id)
        except NotFound as missing:
            await _refuse(websocket, 404, missing.message)
            return
    await websocket.accept()
    viewer = Viewer(websocket, match_id, player)
    await hub.snapshot(viewer, since)
    try:
        while True:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            reply = await _handle(app, viewer, frame.get("text") or frame.get("bytes") or "")
            if reply is not None:
                await viewer.send(reply)
    except WebSocketDisconnect:
        pass
    finally:
        hub.leave(viewer)


def _error(client_id: Any, code: int, message: str, **extra: Any) -> dict[str, Any]:
    return {"type": "error", "id": client_id, "code": code, "message": message, **extra}


async def _handle(app: Any, viewer: Viewer, raw: str | bytes) -> dict[str, Any] | None:
    """One client frame in; the reply frame (if any) out. Same rules as REST."""
    limit = app.state.settings.max_body_bytes
    if len(raw) > limit:
        return _error(None, 413, f"a frame may be at most {limit // 1024} KB")
    try:
        message = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return _error(None, 400, "the frame is not valid JSON")
    if not isinstance(message, dict):
        return _error(None, 400, "a frame must be a JSON object")
    kind, client_id = message.get("type"), message.get("id")
    if kind == "sync":
        since = message.get("since")
        await app.state.hub.snapshot(viewer, since if isinstance(since, int) else None)
        return None
    if kind == "ping":
        return {"type": "pong", "id": client_id}
    if kind != "action":
        return _error(client_id, 400, 'type must be "action", "sync" or "ping"')
    if viewer.player is None:
        return _error(client_id, 401, "spectators cannot act: connect with a token")
    action, version = message.get("action"), message.get("version")
    if not isinstance(action, dict) or not isinstance(version, int) or isinstance(version, bool):
        return _error(client_id, 422, '"action" must be an object and "version" an integer')
    # Holding this socket's send lock, the ack goes out before the update of the same
    # version, which the hub may have ready before this handler resumes.
    async with viewer.send_lock:
        async with app.state.sessionmaker() as session:
            service = MatchService(session, app.state.hub.publish, app.state.recent)
            try:
                applied = await service.act(viewer.match_id, viewer.player, action, version)
                reply = {"type": "ack", "id": client_id, "version": applied.version}
            except ServiceError as error:
                reply = _error(client_id, error.status, error.message, **error.extra)
            except DBAPIError:  # a connection the database dropped: see app/api/errors.py
                reply = _error(
                    client_id, 503, "the database is unavailable right now; nothing was changed, please retry"
                )
        await viewer.write(reply)
    return None
