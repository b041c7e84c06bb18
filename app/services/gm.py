"""GM controls: the host of a match created with ``seat: null`` runs the table.

The controls are the host's ``legal_actions`` (all of type ``gm_…``), so a GM's
REST client plays them like any other action. Each applied control is its own
log entry (seat ``null``). Besides running the table, a GM makes the decisions a
ruleset leaves to them (``Ruleset.gm_actions``: granting or refusing an eote
re-roll); those change the game, so a replay applies them and an undo may take
them back. Undo never rewrites history: the state is rebuilt by
replaying the log without the undone entries (``app/rules/log.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol

from pydantic import Field

from app.rules.base import Action, Ruleset
from app.rules.contract import ActionModel, Seat
from app.rules.log import Entry, is_game_move, undone_versions
from app.rules.words import Event, Words, humanise, shown

GM_PREFIX = "gm_"
FILLED_BY_GM = {"gm_set_options": "options"}
"""Controls whose named field the GM fills in, rather than sending it back as listed."""


class SetOptions(ActionModel):
    """Before the start: replace the match options (checked by the ruleset's options schema)."""

    type: Literal["gm_set_options"]
    options: dict[str, Any] = Field(
        description="The new options: the GM's to fill in, not sent back as listed."
    )


class Start(ActionModel):
    """Start the match (every seat taken, or played by the GM as an NPC)."""

    type: Literal["gm_start"]


class Pause(ActionModel):
    type: Literal["gm_pause"]


class Resume(ActionModel):
    type: Literal["gm_resume"]


class Undo(ActionModel):
    """Undo the newest player action still in effect."""

    type: Literal["gm_undo"]
    version: int = Field(ge=1, description="The log entry undone.")


class TakeSeat(ActionModel):
    """Play this seat as a non-player character."""

    type: Literal["gm_take_seat"]
    seat: Seat


class ReleaseSeat(ActionModel):
    """Hand the NPC seat back."""

    type: Literal["gm_release_seat"]
    seat: Seat


class OpenSeat(ActionModel):
    """Replace this seat's player: the seat is open again."""

    type: Literal["gm_open_seat"]
    seat: Seat


CONTROLS: tuple[type[ActionModel], ...] = (
    SetOptions, Start, Pause, Resume, Undo, TakeSeat, ReleaseSeat, OpenSeat,
)  # fmt: skip
"""The GM's controls as published in every ruleset's ``actions_schema``: the host of a
GM-run match finds them among its ``legal_actions``."""


class SeatLike(Protocol):
    seat: int
    player_id: str | None
    npc: bool


class MatchLike(Protocol):
    host_id: str
    options: dict[str, Any]
    status: str
    paused: bool
    seats: Sequence[SeatLike]


def is_gm_action(action: Any) -> bool:
    kind = action.get("type") if isinstance(action, dict) else None
    return isinstance(kind, str) and kind.startswith(GM_PREFIX)


def is_gm_run(match: MatchLike) -> bool:
    """A match whose host does not play: created with ``seat: null``."""
    return not any(s.player_id == match.host_id for s in match.seats)


def npc_seat(match: MatchLike) -> int | None:
    return next((s.seat for s in match.seats if s.npc), None)


def undoable_version(entries: Sequence[Entry], ruleset: Ruleset) -> int | None:
    """The newest game move (a player's, or the GM's decision) still in effect, if any."""
    undone = undone_versions(entries)
    moves = (e for e in reversed(entries) if is_game_move(e, ruleset) and e.version not in undone)
    return next((e.version for e in moves), None)


def host_actions(
    match: MatchLike, ruleset: Ruleset, undoable: int | None, decisions: Sequence[Action] = ()
) -> list[Action]:
    """The GM's controls now (empty for a match whose host plays a seat): running the
    table, and the ``decisions`` the game waits for the GM to make (``Ruleset.gm_actions``)."""
    if not is_gm_run(match) or match.status == "finished":
        return []
    actions: list[Action] = []
    if match.status == "waiting":
        # Sent back with new "options" (character sheets, for eote), checked by the
        # ruleset's options schema: the one control whose payload is the GM's to fill.
        actions.append(
            {"type": "gm_set_options", "options": match.options, "label": "Edit the match options"}
        )
        if all(s.player_id is not None or s.npc for s in match.seats):
            actions.append({"type": "gm_start", "label": "Start the match"})
    if match.status == "active":
        if match.paused:
            actions.append({"type": "gm_resume", "label": "Resume play"})
        else:
            actions += decisions
            actions.append({"type": "gm_pause", "label": "Pause play"})
        if undoable is not None:
            label = f"Undo the action of version {undoable}"
            actions.append({"type": "gm_undo", "version": undoable, "label": label})
    holding = npc_seat(match)
    for seat in match.seats:
        name = ruleset.seat_name(seat.seat)
        if seat.npc:
            actions.append({"type": "gm_release_seat", "seat": seat.seat, "label": f"Hand {name} back"})
        elif holding is None:
            actions.append({"type": "gm_take_seat", "seat": seat.seat, "label": f"Play {name} as an NPC"})
        if seat.player_id is not None and not seat.npc:
            actions.append({"type": "gm_open_seat", "seat": seat.seat, "label": f"Replace {name}'s player"})
    return actions


def option_changes(before: Any, after: Any, path: str = "") -> list[dict[str, Any]]:
    """Every option whose value differs, by dotted path (``sheets.0.intellect``)."""
    if isinstance(before, dict) and isinstance(after, dict):
        keys = list(before) + [k for k in after if k not in before]
        return [c for k in keys for c in option_changes(before.get(k), after.get(k), f"{path}{k}.")]
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        pairs = enumerate(zip(before, after, strict=True))
        return [c for i, (b, a) in pairs for c in option_changes(b, a, f"{path}{i}.")]
    return [] if before == after else [{"option": path.rstrip("."), "from": before, "to": after}]


# --- the GM's controls in the log's words -----------------------------------------

GM = "The game master"


def event_text(event: Event, words: Words, entry_of: Callable[[int], dict[str, Any] | None]) -> str | None:
    """The words of an event of the GM's controls ("The game master paused the match");
    ``None`` for any other event. ``entry_of(version)``: a log entry as the viewer
    sees it, its events worded, or ``None`` when it is not known."""
    kind, seat = event.get("type"), event.get("seat")
    if kind == "paused":
        return f"{GM} paused the match"
    if kind == "resumed":
        return f"{GM} resumed play"
    if kind == "npc":
        return f"{GM} took over {words.seat_label(seat)} and plays it as an NPC"
    if kind == "npc_released":
        return f"{GM} handed {words.seat_name(seat)} back to its player"
    if kind == "seat_opened":
        return f"{GM} opened {words.seat_name(seat)}: a new player can join with its invite link"
    if kind == "undone":
        return undone_text(event, words, entry_of)
    if kind == "options_changed":
        changes = event.get("changes") or []
        if not changes:
            return f"{GM} saved the options (nothing changed)"
        listed = [
            f"{option_name(words, c.get('option'))} "
            f"{option_value(c.get('from'))} → {option_value(c.get('to'))}"
            for c in changes
        ]
        return f"{GM} changed the options: {'; '.join(listed)}"
    return None


def undone_text(event: Event, words: Words, entry_of: Callable[[int], dict[str, Any] | None]) -> str:
    """What was undone, in its own words from the log: "The game master undid #8,
    Dark (Dorn)'s attack: Lowbacca made a primary attack. Its dice stay in the log"."""
    version = event.get("version")
    who = "" if event.get("seat") is None else f"{words.seat_label(event['seat'])}'s "
    action = event.get("action") or {}
    kind = str(action.get("type") or "action")
    if kind == "hidden" and event.get("seat") is not None:  # another seat's secret: named, not shown
        return f"{GM} took back {words.seat_label(event['seat'])}'s last hidden step"
    entry = entry_of(version) if isinstance(version, int) else None
    rolled = entry is not None and any(e.get("type") == "roll" for e in entry.get("events") or [])
    kept = [line for line in words.entry_lines(entry) if not ROLLED.search(line)] if entry else []
    what = kept[0] if kept else action.get("label") or humanise(kind).lower()
    dice = ". Its dice stay in the log" if rolled else ""
    if kind.startswith(GM_PREFIX):  # a GM's own decision (an eote re-roll) names itself
        return f"{GM} undid #{shown(version)}: {what}{dice}"
    return f"{GM} undid #{shown(version)}, {who}{humanise(kind).lower()}: {what}{dice}"


ROLLED = re.compile(" rolled ")
"""A line of dice: the undone entry's dice are not what the undo names."""


def option_name(words: Words, path: Any) -> str:
    """``"sheets.0.intellect"`` → "Light's sheet: intellect" for eote's sheets,
    ``"turns_without_kill"`` → "Turns without kill"."""
    keys = shown(path).split(".")
    if keys[0] == "sheets" and len(keys) > 1 and keys[1].isdecimal():
        rest = " ".join(humanise(k).lower() for k in keys[2:])
        return f"{words.seat_name(int(keys[1]))}'s sheet{f': {rest}' if rest else ''}"
    name = " ".join(f"#{int(k) + 1}" if k.isdecimal() else humanise(k).lower() for k in keys)
    return name[:1].upper() + name[1:]


def option_value(value: Any) -> str:
    if value is None or value == "":
        return "(none)"
    if isinstance(value, bool):
        return "on" if value else "off"
    return shown(value)
