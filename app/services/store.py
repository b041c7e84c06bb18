"""Where matches are kept: one small interface, a PostgreSQL and a SQLite implementation.

The match service reads a match as one :class:`MatchRecord` and changes it only by
:meth:`Store.append`: the new record and its log entries, written together and
guarded by the version the change was decided at. A writer that lost the race
writes nothing and gets ``False``. Nothing above this module knows which database
it talks to.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import orjson
from sqlalchemy import Executable, bindparam, delete, exists, func, insert, or_, select, tuple_, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.orm import aliased

from app.db import json_text
from app.models import (
    EmailSent,
    LeagueGame,
    LogEntry,
    Match,
    MatchWatcher,
    Outbox,
    Player,
    PlayerRating,
    PushSubscription,
    RatingHistory,
    Seat,
    VapidKey,
)
from app.ratings import RatedSeat, Rating, settle
from app.rules.dice import SCHEME_V1
from app.rules.log import Entry
from app.services.errors import NotFound, Unavailable

MATCHES = Match.__table__
SEATS = Seat.__table__
PLAYERS = Player.__table__
MATCH_LOG = LogEntry.__table__
OUTBOX = Outbox.__table__
EMAIL_SENT = EmailSent.__table__
RATINGS = PlayerRating.__table__
RATING_HISTORY = RatingHistory.__table__
PUSH_SUBSCRIPTIONS = PushSubscription.__table__
VAPID_KEYS = VapidKey.__table__
LEAGUE_GAMES = LeagueGame.__table__
WATCHERS = MatchWatcher.__table__


@dataclass(frozen=True)
class PlayerRecord:
    id: str
    name: str
    channels: tuple[str, ...] = field(default=(), compare=False)
    """How the player hears of their turns (``webhook``, ``email``, ``push``): read with the match."""


@dataclass(frozen=True)
class SeatRecord:
    seat: int
    player: PlayerRecord | None = None
    npc: bool = False
    """The host (a GM) plays this seat as an NPC; its player, if any, watches."""
    bot: str | None = None
    """bots (issue 9): the id of the bot whose player holds this seat."""
    seed: str | None = None
    """The seat's own dice seed (hex): sent by its player, or drawn by the server."""

    @property
    def player_id(self) -> str | None:
        return self.player.id if self.player else None


@dataclass(frozen=True)
class MatchRecord:
    """A match with its seats and players: everything a change or a view reads."""

    id: str
    ruleset: str
    options: dict[str, Any]
    status: str
    version: int
    host: PlayerRecord
    seed: str
    seed_sha256: str
    dice_count: int
    state: dict[str, Any] | None
    result: dict[str, Any] | None
    paused: bool
    created_at: datetime
    updated_at: datetime
    seats: tuple[SeatRecord, ...]
    seq: int = 0
    """The database's number for the match (0 until it is first written)."""
    turn_since: datetime | None = None
    """When the clock of the decision under way started (``app/services/clock.py``)."""
    paused_at: datetime | None = None
    dice_scheme: str = SCHEME_V1
    """``hmac-sha256-v2`` mixes every seat's seed into the dice; v1 (older matches) does not."""
    rematch_state: str | None = None
    """After the end: a rematch ``offered`` by seat ``rematch_by``, ``accepted`` (the
    new match is ``rematch_id``) or ``declined``. Not part of the game: no log entry."""
    rematch_by: int | None = None
    rematch_id: str | None = None
    rematch_at: datetime | None = None
    """When the rematch was offered (an offer left unanswered expires)."""
    rated: bool = False
    """Chosen at creation: its result changes the players' ratings (``app/ratings.py``)."""
    rating_changes: list[dict[str, Any]] | None = None
    """Once a rated match has been rated: each seat's rating before and after."""
    league_id: str | None = None
    """The league (issue 32) whose game this is: the write that finishes it records the
    game's result (:meth:`Store.append`)."""
    loaded: Any = field(default=None, compare=False, repr=False)
    """The ruleset's state object for ``state``, when the writer has it in hand."""

    @property
    def host_id(self) -> str:
        return self.host.id

    @property
    def player_seeds(self) -> list[str | None]:
        """Every seat's seed, in seat order (``None`` while a seat has none)."""
        return [s.seed for s in self.seats]

    @property
    def dice_seeds(self) -> list[str] | None:
        """The seats' seeds as the dice use them: ``None`` for a v1 match."""
        if self.dice_scheme == SCHEME_V1:
            return None
        return [s.seed or "" for s in self.seats]


@dataclass(frozen=True)
class Notice:
    """A notification owed to a player, written with the change that owes it."""

    player_id: str
    channel: str
    event: str
    match_id: str
    ruleset: str
    version: int
    text: str


@dataclass(frozen=True)
class RatingUpdate:
    """The ratings a rated match's end changes: computed in the transaction that
    finishes the match, from the ratings stored then (``app/ratings.py``)."""

    ruleset: str
    seats: tuple[RatedSeat, ...]
    at: datetime


@dataclass(frozen=True)
class Committed:
    """A change just written: the match went from version ``before`` to ``after``
    through ``entries``. The writer hands it to its own process's viewers."""

    before: int
    after: MatchRecord
    entries: list[Entry]
    notices: tuple[Notice, ...] = ()
    started: float | None = None
    """An action's: when it reached the match service (``time.perf_counter``), for its
    latency (``dejarik_action_seconds``); ``None`` for joins and creations."""


def aware(moment: datetime | None) -> datetime | None:
    """SQLite gives back naive datetimes: every time the store returns is UTC-aware."""
    return moment if moment is None or moment.tzinfo is not None else moment.replace(tzinfo=UTC)


MATCH_COLUMNS = (
    "seq", "id", "ruleset", "options", "status", "version", "seed", "seed_sha256",
    "dice_count", "state", "result", "paused", "created_at", "updated_at", "turn_since", "paused_at",
    "dice_scheme", "rematch_state", "rematch_by", "rematch_id", "rematch_at", "rated", "rating_changes",
    "league_id",
)  # fmt: skip
TIMES = ("created_at", "updated_at", "turn_since", "paused_at", "rematch_at")
HOST = aliased(PLAYERS)
SEAT_PLAYER = aliased(PLAYERS)
RECORDS_QUERY = (
    select(
        *(MATCHES.c[name] for name in MATCH_COLUMNS),
        MATCHES.c.host_id,
        HOST.c.name.label("host_name"),
        SEATS.c.seat.label("seat_number"),
        SEATS.c.player_id.label("seat_player_id"),
        SEATS.c.npc.label("seat_npc"),
        SEATS.c.bot.label("seat_bot"),  # bots (issue 9)
        SEATS.c.seed.label("seat_seed"),
        SEAT_PLAYER.c.name.label("seat_player_name"),
        SEAT_PLAYER.c.webhook_url.label("seat_player_webhook"),
        SEAT_PLAYER.c.email.label("seat_player_email"),
        exists()
        .where(PUSH_SUBSCRIPTIONS.c.player_id == SEATS.c.player_id)
        .label("seat_player_push"),  # Web Push (issue 33): some browser of theirs subscribed
    )
    .select_from(
        MATCHES.join(SEATS, SEATS.c.match_seq == MATCHES.c.seq)
        .outerjoin(SEAT_PLAYER, SEAT_PLAYER.c.id == SEATS.c.player_id)
        .join(HOST, HOST.c.id == MATCHES.c.host_id)
    )
    .order_by(MATCHES.c.seq.desc(), SEATS.c.seat)
)
RECORD_QUERY = RECORDS_QUERY.where(MATCHES.c.id == bindparam("match_id"))
ENTRY_COLUMNS = ("version", "seat", "action", "events", "at", "dice_from")
ENTRIES_QUERY = (
    select(*(MATCH_LOG.c[name] for name in ENTRY_COLUMNS))
    .where(
        MATCH_LOG.c.match_seq == bindparam("seq"),
        MATCH_LOG.c.version > bindparam("after"),
        MATCH_LOG.c.version <= bindparam("upto"),
    )
    .order_by(MATCH_LOG.c.version)
    .limit(bindparam("limit"))
)
MATCH_CHANGES = (
    "version", "options", "state", "dice_count", "status", "result", "paused", "updated_at",
    "turn_since", "paused_at",
)  # fmt: skip
WRITE_MATCH = (
    update(MATCHES)
    .where(MATCHES.c.seq == bindparam("b_seq"), MATCHES.c.version == bindparam("b_version"))
    .values({name: bindparam(name) for name in MATCH_CHANGES})
)
WRITE_SEAT = (
    update(SEATS)
    .where(SEATS.c.match_seq == bindparam("b_seq"), SEATS.c.seat == bindparam("b_seat"))
    .values(
        player_id=bindparam("player_id"), npc=bindparam("npc"), bot=bindparam("bot"), seed=bindparam("seed")
    )
)
APPEND_LOG = insert(MATCH_LOG)
APPEND_OUTBOX = insert(OUTBOX)
# An action that changes no seat is written in one statement on PostgreSQL: the
# guarded UPDATE of the match feeds the INSERT of its log entry, so a lost race
# inserts nothing. Sent straight through asyncpg: every move's only round trip.
WRITE_MOVE_PG = """
    WITH written AS (
        UPDATE matches
        SET version = $1, state = $2::json, dice_count = $3, status = $4, result = $5::json,
            updated_at = $6, options = $7::json, paused = $8, turn_since = $15, paused_at = $16
        WHERE seq = $9 AND version = $10
        RETURNING seq
    )
    INSERT INTO match_log (match_seq, version, seat, action, events, "at", dice_from)
    SELECT seq, $1, $11, $12::json, $13::json, $6, $14 FROM written
"""
INT_MAX = 2**31 - 1


def records_from(rows: list[Mapping[str, Any]]) -> list[MatchRecord]:
    """Rows of :data:`RECORDS_QUERY` (a match's seats in a run) as records."""
    records: list[MatchRecord] = []
    seats: list[SeatRecord] = []
    for i, row in enumerate(rows):
        player_id = row["seat_player_id"]
        player = None
        if player_id is not None:
            channels = channels_of(
                row["seat_player_webhook"], row["seat_player_email"], row["seat_player_push"]
            )
            player = PlayerRecord(player_id, row["seat_player_name"], channels)
        seats.append(
            SeatRecord(row["seat_number"], player, row["seat_npc"], row["seat_bot"], row["seat_seed"])
        )
        if i + 1 == len(rows) or rows[i + 1]["seq"] != row["seq"]:
            values = {name: row[name] for name in MATCH_COLUMNS}
            values.update({name: aware(row[name]) for name in TIMES})
            host = PlayerRecord(row["host_id"], row["host_name"])
            records.append(MatchRecord(**values, host=host, seats=tuple(seats)))
            seats = []
    return records


def _rating_columns(rating: Rating) -> dict[str, Any]:
    return {
        "rating": rating.rating,
        "rd": rating.rd,
        "volatility": rating.volatility,
        "games": rating.games,
        "updated_at": rating.last_rated_at,
    }


def _rating_of(row: Any) -> Rating:
    return Rating(row.rating, row.rd, row.volatility, row.games, aware(row.updated_at))


def channels_of(webhook_url: str | None, email: str | None, push: bool = False) -> tuple[str, ...]:
    return (
        *(("webhook",) if webhook_url else ()),
        *(("email",) if email else ()),
        *(("push",) if push else ()),
    )


def entry_from(row: Mapping[str, Any]) -> Entry:
    return Entry(
        row["version"], row["seat"], row["action"], row["events"], aware(row["at"]), row["dice_from"]
    )


def finishes_league_game(before: MatchRecord, after: MatchRecord) -> bool:
    return after.league_id is not None and after.status == "finished" and before.status != "finished"


async def record_league_result(connection: Any, match: MatchRecord) -> None:
    """Inside the write that finishes a league's match: its game's result, written once
    (the match's guarded write has one winner; a game the host adjudicated first keeps
    that result). Issue 32, ``app/services/leagues.py``."""
    winner = (match.result or {}).get("winner")
    result = "½-½" if winner is None else "1-0" if winner == 0 else "0-1"
    await connection.execute(
        update(LEAGUE_GAMES)
        .where(LEAGUE_GAMES.c.match_id == match.id, LEAGUE_GAMES.c.result.is_(None))
        .values(result=result, finished_at=match.updated_at)
    )


def match_values(record: MatchRecord) -> dict[str, Any]:
    return {name: getattr(record, name) for name in MATCH_CHANGES}


def entry_values(seq: int, entry: Entry) -> dict[str, Any]:
    return {"match_seq": seq, **{name: getattr(entry, name) for name in ENTRY_COLUMNS}}


def outbox_values(notice: Notice, at: datetime) -> dict[str, Any]:
    return {**notice.__dict__, "created_at": at, "next_at": at, "attempts": 0}


class Store:
    """Matches in one database; ``append`` is the only write of an existing match."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def close(self) -> None:
        """Let go of whatever the store holds beyond the engine's own pool."""

    # --- reading -----------------------------------------------------------------

    async def load(self, match_id: str) -> MatchRecord:
        rows = await self._rows(RECORD_QUERY, {"match_id": match_id})
        if not rows:
            raise NotFound(f"no match with id {match_id!r}")
        return records_from(rows)[0]

    async def load_with_entries(
        self, match_id: str, after: int | None, limit: int = 1000
    ) -> tuple[MatchRecord, list[Entry]]:
        """The match and its entries after ``after`` (``None``: none), up to the
        match's own version: never an entry the record does not yet count."""
        record = await self.load(match_id)
        if after is None or after >= record.version:
            return record, []
        return record, await self.entries(record, after, record.version, limit)

    async def entries(
        self, record: MatchRecord, after: int = 0, upto: int | None = None, limit: int = 1000
    ) -> list[Entry]:
        """Log entries after version ``after`` up to ``upto`` (default: the record's version)."""
        upto = record.version if upto is None else upto
        bounds = {"seq": record.seq, "after": max(after, -1), "upto": min(upto, INT_MAX), "limit": limit}
        return [entry_from(row) for row in await self._rows(ENTRIES_QUERY, bounds)]

    async def entry(self, record: MatchRecord, version: int) -> Entry | None:
        found = await self.entries(record, version - 1, version, 1)
        return found[0] if found else None

    async def page(
        self, player: str | None, ruleset: str | None, status: str | None, before_seq: int | None, limit: int
    ) -> list[MatchRecord]:
        """Matches newest first, filtered; ``before_seq`` continues a page."""
        query = select(MATCHES.c.seq).order_by(MATCHES.c.seq.desc()).limit(limit)
        if player:
            seated = exists().where(SEATS.c.match_seq == MATCHES.c.seq, SEATS.c.player_id == player)
            query = query.where(or_(MATCHES.c.host_id == player, seated))
        if ruleset:
            query = query.where(MATCHES.c.ruleset == ruleset)
        if status:
            query = query.where(MATCHES.c.status == status)
        if before_seq is not None:
            query = query.where(MATCHES.c.seq < before_seq)
        async with self.engine.connect() as connection:
            seqs = list((await connection.execute(query)).scalars())
            if not seqs:
                return []
            result = await connection.execute(RECORDS_QUERY.where(MATCHES.c.seq.in_(seqs)))
            return records_from([row._mapping for row in result])

    async def _rows(self, statement: Executable, params: dict[str, Any]) -> list[Mapping[str, Any]]:
        """The rows of one of this module's read statements."""
        async with self.engine.connect() as connection:
            return [row._mapping for row in await connection.execute(statement, params)]

    # --- writing -----------------------------------------------------------------

    async def insert(self, record: MatchRecord, entries: list[Entry]) -> MatchRecord:
        """A new match with its seats and first entries; returns it with its ``seq``."""
        async with self._writing(), self.engine.begin() as connection:
            seq = await self.insert_in(connection, record, entries)
        return replace(record, seq=seq)

    @staticmethod
    async def insert_in(connection: Any, record: MatchRecord, entries: list[Entry]) -> int:
        """:meth:`insert` inside the caller's transaction (a league's round); its ``seq``."""
        values = {name: getattr(record, name) for name in MATCH_COLUMNS if name != "seq"}
        result = await connection.execute(insert(MATCHES).values(**values, host_id=record.host_id))
        seq = result.inserted_primary_key[0]
        await connection.execute(
            insert(SEATS),
            [
                {
                    "match_seq": seq,
                    "seat": s.seat,
                    "player_id": s.player_id,
                    "npc": s.npc,
                    "bot": s.bot,
                    "seed": s.seed,
                }
                for s in record.seats
            ],
        )
        if entries:
            await connection.execute(APPEND_LOG, [entry_values(seq, e) for e in entries])
        return seq

    async def append(
        self,
        before: MatchRecord,
        after: MatchRecord,
        entries: list[Entry],
        notices: tuple[Notice, ...] = (),
        rating: RatingUpdate | None = None,
    ) -> bool:
        """Write ``after`` and its new log ``entries`` if the match is still at
        ``before.version``; ``False`` (nothing written) when another writer was first.
        The ``notices`` it owes go into the outbox in the same transaction, and so
        does the ``rating`` update of a rated match it finishes (so it happens once)."""
        changed_seats = [s for s, old in zip(after.seats, before.seats, strict=True) if s != old]
        try:
            async with self._writing(), self.engine.begin() as connection:
                written = await connection.execute(
                    WRITE_MATCH, {"b_seq": before.seq, "b_version": before.version, **match_values(after)}
                )
                if written.rowcount != 1:
                    await connection.rollback()
                    return False
                if changed_seats:
                    await connection.execute(
                        WRITE_SEAT,
                        [
                            {
                                "b_seq": before.seq,
                                "b_seat": s.seat,
                                "player_id": s.player_id,
                                "npc": s.npc,
                                "bot": s.bot,  # bots (issue 9)
                                "seed": s.seed,
                            }
                            for s in changed_seats
                        ],
                    )
                await connection.execute(APPEND_LOG, [entry_values(before.seq, e) for e in entries])
                if notices:
                    rows = [outbox_values(n, after.updated_at) for n in notices]
                    await connection.execute(APPEND_OUTBOX, rows)
                if rating is not None:
                    await self._rate(connection, after, rating)
                if finishes_league_game(before, after):
                    await record_league_result(connection, after)
        except IntegrityError:
            return False
        return True

    async def _rate(self, connection: Any, match: MatchRecord, update_: RatingUpdate) -> None:
        """Inside the write that finishes ``match``: read the people's ratings (locked
        until the commit, so two matches ending at once both count), update them, add
        a history row each, and keep each seat's change on the match."""
        people = sorted({s.player_id for s in update_.seats if s.bot_rating is None})
        if people:
            # Every row exists before it is locked; in player order, so two matches never wait on each other.
            new_rows = [
                {"player_id": p, "ruleset": update_.ruleset, **_rating_columns(Rating())} for p in people
            ]
            dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
            await connection.execute(dialect.insert(RATINGS).on_conflict_do_nothing(), new_rows)
        mine = (RATINGS.c.ruleset == update_.ruleset) & RATINGS.c.player_id.in_(people)
        rows = await connection.execute(
            select(RATINGS).where(mine).order_by(RATINGS.c.player_id).with_for_update()
        )
        stored = {row.player_id: _rating_of(row) for row in rows}
        new, changes = settle(update_.seats, stored, update_.at)
        for player_id, rated in new.items():
            where = (RATINGS.c.player_id == player_id) & (RATINGS.c.ruleset == update_.ruleset)
            await connection.execute(update(RATINGS).where(where).values(**_rating_columns(rated)))
        history = [
            {
                "match_id": match.id,
                "player_id": change["player"],
                "ruleset": update_.ruleset,
                "before": change["before"],
                "after": change["after"],
                "rd_after": new[change["player"]].rd,
                "at": update_.at,
            }
            for change in changes
            if change["player"] in new
        ]
        if history:
            await connection.execute(insert(RATING_HISTORY), history)
        await connection.execute(
            update(MATCHES).where(MATCHES.c.seq == match.seq).values(rating_changes=changes)
        )

    async def rating_changes(self, match: MatchRecord) -> list[dict[str, Any]] | None:
        """The changes the write that finished ``match`` made to its players' ratings."""
        query = select(MATCHES.c.rating_changes).where(MATCHES.c.seq == match.seq)
        async with self.engine.connect() as connection:
            return await connection.scalar(query)

    # --- the outbox and presence -------------------------------------------------

    async def claim_notices(
        self, now: datetime, lease_s: float, limit: int = 20, max_attempts: int | None = None
    ) -> list[dict[str, Any]]:
        """Due, undelivered outbox rows, each with its player's current addresses,
        leased to the caller for ``lease_s`` seconds (another notifier skips them
        until then; a notifier that dies lets its lease run out). A row tried
        ``max_attempts`` times already is never claimed: once its lease is out, it is
        given up (``outcome`` ``failed``)."""
        free = or_(OUTBOX.c.lease_until.is_(None), OUTBOX.c.lease_until < now)
        spent = OUTBOX.c.attempts >= max_attempts if max_attempts is not None else None
        due = (
            select(OUTBOX.c.id)
            .where(
                OUTBOX.c.done_at.is_(None),
                OUTBOX.c.next_at <= now,
                free,
                *([~spent] if spent is not None else []),
            )
            .order_by(OUTBOX.c.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        claim = (
            update(OUTBOX)
            .where(OUTBOX.c.id.in_(due))
            .values(lease_until=now + timedelta(seconds=lease_s), attempts=OUTBOX.c.attempts + 1)
            .returning(*OUTBOX.c)
        )
        async with self._writing(), self.engine.begin() as connection:
            if spent is not None:
                give_up = update(OUTBOX).where(OUTBOX.c.done_at.is_(None), free, spent)
                await connection.execute(give_up.values(done_at=now, outcome="failed", lease_until=None))
            rows = [dict(row._mapping) for row in await connection.execute(claim)]
            if not rows:
                return []
            players = {row["player_id"] for row in rows}
            found = await connection.execute(
                select(PLAYERS.c.id, PLAYERS.c.webhook_url, PLAYERS.c.email).where(PLAYERS.c.id.in_(players))
            )
            addresses = {p.id: {"webhook": p.webhook_url, "email": p.email} for p in found}
        for row in rows:
            row["address"] = addresses.get(row["player_id"], {}).get(row["channel"])
        return sorted(rows, key=lambda row: row["id"])

    async def outbox_backlog(self) -> tuple[int, datetime | None]:
        """How many outbox rows are still owed, and when the oldest of them was written."""
        query = select(func.count(), func.min(OUTBOX.c.created_at)).where(OUTBOX.c.done_at.is_(None))
        async with self.engine.connect() as connection:
            count, oldest = (await connection.execute(query)).one()
        return count, aware(oldest)

    def driver_connections_in_use(self) -> int | None:
        """Connections of the store's own pool in use (``None``: it has none of its own)."""
        return None

    async def settle_notice(self, notice_id: int, **values: Any) -> None:
        """Mark an outbox row done (``done_at``, ``outcome``) or due again (``next_at``)."""
        async with self._writing(), self.engine.begin() as connection:
            await connection.execute(
                update(OUTBOX).where(OUTBOX.c.id == notice_id).values(lease_until=None, **values)
            )

    async def reserve_email(
        self, row: Mapping[str, Any], token_hash: str, now: datetime, quiet_s: float, daily_max: int
    ) -> str | None:
        """Record the e-mail outbox ``row`` is about to send (its links' secret hashed
        as ``token_hash``), or say why it must not be sent: ``skipped`` (the player's
        address changed or is gone), ``unconfirmed`` (only a confirmation goes to a
        pending address, and none to a confirmed one), ``quiet``, ``daily_cap``, or
        ``unsure`` (an earlier try of this row was cut off while sending: it may have gone)."""
        async with self._writing(), self.engine.begin() as connection:
            whose = select(PLAYERS.c.email, PLAYERS.c.email_confirmed_at)
            whose = whose.where(PLAYERS.c.id == row["player_id"])
            player = (await connection.execute(whose)).first()
            if player is None or not player.email:
                return "skipped"
            confirmed = player.email_confirmed_at is not None
            if row["event"] == "confirm_email" and confirmed:
                return "skipped"
            if row["event"] != "confirm_email" and not confirmed:
                return "unconfirmed"
            address = player.email.lower()
            await self._lock_address(connection, address)
            tried = select(EMAIL_SENT.c.id).where(EMAIL_SENT.c.outbox_id == row["id"])
            if await connection.scalar(tried) is not None:
                return "unsure"  # an earlier try ran past its deadline: it may have gone out
            earlier = or_(EMAIL_SENT.c.outbox_id.is_(None), EMAIL_SENT.c.outbox_id != row["id"])
            if row["event"] in ("your_turn", "confirm_email") and quiet_s > 0:
                recent = await connection.scalar(
                    select(EMAIL_SENT.c.id).where(
                        EMAIL_SENT.c.address == address,
                        EMAIL_SENT.c.event == row["event"],
                        EMAIL_SENT.c.match_id == row["match_id"],
                        EMAIL_SENT.c.sent_at > now - timedelta(seconds=quiet_s),
                        earlier,
                    )
                )
                if recent is not None:
                    return "quiet"
            if daily_max > 0:
                today = await connection.scalar(
                    select(func.count()).where(
                        EMAIL_SENT.c.address == address,
                        EMAIL_SENT.c.sent_at > now - timedelta(days=1),
                        earlier,
                    )
                )
                if today >= daily_max:
                    return "daily_cap"
            await connection.execute(
                insert(EMAIL_SENT).values(
                    token_hash=token_hash,
                    player_id=row["player_id"],
                    address=address,
                    event=row["event"],
                    match_id=row["match_id"],
                    outbox_id=row["id"],
                    sent_at=now,
                )
            )
        return None

    async def release_email(self, token_hash: str) -> None:
        """The e-mail recorded as ``token_hash`` was not sent after all: it counts for nothing."""
        async with self._writing(), self.engine.begin() as connection:
            await connection.execute(delete(EMAIL_SENT).where(EMAIL_SENT.c.token_hash == token_hash))

    async def _lock_address(self, connection: Any, address: str) -> None:
        """Held until the transaction ends: the caps' count and insert are one step
        (SQLite's single writer already makes them so)."""

    async def push_subscriptions(self, player_id: str) -> list[dict[str, Any]]:
        """The player's Web Push subscriptions, read at delivery time."""
        query = select(PUSH_SUBSCRIPTIONS).where(PUSH_SUBSCRIPTIONS.c.player_id == player_id)
        async with self.engine.connect() as connection:
            return [
                dict(row._mapping)
                for row in await connection.execute(query.order_by(PUSH_SUBSCRIPTIONS.c.created_at))
            ]

    async def forget_push_subscription(self, subscription_id: str) -> None:
        """A push service said the subscription is gone (404 or 410)."""
        async with self._writing(), self.engine.begin() as connection:
            await connection.execute(
                delete(PUSH_SUBSCRIPTIONS).where(PUSH_SUBSCRIPTIONS.c.id == subscription_id)
            )

    async def vapid_private_pem(self, new_pem: str, now: datetime) -> str:
        """The server's VAPID private key: ``new_pem`` if none was stored yet, else the
        stored one. Processes starting together all insert-if-absent, then read the one
        that won, so every process signs with the same key."""
        async with self._writing(), self.engine.begin() as connection:
            dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
            row = {"id": 1, "private_pem": new_pem, "created_at": now}
            await connection.execute(dialect.insert(VAPID_KEYS).values(row).on_conflict_do_nothing())
            return await connection.scalar(select(VAPID_KEYS.c.private_pem).where(VAPID_KEYS.c.id == 1))

    async def seen(self, player_ids: set[str], now: datetime) -> None:
        """These players have a websocket open now (presence)."""
        if player_ids:
            async with self._writing(), self.engine.begin() as connection:
                await connection.execute(
                    update(PLAYERS).where(PLAYERS.c.id.in_(player_ids)).values(last_seen_at=now)
                )

    async def watching(
        self, pairs: set[tuple[str, str]], now: datetime, forget_before: datetime | None = None
    ) -> None:
        """These (player, match) pairs have a websocket open in this process now; rows
        last seen before ``forget_before`` go. The upsert takes its rows in one order
        and the delete skips rows another writer holds, so processes never deadlock."""
        if pairs:
            async with self._writing(), self.engine.begin() as connection:
                dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
                upsert = dialect.insert(WATCHERS)
                upsert = upsert.on_conflict_do_update(
                    index_elements=[WATCHERS.c.player_id, WATCHERS.c.match_id],
                    set_={"seen_at": upsert.excluded.seen_at},
                )
                rows = [{"player_id": p, "match_id": m, "seen_at": now} for p, m in sorted(pairs)]
                await connection.execute(upsert, rows)
        if forget_before is not None:
            key = tuple_(WATCHERS.c.player_id, WATCHERS.c.match_id)
            stale = (
                select(WATCHERS.c.player_id, WATCHERS.c.match_id)
                .where(WATCHERS.c.seen_at < forget_before)
                .with_for_update(skip_locked=True)  # SQLite: no such clause, one writer anyway
            )
            async with self._writing(), self.engine.begin() as connection:
                await connection.execute(delete(WATCHERS).where(key.in_(stale)))

    async def watched(self, player_id: str, match_id: str, since: datetime) -> bool:
        """Whether some process had ``player_id`` watching ``match_id`` at ``since`` or later."""
        query = select(
            exists().where(
                WATCHERS.c.player_id == player_id,
                WATCHERS.c.match_id == match_id,
                WATCHERS.c.seen_at >= since,
            )
        )
        async with self.engine.connect() as connection:
            return bool(await connection.scalar(query))

    async def last_seen(self, player_ids: set[str]) -> dict[str, datetime | None]:
        if not player_ids:
            return {}
        query = select(PLAYERS.c.id, PLAYERS.c.last_seen_at).where(PLAYERS.c.id.in_(player_ids))
        async with self.engine.connect() as connection:
            return {row.id: aware(row.last_seen_at) for row in await connection.execute(query)}

    async def set_rematch(
        self,
        record: MatchRecord,
        expected: str | None,
        state: str,
        by: int | None,
        new_id: str | None,
        at: datetime | None = None,
    ) -> bool:
        """Move the match's rematch from ``expected`` to ``state`` (offered ``at``; by
        default when it was); ``False`` (nothing written) when another answer got there first."""
        guard = MATCHES.c.rematch_state.is_(None) if expected is None else MATCHES.c.rematch_state == expected
        statement = (
            update(MATCHES)
            .where(MATCHES.c.seq == record.seq, guard)
            .values(rematch_state=state, rematch_by=by, rematch_id=new_id, rematch_at=at or record.rematch_at)
        )
        async with self._writing(), self.engine.begin() as connection:
            return (await connection.execute(statement)).rowcount == 1

    def _writing(self) -> Any:
        """A context held around every write (SQLite's writers take turns here)."""
        return contextlib.nullcontext()


class SQLiteStore(Store):
    """SQLite has one writer at a time, and a writer that finds the database locked
    polls for it with growing sleeps (up to 100 ms each). Taking turns on an asyncio
    lock in this process first means writers here never poll each other."""

    def __init__(self, engine: AsyncEngine) -> None:
        super().__init__(engine)
        self.lock = asyncio.Lock()

    def _writing(self) -> Any:
        return self.lock


class PostgresStore(Store):
    """Every move's reads and its write go straight to asyncpg, on a pool of the
    store's own, outside a transaction: no BEGIN and ROLLBACK round trips, and none
    of SQLAlchemy's per-statement work. Each reading is bounded by a record's
    version, and a move's write is a single statement, so none needs one."""

    async def _lock_address(self, connection: Any, address: str) -> None:
        await connection.execute(select(func.pg_advisory_xact_lock(func.hashtext(address))))

    def __init__(self, engine: AsyncEngine) -> None:
        super().__init__(engine)
        self._sql: dict[Executable, tuple[str, tuple[str, ...]]] = {}
        self._pool: asyncpg.Pool | None = None
        self._pool_lock = asyncio.Lock()

    async def _rows(self, statement: Executable, params: dict[str, Any]) -> list[Mapping[str, Any]]:
        if statement not in self._sql:
            compiled = statement.compile(dialect=self.engine.dialect)
            self._sql[statement] = (str(compiled), tuple(compiled.positiontup or ()))
        sql, names = self._sql[statement]
        async with self._driver() as connection:
            return await connection.fetch(sql, *(params[name] for name in names))

    async def append(
        self,
        before: MatchRecord,
        after: MatchRecord,
        entries: list[Entry],
        notices: tuple[Notice, ...] = (),
        rating: RatingUpdate | None = None,
    ) -> bool:
        if (
            len(entries) != 1
            or after.seats != before.seats
            or notices
            or rating is not None
            or finishes_league_game(before, after)
        ):
            return await super().append(before, after, entries, notices, rating)
        (entry,) = entries
        async with self._driver() as connection:
            try:
                status = await connection.execute(
                    WRITE_MOVE_PG,
                    *(after.version, json_text(after.state), after.dice_count, after.status),
                    *(json_text(after.result), after.updated_at, json_text(after.options), after.paused),
                    *(before.seq, before.version),
                    *(entry.seat, json_text(entry.action), json_text(entry.events), entry.dice_from),
                    *(after.turn_since, after.paused_at),
                )
            except asyncpg.UniqueViolationError:
                return False
        return status == "INSERT 0 1"

    def driver_connections_in_use(self) -> int | None:
        pool = self._pool
        return 0 if pool is None else pool.get_size() - pool.get_idle_size()

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    @contextlib.asynccontextmanager
    async def _driver(self) -> AsyncIterator[asyncpg.Connection]:
        """A connection of the store's pool. A connection PostgreSQL dropped (a
        restart) fails this once, as :class:`Unavailable`; the pool then starts
        afresh, so the retry finds new connections."""
        pool = await self._driver_pool()
        try:
            async with pool.acquire() as connection:
                yield connection
        except (
            OSError,
            asyncpg.InterfaceError,
            asyncpg.PostgresConnectionError,
            # a connection PostgreSQL dropped in the middle of a query: "another operation is in progress"
            asyncpg.InternalClientError,
        ) as error:
            await pool.expire_connections()
            raise Unavailable(
                "the database is unavailable right now; nothing was changed, please retry"
            ) from error

    async def _driver_pool(self) -> asyncpg.Pool:
        async with self._pool_lock:
            if self._pool is None:
                dsn = self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
                size = self.engine.pool.size()  # type: ignore[attr-defined]
                self._pool = await asyncpg.create_pool(
                    dsn, min_size=1, max_size=size, init=_json_codec, reset=_nothing_to_reset
                )
        return self._pool


async def _nothing_to_reset(connection: asyncpg.Connection) -> None:
    """The store never changes a session (no LISTEN, SET, advisory lock or cursor), so
    a released connection needs no reset query: a round trip saved on every release.
    asyncpg still rolls back a transaction left open before calling this."""


async def _json_codec(connection: asyncpg.Connection) -> None:
    await connection.set_type_codec(
        "json", encoder=lambda text: text, decoder=orjson.loads, schema="pg_catalog"
    )


_stores: weakref.WeakKeyDictionary[Any, Store] = weakref.WeakKeyDictionary()


def store_for(engine: AsyncEngine) -> Store:
    """The store of a database engine (one per engine, so SQLite's lock is shared)."""
    store = _stores.get(engine.sync_engine)
    if store is None:
        kind = PostgresStore if engine.dialect.name == "postgresql" else SQLiteStore
        store = _stores[engine.sync_engine] = kind(engine)
    return store
