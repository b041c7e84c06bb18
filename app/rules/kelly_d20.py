"""`kelly-d20`: DalsianDon's alternative rules in seed 003 (RULINGS §4).

`kelly` except:

- a combat total is the rating + a d20 + the creature's secondary die
  (:data:`~app.rules.creatures.KELLY_D20_DICE`);
- To-The-Death uses each piece's higher rating with that rating's secondary die;
- a player who ends three of their own consecutive turns with a piece on the core,
  while the opponent declared no attack on any of their pieces in between, wins.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from app.rules import board
from app.rules.base import Event, GameState, Outcome
from app.rules.board_game import fact
from app.rules.contract import GameView
from app.rules.creatures import KELLY_D20_DICE
from app.rules.dice import Dice
from app.rules.kelly import DiceView, Kelly, KellyState, Piece, Pool
from app.rules.words import Words, shown

CENTRE_HOLD_TURNS = 3
"""Consecutive own turns ended on the core that win the game."""


class KellyD20State(KellyState):
    centre_hold: list[int] = Field(default_factory=lambda: [0, 0])
    """Per seat: own turns in a row ended with a piece on the core, with no enemy
    attack declared on that seat's pieces since the streak began."""


class KellyD20View(DiceView):
    centre_hold: list[int] = Field(
        min_length=2, max_length=2, description="Per seat: own turns in a row ended holding the core."
    )
    centre_hold_to_win: int = Field(description="Such turns that win the match.")


class KellyD20(Kelly):
    id: ClassVar[str] = "kelly-d20"
    name: ClassVar[str] = "Dejarik (Kelly, d20)"
    description: ClassVar[str] = (
        "Kelly's Dejarik with DalsianDon's d20 combat: rating + d20 + a secondary die; "
        "hold the core for three turns unchallenged to win."
    )
    state_type: ClassVar[type[GameState]] = KellyD20State
    mutable_fields: ClassVar[tuple[str, ...]] = ("centre_hold",)
    view_model: ClassVar[type[GameView]] = KellyD20View

    def rated_pool(self, kind: str, rating_name: str) -> Pool:
        """``rating_name`` is ``"attack"`` or ``"defense"``: rating + d20 + that rating's die."""
        creature = self.creatures[kind]
        attack_die, defense_die = KELLY_D20_DICE[kind]
        if rating_name == "attack":
            return Pool(creature.attack, (20, attack_die))
        return Pool(creature.defense, (20, defense_die))

    def attack_pools(self, state: KellyState, attacker: Piece, defender: Piece) -> tuple[Pool, Pool]:
        return self.rated_pool(attacker.kind, "attack"), self.rated_pool(defender.kind, "defense")

    def to_the_death_pool(self, state: KellyState, piece: Piece) -> Pool:
        """The higher rating with its own die; on equal ratings the attack's (the dice agree)."""
        creature = self.creatures[piece.kind]
        higher = "attack" if creature.attack >= creature.defense else "defense"
        return self.rated_pool(piece.kind, higher)

    def attack(
        self, state: KellyD20State, attacker: Piece, defender: Piece, dice: Dice, events: list[Event]
    ) -> None:
        """Declaring an attack on a seat's pieces breaks that seat's hold on the core."""
        if state.centre_hold[defender.owner]:
            events.append(
                {"type": "centre_hold", "seat": defender.owner, "turns": 0, "broken_by": attacker.id}
            )
        state.centre_hold[defender.owner] = 0
        super().attack(state, attacker, defender, dice, events)

    def on_turn_end(self, state: KellyD20State, events: list[Event]) -> None:
        seat = state.turn
        holding = any(p.at == board.CORE for p in self.living(state, seat))
        before = state.centre_hold[seat]
        state.centre_hold[seat] = before + 1 if holding else 0
        if holding or before:
            events.append({"type": "centre_hold", "seat": seat, "turns": state.centre_hold[seat]})

    def game_end(self, state: KellyD20State, turn_starts: bool = False) -> Outcome | None:
        return self.last_piece_lost(state) or self.core_held(state) or self.quiet_draw(state)

    def core_held(self, state: KellyD20State) -> Outcome | None:
        for seat in (0, 1):
            if state.centre_hold[seat] >= CENTRE_HOLD_TURNS:
                reason = f"{self.seat_name(seat)} held the core for {CENTRE_HOLD_TURNS} turns unchallenged"
                return Outcome(winner=seat, reason=reason)
        return None

    def game_facts(self, state: KellyD20State) -> list[dict[str, Any]]:
        held = list(state.centre_hold)
        need = CENTRE_HOLD_TURNS
        return [
            fact("centre-hold", "Centre hold", seats=[f"{h}/{need}" for h in held], progress=held, of=need),
            fact("combat-dice", "Combat", "rating + d20 + secondary die", minor=True),
        ]

    def creature_info(self, kind: str) -> dict[str, Any]:
        attack_die, defense_die = KELLY_D20_DICE[kind]
        return {**super().creature_info(kind), "attack_die": attack_die, "defense_die": defense_die}

    def game_view(self, state: KellyD20State, seat: int | None) -> dict[str, Any]:
        return {
            **super().game_view(state, seat),
            "centre_hold": list(state.centre_hold),
            "centre_hold_to_win": CENTRE_HOLD_TURNS,
            "combat_dice": "rating + d20 + secondary die",
        }

    def event_text(self, event: Event, words: Words) -> str | None:
        """The hold on the core: kept a turn longer, or broken."""
        if event.get("type") == "centre_hold":
            seat = event.get("seat")
            if event.get("broken_by"):
                return (
                    f"{words.owned_name(event['broken_by'])} broke {words.seat_name(seat)}'s hold on the core"
                )
            turns = event.get("turns")
            held = f"{shown(turns)} turn{'' if turns == 1 else 's'}"
            return f"{words.seat_label(seat)} has held the core for {held}"
        return super().event_text(event, words)
