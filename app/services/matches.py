"""The match service: the one path every change to a match takes (ARCHITECTURE §4).

Creating, joining, starting, a seat's action and a GM's control all go

    load → guard (who, which version) → apply (the ruleset, or a GM control)
         → append the log entries and the new record in one write → publish

The write is guarded by the version the change was decided at (:mod:`store`), so
of two concurrent writers one wins and the other gets a 409 — or, when it sent the
very action that won, that action's result (a retry is applied once). Publishing
comes after the commit and is best-effort: viewers catch up from their version.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from pydantic import ValidationError

from app.bots import get_bot
from app.ratings import RatedSeat
from app.rules import UnknownRuleset, get_ruleset
from app.rules.base import CLAIM_TIMEOUT, COMMON_ACTION_TYPES, Action, Event, IllegalAction, Ruleset
from app.rules.dice import SCHEME_V2, commitment, new_player_seed, new_seed, normal_player_seed
from app.rules.log import Entry, match_dice, replay
from app.services import clock, gm, notices, views
from app.services.errors import Conflict, Forbidden, Invalid
from app.services.store import (
    Committed,
    MatchRecord,
    Notice,
    PlayerRecord,
    RatingUpdate,
    SeatRecord,
    Store,
    channels_of,
)
from app.services.views import seat_of

log = logging.getLogger(__name__)

STATUSES = ("waiting", "active", "finished")
JOIN_TRIES = 3
"""A join decided on a version another writer passed is decided again (it names no version)."""


class Publish(Protocol):
    """Announces that ``match_id`` reached ``version`` (after the commit); this
    process may use the ``committed`` change itself instead of reading it back."""

    async def __call__(self, match_id: str, version: int, committed: Committed | None = None) -> None: ...


async def _publish_nothing(match_id: str, version: int, committed: Committed | None = None) -> None:
    return None


@dataclass
class Applied:
    """An applied action: the match it left (for a retry, the match now), the log
    entries it wrote, the seat that sent it (``None``: the GM), and the entries a GM's
    undo among them took back (its words name what it undid)."""

    match: MatchRecord
    entries: list[Entry]
    seat: int | None
    earlier: dict[int, Entry] = field(default_factory=dict)

    @property
    def version(self) -> int:
        return self.entries[-1].version

    def seen(self) -> list[Event]:
        """Its events as the sender sees them in the log: redacted for the seat, each with its ``text``."""
        return [
            event
            for entry in views.entries_for(self.match, self.entries, self.seat, self.earlier)
            for event in entry["events"]
        ]


@dataclass
class Change:
    """A decided change: the match as it will be, and the entries that say why."""

    after: MatchRecord
    entries: list[Entry]

    @property
    def events(self) -> list[Event]:
        return [event for entry in self.entries for event in entry.events]


def describe_validation(error: ValidationError, prefix: str = "") -> str:
    """``options.turns_without_kill: Input should be ...; …`` — every failing field named."""
    parts = []
    for problem in error.errors():
        where = ".".join(str(p) for p in (prefix, *problem["loc"]) if p != "")
        parts.append(f"{where}: {problem['msg']}" if where else problem["msg"])
    return "; ".join(parts)


def as_player(player: Any) -> PlayerRecord | None:
    if player is None or isinstance(player, PlayerRecord):
        return player
    channels = channels_of(getattr(player, "webhook_url", None), getattr(player, "email", None))
    return PlayerRecord(player.id, player.name, channels)


class MatchService:
    def __init__(
        self, store: Store, publish: Publish = _publish_nothing, now: clock.Now = clock.system_now
    ) -> None:
        self.store = store
        self.publish = publish
        self.now = now
        """The time that timed matches' deadlines are judged at (tests set their own)."""

    # --- reading -----------------------------------------------------------------

    async def get(self, match_id: str) -> MatchRecord:
        return await self.store.load(match_id)

    async def view(self, match: MatchRecord, viewer: Any) -> dict[str, Any]:
        """The match as ``viewer`` may see it (``None``: an anonymous spectator),
        with the GM's controls when the viewer runs the table."""
        viewer = as_player(viewer)
        return views.match_view(match, viewer, await self.controls(match, viewer), self.now())

    async def controls(self, match: MatchRecord, viewer: Any) -> list[Action] | None:
        if not views.runs_table(match, viewer.id if viewer else None):
            return None
        return views.controls(match, await self.store.entries(match) if match.status == "active" else [])

    async def log(
        self, match_id: str, viewer: Any = None, after: int = 0, limit: int = 1000
    ) -> list[dict[str, Any]]:
        """Log entries after version ``after``, as ``viewer`` may see them."""
        match, entries = await self.store.load_with_entries(match_id, after, limit)
        earlier = await views.undone_entries(self.store, match, entries)
        return views.entries_for(match, entries, seat_of(match, viewer.id if viewer else None), earlier)

    async def history(
        self,
        player: str | None = None,
        ruleset: str | None = None,
        status: str | None = None,
        limit: int = 20,
        cursor: str | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of match summaries, newest first, and the cursor of the next page."""
        if status and status not in STATUSES:
            raise Invalid(f"status: must be one of {', '.join(STATUSES)}")
        before = decode_cursor(cursor) if cursor else None
        matches = await self.store.page(player, ruleset, status, before, limit + 1)
        page = matches[:limit]
        next_cursor = encode_cursor(page[-1].seq) if len(matches) > limit else None
        return [views.summary(m) for m in page], next_cursor

    # --- changing ----------------------------------------------------------------

    async def create(
        self,
        host: Any,
        ruleset_id: str,
        options: dict[str, Any] | None,
        seat: int | None,
        player_seed: str | None = None,
        seed: bytes | None = None,
        rated: bool = False,
    ) -> MatchRecord:
        """A new match hosted by ``host``, who sits in ``seat`` (``None``: a GM)
        with their own dice seed ``player_seed`` (hex; ``None``: the server draws one).
        ``seed``: the match's own seed, for the tutorial's fixed lessons; otherwise drawn.
        ``rated``: its result changes the players' ratings (``app/ratings.py``)."""
        match = self._created(host, ruleset_id, options, seat, player_seed, seed, rated)
        entries: list[Entry] = []
        if self._ready_to_start(match):
            match, entries = self._start(match, get_ruleset(match.ruleset), entries)
        return await self.store.insert(clock.timed(None, match), entries)

    def pair(
        self,
        first: Any,
        second: Any,
        ruleset_id: str,
        options: dict[str, Any] | None,
        rated: bool,
        league_id: str,
        first_bot: str | None = None,
        second_bot: str | None = None,
    ) -> tuple[MatchRecord, list[Entry], tuple[Notice, ...]]:
        """A league's match (issue 32), decided but not yet written: ``first`` creates it
        in seat 0, ``second`` joins seat 1, and it starts, exactly as :meth:`create` and
        :meth:`join` would (``first_bot``, ``second_bot``: the bot whose player it is). The league writes the
        match, its entries and the notices it owes with the round, in one transaction."""
        created = self._created(first, ruleset_id, options, 0, None, None, rated)
        seats = (replace(created.seats[0], bot=first_bot), *created.seats[1:])
        created = replace(created, league_id=league_id, seats=seats)
        change = self._decide_join(created, as_player(second), 1, second_bot)
        assert change is not None
        after = clock.timed(None, change.after)
        return after, change.entries, notices.owed(created, after)

    def _created(
        self,
        host: Any,
        ruleset_id: str,
        options: dict[str, Any] | None,
        seat: int | None,
        player_seed: str | None,
        seed: bytes | None,
        rated: bool,
    ) -> MatchRecord:
        """A new match as :meth:`create` makes it, not yet started nor written."""
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
        host = as_player(host)
        own_seed = (checked_seed(player_seed) or new_player_seed()) if seat is not None else None
        seed, now = seed or new_seed(), self.now()
        match = MatchRecord(
            id=secrets.token_urlsafe(9),
            ruleset=ruleset.id,
            options=validated.model_dump(mode="json"),
            status="waiting",
            version=0,
            host=host,
            seed=seed.hex(),
            seed_sha256=commitment(seed),
            dice_count=0,
            state=None,
            result=None,
            paused=False,
            created_at=now,
            updated_at=now,
            seats=tuple(
                SeatRecord(i, host, seed=own_seed) if i == seat else SeatRecord(i)
                for i in range(ruleset.seats)
            ),
            dice_scheme=SCHEME_V2,
            rated=rated,
        )
        return match

    async def join(
        self,
        match_id: str,
        player: Any,
        seat: int | None,
        bot: str | None = None,
        player_seed: str | None = None,
    ) -> MatchRecord:
        """Seat ``player``, with their own dice seed (hex; ``None``: the server draws one).
        A seat's seed is settled when the match starts: one taken later keeps it.
        ``bot`` (bots, issue 9): the player is that bot's; it may also take the NPC seat."""
        player = as_player(player)
        own_seed = checked_seed(player_seed)
        for _ in range(JOIN_TRIES):
            match = await self.store.load(match_id)
            change = self._decide_join(match, player, seat, bot, own_seed)
            if change is None:
                return match  # already sitting there: joining again changes nothing
            if await self._write(match, change):
                return change.after
        raise Conflict("the match changed while you joined; please try again")

    async def act(self, match_id: str, player: Any, action: Any, version: int) -> Applied:
        """Apply a seat's action, or a GM's control (``gm_…``), at ``version``."""
        started = time.perf_counter()  # its latency runs from here to the commit
        match = views.with_state(await self.store.load(match_id))
        controlling = gm.is_gm_action(action)
        seat = None if controlling else seat_of(match, player.id)
        if controlling and player.id != match.host_id:
            raise Forbidden("only the match's host runs the table")
        if not controlling and seat is None:
            raise Forbidden("you have no seat in this match")
        if version != match.version:
            return await self._repeated(match, seat, action, version)
        decide: Callable[..., Any] = self._decide_control if controlling else self._decide_move
        change = await decide(match, seat, action)
        if await self._write(match, change, started):
            return await self._applied(change.after, change.entries, seat)
        # Another writer got this version first; it may have been this very action.
        return await self._repeated(await self.store.load(match_id), seat, action, version)

    # --- deciding (guard and apply) -----------------------------------------------

    def _decide_join(
        self,
        match: MatchRecord,
        player: PlayerRecord,
        seat: int | None,
        bot: str | None = None,
        own_seed: str | None = None,
    ) -> Change | None:
        mine = seat_of(match, player.id)
        if mine is not None and (seat is None or seat == mine):
            return None
        if match.status == "finished":
            raise Conflict("the match is finished; its seats are settled")
        free = [s for s in match.seats if s.player is None]
        if seat is None:
            if not free:
                raise Conflict(f"every seat of this {match.status} match is taken")
            target = free[0]
        else:
            if not 0 <= seat < len(match.seats):
                raise Invalid(f"seat: this match has seats 0 to {len(match.seats) - 1}")
            target = match.seats[seat]
            if target.player is not None and not (bot and target.npc):  # bots: a GM's NPC seat
                raise Conflict(f"seat {seat} is taken")
        if mine is not None:
            raise Conflict(f"you already sit in seat {mine}")
        settled = match.status != "waiting"  # the dice already mix this seat's seed
        seed = target.seed if settled else own_seed or new_player_seed()
        taken = replace(target, player=player, bot=bot, npc=False if bot else target.npc, seed=seed)  # bots
        match = self._with_seat(match, taken)
        entries = [self._entry(match, target.seat, {"type": "join", "player": views.player_json(player)})]
        if match.status == "waiting" and self._ready_to_start(match):
            match, entries = self._start(match, get_ruleset(match.ruleset), entries)
        return Change(self._advanced(match, entries), entries)

    async def _decide_move(self, match: MatchRecord, seat: int, action: Any) -> Change:
        if match.status == "waiting":
            raise Conflict("the match has not started: seats are still open")
        if match.status == "finished":
            raise Conflict("the match is over")
        if match.paused:
            raise Conflict("the host has paused the match")
        ruleset = get_ruleset(match.ruleset)
        state = views.loaded_state(match)
        kind = action.get("type") if isinstance(action, dict) else None
        if kind == CLAIM_TIMEOUT:
            return self._decide_claim(match, ruleset, state, seat)
        waiting_for = ruleset.to_act(state)
        anytime = isinstance(kind, str) and kind in COMMON_ACTION_TYPES  # resign, draw offers
        if not anytime and seat not in waiting_for:
            names = " and ".join(ruleset.seat_name(s) for s in waiting_for)
            raise Forbidden(f"it is not your decision: waiting for {names}")
        try:
            chosen = ruleset.find_legal(state, seat, action)
        except IllegalAction as illegal:
            raise Invalid(str(illegal)) from None
        dice = match_dice(match.seed, match.dice_count, match.dice_seeds)
        new_state, events = ruleset.apply_legal(state, seat, chosen, dice)
        entry = Entry(match.version + 1, seat, chosen, events, self.now(), match.dice_count)
        return Change(self._advanced(match, [entry], ruleset, new_state, dice.count), [entry])

    def _decide_claim(self, match: MatchRecord, ruleset: Ruleset, state: Any, seat: int) -> Change:
        """``seat`` claims the win from seats that ran out of time."""
        due = clock.deadline(match)
        if due is None:
            raise Conflict("this match has no clock running: there is no time to run out")
        if seat in ruleset.to_act(state):
            raise Forbidden("it is your own decision: only another seat may claim the win on time")
        if not clock.claim_actions(match, seat, self.now()):
            raise Conflict(f"the time has not run out: the deadline is {due.isoformat()}")
        new_state, events = ruleset.claim_timeout(state, seat)
        entry = Entry(match.version + 1, seat, {"type": CLAIM_TIMEOUT}, events, self.now(), match.dice_count)
        return Change(self._advanced(match, [entry], ruleset, new_state), [entry])

    async def _decide_control(self, match: MatchRecord, seat: None, action: dict[str, Any]) -> Change:
        """One of the GM's controls, each its own log entry (a start is logged as the start)."""
        if not gm.is_gm_run(match):
            raise Forbidden("GM controls belong to matches whose host does not play (created with seat null)")
        if match.status == "finished":
            raise Conflict("the match is over")
        ruleset = get_ruleset(match.ruleset)
        log_so_far = await self.store.entries(match) if match.status == "active" else []
        chosen = self._chosen_control(ruleset, views.controls(match, log_so_far), action)
        kind, target = chosen["type"], chosen.get("seat")
        if kind == "gm_start":
            match, entries = self._start(match, ruleset, [])
            return Change(self._advanced(match, entries), entries)
        if kind in ruleset.gm_action_types:
            return self._decide_gm_ruling(match, ruleset, chosen)
        state: Any = None
        if kind == "gm_set_options":
            if not isinstance(chosen["options"], dict):
                raise Invalid("options: must be an object")
            try:
                options = ruleset.options(chosen["options"]).model_dump(mode="json")
            except ValidationError as error:
                raise Invalid(describe_validation(error, "options")) from None
            events = [
                {
                    "type": "options_changed",
                    "options": options,
                    "changes": gm.option_changes(match.options, options),
                }
            ]
            match = replace(match, options=options)
        elif kind in ("gm_pause", "gm_resume"):
            match = replace(match, paused=kind == "gm_pause")
            events = [{"type": "paused" if match.paused else "resumed"}]
        elif kind in ("gm_take_seat", "gm_release_seat"):
            npc = kind == "gm_take_seat"
            match = self._with_seat(match, replace(match.seats[target], npc=npc))
            events = [{"type": "npc" if npc else "npc_released", "seat": target}]
        elif kind == "gm_open_seat":
            # Before the start the next player brings their own seed; after, the dice keep the seat's.
            opened = replace(match.seats[target], player=None, bot=None)  # bots: too
            if match.status == "waiting":
                opened = replace(opened, seed=None)
            match = self._with_seat(match, opened)
            events = [{"type": "seat_opened", "seat": target}]
        elif kind == "gm_undo":
            undone = next(e for e in log_so_far if e.version == chosen["version"])
            entry = Entry(match.version + 1, None, chosen, [], self.now(), match.dice_count)
            state = replay(
                ruleset, match.options, match.seed, [*log_so_far, entry], player_seeds=match.dice_seeds
            )
            events = [
                {"type": "undone", "version": undone.version, "seat": undone.seat, "action": undone.action}
            ]
        else:
            raise AssertionError(f"unhandled control {kind}")
        entries = [self._entry(match, None, chosen, events)]
        return Change(self._advanced(match, entries, ruleset, state), entries)

    def _decide_gm_ruling(self, match: MatchRecord, ruleset: Ruleset, chosen: Action) -> Change:
        """A decision the rules left to the GM (granting an eote re-roll), applied like a
        seat's action: with the match's dice, as its own log entry of seat ``null``."""
        dice = match_dice(match.seed, match.dice_count, match.dice_seeds)
        new_state, events = ruleset.apply_gm(views.loaded_state(match), chosen, dice)
        entry = self._entry(match, None, chosen, events)
        return Change(self._advanced(match, [entry], ruleset, new_state, dice.count), [entry])

    @staticmethod
    def _chosen_control(ruleset: Ruleset, controls: list[Action], action: dict[str, Any]) -> Action:
        """The listed control that ``action`` names, with the field the GM fills in."""
        filled = gm.FILLED_BY_GM.get(action.get("type"))

        def compared(control: dict[str, Any]) -> dict[str, Any]:
            # Everything but the field the GM fills in (the options of gm_set_options).
            essential = ruleset.essential(control)
            return {**essential, filled: None} if filled in essential else essential

        wanted = compared(action)
        chosen = next((c for c in controls if compared(c) == wanted), None)
        if chosen is None:
            raise Invalid(ruleset.explain_illegal(controls, wanted))
        return chosen if filled is None else {**chosen, filled: action.get(filled)}

    # --- internals ---------------------------------------------------------------

    @staticmethod
    def _ready_to_start(match: MatchRecord) -> bool:
        # A match whose host plays starts when its seats fill; a GM's waits for the GM.
        host_plays = any(s.player_id == match.host_id for s in match.seats)
        return host_plays and all(s.player is not None for s in match.seats)

    def _start(
        self, match: MatchRecord, ruleset: Ruleset, entries: list[Entry]
    ) -> tuple[MatchRecord, list[Entry]]:
        """The match with its game begun, and ``entries`` followed by the start's.

        Every seat's seed is settled here: a seat without one (an NPC, a bot, a
        player who sent none) gets one drawn by the server."""
        seats = tuple(s if s.seed else replace(s, seed=new_player_seed()) for s in match.seats)
        match = replace(match, seats=seats)
        dice = match_dice(match.seed, match.dice_count, match.dice_seeds)
        hosted = gm.is_gm_run(match)  # the rules leave some decisions to the GM (eote's re-roll)
        state, events = ruleset.start(ruleset.options(match.options), dice, hosted)
        action = {"type": "start", "gm": True} if hosted else {"type": "start"}
        start = Entry(match.version + len(entries) + 1, None, action, events, self.now(), match.dice_count)
        match = replace(match, status="active", state=ruleset.dump_state(state), loaded=state)
        match = replace(match, dice_count=dice.count)
        return match, [*entries, start]

    def _entry(
        self, match: MatchRecord, seat: int | None, action: Action, events: list[Event] | None = None
    ) -> Entry:
        return Entry(match.version + 1, seat, action, events or [], self.now(), match.dice_count)

    @staticmethod
    def _with_seat(match: MatchRecord, seat: SeatRecord) -> MatchRecord:
        return replace(match, seats=tuple(seat if s.seat == seat.seat else s for s in match.seats))

    @staticmethod
    def _advanced(
        match: MatchRecord,
        entries: list[Entry],
        ruleset: Ruleset | None = None,
        state: Any = None,
        dice_count: int | None = None,
    ) -> MatchRecord:
        """``match`` after ``entries``: its version, and the new state and result if any."""
        changes: dict[str, Any] = {"version": entries[-1].version, "updated_at": entries[-1].at}
        if dice_count is not None:
            changes["dice_count"] = dice_count
        if state is not None:
            changes["state"], changes["loaded"] = ruleset.dump_state(state), state
        current = state if state is not None else match.loaded
        ruleset = ruleset or get_ruleset(match.ruleset)
        outcome = ruleset.outcome(current) if current is not None else None
        if outcome is not None:
            changes["status"], changes["result"] = "finished", outcome.model_dump()
        return replace(match, **changes)

    async def _write(self, before: MatchRecord, change: Change, started: float | None = None) -> bool:
        """Append the change, with its clock and the notifications it owes, if the
        match is still at ``before``'s version; then publish (an action's with the
        moment it ``started``, for the metrics)."""
        change.after = clock.timed(before, change.after)
        owed = notices.owed(before, change.after)
        rating = await self._rating_owed(before, change)
        if not await self.store.append(before, change.after, change.entries, owed, rating):
            return False
        if rating is not None:
            change.after = replace(change.after, rating_changes=await self.store.rating_changes(change.after))
        committed = Committed(before.version, change.after, change.entries, owed, started)
        try:
            await self.publish(change.after.id, change.after.version, committed)
        except Exception:  # committed is committed: viewers catch up from their version
            log.exception("publishing %s v%s failed", change.after.id, change.after.version)
        return True

    async def _rating_owed(self, before: MatchRecord, change: Change) -> RatingUpdate | None:
        """The rating update a change owes: when it finishes a rated match between two
        players (or a player and a bot) in which every seat has acted at least once."""
        match = change.after
        if not match.rated or before.status == "finished" or match.status != "finished":
            return None
        if len(match.seats) != 2 or any(s.player is None or s.npc for s in match.seats):
            return None  # a seat the GM played is nobody's to rate
        bots = {s.seat: get_bot(s.bot) for s in match.seats if s.bot}
        if None in bots.values() or len(bots) == len(match.seats):
            return None
        if not await self._every_seat_acted(before, change.entries):
            return None  # resigned (or timed out) before playing: not rated
        winner = (match.result or {}).get("winner")
        seats = tuple(
            RatedSeat(
                s.seat,
                s.player.id,
                0.5 if winner is None else 1.0 if winner == s.seat else 0.0,
                bot.rating if (bot := bots.get(s.seat)) else None,
            )
            for s in match.seats
            if s.player is not None
        )
        return RatingUpdate(match.ruleset, seats, match.updated_at)

    async def _every_seat_acted(self, before: MatchRecord, entries: list[Entry]) -> bool:
        """Every seat has played an action of the game (a resignation, a draw offer or
        its answer, a claim on time do not count), in the log so far or in ``entries``."""
        waiting = {s.seat for s in before.seats} - {e.seat for e in entries if plays(e)}
        after, page = 0, 1000
        while waiting and after < before.version:
            found = await self.store.entries(before, after, before.version, page)
            if not found:
                break
            waiting -= {e.seat for e in found if plays(e)}
            after = found[-1].version
        return not waiting

    async def _applied(self, match: MatchRecord, entries: list[Entry], seat: int | None) -> Applied:
        return Applied(match, entries, seat, await views.undone_entries(self.store, match, entries))

    async def _repeated(self, match: MatchRecord, seat: int | None, action: Any, version: int) -> Applied:
        """The answer to an action at a version that is not current: its earlier
        result when this very action was applied at ``version`` (a retry), else a 409."""
        if isinstance(action, dict) and 0 <= version < match.version:
            entry = await self.store.entry(match, version + 1)
            ruleset = get_ruleset(match.ruleset)
            if entry and entry.seat == seat and ruleset.essential(entry.action) == ruleset.essential(action):
                return await self._applied(match, [entry], seat)
        raise Conflict(
            f"version {version} is not current; the match is at version {match.version}",
            version=match.version,
        )


def plays(entry: Entry) -> bool:
    """A seat's own move in the game: not joining, resigning, a draw offer or a claim on time."""
    return entry.seat is not None and entry.kind not in NOT_PLAYING


NOT_PLAYING = COMMON_ACTION_TYPES | {"join", CLAIM_TIMEOUT}


def checked_seed(raw: str | None) -> str | None:
    """A seat's own dice seed as sent, normalised; a clear 422 when it is not one."""
    if raw is None:
        return None
    try:
        return normal_player_seed(raw)
    except ValueError as error:
        raise Invalid(f"seed: {error}") from None


def encode_cursor(seq: int) -> str:
    """A page's cursor: the position (in decimal) of the last match it showed; the next
    page lists the matches created before it. Any such number is a valid cursor."""
    return str(seq)


def decode_cursor(cursor: str) -> int:
    if not (cursor.isascii() and cursor.isdecimal()) or not 0 < int(cursor) < 2**63:
        raise Invalid("cursor: not a cursor this server gave out")
    return int(cursor)
