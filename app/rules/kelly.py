"""`kelly`: Mike Kelly's Dejarik with the RPG Notes' d6 pools (RULINGS §3, seed 003).

The variants `kelly-d20` and `dalsiandon` subclass :class:`Kelly` and override its
small hooks: the combat pools, which attacks are allowed, the set-up and what
happens at the end of a turn.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from app.rules import board, board_game
from app.rules.base import Action, BaseOptions, Event, GameState, Outcome
from app.rules.contract import ActionModel, Closed, GameView, Odds, Seat, Space
from app.rules.creatures import KELLY_CREATURES, Creature
from app.rules.dice import Dice
from app.rules.odds import KELLY_WORDS, Pool, attack_odds, classify, odds_for
from app.rules.words import Words, humanise, shown

__all__ = ["ACTIONS_PER_TURN", "Kelly", "KellyState", "PendingPush", "Piece", "Pool", "classify"]

ACTIONS_PER_TURN = 2


@lru_cache(maxsize=16384)
def move_paths(start: str, steps: int, occupied: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """:func:`board.exact_paths` over empty spaces, memoised: the same position is asked
    for several times per action (checking it, applying it, showing the next player's
    options). The result is shared: read it, never change it."""
    return board.exact_paths(start, steps, lambda s: s not in occupied)


class Piece(BaseModel):
    id: str
    kind: str
    owner: int
    at: str | None = None
    """``None`` once the piece is dead."""


CreatureId = Literal[tuple(sorted(KELLY_CREATURES))]  # type: ignore[valid-type]
"""A creature of the kelly family, which is also its piece's id (one of each creature)."""


class PendingPush(board_game.PendingPush):
    """A push waiting for the winner of the exchange to choose where the loser goes."""

    piece: CreatureId
    options: list[Space]
    result: Literal["push", "counter-push"]
    actor: CreatureId
    """The attacking piece, whose action ends once the push is done."""


class KellyState(GameState):
    options: BaseOptions
    pieces: dict[str, Piece]
    turn: int = 0
    actions_left: int = ACTIONS_PER_TURN
    turn_number: int = 1
    push: PendingPush | None = None


# --- the published contract: actions and the view (GET /api/v1/rulesets/{id}) ----------


class Move(ActionModel):
    """Move a piece exactly its Movement in steps to ``to`` (the server finds the path)."""

    type: Literal["move"]
    piece: CreatureId
    to: Space


class Attack(ActionModel):
    """Attack the orthogonally adjacent enemy ``target`` with ``piece``."""

    type: Literal["attack"]
    piece: CreatureId
    target: CreatureId
    odds: Odds | None = Field(None, description="For information: the chances of each outcome.")


class Push(ActionModel):
    """The winner of an exchange chooses where the loser's piece goes."""

    type: Literal["push"]
    piece: CreatureId
    to: Space


class CreatureView(Closed):
    name: str
    attack: int = Field(description="Attack rating.")
    defense: int = Field(description="Defense rating.")
    movement: int = Field(description="Steps a move takes, exactly.")


class PieceAt(Closed):
    id: CreatureId
    kind: CreatureId
    owner: Seat
    at: Space


class PieceView(PieceAt, CreatureView):
    """A living piece, with its creature's ratings."""


class LostPiece(Closed):
    id: CreatureId
    kind: CreatureId
    owner: Seat


class KellyView(board_game.BoardGameView):
    pieces: list[PieceView] = Field(description="The living pieces.")
    lost: list[LostPiece] = Field(description="The dead pieces.")
    turn: Seat = Field(description="Whose turn it is.")
    actions_left: int = Field(ge=0, le=ACTIONS_PER_TURN, description="Actions left in this turn.")
    turn_number: int = Field(ge=1)
    push: PendingPush | None = Field(description="A push waiting for its chooser, if any.")
    legend: dict[CreatureId, CreatureView] = Field(description="Every creature's ratings.")
    turns_without_kill: int = Field(description="The option: quiet turns that end the match in a draw.")


class DiceCreatureView(CreatureView):
    """A creature with the secondary dice rolled beside its ratings (kelly-d20, dalsiandon)."""

    attack_die: int = Field(description="Sides of the die added to the attack rating.")
    defense_die: int = Field(description="Sides of the die added to the defense rating.")


class DicePieceView(PieceAt, DiceCreatureView):
    """A living piece, with its creature's ratings and dice."""


class DiceView(KellyView):
    """The kelly view of a variant whose creatures roll secondary dice."""

    pieces: list[DicePieceView] = Field(description="The living pieces.")
    legend: dict[CreatureId, DiceCreatureView] = Field(description="Every creature's ratings and dice.")
    combat_dice: str = Field(description="What a combat total is, in words.")


COMBAT_WORDS = {
    "kill": "kill: the defender is destroyed",
    "push": "push: the defender is pushed",
    "counter-push": "counter-push: the attacker is pushed",
    "counter-kill": "counter-kill: the attacker is destroyed",
}
"""An attack's outcome in the log's words."""


class Kelly(board_game.BoardGame[KellyState]):
    id: ClassVar[str] = "kelly"
    name: ClassVar[str] = "Dejarik (Kelly)"
    description: ClassVar[str] = (
        "Mike Kelly's classic: eight creatures dealt at random, two actions a turn, "
        "attacks decided by pools of d6."
    )
    seat_names: ClassVar[tuple[str, ...]] = ("Blue", "Red")
    state_type: ClassVar[type[GameState]] = KellyState
    action_models: ClassVar[tuple[type[ActionModel], ...]] = (Move, Attack, Push)
    view_model: ClassVar[type[GameView]] = KellyView
    creatures: ClassVar[dict[str, Creature]] = KELLY_CREATURES

    # --- hooks for variants ------------------------------------------------------

    def attack_pools(self, state: KellyState, attacker: Piece, defender: Piece) -> tuple[Pool, Pool]:
        """The attacker's and the defender's pools: Attack-rating d6 against Defense-rating d6."""
        a, d = self.creatures[attacker.kind], self.creatures[defender.kind]
        return Pool(0, (6,) * a.attack), Pool(0, (6,) * d.defense)

    def to_the_death_pool(self, state: KellyState, piece: Piece) -> Pool:
        """Each piece's pool in To-The-Death: its highest rating, as d6."""
        c = self.creatures[piece.kind]
        return Pool(0, (6,) * max(c.attack, c.defense))

    def may_attack(self, state: KellyState, attacker: Piece, defender: Piece) -> bool:
        """Whether ``attacker`` may attack the adjacent enemy ``defender``."""
        return True

    def may_act_with(self, state: KellyState, piece: Piece) -> bool:
        """Whether the player to move may use ``piece`` for the next action."""
        return True

    def on_action_done(self, state: KellyState, piece: Piece, events: list[Event], dice: Dice) -> None:
        """After an action of ``piece`` is complete (``piece`` may have died in it)."""

    def on_turn_end(self, state: KellyState, events: list[Event]) -> None:
        """At the end of each player's turn, before the other player's begins."""

    def deal(self, dice: Dice) -> tuple[dict[str, Piece], list[Event]]:
        """Deal the creatures at random, four a side, placed at random on the home spaces."""
        kinds, roll = dice.shuffle(
            sorted(self.creatures), f"deal: creatures (the first four to {self.seat_name(0)})"
        )
        events = [roll]
        pieces: dict[str, Piece] = {}
        for seat in (0, 1):
            spaces, roll = dice.shuffle(board.HOME[seat], "deal: home spaces", seat=seat)
            events.append(roll)
            for kind, space in zip(kinds[4 * seat : 4 * seat + 4], spaces, strict=True):
                pieces[kind] = Piece(id=kind, kind=kind, owner=seat, at=space)
        deal = {"type": "deal", "pieces": {p.id: {"owner": p.owner, "at": p.at} for p in pieces.values()}}
        return pieces, [*events, deal]

    # --- the game ----------------------------------------------------------------

    def new_game(self, options: BaseOptions, dice: Dice) -> tuple[KellyState, list[Event]]:
        pieces, events = self.deal(dice)
        first = self.coin(dice, events)
        state = self.state_type(options=options, pieces=pieces, turn=first)
        self._advance(state, events)
        return state, events

    def chooser(self, state: KellyState) -> int | None:
        return None if state.push is None else state.push.chooser

    def decisions(self, state: KellyState, seat: int) -> list[Action]:
        if state.push is not None:
            return state.push.actions()
        return self.turn_actions(state, seat)

    def turn_actions(self, state: KellyState, seat: int) -> list[Action]:
        """Every move and attack open to ``seat`` for its next action."""
        occupied = self.occupied(state)
        actions: list[Action] = []
        for piece in self.living(state, seat):
            if self.may_act_with(state, piece):
                actions += self.piece_actions(state, piece, occupied)
        return actions

    def can_act(self, state: KellyState, seat: int) -> bool:
        """Whether ``seat`` has any move or attack: ``bool(turn_actions(...))``, but it
        stops at the first piece that can act and never works out attack odds."""
        occupied = self.occupied(state)
        taken = frozenset(occupied)
        return any(
            move_paths(piece.at, self.creatures[piece.kind].movement, taken)
            or self.attack_targets(state, piece, occupied)
            for piece in self.living(state, seat)
            if self.may_act_with(state, piece)
        )

    def piece_actions(self, state: KellyState, piece: Piece, occupied: dict[str, Piece]) -> list[Action]:
        """The moves and attacks of one piece."""
        movement = self.creatures[piece.kind].movement
        actions: list[Action] = [
            {"type": "move", "piece": piece.id, "to": end}
            for end in move_paths(piece.at, movement, frozenset(occupied))
        ]
        for target in self.attack_targets(state, piece, occupied):
            actions.append(self.attack_action(state, piece, target))
        return actions

    def attack_targets(self, state: KellyState, piece: Piece, occupied: dict[str, Piece]) -> list[Piece]:
        return [
            occupied[n]
            for n in board.NEIGHBOURS[piece.at]
            if n in occupied
            and occupied[n].owner != piece.owner
            and self.may_attack(state, piece, occupied[n])
        ]

    def attack_action(self, state: KellyState, piece: Piece, target: Piece) -> Action:
        """An attack entry of ``legal_actions``, with the exact odds of its four results."""
        chances = attack_odds(*self.attack_pools(state, piece, target))
        odds = odds_for(chances, KELLY_WORDS, *self.names(piece, target))
        return {"type": "attack", "piece": piece.id, "target": target.id, "odds": odds}

    def names(self, *pieces: Piece) -> list[str]:
        return [self.creatures[p.kind].name for p in pieces]

    def apply_game(self, state: KellyState, seat: int, action: Action, dice: Dice) -> list[Event]:
        events: list[Event] = []
        kind = action["type"]
        if kind == "move":
            piece = state.pieces[action["piece"]]
            occupied = self.occupied(state)
            movement = self.creatures[piece.kind].movement
            path = move_paths(piece.at, movement, frozenset(occupied))[action["to"]]
            events.append(
                {
                    "type": "move",
                    "seat": seat,
                    "piece": piece.id,
                    "from": piece.at,
                    "to": action["to"],
                    "path": list(path),
                }
            )
            piece.at = action["to"]
            self._action_done(state, piece, events, dice)
        elif kind == "attack":
            attacker, defender = state.pieces[action["piece"]], state.pieces[action["target"]]
            self.attack(state, attacker, defender, dice, events)
            if state.push is None:
                self._action_done(state, attacker, events, dice)
        elif kind == "push":
            push = state.push
            loser = state.pieces[push.piece]
            events.append(
                {
                    "type": "push",
                    "seat": seat,
                    "piece": loser.id,
                    "from": loser.at,
                    "to": action["to"],
                    "result": push.result,
                }
            )
            loser.at = action["to"]
            state.push = None
            self._action_done(state, state.pieces[push.actor], events, dice)
        self._advance(state, events)
        return events

    def attack(
        self, state: KellyState, attacker: Piece, defender: Piece, dice: Dice, events: list[Event]
    ) -> None:
        events.append({"type": "attack", "seat": attacker.owner, "piece": attacker.id, "target": defender.id})
        pools = self.attack_pools(state, attacker, defender)
        result = self.exchange(attacker, defender, pools, ("attack", "defense"), dice, events)
        if result == "kill":
            self.kill(state, defender, attacker, events, dice)
        elif result == "counter-kill":
            self.kill(state, attacker, defender, events, dice)
        else:
            winner, loser = (attacker, defender) if result == "push" else (defender, attacker)
            self.start_push(state, attacker, winner, loser, result, events, dice)

    def exchange(
        self,
        first: Piece,
        second: Piece,
        pools: tuple[Pool, Pool],
        purposes: tuple[str, str],
        dice: Dice,
        events: list[Event],
    ) -> str:
        """``first``'s pool rolled against ``second``'s: both rolls and the combat are
        logged; the result by the table of RULINGS §3 (an attack, or To-The-Death)."""
        rolls = [
            dice.roll(pool.sides, purpose, bonus=pool.bonus, seat=piece.owner, piece=piece.id)
            for piece, pool, purpose in zip((first, second), pools, purposes, strict=True)
        ]
        difference = rolls[0]["total"] - rolls[1]["total"]
        result = classify(difference)
        combat = {
            "type": "combat",
            "piece": first.id,
            "target": second.id,
            "attack": rolls[0]["total"],
            "defense": rolls[1]["total"],
            "difference": difference,
            "result": result,
        }
        events += [*rolls, combat]
        return result

    def start_push(
        self,
        state: KellyState,
        attacker: Piece,
        winner: Piece,
        loser: Piece,
        result: str,
        events: list[Event],
        dice: Dice,
    ) -> None:
        """The loser of an exchange is to be pushed: the winner chooses where, if there is room."""
        room = [s for s in board.NEIGHBOURS[loser.at] if s not in self.occupied(state)]
        if room:
            state.push = PendingPush(
                chooser=winner.owner, piece=loser.id, options=room, result=result, actor=attacker.id
            )
        else:  # no empty space to go to: nothing happens
            events.append({"type": "push_blocked", "piece": loser.id})

    def kill(self, state: KellyState, victim: Piece, killer: Piece, events: list[Event], dice: Dice) -> None:
        events.append({"type": "kill", "piece": victim.id, "by": killer.id, "at": victim.at})
        victim.at = None
        self.note_kill(state)
        if self.settled(state):
            return
        survivors = {seat: self.living(state, seat) for seat in (0, 1)}
        if len(survivors[0]) == 1 and len(survivors[1]) == 1:
            self.to_the_death(state, survivors[state.turn][0], survivors[1 - state.turn][0], dice, events)

    def to_the_death(
        self, state: KellyState, first: Piece, second: Piece, dice: Dice, events: list[Event]
    ) -> None:
        """Both last pieces go to the core and fight until one dies; pushes are rolled again."""
        for piece in (first, second):
            piece.at = board.CORE
        events.append({"type": "to_the_death", "pieces": [first.id, second.id]})
        pools = self.to_the_death_pool(state, first), self.to_the_death_pool(state, second)
        while True:
            result = self.exchange(first, second, pools, ("to the death", "to the death"), dice, events)
            if result in ("kill", "counter-kill"):
                winner, loser = (first, second) if result == "kill" else (second, first)
                events.append({"type": "kill", "piece": loser.id, "by": winner.id, "at": board.CORE})
                loser.at = None
                self.note_kill(state)
                self.settled(state)
                return

    # --- the end -----------------------------------------------------------------

    def game_end(self, state: KellyState, turn_starts: bool = False) -> Outcome | None:
        """A side with no piece left loses; then the draw by quiet turns. (The draw when
        neither side can act belongs to the turn sequence: ``_advance`` counts the passes.)"""
        return self.last_piece_lost(state) or self.quiet_draw(state)

    def last_piece_lost(self, state: KellyState) -> Outcome | None:
        if not self.in_play(state):
            return None
        for seat in (0, 1):
            if not self.living(state, seat):
                winner = 1 - seat
                # One piece against none is only ever left by To-The-Death: a kill that
                # leaves one piece a side starts it at once.
                how = (
                    "won To-The-Death"
                    if len(self.living(state, winner)) == 1
                    else "destroyed every enemy piece"
                )
                return Outcome(winner=winner, reason=f"{self.seat_name(winner)} {how}")
        return None

    # --- turn bookkeeping --------------------------------------------------------

    def _action_done(self, state: KellyState, piece: Piece, events: list[Event], dice: Dice) -> None:
        state.actions_left -= 1
        self.on_action_done(state, piece, events, dice)

    def _advance(self, state: KellyState, events: list[Event]) -> None:
        """End turns that are over and pass actions that have no legal option."""
        passes = 0
        while not self.settled(state) and state.push is None:
            if state.actions_left <= 0:
                self._end_turn(state, events)
                continue
            if self.can_act(state, state.turn):
                return
            events.append({"type": "pass", "seat": state.turn, "reason": "no legal action"})
            state.actions_left -= 1
            passes += 1
            if passes >= 2 * ACTIONS_PER_TURN:
                # Neither player can do anything, and passing changes nothing.
                state.result = Outcome(winner=None, reason="neither player can act")

    def _end_turn(self, state: KellyState, events: list[Event]) -> None:
        self.on_turn_end(state, events)
        self.count_quiet_turn(state)
        if self.settled(state):
            return
        state.turn = 1 - state.turn
        state.actions_left = ACTIONS_PER_TURN
        state.turn_number += 1
        events.append({"type": "turn", "seat": state.turn, "number": state.turn_number})

    # --- reading the state -------------------------------------------------------

    def creature_info(self, kind: str) -> dict[str, Any]:
        c = self.creatures[kind]
        return {"name": c.name, "attack": c.attack, "defense": c.defense, "movement": c.movement}

    def kind_name(self, kind: str) -> str:
        return self.creatures[kind].name

    def pending_choice(self, state: KellyState) -> dict[str, Any] | None:
        return None if state.push is None else state.push.choice()

    def game_view(self, state: KellyState, seat: int | None) -> dict[str, Any]:
        return {
            "pieces": [
                {"id": p.id, "kind": p.kind, "owner": p.owner, "at": p.at, **self.creature_info(p.kind)}
                for p in state.pieces.values()
                if p.at is not None
            ],
            "lost": [
                {"id": p.id, "kind": p.kind, "owner": p.owner} for p in state.pieces.values() if p.at is None
            ],
            "turn": state.turn,
            "actions_left": state.actions_left,
            "turn_number": state.turn_number,
            "push": state.push.model_dump() if state.push else None,
            "legend": {kind: self.creature_info(kind) for kind in sorted(self.creatures)},
            "turns_without_kill": state.options.turns_without_kill,
        }

    def event_text(self, event: Event, words: Words) -> str | None:
        """Kelly's own events: the exchange of an attack, the deal, To-The-Death."""
        kind = event.get("type")
        if kind == "combat":
            outcome = COMBAT_WORDS.get(event.get("result")) or humanise(event.get("result"))
            return (
                f"Attack {shown(event.get('attack'))} against defense {shown(event.get('defense'))} "
                f"(difference {shown(event.get('difference'))}): {outcome}"
            )
        if kind == "deal":
            return "The creatures were dealt"
        if kind == "to_the_death":
            pieces = " and ".join(words.owned_name(p) for p in event.get("pieces") or [])
            return f"To-The-Death: {pieces} fight in the core"
        return super().event_text(event, words)
