"""The one projection: everything a viewer may see of a match, computed here.

REST responses, websocket snapshots and updates, the table view and the history
pages all come from these functions, over one record type (:class:`MatchRecord`)
and one log entry type (:class:`Entry`).

A view is two parts: the *body*, which depends only on the seat the viewer plays
(``None``: a spectator) and on whether the viewer runs the table as a GM, and
``you``, the few fields that name the viewer. The hub renders each distinct body
once per update and shares its bytes between every connection that sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from app.bots import bot_json  # bots (issue 9)
from app.rules import get_ruleset
from app.rules.base import Action, Ruleset
from app.rules.log import Entry
from app.rules.words import Event, Words
from app.services import clock, gm
from app.services.store import MatchRecord, PlayerRecord, Store

EntryOf = Callable[[int], dict[str, Any] | None]
"""A log entry by version, as the viewer sees it with its events worded (``None``: unknown)."""


def _unknown(version: int) -> dict[str, Any] | None:
    return None


def seat_of(match: MatchRecord, player_id: str | None) -> int | None:
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


def runs_table(match: MatchRecord, player_id: str | None) -> bool:
    """The viewer is the GM of a GM-run match (and so sees the GM's controls)."""
    return player_id is not None and player_id == match.host_id and gm.is_gm_run(match)


def player_json(player: Any) -> dict[str, str] | None:
    return None if player is None else {"id": player.id, "name": player.name}


def entry_for(ruleset: Ruleset, entry: Entry, seat: int | None, finished: bool) -> dict[str, Any]:
    """A log entry as ``seat`` may see it: another seat's private choices (an eote
    setting) show as ``{"type": "hidden"}`` until the match is over."""
    shown = entry.as_json()
    if finished:
        return shown
    if entry.seat is None:  # a GM's undo names the undone action: hidden likewise
        return {**shown, "events": [_undone_for(ruleset, e, seat) for e in entry.events]}
    if entry.seat != seat and entry.kind in ruleset.private_actions:
        return {**shown, "action": {"type": "hidden"}}
    return shown


def _undone_for(ruleset: Ruleset, event: dict[str, Any], seat: int | None) -> dict[str, Any]:
    if event.get("type") != "undone" or event.get("seat") == seat:
        return event
    if (event.get("action") or {}).get("type") in ruleset.private_actions:
        return {**event, "action": {"type": "hidden"}}
    return event


def entries_for(
    match: MatchRecord,
    entries: list[Entry],
    seat: int | None,
    earlier: Mapping[int, Entry] | None = None,
    state: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Log entries as ``seat`` may see them, every event with its ``text``.

    ``earlier``: entries a GM's undo among ``entries`` names (:func:`undone_entries`),
    so that its words name what was undone; ``state``: the ruleset's view of the
    state as ``seat`` sees it, when the caller has it (default: the match's now).
    """
    ruleset, finished = get_ruleset(match.ruleset), match.status == "finished"
    shown = [entry_for(ruleset, e, seat, finished) for e in entries]
    if not any(e["events"] for e in shown):
        return shown
    words = words_for(match, seat, state)
    known = {e["version"]: e for e in shown}
    worded: dict[int, dict[str, Any]] = {}

    def entry_of(version: int) -> dict[str, Any] | None:
        if version not in worded:
            worded[version] = None  # (an entry never names itself; this guards the recursion)
            entry = known.get(version)
            if entry is None and earlier is not None and version in earlier:
                entry = entry_for(ruleset, earlier[version], seat, finished)
            worded[version] = entry and with_words(ruleset, entry, words, entry_of)
        return worded[version]

    return [entry_of(e["version"]) or e for e in shown]


def with_words(
    ruleset: Ruleset, entry: dict[str, Any], words: Words, entry_of: EntryOf = _unknown
) -> dict[str, Any]:
    """``entry`` (as a viewer sees it) with each event's ``text``: the GM's controls'
    words, else the ruleset's (:meth:`Ruleset.event_text`), else its type and fields."""
    return {
        **entry,
        "events": [{**e, "text": event_text(ruleset, e, words, entry_of)} for e in entry["events"]],
    }


def event_text(ruleset: Ruleset, event: Event, words: Words, entry_of: EntryOf = _unknown) -> str:
    """One event in the player words of the viewer that ``words`` reads for."""
    return gm.event_text(event, words, entry_of) or ruleset.event_text(event, words) or words.plainly(event)


def words_for(match: MatchRecord, seat: int | None, state: Mapping[str, Any] | None = None) -> Words:
    """What the words of ``seat``'s events read: its view of the state and the seats' players."""
    ruleset = get_ruleset(match.ruleset)
    if state is None:
        loaded = loaded_state(match)
        state = ruleset.view(loaded, seat) if loaded is not None else {}
    players = {s.seat: s.player.name for s in match.seats if s.player is not None}
    return Words(state=state, players=players, seat_names=ruleset.seat_names)


def undone_versions_missing(entries: Iterable[Entry]) -> set[int]:
    """The versions that a GM's undo among ``entries`` names and ``entries`` lack."""
    have = {e.version for e in entries}
    named = {e.action.get("version") for e in entries if e.kind == "gm_undo"}
    return {v for v in named if isinstance(v, int) and v not in have}


async def undone_entries(store: Store, match: MatchRecord, entries: Iterable[Entry]) -> dict[int, Entry]:
    """The entries that GM undos among ``entries`` undid, read when ``entries`` lack
    them: an undo's words name the action it took back (:func:`entries_for`)."""
    entries = list(entries)
    found: dict[int, Entry] = {}
    for version in sorted(undone_versions_missing(entries)):
        entry = await store.entry(match, version)
        if entry is not None:
            found[version] = entry
    return found


def loaded_state(match: MatchRecord) -> Any:
    """The ruleset's state object of ``match`` (``None`` before the start)."""
    if match.loaded is not None:
        return match.loaded
    return None if match.state is None else get_ruleset(match.ruleset).load_state(match.state)


def with_state(match: MatchRecord) -> MatchRecord:
    """``match`` carrying its loaded state, so the service parses it once per change."""
    if match.loaded is not None or match.state is None:
        return match
    return replace(match, loaded=loaded_state(match))


def you(match: MatchRecord, viewer: PlayerRecord | None) -> dict[str, Any]:
    """The part of a view that names its viewer."""
    viewer_id = viewer.id if viewer else None
    return {
        "player": player_json(viewer),
        "seat": seat_of(match, viewer_id),
        "host": viewer_id is not None and viewer_id == match.host_id,
        "gm": runs_table(match, viewer_id),
    }


def body(
    match: MatchRecord,
    seat: int | None,
    controls: list[Action] | None = None,
    state: Any = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """Everything but ``you`` of the match view of a viewer in ``seat``;
    ``controls``: the GM's own legal actions, for the GM of a GM-run match;
    ``now``: the time a timed match's claims are judged at (default: the clock's)."""
    ruleset = get_ruleset(match.ruleset)
    state = loaded_state(match) if state is None else state
    active = match.status == "active"
    playing = active and state is not None
    claims = clock.claim_actions(match, seat, now or clock.system_now()) if playing else []
    return {
        "id": match.id,
        "ruleset": match.ruleset,
        "options": match.options,
        "status": match.status,
        "version": match.version,
        "seats": [
            {
                "seat": s.seat,
                "name": ruleset.seat_name(s.seat),
                "player": player_json(s.player),
                "npc": s.npc,
                "bot": bot_json(s.bot),  # bots (issue 9)
            }
            for s in match.seats
        ],
        "host": player_json(match.host),
        "to_act": ruleset.to_act(state) if playing else [],
        "state": ruleset.view(state, seat) if state is not None else {},
        "legal_actions": (
            ruleset.legal_actions(state, seat) if playing and not match.paused and seat is not None else []
        )
        + claims
        + (controls or []),
        **clock.view_fields(match),
        "result": match.result,
        "paused": match.paused,
        "seed_sha256": match.seed_sha256,
        "seed": match.seed if match.status == "finished" else None,
        "dice": dice_json(match),
        "rematch": rematch_json(match, now or clock.system_now()),
        "rated": match.rated,
        "rating_changes": rating_changes_json(match),
        "created_at": match.created_at.isoformat(),
        "updated_at": match.updated_at.isoformat(),
    }


REMATCH_OFFER_LASTS = timedelta(minutes=5)
"""An offer left unanswered this long expires: either player may offer again."""


def rematch_status(match: MatchRecord, now: datetime) -> str | None:
    """The rematch's state at ``now``: an unanswered offer past its time is ``expired``."""
    expires = rematch_expires_at(match)
    if match.rematch_state == "offered" and expires is not None and now >= expires:
        return "expired"
    return match.rematch_state


def rematch_expires_at(match: MatchRecord) -> datetime | None:
    if match.rematch_state != "offered" or match.rematch_at is None:
        return None  # (offers made before offers expired never do)
    return match.rematch_at + REMATCH_OFFER_LASTS


def rematch_json(match: MatchRecord, now: datetime) -> dict[str, Any] | None:
    """A rematch offered after the end, how it was answered, and until when an offer stands."""
    if match.rematch_state is None:
        return None
    expires = rematch_expires_at(match)
    return {
        "status": rematch_status(match, now),
        "by": match.rematch_by,
        "match": match.rematch_id,
        "expires_at": expires.isoformat() if expires else None,
    }


def rating_changes_json(match: MatchRecord) -> list[dict[str, Any]] | None:
    """A rated match's end: each seat's rating before and after (``null`` until then,
    and for a rated match that ended before every seat had played)."""
    if not match.rating_changes:
        return None
    fields = ("seat", "before", "after", "before_provisional", "after_provisional")
    return [{name: change[name] for name in fields} for change in match.rating_changes]


def dice_json(match: MatchRecord) -> dict[str, Any]:
    """What anyone needs to check every die (docs/dice.md): the scheme, the
    commitment to the server's seed, the seed once the match is over, the seats' seeds."""
    v1 = match.dice_seeds is None
    return {
        "scheme": match.dice_scheme,
        "commitment": match.seed_sha256,
        "seed": match.seed if match.status == "finished" else None,
        "player_seeds": [] if v1 else match.player_seeds,
    }


def controls(match: MatchRecord, entries: list[Entry]) -> list[Action]:
    """The GM's controls, given the match's whole log (for what may be undone)."""
    ruleset, active = get_ruleset(match.ruleset), match.status == "active"
    undoable = gm.undoable_version(entries, ruleset) if active else None
    state = loaded_state(match) if active else None
    decisions = ruleset.gm_actions(state) if state is not None else []
    return gm.host_actions(match, ruleset, undoable, decisions)


def match_view(
    match: MatchRecord,
    viewer: PlayerRecord | None,
    controls: list[Action] | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """The match as ``viewer`` may see it (``None``: an anonymous spectator)."""
    shown = body(match, seat_of(match, viewer.id if viewer else None), controls, now=now)
    return {**shown, "you": you(match, viewer)}


def summary(match: MatchRecord) -> dict[str, Any]:
    """A match in a list: who plays, whose decision it is, how it ended."""
    ruleset = get_ruleset(match.ruleset)
    state = loaded_state(match) if match.status == "active" else None
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
        "to_act": ruleset.to_act(state) if state is not None else [],
        **clock.view_fields(match),
        "result": match.result,
        "rated": match.rated,
        "created_at": match.created_at.isoformat(),
        "updated_at": match.updated_at.isoformat(),
    }
