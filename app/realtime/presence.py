"""Presence: who has a websocket open now, and when each player was last seen.

The hub knows this process's viewers. Every ``PRESENCE_BEAT_S`` seconds this
process records them as seen (``players.last_seen_at``), so other processes and a
reloaded page know too: a player counts as connected when this process holds one
of their websockets, or when some process saw one within two beats.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime, timedelta
from typing import Any

from app.realtime.hub import Hub
from app.services.clock import Now, system_now
from app.services.store import MatchRecord, Store

log = logging.getLogger(__name__)


class Presence:
    def __init__(self, hub: Hub, store: Store, beat_s: float, now: Now = system_now) -> None:
        self.hub = hub
        self.store = store
        self.beat_s = beat_s
        self.now = now
        self._task: asyncio.Task[None] | None = None

    def here(self) -> set[str]:
        """Players with a websocket open in this process."""
        return {v.player_id for room in self.hub.rooms.values() for v in room if v.player_id}

    def has_open(self, player_id: str, match_id: str) -> bool:
        """Whether the player has a websocket on that match in this process now (the
        notifier pushes no "your turn" to a player looking at the match)."""
        return any(v.player_id == player_id for v in self.hub.rooms.get(match_id, ()))

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        with contextlib.suppress(Exception):
            await self.store.seen(self.here(), self.now())  # they were here until now

    async def _run(self) -> None:
        while True:
            try:
                await self.store.seen(self.here(), self.now())
            except Exception:
                log.exception("recording presence failed")
            await asyncio.sleep(self.beat_s)

    async def of_match(self, match: MatchRecord) -> list[dict[str, Any]]:
        """Each seat: is its player connected now, and when were they last seen."""
        players = {s.player_id for s in match.seats if s.player_id}
        seen = await self.store.last_seen(players)
        here, now = self.here(), self.now()
        recent = now - timedelta(seconds=2 * self.beat_s + 1)
        return [
            {
                "seat": s.seat,
                "player_id": s.player_id,
                "connected": s.player_id in here or _after(seen.get(s.player_id), recent),
                "last_seen": now.isoformat() if s.player_id in here else _iso(seen.get(s.player_id)),
            }
            for s in match.seats
        ]


def _after(moment: datetime | None, since: datetime) -> bool:
    return moment is not None and moment >= since


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None
