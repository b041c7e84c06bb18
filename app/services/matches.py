"""The match service: the one place that changes a match (ARCHITECTURE §Properties 4).

It loads the match, checks seat, turn and version, asks the ruleset, appends the
log entry and the new cached state in one transaction, and publishes after the
commit. REST and websocket both call it; nothing else writes a match.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from sqlalchemy import exists, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.exc import StaleDataError

from app.models import LogEntry, Match, Player, Seat, utcnow
from app.rules import UnknownRuleset, get_ruleset
from app.rules.base import COMMON_ACTION_TYPES, Event, IllegalAction, Ruleset
from app.rules.dice import Dice, commitment, new_seed
from app.services.errors import Conflict, Forbidden, Invalid, NotFound

Publish = Callable[[str, int], Awaitable[None]]
STATUSES = ("waiting", "active", "finished")


async def _publish_nothing(match_id: str, version: int) -> None:
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


def seat_of(match: Match, player_id: str | None) -> int | None:
    if player_id is None:
        return None
    return next((s.seat for s in match.seats if s.player_id == player_id), None)


def player_json(player: Player | None) -> dict[str, str] | None:
    return None if player is None else {"id": player.id, "name": player.name}


class MatchService:
    def __init__(self, session: AsyncSession, publish: Publish = _publish_nothing) -> None:
        self.session = session
        self.publish = publish

    # --- reading -----------------------------------------------------------------

    async def get(self, match_id: str) -> Match:
        match = await self.session.scalar(select(Match).where(Match.id == match_id))
        if match is None:
            raise NotFound(f"no match with id {match_id!r}")
        return match

    def view(self, match: Match, viewer: Player | None, state: Any = None) -> dict[str, Any]:
        """The match as ``viewer`` may see it (``None``: an anonymous spectator)."""
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
                {"seat": s.seat, "name": ruleset.seat_name(s.seat), "player": player_json(s.player)}
                for s in match.seats
            ],
            "host": player_json(match.host),
            "you": {
                "player": player_json(viewer),
                "seat": seat,
                "host": viewer is not None and viewer.id == match.host_id,
            },
            "to_act": ruleset.to_act(state) if active and state is not None else [],
            "state": ruleset.view(state, seat) if state is not None else {},
            "legal_actions": (
                ruleset.legal_actions(state, seat)
                if active and not match.paused and seat is not None and state is not None
                else []
            ),
            "result": match.result,
            "paused": match.paused,
            "seed_sha256": match.seed_sha256,
            "seed": match.seed if match.status == "finished" else None,
            "created_at": match.created_at.isoformat(),
            "updated_at": match.updated_at.isoformat(),
        }

    async def log(self, match_id: str, after: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
        match = await self.get(match_id)
        return await self.entries(match, after, limit)

    async def entries(self, match: Match, after: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
        rows = await self.session.scalars(
            select(LogEntry)
            .where(LogEntry.match_seq == match.seq, LogEntry.version > after)
            .order_by(LogEntry.version)
            .limit(limit)
        )
        return [entry_json(e) for e in rows]

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
        if match.status != "waiting":
            raise Conflict(f"the match is {match.status}; its seats are settled")
        free = [s for s in match.seats if s.player_id is None]
        if seat is None:
            if not free:
                raise Conflict("every seat is taken")
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
        if self._ready_to_start(match):
            self._start(match, ruleset)
        await self._commit()
        await self.publish(match.id, match.version)
        return match

    async def act(self, match_id: str, player: Player, action: Any, version: int) -> Applied:
        match = await self.get(match_id)
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
        new_state, events = ruleset.apply(state, seat, chosen, dice)
        match.state = ruleset.dump_state(new_state)
        match.dice_count = dice.count
        outcome = ruleset.outcome(new_state)
        if outcome is not None:
            match.status = "finished"
            match.result = outcome.model_dump()
        self._append(match, seat, chosen, events)
        try:
            await self._commit()
        except Conflict as lost:
            # Another writer got this version first; it may have been this very action.
            current = await self.get(match_id)
            repeated = await self._repeat_of(current, ruleset, seat, action, version)
            if repeated:
                return repeated
            raise Conflict(lost.message, version=current.version) from None
        await self.publish(match.id, match.version)
        return Applied(match.version, events)

    # --- internals ---------------------------------------------------------------

    def _ready_to_start(self, match: Match) -> bool:
        # A match whose host plays starts when its seats fill; a GM's waits for the GM.
        host_plays = any(s.player_id == match.host_id for s in match.seats)
        return host_plays and all(s.player_id is not None for s in match.seats)

    def _start(self, match: Match, ruleset: Ruleset) -> None:
        dice = Dice(bytes.fromhex(match.seed), 0)
        state, events = ruleset.new_game(ruleset.options(match.options), dice)
        match.state = ruleset.dump_state(state)
        match.dice_count = dice.count
        match.status = "active"
        outcome = ruleset.outcome(state)
        if outcome is not None:
            match.status, match.result = "finished", outcome.model_dump()
        self._append(match, None, {"type": "start"}, events)

    def _append(self, match: Match, seat: int | None, action: dict[str, Any], events: list[Event]) -> None:
        match.version += 1
        match.updated_at = utcnow()
        self.session.add(
            LogEntry(match_seq=match.seq, version=match.version, seat=seat, action=action, events=events)
        )

    async def _commit(self) -> None:
        try:
            await self.session.commit()
        except (StaleDataError, IntegrityError):
            await self.session.rollback()
            raise Conflict("another action was applied first; fetch the match and try again") from None

    async def _repeat_of(
        self, match: Match, ruleset: Ruleset, seat: int, action: Any, version: int
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


def entry_json(entry: LogEntry) -> dict[str, Any]:
    return {
        "version": entry.version,
        "seat": entry.seat,
        "action": entry.action,
        "events": entry.events,
        "at": entry.at.isoformat(),
    }


def encode_cursor(seq: int) -> str:
    return base64.urlsafe_b64encode(str(seq).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        return int(base64.urlsafe_b64decode(padded.encode()).decode())
    except (ValueError, UnicodeDecodeError):
        raise Invalid("cursor: not a cursor this server gave out") from None
