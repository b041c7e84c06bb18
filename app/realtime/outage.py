"""While the database is away: tell every open websocket, and resync them when it is back.

Any request or frame that finds the database unreachable calls :meth:`DatabaseWatch.failed`.
The first such call sends ``{"type": "status", "database": "unavailable"}`` to every
viewer of this process and polls the database; once it answers, every viewer gets
``{"type": "status", "database": "available"}`` and an update with the entries it
missed since the last version it was sent. The sockets stay
open throughout. :func:`resync_all` is also what a broker calls after reconnecting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.realtime.hub import Hub

log = logging.getLogger(__name__)

POLL_SECONDS = 0.5


async def broadcast(hub: Hub, message: dict[str, Any]) -> None:
    viewers = [viewer for room in list(hub.rooms.values()) for viewer in list(room)]
    await asyncio.gather(*(viewer.send(message) for viewer in viewers))


RESYNC = 2**31 - 1
"""A version past any match's: told a match reached it, the hub reads the match and
sends each viewer whatever it has not seen (nothing, if it missed nothing)."""


async def resync_all(hub: Hub) -> None:
    """Bring every viewer of this process up to date: each watched match is read once
    and each viewer is sent an update with the entries it missed."""
    for match_id in list(hub.rooms):
        try:
            await hub.deliver(match_id, RESYNC)
        except Exception as error:  # the next update or resync catches these viewers up
            log.warning("could not resync the viewers of %s: %s", match_id, error)


class DatabaseWatch:
    def __init__(self, hub: Hub, engine: AsyncEngine) -> None:
        self.hub = hub
        self.engine = engine
        self.available = True
        self._task: asyncio.Task[None] | None = None

    def failed(self) -> None:
        """A statement could not reach the database (safe to call from anywhere, often)."""
        if not self.available:
            return
        self.available = False
        self._task = asyncio.get_running_loop().create_task(self._wait_for_database())

    async def _wait_for_database(self) -> None:
        log.warning("the database is unavailable; waiting for it")
        await broadcast(self.hub, {"type": "status", "database": "unavailable"})
        while not await self.reachable():
            await asyncio.sleep(POLL_SECONDS)
        self.available = True
        log.warning("the database is back")
        await broadcast(self.hub, {"type": "status", "database": "available"})
        await resync_all(self.hub)

    async def reachable(self) -> bool:
        try:
            async with self.engine.connect() as connection:
                await connection.execute(text("SELECT 1"))
            return True
        except Exception:
            return False

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
