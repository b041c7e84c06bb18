"""This process's websocket viewers, grouped by match: transport only.

What a viewer sees comes from :mod:`app.services.views`. When a match moves on,
the hub reads it once (the match and the entries its viewers missed, in one
consistent reading), renders each distinct view once — one per seat, one for
the GM, one for all spectators — encodes it once, and sends the same text to
every connection that sees it. Anonymous spectators cost no work of their own.
New connections at the current version get the same rendered text.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from fastapi import WebSocket

from app.db import json_text
from app.realtime.broker import Broker
from app.rules.log import Entry
from app.services import clock, views
from app.services.store import Committed, MatchRecord, PlayerRecord, Store

if TYPE_CHECKING:
    from app.metrics import Metrics

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Viewer:
    """One websocket: one browser tab (or bot) watching one match."""

    websocket: WebSocket
    match_id: str
    player: PlayerRecord | None
    version: int = -1
    """The last version this viewer was sent: it is never sent that version again."""
    send_lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def player_id(self) -> str | None:
        return self.player.id if self.player else None

    async def send(self, message: dict[str, Any] | str) -> bool:
        async with self.send_lock:
            return await self.write(message)

    async def write(self, message: dict[str, Any] | str) -> bool:
        """Send without taking ``send_lock``: for a caller that already holds it."""
        try:
            await self.websocket.send_text(message if isinstance(message, str) else json_text(message))
            return True
        except Exception:  # a closed or broken socket: the reader side cleans up
            return False


class Frames:
    """The messages of one version of a match, each distinct one rendered once."""

    def __init__(
        self,
        match: MatchRecord,
        entries: list[Entry],
        log: list[Entry] | None = None,
        now: clock.Now = clock.system_now,
        earlier: dict[int, Entry] | None = None,
        after: int | None = None,
    ) -> None:
        self.match = match
        self.entries = entries
        """The entries after the oldest version a receiver has."""
        self.after = after
        """``entries`` are every entry after this version (None: not known to be)."""
        self.earlier = earlier
        """Entries before those that a GM's undo among them names (its words name them)."""
        self.controls = views.controls(match, log) if log is not None else None
        self.rendered_at = now()
        """Claims on time are judged at this moment (the views are rendered lazily)."""
        self._bodies: dict[tuple[Any, ...], str] = {}
        self._messages: dict[tuple[Any, ...], str] = {}

    @property
    def version(self) -> int:
        return self.match.version

    def update(self, viewer: Viewer) -> str:
        return self._message("update", viewer, viewer.version)

    def snapshot(self, viewer: Viewer, since: int | None = None) -> str:
        return self._message("snapshot", viewer, since)

    def _message(self, kind: str, viewer: Viewer, since: int | None) -> str:
        seat = views.seat_of(self.match, viewer.player_id)
        gm = views.runs_table(self.match, viewer.player_id)
        key = (kind, seat, gm, since, viewer.player_id)
        message = self._messages.get(key)
        if message is None:
            body = self._body(kind, seat, gm, since)
            you = json_text(views.you(self.match, viewer.player))
            message = self._messages[key] = f'{{"you":{you},{body[1:]}'
        return message

    def _body(self, kind: str, seat: int | None, gm: bool, since: int | None) -> str:
        key = (kind, seat, gm, since)
        body = self._bodies.get(key)
        if body is None:
            controls = self.controls if gm else None
            message = {"type": kind, **views.body(self.match, seat, controls, now=self.rendered_at)}
            missed = [e for e in self.entries if since is not None and e.version > since]
            shown = views.entries_for(self.match, missed, seat, self.earlier, message["state"])
            if kind == "update":
                message["events"] = [event for e in shown for event in e["events"]]
                message["entries"] = shown
            elif since is not None and since < self.match.version:
                message["missed"] = shown
            body = self._bodies[key] = json_text(message)
        return body


class Hub:
    def __init__(
        self, store: Store, broker: Broker, now: clock.Now = clock.system_now, metrics: Metrics | None = None
    ) -> None:
        self.store = store
        self.broker = broker
        broker.on_say = self.tell
        self.now = now
        self.metrics = metrics
        """Counts the updates sent (``dejarik_updates_sent_total``) and the broker's lag."""
        if metrics is not None:
            broker.on_lag = metrics.broker_delivered
        self.rooms: dict[str, set[Viewer]] = defaultdict(set)
        self.locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._tasks: set[asyncio.Task[None]] = set()
        self.latest: dict[str, Frames] = {}
        """The frames of each watched match's newest version, for new connections."""

    async def start(self) -> None:
        await self.broker.start(self.deliver)

    async def stop(self) -> None:
        await self.broker.stop()
        for viewers in self.rooms.values():
            for viewer in viewers:
                with contextlib.suppress(Exception):
                    await viewer.websocket.close(code=1001)

    async def publish(self, match_id: str, version: int, committed: Committed | None = None) -> None:
        """Announce a commit to every process. This process's viewers are sent the
        committed change as the writer has it (no read back); the others read it."""
        if committed is not None and match_id in self.rooms:
            task = asyncio.create_task(self.deliver(match_id, version, committed))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        await self.broker.publish(match_id, version)

    def watched(self, match_id: str) -> bool:
        return match_id in self.rooms

    def viewer_count(self) -> int:
        """The websockets this process holds open (``dejarik_websockets``)."""
        return sum(len(room) for room in self.rooms.values())

    async def snapshot(self, viewer: Viewer, since: int | None = None) -> None:
        """Send ``viewer`` the whole match (and the entries after ``since``), and
        from then on every update."""
        match_id = viewer.match_id
        async with self.locks[match_id]:
            frames = self.latest.get(match_id)
            if frames is None or not self._serves(frames, viewer, since, self.now()):
                match, entries = await self.store.load_with_entries(match_id, since)
                earlier = await views.undone_entries(self.store, match, entries)
                whole = await self._log_for(match, [viewer])
                frames = Frames(match, entries, whole, self.now, earlier, after=since)
                if match_id not in self.latest or frames.version >= self.latest[match_id].version:
                    self.latest[match_id] = frames
            message = frames.snapshot(viewer, since)
            viewer.version = frames.version
            self.rooms[match_id].add(viewer)
        await viewer.send(message)

    async def broadcast(
        self, match_id: str, message: dict[str, Any], hidden_from: frozenset[str] = frozenset()
    ) -> None:
        """Send ``message`` (a chat line, news of a rematch) to every viewer of
        ``match_id`` on every process, except the players in ``hidden_from``."""
        await self.broker.say(match_id, message, hidden_from)

    async def tell(self, match_id: str, message: dict[str, Any], hidden_from: frozenset[str]) -> None:
        """A say from the broker: this process's viewers of ``match_id`` get it."""
        viewers = [v for v in self.rooms.get(match_id, ()) if v.player_id not in hidden_from]
        await asyncio.gather(*(viewer.send(message) for viewer in viewers))

    def leave(self, viewer: Viewer) -> None:
        room = self.rooms.get(viewer.match_id)
        if room is not None:
            room.discard(viewer)
            if not room:
                del self.rooms[viewer.match_id]
                self.locks.pop(viewer.match_id, None)
                self.latest.pop(viewer.match_id, None)

    async def deliver(self, match_id: str, version: int, committed: Committed | None = None) -> None:
        """``match_id`` reached ``version``: update its viewers here."""
        if not any(v.version < version for v in self.rooms.get(match_id, ())):
            return
        async with self.locks[match_id]:
            behind = [v for v in self.rooms.get(match_id, ()) if v.version < version]
            if not behind:
                return
            oldest = min(v.version for v in behind)
            if committed is not None and self._covers_all(committed, oldest, behind):
                frames = Frames(committed.after, committed.entries, now=self.now, after=committed.before)
            else:
                try:
                    match, entries = await self.store.load_with_entries(match_id, oldest)
                    earlier = await views.undone_entries(self.store, match, entries)
                except Exception:
                    log.exception(
                        "reading %s for its viewers failed; they resync on the next update", match_id
                    )
                    return
                whole = await self._log_for(match, behind)
                frames = Frames(match, entries, whole, self.now, earlier, after=oldest)
            self.latest[match_id] = frames
            sends = []
            for viewer in behind:
                if viewer.version < frames.version:
                    sends.append(viewer.send(frames.update(viewer)))
                    viewer.version = frames.version
        sent = await asyncio.gather(*sends)
        if self.metrics is not None:
            self.metrics.updates_sent.inc(sum(sent))

    async def _log_for(self, match: MatchRecord, viewers: list[Viewer]) -> list[Entry] | None:
        """The whole log, when one of ``viewers`` runs the table (its controls need it)."""
        if not any(views.runs_table(match, v.player_id) for v in viewers):
            return None
        return await self.store.entries(match) if match.status == "active" else []

    @staticmethod
    def _covers_all(committed: Committed, oldest: int, viewers: list[Viewer]) -> bool:
        """The committed change alone makes every viewer's update (none missed an
        earlier version; none runs the table, whose controls need the log; it undoes
        nothing, since an undo's words name the entry undone)."""
        gm = any(views.runs_table(committed.after, v.player_id) for v in viewers)
        undoes = bool(views.undone_versions_missing(committed.entries))
        return oldest >= committed.before and not gm and not undoes

    @staticmethod
    def _serves(frames: Frames, viewer: Viewer, since: int | None, now: datetime) -> bool:
        """``frames`` (this match's newest) can answer a new connection or a sync without
        a read: a repeated sync at an unchanged version (``since=-1`` too) is answered
        from the same frames."""
        if frames.controls is None and views.runs_table(frames.match, viewer.player_id):
            return False
        deadline = clock.deadline(frames.match)
        if deadline is not None and frames.rendered_at < deadline <= now:
            return False  # the time ran out since: the other seats may now claim the win
        if since is None or since >= frames.version:
            return True
        return frames.after is not None and frames.after <= since
