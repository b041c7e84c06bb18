"""What every piece game on the board shares (issue 14): pieces on spaces, whose
decision it is, the first-player coin, copying a state, counting positions.

``kelly`` (and its variants), ``simeone``, ``orbit-chess`` and ``courtier`` stand on
:class:`BoardGame`; each keeps only what its seed makes different. This module knows
the board (:mod:`app.rules.board`) and the ruleset protocol, and no ruleset.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar, TypeVar

from app.rules.base import Action, Event, GameState, Ruleset
from app.rules.contract import Closed, Seat
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
