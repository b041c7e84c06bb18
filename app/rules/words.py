"""Events in player words: what a viewer reads in the match log.

Actions carry their words (``label``) from the ruleset that lists them; events get
theirs the same way, from :meth:`app.rules.base.Ruleset.event_text`, when the match
service shows a log entry to a viewer (``app/services/views.py``). The words name
seats by their names and players ("Blue (Leia)"), pieces by their owner and name
("Red Monnok"), creatures by the legend, and dice as players say them ("6 and 1 on
two d6"). They are computed from the view a seat has of the state, so they never
say more than that seat may see.

:class:`Words` is what the wording reads: the state as the viewer sees it and the
match's seats. A piece is known by every list of the view that names pieces (on the
board, lost, captured, defeated, inactive, in reserve, teams and pieces still to
place, per seat or naming their owners), as the browser named them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Event = dict[str, Any]

COUNTS = ("no", "a", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
PIECE_LISTS = ("pieces", "lost", "captured", "inactive", "reserve", "defeated")
PER_SEAT_LISTS = ("teams", "unplaced")


def humanise(word: Any) -> str:
    """``"push_blocked"`` → ``"Push blocked"``."""
    text = re.sub(r"[_-]+", " ", shown(word)).strip()
    return text[:1].upper() + text[1:]


def shown(value: Any) -> str:
    """A value as the browser writes it in a sentence (``true``, ``null``, ``2``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return str(value)


def list_words(items: Sequence[str]) -> str:
    """``["a", "b", "c"]`` → ``"a, b and c"``."""
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def count_word(n: int) -> str:
    return COUNTS[n] if 0 < n < len(COUNTS) else str(n)


def dice_words(dice: Iterable[Mapping[str, Any]]) -> str:
    """Dice as players say them: "6 and 1 on two d6", "5 and 2 on two d10 and 3 on a d6"."""
    by_sides: dict[Any, list[str]] = {}
    for die in dice:
        by_sides.setdefault(die.get("sides"), []).append(shown(die.get("face")))
    return list_words(
        [
            f"{list_words(faces)} on {count_word(len(faces))} d{shown(sides)}"
            for sides, faces in by_sides.items()
        ]
    )


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{shown(n)} {one if n == 1 else (many or f'{one}s')}"


def notation(event: Event) -> str:
    """Chess-like notation of a move, when the event carries one (" [N A4-B3-B2]")."""
    return f" [{event['notation']}]" if event.get("notation") else ""


@dataclass
class Words:
    """What the wording of a viewer's events reads: the state as the viewer sees it
    (the ruleset's ``view``), and the match's seats (their names and players)."""

    state: Mapping[str, Any] = field(default_factory=dict)
    players: Mapping[int, str] = field(default_factory=dict)
    """The name of each seat's player, for the seats taken."""
    seat_names: Sequence[str] = ()
    """The ruleset's names of the seats (used when the view names none)."""
    names: dict[str, str] = field(default_factory=dict)
    owners: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        legend = self.state.get("legend") or {}
        for key in PIECE_LISTS:
            for piece in self.state.get(key) or []:
                self._remember(piece, None, legend)
        for key in PER_SEAT_LISTS:
            per_seat = self.state.get(key)
            if isinstance(per_seat, list) and all(isinstance(row, list) for row in per_seat):
                for seat, row in enumerate(per_seat):
                    for piece in row:
                        self._remember(piece, seat, legend)
            elif isinstance(per_seat, list):  # one list of pieces that name their owners
                for piece in per_seat:
                    self._remember(piece, None, legend)

    def _remember(self, piece: Any, owner: int | None, legend: Mapping[str, Any]) -> None:
        if isinstance(piece, str):
            piece = {"id": piece, "kind": piece, "owner": owner}
        if not isinstance(piece, Mapping) or not piece.get("id"):
            return
        kind = piece.get("kind")
        known = legend.get(kind) if isinstance(kind, str) else None
        self.names[piece["id"]] = (
            piece.get("name") or (known or {}).get("name") or humanise(kind or piece["id"])
        )
        if isinstance(piece.get("owner"), int) and not isinstance(piece.get("owner"), bool):
            self.owners[piece["id"]] = piece["owner"]

    # --- seats -------------------------------------------------------------------

    def seat_name(self, seat: Any) -> str:
        """ "Blue"; "Nobody" for no seat."""
        if seat is None:
            return "Nobody"
        names = list(self.state.get("seat_names") or []) or list(self.seat_names)
        if isinstance(seat, int) and 0 <= seat < len(names) and names[seat]:
            return names[seat]
        return f"Seat {seat + 1}" if isinstance(seat, int) else f"Seat {shown(seat)}"

    def seat_label(self, seat: Any) -> str:
        """ "Blue (Leia)": the seat and its player, when it has one."""
        name = self.seat_name(seat)
        player = self.players.get(seat) if isinstance(seat, int) else None
        return f"{name} ({player})" if player else name

    # --- pieces and creatures ------------------------------------------------------

    def piece_name(self, piece: Any) -> str:
        """ "Monnok": the piece's name, from the view or the legend."""
        return (self.names.get(piece) if isinstance(piece, str) else None) or humanise(piece)

    def owned_name(self, piece: Any) -> str:
        """ "Red Monnok": both sides may have the same pieces."""
        name = self.piece_name(piece)
        owner = self.owners.get(piece) if isinstance(piece, str) else None
        return name if owner is None else f"{self.seat_name(owner)} {name}"

    def known(self, value: Any) -> bool:
        return isinstance(value, str) and value in self.names

    def legend_name(self, kind: Any) -> str | None:
        legend = self.state.get("legend") or {}
        entry = legend.get(kind) if isinstance(kind, str) else None
        return entry.get("name") if isinstance(entry, Mapping) else None

    # --- dice ------------------------------------------------------------------------

    def roll(self, roll: Event) -> str:
        """ "Blue rolled attack for Monnok: 6 and 1 on two d6, +2: 9"."""
        seat = roll.get("seat")
        who = f"{self.seat_name(seat)} " if seat is not None else ""
        whose = f" for {self.piece_name(roll['piece'])}" if roll.get("piece") else ""
        bonus = f", +{shown(roll['bonus'])}" if roll.get("bonus") else ""
        purpose = roll.get("purpose") or "dice"
        what = f"{who}rolled {purpose}" if who else f"Rolled for {purpose}"
        if not roll.get("dice"):
            return f"{what}{whose}: no die to roll, a flat {shown(roll.get('total'))}"
        total = f": {shown(roll['total'])}" if "total" in roll else ""  # shuffles have none
        return f"{what}{whose}: {dice_words(roll['dice'])}{bonus}{total}"

    # --- any other event -------------------------------------------------------------

    def plainly(self, event: Event) -> str:
        """An event no ruleset words: its type and fields in words ("Swap: Blue, to A3")."""
        parts: list[str] = []
        for key, value in event.items():
            if key in ("type", "text") or value is None:
                continue
            if key == "seat":
                parts.append(self.seat_label(value))
            elif self.known(value):
                parts.append(self.owned_name(value))
            elif not isinstance(value, (dict, list)):
                parts.append(f"{humanise(key).lower()} {shown(value)}")
            elif isinstance(value, list) and all(not isinstance(v, (dict, list)) for v in value):
                items = [self.owned_name(v) if self.known(v) else shown(v) for v in value]
                parts.append(f"{humanise(key).lower()} {', '.join(items)}")
        words = f": {', '.join(parts)}" if parts else ""
        return f"{humanise(event.get('type', 'event'))}{words}"

    # --- a log entry -------------------------------------------------------------------

    def entry_lines(self, entry: Mapping[str, Any]) -> list[str]:
        """One log entry in lines, its events already worded: who did what, then what
        happened ("The match began", then the first player's roll …)."""
        action = entry.get("action") or {}
        texts = [e.get("text") or self.plainly(e) for e in entry.get("events") or []]
        if action.get("type") == "join":
            player = action.get("player") or {}
            who = player.get("name") if isinstance(player, Mapping) and player else "A player"
            return [f"{who} sat down as {self.seat_name(entry.get('seat'))}"]
        if action.get("type") == "start":
            return ["The match began", *texts]
        return texts or [f"{self.seat_label(entry.get('seat'))}: {humanise(action.get('type') or 'action')}"]
