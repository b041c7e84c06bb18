"""The match log as a value: typed entries, a match's dice, and replay.

A match is its ruleset, options, seed and the ordered entries of its log
(ARCHITECTURE §Properties 2). Everything that rebuilds a state from the log goes
through :func:`replay`: a GM's undo, the records of a past version, audits, crash
recovery and the tests.

Undo never rewrites history: the undone entry and its dice stay in the log, and a
replay leaves out the entries that a later ``gm_undo`` names. Each entry's dice
start where they started the first time (``dice_from``), so the replay is exact,
and dice never rewind: an action played again after an undo rolls fresh dice.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.rules.base import CLAIM_TIMEOUT, Action, Event, Ruleset
from app.rules.dice import Dice

NOT_UNDOABLE = frozenset({"join", "start"})
"""Entries that a replay of the game never applies to the state (nor undoes)."""


@dataclass(frozen=True)
class Entry:
    """One log entry: ``seat`` acted (``None``: the host — a start or a GM control)."""

    version: int
    seat: int | None
    action: Action
    events: list[Event] = field(default_factory=list)
    at: datetime | None = None
    dice_from: int = 0
    """How many dice the match had drawn before this entry."""

    @property
    def kind(self) -> str:
        return str(self.action.get("type", ""))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Entry:
        """An entry as ``GET …/events`` shows it, back as a value."""
        at = data.get("at")
        moment = datetime.fromisoformat(at) if isinstance(at, str) else at
        return cls(data["version"], data["seat"], data["action"], data["events"], moment, data["dice_from"])

    def as_json(self) -> dict[str, Any]:
        """The entry as the API shows it (``GET …/events``)."""
        return {
            "version": self.version,
            "seat": self.seat,
            "action": self.action,
            "events": self.events,
            "at": self.at.isoformat() if self.at is not None else None,
            "dice_from": self.dice_from,
        }


def match_dice(seed_hex: str, count: int = 0, player_seeds: Sequence[str] | None = None) -> Dice:
    """The dice of a match whose secret seed is ``seed_hex``, ``count`` dice in.

    ``player_seeds``: every seat's own seed, in seat order (scheme ``hmac-sha256-v2``);
    ``None`` for a match of scheme ``hmac-sha256-v1``, whose dice come from the
    server's seed alone. The one place a match's dice are made: a new dice scheme
    plugs in here.
    """
    return Dice(bytes.fromhex(seed_hex), count, player_seeds)


def undone_versions(entries: Iterable[Entry]) -> set[int]:
    return {e.action["version"] for e in entries if e.kind == "gm_undo"}


def is_game_move(entry: Entry) -> bool:
    """A seat's action on the game (not a join, a start or a GM control)."""
    return entry.seat is not None and entry.kind not in NOT_UNDOABLE and not entry.kind.startswith("gm_")


def replayed(
    ruleset: Ruleset,
    options: dict[str, Any],
    seed_hex: str,
    entries: Iterable[Entry],
    upto: int | None = None,
    player_seeds: Sequence[str] | None = None,
    state: Any = None,
    checked: bool = True,
) -> Iterator[tuple[Entry, Any, list[Event]]]:
    """Each entry that changes the game, with the state and events it gives again,
    up to version ``upto`` (default: the last entry), leaving out undone entries.

    ``options`` are the match's: a GM edits them only before the start;
    ``player_seeds`` the seats' seeds of a ``hmac-sha256-v2`` match (see :func:`match_dice`).

    ``state``: the state after the entries before the first of ``entries``, to go on
    from there (only when no ``gm_undo`` among them names an earlier entry).
    ``checked=False`` applies each logged action without looking it up among the
    legal ones again: the log holds the server's own copy of an action it checked,
    so the result is the same, several times faster (the records of long matches).
    """
    kept = [e for e in entries if upto is None or e.version <= upto]
    undone = undone_versions(kept)
    apply = ruleset.apply if checked else ruleset.apply_legal
    for entry in kept:
        dice = match_dice(seed_hex, entry.dice_from, player_seeds)
        if entry.kind == "start":
            state, events = ruleset.new_game(ruleset.options(options), dice)
        elif entry.kind == CLAIM_TIMEOUT and entry.seat is not None:
            state, events = ruleset.claim_timeout(state, entry.seat)
        elif is_game_move(entry) and entry.version not in undone:
            state, events = apply(state, entry.seat, entry.action, dice)
        else:
            continue
        yield entry, state, events


def replay(
    ruleset: Ruleset,
    options: dict[str, Any],
    seed_hex: str,
    entries: Iterable[Entry],
    upto: int | None = None,
    **how: Any,
) -> Any:
    """The state the log gives after version ``upto`` (default: the last entry);
    ``None`` before the start. ``how``: ``player_seeds``, ``state`` and ``checked``,
    as for :func:`replayed`."""
    last = deque(replayed(ruleset, options, seed_hex, entries, upto, **how), maxlen=1)
    return last[0][1] if last else how.get("state")
