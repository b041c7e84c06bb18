"""Presence: who has a websocket open now, and when each player was last seen.

The hub knows this process's viewers. Every ``PRESENCE_BEAT_S`` seconds this
process records them as seen (``players.last_seen_at``), so other processes and a
reloaded page know too: a player counts as connected when this process holds one
of their websockets, or when some process saw one within two beats.

Which match each player has open is recorded the same way (``match_watchers``: each
beat upserts this process's (player, match) pairs and deletes rows a few beats old;
a socket that opens is recorded at once), so no process's notifier pushes "your turn"
to a player who has that match open on another process.
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
OPENED_WITHIN_S = 1.0
"""How long a socket that opens waits, at most, for the record that it did."""


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

    def watching(self) -> set[tuple[str, str]]:
        """The (player, match) pairs this process holds a websocket for."""
        rooms = self.hub.rooms.items()
        return {(v.player_id, match_id) for match_id, room in rooms for v in room if v.player_id}

    def window(self) -> timedelta:
        """How long after a process last recorded a player they still count as there."""
        return timedelta(seconds=2 * self.beat_s + 1)

    def open_here(self, player_id: str, match_id: str) -> bool:
        """Whether the player has a websocket on that match in this process now."""
        return any(v.player_id == player_id for v in self.hub.rooms.get(match_id, ()))

    async def has_open(self, player_id: str, match_id: str) -> bool:
        """Whether the player has that match open: a websocket in this process now, or
        one some process recorded within two beats (the notifier pushes no "your turn"
        to a player looking at the match, whichever process they are connected to)."""
        if self.open_here(player_id, match_id):
            return True
        return await self.store.watched(player_id, match_id, self.now() - self.window())

    async def opened(self, player_id: str, match_id: str) -> None:
        """A websocket of the player on the match opens here: recorded now, not at the
        next beat (a "your turn" due a moment later is not pushed). Best effort: the
        beat records it anyway."""
        try:
            async with asyncio.timeout(OPENED_WITHIN_S):  # the database is away: the snapshot waits no longer
                await self.store.watching({(player_id, match_id)}, self.now())
        except Exception:
            log.warning("recording that a match was opened failed", exc_info=True)

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        with contextlib.suppress(Exception):
            await self.store.seen(self.here(), self.now())  # they were here until now

    async def beat(self) -> None:
        """Record this process's players as seen now, and the matches they have open;
        forget matches opened more than a few beats ago (a cheap, indexed delete)."""
        now = self.now()
        await self.store.seen(self.here(), now)
        await self.store.watching(self.watching(), now, forget_before=now - 2 * self.window())

    async def _run(self) -> None:
        while True:
            try:
                await self.beat()
            except Exception:
                log.exception("recording presence failed")
            await asyncio.sleep(self.beat_s)

    async def of_match(self, match: MatchRecord) -> list[dict[str, Any]]:
        """Each seat: is its player connected now, and when were they last seen."""
        players = {s.player_id for s in match.seats if s.player_id}
        seen = await self.store.last_seen(players)
        here, now = self.here(), self.now()
        recent = now - self.window()
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
