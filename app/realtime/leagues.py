"""``WS /ws/leagues/{id}``: a league page's live updates (issue 32).

The league's code says ``{"type": "league", "league": id}`` through the broker to the room
``league:{id}`` whenever a game's result, a round, an entrant or the status changes
(``app/services/leagues.py``); every process hands it to its own sockets on that league,
and the page fetches ``GET /api/v1/leagues/{id}`` again. The rooms are kept apart from the
hub's match rooms (a resync or presence never takes them for matches). A client may send
``{"type": "ping"}`` (answered ``{"type": "pong"}``); anything else is ignored.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import defaultdict
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from app.api.origin import origin_refusal, same_origin
from app.realtime.broker import Broker

PREFIX = "league:"


class LeagueRooms:
    """This process's league sockets, by league."""

    def __init__(self, broker: Broker) -> None:
        self.broker = broker
        self.rooms: dict[str, set[WebSocket]] = defaultdict(set)
        matches_say = broker.on_say

        async def on_say(room: str, message: dict[str, Any], hidden_from: frozenset[str]) -> None:
            if room.startswith(PREFIX):
                await self.tell(room.removeprefix(PREFIX), message)
            elif matches_say is not None:
                await matches_say(room, message, hidden_from)

        broker.on_say = on_say

    async def say(self, league_id: str) -> None:
        """Tell every process's viewers of the league that it changed."""
        await self.broker.say(f"{PREFIX}{league_id}", {"type": "league", "league": league_id}, frozenset())

    async def tell(self, league_id: str, message: dict[str, Any]) -> None:
        text = json.dumps(message)
        sockets = list(self.rooms.get(league_id, ()))

        async def send(socket: WebSocket) -> None:
            with contextlib.suppress(Exception):  # a closed socket: its reader cleans up
                await socket.send_text(text)

        await asyncio.gather(*(send(s) for s in sockets))

    def viewer_count(self) -> int:
        return sum(len(room) for room in self.rooms.values())

    async def serve(self, websocket: WebSocket, league_id: str, settings: Any) -> None:
        origin = websocket.headers.get("origin")
        if origin is not None and not same_origin(origin, websocket.headers.get("host"), settings):
            await websocket.accept()
            await websocket.send_text(
                json.dumps({"type": "error", "code": 403, "message": origin_refusal(origin)})
            )
            await websocket.close(code=4403)
            return
        await websocket.accept()
        room = self.rooms[league_id]
        room.add(websocket)
        try:
            await websocket.send_text(json.dumps({"type": "hello", "league": league_id}))
            while True:
                frame = await websocket.receive()
                if frame["type"] == "websocket.disconnect":
                    break
                with contextlib.suppress(ValueError, TypeError, AttributeError):
                    if json.loads(frame.get("text") or "").get("type") == "ping":
                        await websocket.send_text(json.dumps({"type": "pong"}))
        except WebSocketDisconnect:
            pass
        finally:
            room.discard(websocket)
            if not room:
                self.rooms.pop(league_id, None)
