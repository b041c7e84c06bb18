"""The hot path's plain records: a match with its seats and players read in one
SQLAlchemy Core query (no ORM), the statements that write an action, and this
process's copy of recently played matches."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.orm import aliased

from app.models import LogEntry, Match, Player, Seat
from app.services.errors import NotFound

MATCHES = Match.__table__
SEATS = Seat.__table__
PLAYERS = Player.__table__
MATCH_LOG = LogEntry.__table__


@dataclass
class PlayerRecord:
    id: str
    name: str


@dataclass
class SeatRecord:
    seat: int
    player_id: str | None
    player: PlayerRecord | None
    npc: bool = False


@dataclass
class MatchRecord:
    """A match row with its seats and players: what :func:`match_view` reads of a
    :class:`Match`, loaded in one query."""

    seq: int
    id: str
    ruleset: str
    options: dict[str, Any]
    status: str
    version: int
    host_id: str
    host: PlayerRecord
    seed: str
    seed_sha256: str
    dice_count: int
    state: dict[str, Any] | None
    result: dict[str, Any] | None
    paused: bool
    created_at: datetime
    updated_at: datetime
    seats: list[SeatRecord]


@dataclass
class Update:
    """A just-committed action, as the writer has it: the hint passed to ``publish``."""

    match: MatchRecord
    state: Any
    """The new state, loaded (the ruleset's state object)."""
    entry: dict[str, Any]
    """The log entry as ``GET …/events`` shows it."""

    @property
    def version(self) -> int:
        return self.match.version


HOST = aliased(PLAYERS)
RECORD_QUERY = (
    select(
        *(MATCHES.c[name] for name in MatchRecord.__dataclass_fields__ if name in MATCHES.c),
        SEATS.c.seat.label("seat_number"),
        SEATS.c.player_id.label("seat_player_id"),
        SEATS.c.npc.label("seat_npc"),
        PLAYERS.c.name.label("seat_player_name"),
        HOST.c.name.label("host_name"),
    )
    .select_from(
        MATCHES.join(SEATS, SEATS.c.match_seq == MATCHES.c.seq)
        .outerjoin(PLAYERS, PLAYERS.c.id == SEATS.c.player_id)
        .join(HOST, HOST.c.id == MATCHES.c.host_id)
    )
    .where(MATCHES.c.id == bindparam("match_id"))
    .order_by(SEATS.c.seat)
)
# Built once: the statements of every action differ only in their parameters.
WRITE_MATCH = (
    update(MATCHES)
    .where(MATCHES.c.seq == bindparam("b_seq"), MATCHES.c.version == bindparam("b_version"))
    .values(
        version=bindparam("version"),
        state=bindparam("state"),
        dice_count=bindparam("dice_count"),
        status=bindparam("status"),
        result=bindparam("result"),
        updated_at=bindparam("updated_at"),
    )
)
APPEND_LOG = insert(MATCH_LOG)
# One statement writes an action on PostgreSQL: the guarded UPDATE of the match feeds
# the INSERT of its log entry, so a lost race inserts nothing. Sent straight through
# asyncpg (prepared once per connection): this is every action's only round trip.
WRITE_ACTION_PG = """
    WITH written AS (
        UPDATE matches
        SET version = $1, state = $2::json, dice_count = $3, status = $4, result = $5::json,
            updated_at = $6
        WHERE seq = $7 AND version = $8
        RETURNING seq
    )
    INSERT INTO match_log (match_seq, version, seat, action, events, "at", dice_from)
    SELECT seq, $1, $9, $10::json, $11::json, $6, $12 FROM written
"""
RECORD_FIELDS = [name for name in MatchRecord.__dataclass_fields__ if name in MATCHES.c]
ENTRIES_QUERY = (
    select(*(MATCH_LOG.c[name] for name in ("version", "seat", "action", "events", "at", "dice_from")))
    .where(MATCH_LOG.c.match_seq == bindparam("seq"), MATCH_LOG.c.version > bindparam("after"))
    .order_by(MATCH_LOG.c.version)
    .limit(bindparam("limit"))
)


async def load_record(connection: AsyncConnection, match_id: str) -> MatchRecord:
    """The match with its seats and players, in one query."""
    rows = (await connection.execute(RECORD_QUERY, {"match_id": match_id})).all()
    if not rows:
        raise NotFound(f"no match with id {match_id!r}")
    first = rows[0]
    return MatchRecord(
        **{name: getattr(first, name) for name in RECORD_FIELDS},
        host=PlayerRecord(first.host_id, first.host_name),
        seats=[
            SeatRecord(
                row.seat_number,
                row.seat_player_id,
                None
                if row.seat_player_id is None
                else PlayerRecord(row.seat_player_id, row.seat_player_name),
                row.seat_npc,
            )
            for row in rows
        ],
    )


class RecentMatches:
    """This process's last committed record and state of the matches it played lately.

    Only ever a shortcut: the write of an action is guarded by the version it was
    checked at, so an entry that went stale (another process moved the match on)
    makes that write fail, and the service then answers from the database. A hit
    saves reading the match and decoding its state on every action.
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._entries: OrderedDict[str, tuple[MatchRecord, Any]] = OrderedDict()

    def get(self, match_id: str, version: int) -> tuple[MatchRecord, Any] | None:
        hit = self._entries.get(match_id)
        if hit is None or hit[0].version != version:
            return None
        self._entries.move_to_end(match_id)
        return hit

    def put(self, record: MatchRecord, state: Any) -> None:
        self._entries[record.id] = (record, state)
        self._entries.move_to_end(record.id)
        if len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def forget(self, match_id: str) -> None:
        self._entries.pop(match_id, None)
