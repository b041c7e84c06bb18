"""The match service: the one place that changes a match (ARCHITECTURE §Properties 4).

It loads the match, checks seat, turn and version, asks the ruleset, appends the
log entry and the new cached state in one transaction, and publishes after the
commit. REST and websocket both call it; nothing else writes a match.
"""

from __future__ import annotations

import base64
import dataclasses
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import asyncpg
from pydantic import ValidationError
from sqlalchemy import exists, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession
from sqlalchemy.orm.exc import StaleDataError

from app.db import autocommit, json_text, write_lock
from app.models import LogEntry, Match, Player, Seat, utcnow
from app.rules import UnknownRuleset, get_ruleset
from app.rules.base import COMMON_ACTION_TYPES, Action, Event, IllegalAction, Ruleset
from app.rules.dice import Dice, commitment, new_seed
from app.services import gm
from app.services.errors import Conflict, Forbidden, Invalid, NotFound, ServiceError
from app.services.records import (
    APPEND_LOG,
    ENTRIES_QUERY,
    WRITE_ACTION_PG,
    WRITE_MATCH,
    MatchRecord,
    PlayerRecord,
    RecentMatches,
    Update,
    load_record,
)

STATUSES = ("waiting", "active", "finished")


class Publish(Protocol):
    """Announces that ``match_id`` reached ``version`` (after the commit).

    ``hint`` is what the writer already has in hand (an :class:`Update`), so that
    this process can build its viewers' messages without reading them back; other
    processes still get only ``{match, version}`` and read the database.
    """

    async def __call__(self, match_id: str, version: int, hint: Any = None) -> None: ...


async def _publish_nothing(match_id: str, version: int, hint: Any = None) -> None:
    return None


@dataclass
class Applied:
    version: int
    events: list[Event]


def describe_validation(error: ValidationError, prefix: str = "") -> str:
    """``options.turns_without_kill: Input should be ...; …`` — every failing field named."""
    parts = []
    for problem in error.errors():
        where = ".".join(str(p) for p in (prefix, *problem["loc"]) if p != "")
        parts.append(f"{where}: {problem['msg']}" if where else problem["msg"])
    return "; ".join(parts)


def seat_of(match: Match | MatchRecord, player_id: str | None) -> int | None:
    """The seat ``player_id`` plays: their own, or, for a GM host, the NPC seat it holds.

    The player of a seat the GM holds as an NPC watches until it is handed back.
    """
    if player_id is None:
        return None
    for seat in match.seats:
        if seat.npc:
            if player_id == match.host_id:
                return seat.seat
        elif seat.player_id == player_id:
            return seat.seat
    return None


def entry_for(ruleset: Ruleset, entry: dict[str, Any], seat: int | None, finished: bool) -> dict[str, Any]:
    """A log entry as ``seat`` may see it: another seat's private choices (an eote
    setting) show as ``{"type": "hidden"}`` until the match is over."""
    if finished:
        return entry
    if entry["seat"] is None:  # a GM's undo names the undone action: hidden likewise
        return {**entry, "events": [_undone_for(ruleset, e, seat) for e in entry["events"]]}
    if entry["seat"] == seat:
        return entry
    if entry["action"].get("type") in ruleset.private_actions:
        return {**entry, "action": {"type": "hidden"}}
    return entry


def _undone_for(ruleset: Ruleset, event: dict[str, Any], seat: int | None) -> dict[str, Any]:
    if event.get("type") != "undone" or event.get("seat") == seat:
        return event
    if (event.get("action") or {}).get("type") in ruleset.private_actions:
        return {**event, "action": {"type": "hidden"}}
    return event


def player_json(player: Player | PlayerRecord | None) -> dict[str, str] | None:
    return None if player is None else {"id": player.id, "name": player.name}


def match_view(
    match: Match | MatchRecord, viewer: Player | None, state: Any = None, controls: list[Action] | None = None
) -> dict[str, Any]:
    """The match as ``viewer`` may see it (``None``: an anonymous spectator).

    ``controls`` are the GM's own legal actions, for the host of a GM-run match.
    """
    ruleset = get_ruleset(match.ruleset)
    seat = seat_of(match, viewer.id if viewer else None)
    if state is None and match.state is not None:
        state = ruleset.load_state(match.state)
    active = match.status == "active"
    return {
        "id": match.id,
        "ruleset": match.ruleset,
        "options": match.options,
        "status": match.status,
        "version": match.version,
        "seats": [
            {"seat": s.seat, "name": ruleset.seat_name(s.seat), "player": player_json(s.player), "npc": s.npc}
            for s in match.seats
        ],
        "host": player_json(match.host),
        "you": {
            "player": player_json(viewer),
            "seat": seat,
            "host": viewer is not None and viewer.id == match.host_id,
            "gm": viewer is not None and viewer.id == match.host_id and gm.is_gm_run(match),
        },
        "to_act": ruleset.to_act(state) if active and state is not None else [],
        "state": ruleset.view(state, seat) if state is not None else {},
        "legal_actions": (
            ruleset.legal_actions(state, seat)
            if active and not match.paused and seat is not None and state is not None
            else []
        )
        + (controls or []),
        "result": match.result,
        "paused": match.paused,
        "seed_sha256": match.seed_sha256,
        "seed": match.seed if match.status == "finished" else None,
        "created_at": match.created_at.isoformat(),
        "updated_at": match.updated_at.isoformat(),
    }


class MatchService:
    def __init__(
        self, session: AsyncSession, publish: Publish = _publish_nothing, recent: RecentMatches | None = None
    ) -> None:
        self.session = session
        self.publish = publish
        self.recent = recent

    # --- reading -----------------------------------------------------------------

    async def get(self, match_id: str) -> Match:
        match = await self.session.scalar(select(Match).where(Match.id == match_id))
        if match is None:
            raise NotFound(f"no match with id {match_id!r}")
        return match

    async def view(
        self, match: Match | MatchRecord, viewer: Player | None, state: Any = None
    ) -> dict[str, Any]:
        """The match as ``viewer`` may see it (``None``: an anonymous spectator),
        with the GM's controls when the viewer is the host of a GM-run match."""
        return match_view(match, viewer, state, await self.controls(match, viewer))

    async def controls(self, match: Match | MatchRecord, viewer: Player | None) -> list[Action] | None:
        if viewer is None or viewer.id != match.host_id or not gm.is_gm_run(match):
            return None
        undoable = gm.undoable_version(await self._log_rows(match)) if match.status == "active" else None
        return gm.host_actions(match, get_ruleset(match.ruleset), undoable)

    async def log(
        self, match_id: str, viewer: Player | None = None, after: int = 0, limit: int = 1000
    ) -> list[dict[str, Any]]:
        match = await self.get(match_id)
        return await self.entries(match, seat_of(match, viewer.id if viewer else None), after, limit)

    async def entries(
        self, match: Match | MatchRecord, seat: int | None, after: int = 0, limit: int = 1000
    ) -> list[dict[str, Any]]:
        """Log entries after version ``after``, as ``seat`` may see them."""
        ruleset, finished = get_ruleset(match.ruleset), match.status == "finished"
        return [entry_for(ruleset, e, seat, finished) for e in await self.all_entries(match, after, limit)]

    async def all_entries(
        self, match: Match | MatchRecord, after: int = 0, limit: int = 1000
    ) -> list[dict[str, Any]]:
        """Log entries after version ``after``, unredacted: pass each through
        :func:`entry_for` before a viewer sees it."""
        rows = await self.session.execute(ENTRIES_QUERY, {"seq": match.seq, "after": after, "limit": limit})
        return [entry_json(row) for row in rows]

    async def _log_rows(self, match: Match | MatchRecord) -> list[LogEntry]:
        rows = await self.session.scalars(
            select(LogEntry).where(LogEntry.match_seq == match.seq).order_by(LogEntry.version)
        )
        return list(rows)

    async def history(
        self,
        player: str | None = None,
        ruleset: str | None = None,
        status: str | None = None,
        limit: int = 20,
        cursor: str | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of match summaries, newest first, and the cursor of the next page."""
        query = select(Match).order_by(Match.seq.desc()).limit(limit + 1)
        if player:
            seated = exists().where(Seat.match_seq == Match.seq, Seat.player_id == player)
            query = query.where(or_(Match.host_id == player, seated))
        if ruleset:
            query = query.where(Match.ruleset == ruleset)
        if status:
            if status not in STATUSES:
                raise Invalid(f"status: must be one of {', '.join(STATUSES)}")
            query = query.where(Match.status == status)
        if cursor:
            query = query.where(Match.seq < decode_cursor(cursor))
        matches = list(await self.session.scalars(query))
        page = matches[:limit]
        next_cursor = encode_cursor(page[-1].seq) if len(matches) > limit else None
        return [self.summary(m) for m in page], next_cursor

    def summary(self, match: Match) -> dict[str, Any]:
        ruleset = get_ruleset(match.ruleset)
        return {
            "id": match.id,
            "ruleset": match.ruleset,
            "status": match.status,
            "version": match.version,
            "seats": [
                {"seat": s.seat, "name": ruleset.seat_name(s.seat), "player": player_json(s.player)}
                for s in match.seats
            ],
            "host": player_json(match.host),
            "to_act": (
                ruleset.to_act(ruleset.load_state(match.state))
                if match.status == "active" and match.state
                else []
            ),
            "result": match.result,
            "created_at": match.created_at.isoformat(),
            "updated_at": match.updated_at.isoformat(),
        }

    # --- changing ----------------------------------------------------------------

    async def create(
        self, host: Player, ruleset_id: str, options: dict[str, Any] | None, seat: int | None
    ) -> Match:
        try:
            ruleset = get_ruleset(ruleset_id)
        except UnknownRuleset as unknown:
            raise Invalid(f"ruleset: {unknown}") from None
        try:
            validated = ruleset.options(options)
        except ValidationError as error:
            raise Invalid(describe_validation(error, "options")) from None
        if seat is not None and not 0 <= seat < ruleset.seats:
            raise Invalid(f"seat: {ruleset.id} has seats 0 to {ruleset.seats - 1}, or null to host")
        seed = new_seed()
        match = Match(
            id=secrets.token_urlsafe(9),
            ruleset=ruleset.id,
            options=validated.model_dump(mode="json"),
            status="waiting",
            version=0,
            host_id=host.id,
            host=host,
            seed=seed.hex(),
            seed_sha256=commitment(seed),
            dice_count=0,
            paused=False,
        )
        match.seats = [
            Seat(seat=i, player_id=host.id if i == seat else None, player=host if i == seat else None)
            for i in range(ruleset.seats)
        ]
        self.session.add(match)
        await self.session.flush()  # gives the match its seq for the log
        if self._ready_to_start(match):
            self._start(match, ruleset)
        await self.session.commit()
        return match

    async def join(self, match_id: str, player: Player, seat: int | None) -> Match:
        match = await self.get(match_id)
        mine = seat_of(match, player.id)
        if mine is not None and (seat is None or seat == mine):
            return match  # already sitting there: joining again changes nothing
        if match.status == "finished":
            raise Conflict("the match is finished; its seats are settled")
        free = [s for s in match.seats if s.player_id is None]
        if seat is None:
            if not free:
                raise Conflict(f"every seat of this {match.status} match is taken")
            target = free[0]
        else:
            target = next((s for s in match.seats if s.seat == seat), None)
            if target is None:
                raise Invalid(f"seat: this match has seats 0 to {len(match.seats) - 1}")
            if target.player_id is not None:
                raise Conflict(f"seat {seat} is taken")
        if mine is not None:
            raise Conflict(f"you already sit in seat {mine}")
        target.player_id, target.player = player.id, player
        ruleset = get_ruleset(match.ruleset)
        self._append(match, target.seat, {"type": "join", "player": player_json(player)}, [])
        if match.status == "waiting" and self._ready_to_start(match):
            self._start(match, ruleset)
        await self._commit()
        await self.publish(match.id, match.version)
        return match

    async def act(self, match_id: str, player: Player, action: Any, version: int) -> Applied:
        if gm.is_gm_action(action):
            return await self.run_table(match_id, player, action, version)
        # The hot path of every server, in SQLAlchemy Core (no ORM unit of work): one
        # query reads the match with its seats and players (none when this process
        # holds the current copy); the write is guarded by the version read. On
        # PostgreSQL the write is a single statement (UPDATE … RETURNING feeding the
        # INSERT of the log entry), committed on its own.
        recent = self.recent.get(match_id, version) if self.recent is not None else None
        if recent is not None:
            # This process's copy of the match has the version the player saw: act on
            # it. On any refusal, answer again from the database (the copy may be stale).
            try:
                return await self._on_connection(
                    lambda connection: self._act(connection, match_id, player, action, version, recent)
                )
            except ServiceError:
                self.recent.forget(match_id)
        return await self._on_connection(
            lambda connection: self._act(connection, match_id, player, action, version)
        )

    async def _on_connection(self, work: Callable[[AsyncConnection], Awaitable[Applied]]) -> Applied:
        """Run ``work`` on a connection: on PostgreSQL an autocommit one (the write is
        one statement), on SQLite the session's (its writers take turns)."""
        engine = self.session.bind
        if isinstance(engine, AsyncEngine) and engine.dialect.name == "postgresql":
            async with autocommit(engine).connect() as connection:
                return await work(connection)
        return await work(await self.session.connection())

    async def _act(
        self,
        connection: AsyncConnection,
        match_id: str,
        player: Player,
        action: Any,
        version: int,
        recent: tuple[MatchRecord, Any] | None = None,
    ) -> Applied:
        match, state = recent if recent is not None else (await load_record(connection, match_id), None)
        ruleset = get_ruleset(match.ruleset)
        seat = seat_of(match, player.id)
        if seat is None:
            raise Forbidden("you have no seat in this match")
        if version != match.version:
            repeated = await self._repeat_of(match, ruleset, seat, action, version)
            if repeated:
                return repeated
            raise Conflict(
                f"version {version} is not current; the match is at version {match.version}",
                version=match.version,
            )
        if match.status == "waiting":
            raise Conflict("the match has not started: seats are still open")
        if match.status == "finished":
            raise Conflict("the match is over")
        if match.paused:
            raise Conflict("the host has paused the match")
        if state is None:
            state = ruleset.load_state(match.state)
        kind = action.get("type") if isinstance(action, dict) else None
        waiting_for = ruleset.to_act(state)
        anytime = isinstance(kind, str) and kind in COMMON_ACTION_TYPES  # resign, draw offers
        if not anytime and seat not in waiting_for:
            names = " and ".join(ruleset.seat_name(s) for s in waiting_for)
            raise Forbidden(f"it is not your decision: waiting for {names}")
        try:
            chosen = ruleset.find_legal(state, seat, action)
        except IllegalAction as illegal:
            raise Invalid(str(illegal)) from None
        dice = Dice(bytes.fromhex(match.seed), match.dice_count)
        if type(ruleset).apply is Ruleset.apply:  # skip checking the action a second time
            new_state, events = ruleset.apply_legal(state, seat, chosen, dice)
        else:
            new_state, events = ruleset.apply(state, seat, chosen, dice)
        outcome = ruleset.outcome(new_state)
        now = utcnow()
        changes: dict[str, Any] = {
            "version": match.version + 1,
            "state": ruleset.dump_state(new_state),
            "dice_count": dice.count,
            "status": match.status if outcome is None else "finished",
            "result": match.result if outcome is None else outcome.model_dump(),
            "updated_at": now,
        }
        entry = {
            "version": match.version + 1,
            "seat": seat,
            "action": chosen,
            "events": events,
            "at": now,
            "dice_from": match.dice_count,
        }
        lost = False
        if connection.dialect.name == "postgresql":
            driver = (await connection.get_raw_connection()).driver_connection
            try:
                status = await driver.execute(
                    WRITE_ACTION_PG,
                    *(changes["version"], json_text(changes["state"]), changes["dice_count"]),
                    *(changes["status"], json_text(changes["result"]), now, match.seq, match.version),
                    *(seat, json_text(chosen), json_text(events), match.dice_count),
                )
                lost = status != "INSERT 0 1"
            except asyncpg.UniqueViolationError:
                lost = True
        else:
            async with write_lock(self.session):
                try:
                    written = await connection.execute(
                        WRITE_MATCH, {"b_seq": match.seq, "b_version": match.version, **changes}
                    )
                    if written.rowcount != 1:
                        raise StaleDataError("the match changed since it was read")
                    await connection.execute(
                        APPEND_LOG,
                        {"match_seq": match.seq, **entry},
                    )
                    await self.session.commit()
                except (StaleDataError, IntegrityError):
                    await self.session.rollback()
                    lost = True
        if lost:
            # Another writer got this version first; it may have been this very action.
            current = await self.get(match_id)
            repeated = await self._repeat_of(current, ruleset, seat, action, version)
            if repeated:
                return repeated
            raise Conflict(
                "another action was applied first; fetch the match and try again", version=current.version
            )
        # A new record, not the old one changed: an update still on its way to the
        # viewers may hold the old one.
        match = dataclasses.replace(match, **changes)
        if self.recent is not None:
            self.recent.put(match, new_state)
        entry["at"] = now.isoformat()
        await self.publish(match.id, match.version, Update(match, new_state, entry))
        return Applied(match.version, events)

    async def run_table(self, match_id: str, player: Player, action: dict[str, Any], version: int) -> Applied:
        """Apply one of the GM's controls (``gm_…``), each its own log entry."""
        match = await self.get(match_id)
        if player.id != match.host_id:
            raise Forbidden("only the match's host runs the table")
        ruleset = get_ruleset(match.ruleset)
        if version != match.version:
            repeated = await self._repeat_of(match, ruleset, None, action, version)
            if repeated:
                return repeated
            raise Conflict(
                f"version {version} is not current; the match is at version {match.version}",
                version=match.version,
            )
        if not gm.is_gm_run(match):
            raise Forbidden("GM controls belong to matches whose host does not play (created with seat null)")
        if match.status == "finished":
            raise Conflict("the match is over")
        controls = await self.controls(match, player) or []
        filled = gm.FILLED_BY_GM.get(action.get("type"))

        def compared(control: dict[str, Any]) -> dict[str, Any]:
            # Everything but the field the GM fills in (the options of gm_set_options).
            essential = ruleset.essential(control)
            return {**essential, filled: None} if filled in essential else essential

        wanted = compared(action)
        chosen = next((c for c in controls if compared(c) == wanted), None)
        if chosen is None:
            raise Invalid(ruleset.explain_illegal(controls, wanted))
        if filled is not None:
            chosen = {**chosen, filled: action.get(filled)}
        events = await self._control(match, ruleset, chosen)
        if chosen["type"] != "gm_start":  # the start is logged as the start itself
            self._append(match, None, chosen, events)
        await self._commit()
        await self.publish(match.id, match.version)
        return Applied(match.version, events)

    async def _control(self, match: Match, ruleset: Ruleset, control: Action) -> list[Event]:
        kind = control["type"]
        seat = next((s for s in match.seats if s.seat == control.get("seat")), None)
        if kind == "gm_start":
            self._start(match, ruleset)
            return []
        if kind == "gm_set_options":
            if not isinstance(control["options"], dict):
                raise Invalid("options: must be an object")
            before = match.options
            try:
                match.options = ruleset.options(control["options"]).model_dump(mode="json")
            except ValidationError as error:
                raise Invalid(describe_validation(error, "options")) from None
            changes = gm.option_changes(before, match.options)
            return [{"type": "options_changed", "options": match.options, "changes": changes}]
        if kind in ("gm_pause", "gm_resume"):
            match.paused = kind == "gm_pause"
            return [{"type": "paused" if match.paused else "resumed"}]
        if kind in ("gm_take_seat", "gm_release_seat"):
            seat.npc = kind == "gm_take_seat"
            return [{"type": "npc" if seat.npc else "npc_released", "seat": seat.seat}]
        if kind == "gm_open_seat":
            seat.player_id, seat.player = None, None
            return [{"type": "seat_opened", "seat": seat.seat}]
        if kind == "gm_undo":
            rows = await self._log_rows(match)
            undone = next(e for e in rows if e.version == control["version"])
            rows.append(
                LogEntry(version=match.version + 1, seat=None, action=control, dice_from=match.dice_count)
            )
            state = gm.replay(ruleset, match.options, bytes.fromhex(match.seed), rows)
            match.state = ruleset.dump_state(state)
            return [
                {"type": "undone", "version": undone.version, "seat": undone.seat, "action": undone.action}
            ]
        raise AssertionError(f"unhandled control {kind}")

    # --- internals ---------------------------------------------------------------

    def _ready_to_start(self, match: Match) -> bool:
        # A match whose host plays starts when its seats fill; a GM's waits for the GM.
        host_plays = any(s.player_id == match.host_id for s in match.seats)
        return host_plays and all(s.player_id is not None for s in match.seats)

    def _start(self, match: Match, ruleset: Ruleset) -> None:
        dice_from = match.dice_count
        dice = Dice(bytes.fromhex(match.seed), dice_from)
        state, events = ruleset.new_game(ruleset.options(match.options), dice)
        match.state = ruleset.dump_state(state)
        match.dice_count = dice.count
        match.status = "active"
        outcome = ruleset.outcome(state)
        if outcome is not None:
            match.status, match.result = "finished", outcome.model_dump()
        self._append(match, None, {"type": "start"}, events, dice_from=dice_from)

    def _append(
        self,
        match: Match,
        seat: int | None,
        action: dict[str, Any],
        events: list[Event],
        dice_from: int | None = None,
    ) -> None:
        """Log an entry at the next version; ``dice_from``: the dice count before it."""
        match.version += 1
        match.updated_at = utcnow()
        self.session.add(
            LogEntry(
                match_seq=match.seq,
                version=match.version,
                seat=seat,
                action=action,
                events=events,
                dice_from=match.dice_count if dice_from is None else dice_from,
            )
        )

    async def _commit(self) -> None:
        try:
            await self.session.commit()
        except (StaleDataError, IntegrityError):
            await self.session.rollback()
            raise Conflict("another action was applied first; fetch the match and try again") from None

    async def _repeat_of(
        self, match: Match | MatchRecord, ruleset: Ruleset, seat: int | None, action: Any, version: int
    ) -> Applied | None:
        """The earlier result when this exact action was already applied at ``version``."""
        if not isinstance(action, dict) or version < 0 or version >= match.version:
            return None
        entry = await self.session.scalar(
            select(LogEntry).where(LogEntry.match_seq == match.seq, LogEntry.version == version + 1)
        )
        if entry and entry.seat == seat and ruleset.essential(entry.action) == ruleset.essential(action):
            return Applied(entry.version, entry.events)
        return None


def entry_json(entry: Any) -> dict[str, Any]:
    """A log entry (a row or a :class:`LogEntry`) as the API shows it."""
    return {
        "version": entry.version,
        "seat": entry.seat,
        "action": entry.action,
        "events": entry.events,
        "at": entry.at.isoformat(),
        "dice_from": entry.dice_from,
    }


def encode_cursor(seq: int) -> str:
    return base64.urlsafe_b64encode(str(seq).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        return int(base64.urlsafe_b64decode(padded.encode()).decode())
    except (ValueError, UnicodeDecodeError):
        raise Invalid("cursor: not a cursor this server gave out") from None
