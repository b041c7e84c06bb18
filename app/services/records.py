"""Every match a record: a past version as a spectator saw it, and whole histories
and logs read page by page (for the NDJSON exports).

A past version is rebuilt from the log alone through :func:`app.rules.log.replay`,
the way a GM's undo is; what a viewer may see of it comes from the one projection
(:mod:`app.services.views`). Hidden information (another seat's private choices,
an eote setter's unconfirmed pieces) is shown only once the match is finished.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

from app.rules import get_ruleset
from app.rules.log import Entry, replay, replayed
from app.services import views
from app.services.errors import Invalid, NotFound
from app.services.matches import STATUSES
from app.services.store import MatchRecord, PlayerRecord, SeatRecord, Store

PAGE = 500
"""Log entries or matches read from the store at a time while streaming."""
CHECKPOINT_EVERY = 50
"""A replayed state is kept every this many versions, to go on from there next time."""
CHECKPOINTS = 4096
_checkpoints: OrderedDict[tuple[str, int], Any] = OrderedDict()
"""(match id, version) -> the game state right after it; the most recently used kept.
A state once reached never changes (the log is append-only, and an undo is a later
entry), so these stay true; a log with an undo is replayed from its start."""


def state_at(match: MatchRecord, options: dict[str, Any], kept: list[Entry], version: int) -> Any:
    """The game state after ``version``, given the log ``kept`` up to it, replayed
    from the nearest checkpoint before it (``None`` before the start)."""
    ruleset = get_ruleset(match.ruleset)
    if any(e.kind == "gm_undo" for e in kept):
        return replay(ruleset, options, match.seed, kept, player_seeds=match.dice_seeds, checked=False)
    start, state = 0, None
    for at in range(version - version % CHECKPOINT_EVERY, 0, -CHECKPOINT_EVERY):
        if (match.id, at) in _checkpoints:
            start, state = at, _checkpoints[(match.id, at)]
            _checkpoints.move_to_end((match.id, at))
            break
    rest = [e for e in kept if e.version > start]
    steps = replayed(ruleset, options, match.seed, rest, None, match.dice_seeds, state, checked=False)
    for entry, after, _ in steps:
        state = after
        if entry.version % CHECKPOINT_EVERY == 0:
            _checkpoints[(match.id, entry.version)] = state
            if len(_checkpoints) > CHECKPOINTS:
                _checkpoints.popitem(last=False)
    return state


def _creator_seat(match: MatchRecord, entries: list[Entry]) -> int | None:
    """The seat the host took when creating the match (no join entry names it)."""
    host_joined = {
        e.seat
        for e in entries
        if e.kind == "join" and (e.action.get("player") or {}).get("id") == match.host_id
    }
    for seat in match.seats:
        if seat.player_id == match.host_id and seat.seat not in host_joined:
            return seat.seat
    # The host's seat was opened by a GM later: it is gone from the seats, not from the log.
    return None


def record_at(
    match: MatchRecord, entries: list[Entry], version: int, creator: int | None
) -> tuple[MatchRecord, Any]:
    """The match as it stood right after ``version`` (with the state object then),
    from its log ``entries`` up to it at least and the seat the host took when
    creating it: seats, options, pause and result of that moment."""
    ruleset = get_ruleset(match.ruleset)
    seats = [SeatRecord(s.seat, match.host if s.seat == creator else None, seed=s.seed) for s in match.seats]
    options, paused, started, at = match.options, False, False, match.created_at
    kept = [e for e in entries if e.version <= version]
    for entry in kept:
        at = entry.at or at
        if entry.kind == "join" and entry.seat is not None:
            who = entry.action.get("player") or {}
            seats[entry.seat] = replace(seats[entry.seat], player=PlayerRecord(who["id"], who["name"]))
        started = started or entry.kind == "start"
        for event in entry.events:
            kind, target = event.get("type"), event.get("seat")
            if kind == "options_changed":
                options = event["options"]
            elif kind in ("paused", "resumed"):
                paused = kind == "paused"
            elif kind in ("npc", "npc_released"):
                seats[target] = replace(seats[target], npc=kind == "npc")
            elif kind == "seat_opened":
                seats[target] = replace(seats[target], player=None)
    state = state_at(match, options, kept, version)
    outcome = ruleset.outcome(state) if state is not None else None
    status = "finished" if outcome is not None else "active" if started else "waiting"
    then = replace(
        match,
        options=options,
        status=status,
        version=version,
        state=None,
        loaded=state,
        result=outcome.model_dump() if outcome is not None else None,
        paused=paused,
        updated_at=at,
        seats=tuple(seats),
        rating_changes=match.rating_changes if status == "finished" else None,
    )
    return then, state


async def read_entries(
    store: Store, match: MatchRecord, after: int = 0, upto: int | None = None
) -> AsyncIterator[list[Entry]]:
    """The match's log after ``after``, up to ``upto`` (default: its version), a page at a time."""
    upto = match.version if upto is None else upto
    while after < upto:
        page = await store.entries(match, after, upto, PAGE)
        if not page:
            return
        yield page
        after = page[-1].version


async def read_log(store: Store, match: MatchRecord, upto: int | None = None) -> list[Entry]:
    return [entry async for page in read_entries(store, match, 0, upto) for entry in page]


_creators: OrderedDict[str, int | None] = OrderedDict()
"""match id -> the seat its host took when creating it: a fact that never changes,
found once in the whole log, so a later request reads the log only up to its version."""


async def log_and_creator(store: Store, match: MatchRecord, version: int) -> tuple[list[Entry], int | None]:
    if match.id in _creators:
        _creators.move_to_end(match.id)
        return await read_log(store, match, version), _creators[match.id]
    entries = await read_log(store, match)
    _creators[match.id] = _creator_seat(match, entries)
    if len(_creators) > CHECKPOINTS:
        _creators.popitem(last=False)
    return [e for e in entries if e.version <= version], _creators[match.id]


async def view_at(store: Store, match_id: str, version: int, with_log: bool = True) -> dict[str, Any]:
    """The match view right after ``version``, as a spectator saw it; once the
    match is over, with what was hidden then (``hidden``) and its log so far (``log``)."""
    match = await store.load(match_id)
    if not 0 <= version <= match.version:
        raise NotFound(f"this match has not reached version {version}; it is at version {match.version}")
    entries, creator = await log_and_creator(store, match, version)
    then, state = record_at(match, entries, version, creator)
    finished = match.status == "finished"
    shown = views.body(then, None, state=state)
    ruleset = get_ruleset(match.ruleset)
    kept = [e for e in entries if e.version <= version] if with_log else []
    return {
        **shown,
        "you": views.you(then, None),
        # The dice as they are now: the seed is revealed once the match is over.
        "seed": match.seed if finished else None,
        "dice": views.dice_json(match),
        "latest_version": match.version,
        "match_status": match.status,
        "hidden": ruleset.secrets(state, None) if finished and state is not None else [],
        **({"log": views.entries_for(match, kept, None, state=shown["state"])} if with_log else {}),
    }


async def read_matches(
    store: Store, player: str | None, ruleset: str | None, status: str | None
) -> AsyncIterator[list[MatchRecord]]:
    """Every match that passes the filters, newest first, a page at a time."""
    before: int | None = None
    while True:
        page = await store.page(player, ruleset, status, before, PAGE)
        if not page:
            return
        yield page
        if len(page) < PAGE:
            return
        before = page[-1].seq


def summaries(
    store: Store, player: str | None, ruleset: str | None, status: str | None
) -> AsyncIterator[list[dict[str, Any]]]:
    """Every match summary that passes the filters, newest first, a page at a time."""
    if status and status not in STATUSES:
        raise Invalid(f"status: must be one of {', '.join(STATUSES)}")

    async def pages() -> AsyncIterator[list[dict[str, Any]]]:
        async for page in read_matches(store, player, ruleset, status):
            yield [views.summary(m) for m in page]

    return pages()


async def log_pages(
    store: Store, match_id: str, viewer_id: str | None, after: int = 0
) -> AsyncIterator[list[dict[str, Any]]]:
    """The match's log after ``after`` as the viewer may see it, a page at a time
    (the match is read first, so an unknown id fails before anything streams)."""
    match = await store.load(match_id)
    seat = views.seat_of(match, viewer_id)

    async def pages() -> AsyncIterator[list[dict[str, Any]]]:
        async for page in read_entries(store, match, after):
            yield views.entries_for(match, page, seat, await views.undone_entries(store, match, page))

    return pages()
