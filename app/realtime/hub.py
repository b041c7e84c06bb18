"""This process's websocket viewers, grouped by match, and the updates they get."""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from fastapi import WebSocket
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import json_text
from app.models import Player
from app.realtime.broker import Broker
from app.rules import get_ruleset
from app.services import gm
from app.services.errors import NotFound
from app.services.matches import MatchService, entry_for, match_view, seat_of
from app.services.records import Update, load_record


@dataclass(eq=False)
class Viewer:
    """One websocket: one browser tab (or bot) watching one match."""

    websocket: WebSocket
    match_id: str
    player: Player | None
    version: int = -1
    """The last version this viewer was sent."""
    send_lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def player_id(self) -> str | None:
        return self.player.id if self.player else None

    async def send(self, message: dict[str, Any]) -> bool:
        async with self.send_lock:
            return await self.write(message)

    async def write(self, message: dict[str, Any]) -> bool:
        """Send without taking ``send_lock``: for a caller that already holds it."""
        try:
            await self.websocket.send_text(json_text(message))
            return True
        except Exception:  # a closed or broken socket: the reader side cleans up
            return False


class Hub:
    def __init__(self, sessionmaker: async_sessionmaker[AsyncSession], broker: Broker) -> None:
        self.sessionmaker = sessionmaker
        self.broker = broker
        self.rooms: dict[str, set[Viewer]] = defaultdict(set)
        self.locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.hints: dict[str, Update] = {}
        """The last update written by this process, per match: its viewers' messages
        are built from it instead of reading the match back from the database."""

    async def start(self) -> None:
        await self.broker.start(self.deliver)

    async def stop(self) -> None:
        await self.broker.stop()
        for viewers in self.rooms.values():
            for viewer in viewers:
                with contextlib.suppress(Exception):
                    await viewer.websocket.close(code=1001)

    async def publish(self, match_id: str, version: int, hint: Any = None) -> None:
        if isinstance(hint, Update) and hint.version == version and match_id in self.rooms:
            self.hints[match_id] = hint
        await self.broker.publish(match_id, version)

    async def snapshot(self, viewer: Viewer, since: int | None = None) -> None:
        """Send ``viewer`` the whole match and start sending it updates."""
        async with self.locks[viewer.match_id], self.sessionmaker() as session:
            service = MatchService(session)
            match = await service.get(viewer.match_id)
            message = {"type": "snapshot", **(await service.view(match, viewer.player))}
            if since is not None and since < match.version:
                seat = seat_of(match, viewer.player_id)
                message["missed"] = await service.entries(match, seat, after=since, limit=200)
            viewer.version = match.version
            self.rooms[viewer.match_id].add(viewer)
        await viewer.send(message)

    def leave(self, viewer: Viewer) -> None:
        room = self.rooms.get(viewer.match_id)
        if room is not None:
            room.discard(viewer)
            if not room:
                del self.rooms[viewer.match_id]
                self.locks.pop(viewer.match_id, None)
                self.hints.pop(viewer.match_id, None)

    async def deliver(self, match_id: str, version: int) -> None:
        """The broker says ``match_id`` reached ``version``: update its viewers here."""
        hint = self.hints.get(match_id)
        if hint is not None and hint.version <= version:
            del self.hints[match_id]
        if not any(v.version < version for v in self.rooms.get(match_id, ())):
            return
        async with self.locks[match_id]:
            behind = [v for v in self.rooms.get(match_id, ()) if v.version < version]
            if not behind:
                return
            if (
                hint is not None
                and hint.version == version
                and all(v.version == version - 1 for v in behind)
                and not (gm.is_gm_run(hint.match) and any(v.player_id == hint.match.host_id for v in behind))
            ):
                # This process wrote it: everything the messages need is in hand (but
                # for a GM's, whose controls are read from the log).
                match, ruleset = hint.match, get_ruleset(hint.match.ruleset)
                finished = match.status == "finished"
                messages = [
                    (
                        viewer,
                        self._update(
                            match_view(match, viewer.player, hint.state),
                            [entry_for(ruleset, hint.entry, seat_of(match, viewer.player_id), finished)],
                        ),
                    )
                    for viewer in behind
                ]
                for viewer in behind:
                    viewer.version = version
            else:
                messages = await self._read_updates(match_id, behind)
        await asyncio.gather(*(viewer.send(message) for viewer, message in messages))

    @staticmethod
    def _update(view: dict[str, Any], entries: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "type": "update",
            **view,
            "events": [event for e in entries for event in e["events"]],
            "entries": entries,
        }

    async def _read_updates(self, match_id: str, behind: list[Viewer]) -> list[tuple[Viewer, dict[str, Any]]]:
        """Each viewer's update, read from the database (the match and the entries it missed)."""
        async with self.sessionmaker() as session:
            service = MatchService(session)
            try:
                match = await load_record(await session.connection(), match_id)
            except NotFound:
                return []
            entries = await service.all_entries(match, after=min(v.version for v in behind))
            ruleset = get_ruleset(match.ruleset)
            state = ruleset.load_state(match.state) if match.state else None
            finished = match.status == "finished"
            messages = []
            for viewer in behind:
                seat = seat_of(match, viewer.player_id)
                new = [
                    entry_for(ruleset, e, seat, finished) for e in entries if e["version"] > viewer.version
                ]
                messages.append((viewer, self._update(await service.view(match, viewer.player, state), new)))
                viewer.version = match.version
        return messages
