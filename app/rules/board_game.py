"""What every piece game on the board shares (issue 14): pieces on spaces, whose
decision it is, the first-player coin, copying a state, counting positions.

``kelly`` (and its variants), ``simeone``, ``orbit-chess`` and ``courtier`` stand on
:class:`BoardGame`; each keeps only what its seed makes different. This module knows
the board (:mod:`app.rules.board`) and the ruleset protocol, and no ruleset.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar, TypeVar

from pydantic import Field

from app.rules.base import Action, Event, GameState, Ruleset
from app.rules.contract import Closed, GameView, Seat, Space
from app.rules.dice import Dice

S = TypeVar("S", bound=GameState)


class PendingPush(Closed):
    """A pushed piece waiting for the winner of the exchange to choose where it goes
    (its own decision step). A ruleset narrows the fields and adds its own."""

    chooser: Seat
    piece: str
    options: list[str]

    def actions(self) -> list[Action]:
        return [{"type": "push", "piece": self.piece, "to": to} for to in self.options]

    def choice(self) -> dict[str, Any]:
        """The push as the board view's ``pending`` choice."""
        return {"chooser": self.chooser, "kind": "push", "piece": self.piece, "options": list(self.options)}


# --- the board view every board ruleset fills (the match view's state.board) -------------


class PieceShown(Closed):
    id: str
    kind: str = Field(description="The piece's kind: a key of the view's legend.")
    owner: Seat
    name: str = Field(description="The kind's name, as players say it.")


class PieceOnBoard(PieceShown):
    at: Space


class PieceOffBoard(PieceShown):
    status: str = Field(
        description="Why it is off the board, in words: 'lost', 'captured', 'defeated', 'inactive', "
        "'inactive until next turn', 'to place'."
    )


class Choice(Closed):
    """A decision that interrupts the turn: the chooser picks one of ``options`` for ``piece``."""

    chooser: Seat
    kind: str = Field(description="'push' (options are spaces, or 'off') or 'capture' (options are pieces).")
    piece: str = Field(description="The piece pushed, or the piece whose move captures.")
    options: list[str]


class Fact(Closed):
    """A fact of the match a player reads beside the board, in words."""

    key: str = Field(description="Which fact, for programs and styles: 'turn', 'scores', 'centre-hold', …")
    label: str
    text: str = Field(description="The fact in words (after the seats' values, when it has them).")
    seats: list[str] | None = Field(description="Per seat, in words, shown beside the seat's name; or null.")
    progress: list[int] | None = Field(
        description="Per seat, steps taken towards ``of`` (drawn as pips); or null."
    )
    of: int | None
    swatch: str | None = Field(
        description="The board marking the fact explains: 'safe', 'must', 'ray', 'protected'."
    )
    minor: bool = Field(description="A standing rule rather than news: shown smaller.")
    action: str | None = Field(description="The type of a legal action the fact offers as a button; or null.")


def fact(
    key: str,
    label: str,
    text: str = "",
    *,
    seats: list[str] | None = None,
    progress: list[int] | None = None,
    of: int | None = None,
    swatch: str | None = None,
    minor: bool = False,
    action: str | None = None,
) -> dict[str, Any]:
    """One :class:`Fact`."""
    return {
        "key": key,
        "label": label,
        "text": text,
        "seats": seats,
        "progress": progress,
        "of": of,
        "swatch": swatch,
        "minor": minor,
        "action": action,
    }


class BoardView(Closed):
    """The same facts in the same shape for every board ruleset, so a client draws any
    of them without knowing which it is."""

    pieces: list[PieceOnBoard] = Field(description="Every piece on the board.")
    off_board: list[PieceOffBoard] = Field(description="Every piece off the board, with why.")
    pending: Choice | None = Field(description="A choice that interrupts the turn, if any.")
    facts: list[Fact] = Field(description="The facts of the match beside the board, in the order shown.")


class BoardGameView(GameView):
    board: BoardView


class BoardGame(Ruleset[S]):
    """A ruleset whose state has ``pieces`` (each with ``owner`` and ``at``) and a
    ``turn``; the seat to act is the turn's, unless a choice waits for another seat."""

    mutable_fields: ClassVar[tuple[str, ...]] = ()
    """The state's values besides ``pieces`` that ``apply_game`` changes in place
    (lists, dicts, nested models): :meth:`copy_state` copies these and shares the rest."""

    # --- the decision guard, once ---------------------------------------------------

    def chooser(self, state: S) -> int | None:
        """The seat of a choice that interrupts the turn (a push, a capture), if any."""
        return None

    def game_to_act(self, state: S) -> list[int]:
        chooser = self.chooser(state)
        return [state.turn if chooser is None else chooser]  # type: ignore[attr-defined]

    def game_actions(self, state: S, seat: int) -> list[Action]:
        if state.result is not None or seat not in self.game_to_act(state):
            return []
        return self.decisions(state, seat)

    def decisions(self, state: S, seat: int) -> list[Action]:
        """The game actions of ``seat``, whose decision it is."""
        raise NotImplementedError

    # --- reading and copying the state ------------------------------------------------

    @staticmethod
    def occupied(state: Any) -> dict[str, Any]:
        """The pieces on the board, by space."""
        return {p.at: p for p in state.pieces.values() if p.at is not None}

    @staticmethod
    def living(state: Any, seat: int) -> list[Any]:
        """``seat``'s pieces on the board."""
        return [p for p in state.pieces.values() if p.owner == seat and p.at is not None]

    def copy_state(self, state: S) -> S:
        """A copy that :meth:`apply_game` may change: the pieces and the
        :attr:`mutable_fields` are copied; everything else is replaced, never changed."""
        update = {"pieces": {key: piece.model_copy() for key, piece in state.pieces.items()}}  # type: ignore[attr-defined]
        for name in self.mutable_fields:
            update[name] = copy.deepcopy(getattr(state, name))
        return state.model_copy(update=update)

    # --- the board view ----------------------------------------------------------------

    def view(self, state: S, seat: int | None) -> dict[str, Any]:
        return {**super().view(state, seat), "board": self.board_view(state)}

    def board_view(self, state: S) -> dict[str, Any]:
        on, off = [], []
        for piece in state.pieces.values():  # type: ignore[attr-defined]
            shown = {
                "id": piece.id,
                "kind": piece.kind,
                "owner": piece.owner,
                "name": self.kind_name(piece.kind),
            }
            if piece.at is not None:
                on.append({**shown, "at": piece.at})
            else:
                off.append({**shown, "status": self.off_board_status(state, piece)})
        return {
            "pieces": on,
            "off_board": off + self.still_to_place(state),
            "pending": self.pending_choice(state),
            "facts": self.facts(state),
        }

    def facts(self, state: S) -> list[dict[str, Any]]:
        """The turn, the ruleset's own facts, a repeated position and the quiet turns."""
        out = []
        if getattr(state, "turn_number", None) and getattr(state, "phase", "play") == "play":
            out.append(fact("turn", "Turn", str(state.turn_number)))  # type: ignore[attr-defined]
        out += self.game_facts(state)
        repeated = self.repetition(state)
        if repeated and repeated[0] > 1:
            count, limit = repeated
            out.append(fact("repetition", "Repetition", f"this position {count} times ({limit} draws)"))
        limit = state.options.turns_without_kill  # type: ignore[attr-defined]
        if limit and state.quiet_turns:
            words = f"{state.quiet_turns} of {limit} before a draw"
            out.append(fact("quiet", "Quiet turns", words, minor=True))
        return out

    def game_facts(self, state: S) -> list[dict[str, Any]]:
        """The ruleset's own facts (:func:`fact`): phase, scores, zones, …"""
        return []

    def repetition(self, state: S) -> tuple[int, int] | None:
        """How often the position has stood, and how often draws; ``None``: not counted."""
        return None

    def kind_name(self, kind: str) -> str:
        """A kind of piece as players name it."""
        raise NotImplementedError

    def off_board_status(self, state: S, piece: Any) -> str:
        """Why ``piece`` is off the board, in words."""
        return "lost"

    def in_play(self, state: S) -> bool:
        """Whether the set-up (a draft, placements) is over: before it, a side with no
        piece on the board has not lost."""
        return True

    def still_to_place(self, state: S) -> list[dict[str, Any]]:
        """Pieces that have no entry in ``state.pieces`` yet (a drafted team's)."""
        return []

    def pending_choice(self, state: S) -> dict[str, Any] | None:
        """A choice that interrupts the turn (:class:`Choice`), if any."""
        return None

    # --- helpers --------------------------------------------------------------------

    @staticmethod
    def coin(dice: Dice, events: list[Event]) -> int:
        """Toss for the first player: the roll and its ``first_player`` event are logged."""
        roll = dice.roll([2], "first player")
        first = roll["dice"][0]["face"] - 1
        events += [roll, {"type": "first_player", "seat": first}]
        return first

    @staticmethod
    def seen_again(seen: dict[str, int], position: str) -> int:
        """Count ``position`` once more in ``seen``; how often it has now stood."""
        seen[position] = seen.get(position, 0) + 1
        return seen[position]
