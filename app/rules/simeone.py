"""`simeone`: Nicole Simeone's Dejarik (RULINGS §6, seed 001).

Fixed teams of four, one die per creature, stuns and points. A turn activates one
creature, which takes up to its number of actions (move, attack, unstun).

Rulings made here where the texts are silent (see ``docs/rulesets/simeone.md``):

- Setup: the players place their creatures one at a time, alternately, Blue
  first; each placement is its own decision step. Initiative is rolled once the
  board is set (the seed's order: arrange, then roll).
- Activation: the first action of a turn activates that creature; the turn then
  belongs to it. ``end_activation`` ends it early, after at least one action.
- An attack is declared by "moving into" the enemy's space (the seed's wording),
  but the attacker never ends there: whatever the result it stays in its own space.
- A push is the attacker's player's choice, and it is compulsory when possible.
- ``center_point = enter`` scores only for a creature's own move into the core,
  not for being pushed there.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from app.rules import board, board_game
from app.rules.base import Action, BaseOptions, Event, GameState, Outcome
from app.rules.board_game import fact
from app.rules.contract import ActionModel, Closed, GameView, Odds, Seat, Space
from app.rules.dice import Dice
from app.rules.odds import odds_for
from app.rules.words import Words, humanise, shown

OFF_BOARD = "off"
"""The ``to`` of a push that sends a creature off the board from ring A."""


@dataclass(frozen=True)
class SimeoneCreature:
    id: str
    name: str
    owner: int
    actions: int
    value: int
    die: int
    stunned_die: int | None
    """Sides of the die used while stunned; ``None``: a static 1."""


CREATURES: dict[str, SimeoneCreature] = {
    c.id: c
    for c in (
        SimeoneCreature("grimtaash", "Grimtaash", 0, 2, 4, 6, 4),
        SimeoneCreature("strider", "Kintan Strider", 0, 1, 8, 12, 8),
        SimeoneCreature("ghhhk", "Ghhhk", 0, 2, 6, 8, 6),
        SimeoneCreature("houjix", "Houjix", 0, 3, 2, 4, None),
        SimeoneCreature("monnok", "Monnok", 1, 2, 4, 6, 4),
        SimeoneCreature("klorslug", "K'lor Slug", 1, 2, 6, 8, 6),
        SimeoneCreature("savrip", "Mantellian Savrip", 1, 1, 8, 12, 8),
        SimeoneCreature("ngok", "Ng'ok", 1, 3, 2, 4, None),
    )
}
"""The fixed teams: Blue (seat 0) Grimtaash, Kintan Strider, Ghhhk, Houjix; Red
(seat 1) Monnok, K'lor Slug, Mantellian Savrip, Ng'ok (RULINGS §6)."""

STATIC_STUNNED = 1
"""What a stunned Houjix or Ng'ok shows: no die, a static 1."""

Result = Literal["defeated", "pushed", "stunned", "nothing"]
RESULTS: tuple[Result, ...] = ("defeated", "pushed", "stunned", "nothing")


def battle_result(attack: int, defense: int) -> Result:
    """The result of a battle from the attacker's and the defender's numbers.

    >>> [battle_result(a, d) for a, d in ((7, 3), (6, 3), (4, 3), (3, 3), (3, 6), (3, 4))]
    ['defeated', 'defeated', 'pushed', 'pushed', 'stunned', 'nothing']
    """
    if attack >= 2 * defense:
        return "defeated"
    if attack >= defense:
        return "pushed"
    if defense >= 2 * attack:
        return "stunned"
    return "nothing"


BATTLE_WORDS: dict[str, str] = {
    "defeated": "{defender} is defeated",
    "pushed": "{defender} is pushed",
    "stunned": "{attacker} is stunned",
    "nothing": "nothing happens",
}


def battle_chances(attack_sides: int, defense_sides: int | None) -> dict[str, Fraction]:
    """Exact chances of each result; ``defense_sides`` ``None`` is a static 1."""
    defenses = [STATIC_STUNNED] if defense_sides is None else range(1, defense_sides + 1)
    counts = dict.fromkeys(RESULTS, 0)
    for a in range(1, attack_sides + 1):
        for d in defenses:
            counts[battle_result(a, d)] += 1
    total = sum(counts.values())
    return {r: Fraction(n, total) for r, n in counts.items()}


class SimeoneOptions(BaseOptions):
    center_point: Centre = Field(
        "enter",
        description="Enter: 1 point each time one of your creatures moves into the core; "
        "end of round: 1 point to whoever holds the core when a round ends; off: the core scores nothing.",
    )
    points_to_win: int = Field(
        12, ge=0, le=1000, description="A score of this many points wins; 0: annihilation only."
    )


CreatureId = Literal[tuple(CREATURES)]  # type: ignore[valid-type]
"""A creature, which is also its piece's id."""

PushTo = Space | Literal["off"]
"""Where a push sends a creature: a space, or ``OFF_BOARD``."""

Centre = Literal["enter", "end_of_round", "off"]


class SimeonePiece(BaseModel):
    id: str
    kind: str
    owner: int
    at: str | None = None
    """``None`` before it is placed and once it is defeated."""
    stunned: bool = False
    defeated: bool = False


class PendingPush(board_game.PendingPush):
    """A pushed defender waiting for the attacker's player to choose where it goes."""

    piece: CreatureId
    by: CreatureId
    options: list[PushTo] = Field(description="Where it may go; 'off': off the board.")


class SimeoneState(GameState):
    options: SimeoneOptions
    pieces: dict[str, SimeonePiece]
    phase: Literal["setup", "play"] = "setup"
    turn: int = 0
    """The seat whose decision it is (placing during setup, the turn in play)."""
    initiative: int | None = None
    round: int = 0
    turn_in_round: int = 0
    """0: the initiative holder's turn of the round, 1: the other player's."""
    active: str | None = None
    """The creature activated this turn, once it has taken its first action."""
    actions_left: int = 0
    scores: list[int] = Field(default_factory=lambda: [0, 0])
    push: PendingPush | None = None
    defeats_this_turn: int = 0


# --- the published contract: actions and the view (GET /api/v1/rulesets/{id}) ----------


class Place(ActionModel):
    """Setup: place one of your creatures on one of your empty home spaces."""

    type: Literal["place"]
    piece: CreatureId
    to: Literal[(*board.HOME[0], *board.HOME[1])]  # type: ignore[valid-type]


class Move(ActionModel):
    """One step to an empty orthogonal neighbour (the first action activates the creature)."""

    type: Literal["move"]
    piece: CreatureId
    to: Space


class Attack(ActionModel):
    """Battle the orthogonally adjacent enemy ``target``; the attacker stays where it is."""

    type: Literal["attack"]
    piece: CreatureId
    target: CreatureId
    odds: Odds | None = Field(None, description="For information: the chances of each outcome.")


class Unstun(ActionModel):
    """A stunned creature's only action."""

    type: Literal["unstun"]
    piece: CreatureId


class EndActivation(ActionModel):
    """End the active creature's activation before its actions run out."""

    type: Literal["end_activation"]


class Push(ActionModel):
    """The attacker's player chooses where the pushed defender goes ('off': off the board)."""

    type: Literal["push"]
    piece: CreatureId
    to: PushTo


class CreatureView(Closed):
    name: str
    actions: int = Field(description="Actions per activation.")
    value: int = Field(description="Points its defeat scores.")
    die: str = Field(description="Its die, e.g. 'd8'.")
    stunned_die: str = Field(description="Its die while stunned, e.g. 'd6', or '1' (a static 1).")


class PieceView(CreatureView):
    """A creature on the board."""

    id: CreatureId
    kind: CreatureId
    owner: Seat
    at: Space
    stunned: bool


class PieceOff(Closed):
    id: CreatureId
    kind: CreatureId
    owner: Seat


class SimeoneView(board_game.BoardGameView):
    phase: Literal["setup", "play"]
    pieces: list[PieceView] = Field(description="The creatures on the board.")
    unplaced: list[PieceOff] = Field(description="Setup: the creatures still to place.")
    defeated: list[PieceOff]
    turn: Seat = Field(description="The seat whose decision it is (placing, or its turn).")
    round: int = Field(ge=0, description="0 during setup.")
    initiative: Seat | None = Field(description="The seat that takes the first turn of every round.")
    active: CreatureId | None = Field(description="The creature activated this turn, once it has acted.")
    actions_left: int = Field(ge=0, description="The active creature's actions left.")
    scores: list[int] = Field(min_length=2, max_length=2)
    points_to_win: int = Field(description="The option; 0: annihilation only.")
    center_point: Centre = Field(description="The option: how the core scores.")
    push: PendingPush | None = Field(description="A push waiting for its chooser, if any.")
    legend: dict[CreatureId, CreatureView]
    turns_without_kill: int = Field(description="The option: quiet turns that end the match in a draw.")


class Simeone(board_game.BoardGame[SimeoneState]):
    id: ClassVar[str] = "simeone"
    name: ClassVar[str] = "Dejarik (Simeone)"
    description: ClassVar[str] = (
        "Nicole Simeone's Dejarik: fixed teams, one die per creature, stuns, pushes off "
        "the edge and points for defeats and for the core."
    )
    seat_names: ClassVar[tuple[str, ...]] = ("Blue", "Red")
    options_schema: ClassVar[type[BaseOptions]] = SimeoneOptions
    state_type: ClassVar[type[GameState]] = SimeoneState
    mutable_fields: ClassVar[tuple[str, ...]] = ("scores",)
    action_models: ClassVar[tuple[type[ActionModel], ...]] = (
        Place, Move, Attack, Unstun, EndActivation, Push,
    )  # fmt: skip
    view_model: ClassVar[type[GameView]] = SimeoneView

    # --- setting up ----------------------------------------------------------------

    def new_game(self, options: BaseOptions, dice: Dice) -> tuple[SimeoneState, list[Event]]:
        assert isinstance(options, SimeoneOptions)
        pieces = {c.id: SimeonePiece(id=c.id, kind=c.id, owner=c.owner) for c in CREATURES.values()}
        state = SimeoneState(options=options, pieces=pieces, turn=0)
        return state, [{"type": "setup", "seat": 0}]

    def chooser(self, state: SimeoneState) -> int | None:
        return None if state.push is None else state.push.chooser

    def decisions(self, state: SimeoneState, seat: int) -> list[Action]:
        if state.push is not None:
            return state.push.actions()
        if state.phase == "setup":
            return self.placements(state, seat)
        if state.active is not None:
            actions = self.creature_actions(state, state.pieces[state.active])
            return [*actions, {"type": "end_activation", "label": "End the activation"}]
        actions = []
        for piece in self.living(state, seat):
            actions += self.creature_actions(state, piece)
        return actions

    def placements(self, state: SimeoneState, seat: int) -> list[Action]:
        taken = {p.at for p in state.pieces.values() if p.at is not None}
        free = [s for s in board.HOME[seat] if s not in taken]
        waiting = [p for p in state.pieces.values() if p.owner == seat and p.at is None and not p.defeated]
        return [{"type": "place", "piece": p.id, "to": s} for p in waiting for s in free]

    def creature_actions(self, state: SimeoneState, piece: SimeonePiece) -> list[Action]:
        """What ``piece`` may do with its next action."""
        if piece.stunned:
            return [{"type": "unstun", "piece": piece.id}]
        occupied = self.occupied(state)
        actions: list[Action] = []
        for n in board.NEIGHBOURS[piece.at]:
            other = occupied.get(n)
            if other is None:
                actions.append({"type": "move", "piece": piece.id, "to": n})
            elif other.owner != piece.owner:
                actions.append(self.attack_action(piece, other))
        return actions

    def attack_action(self, piece: SimeonePiece, target: SimeonePiece) -> Action:
        defense = CREATURES[target.kind]
        sides = defense.stunned_die if target.stunned else defense.die
        return {
            "type": "attack",
            "piece": piece.id,
            "target": target.id,
            "odds": odds_for(
                battle_chances(CREATURES[piece.kind].die, sides),
                BATTLE_WORDS,
                CREATURES[piece.kind].name,
                defense.name,
            ),
        }

    # --- applying ------------------------------------------------------------------

    def apply_game(self, state: SimeoneState, seat: int, action: Action, dice: Dice) -> list[Event]:
        events: list[Event] = []
        kind = action["type"]
        if kind == "place":
            self.place(state, seat, action, dice, events)
            return events
        if kind == "push":
            self.resolve_push(state, seat, action["to"], events)
        elif kind == "end_activation":
            events.append({"type": "end_activation", "seat": seat, "piece": state.active})
            self.end_turn(state, events)
        else:
            piece = state.pieces[action["piece"]]
            if state.active is None:
                state.active = piece.id
                state.actions_left = CREATURES[piece.kind].actions
                events.append({"type": "activate", "seat": seat, "piece": piece.id})
            state.actions_left -= 1
            if kind == "move":
                self.move(state, piece, action["to"], events)
            elif kind == "unstun":
                piece.stunned = False
                events.append({"type": "unstun", "seat": seat, "piece": piece.id})
            elif kind == "attack":
                self.attack(state, piece, state.pieces[action["target"]], dice, events)
        self.advance(state, events)
        return events

    def place(self, state: SimeoneState, seat: int, action: Action, dice: Dice, events: list[Event]) -> None:
        piece = state.pieces[action["piece"]]
        piece.at = action["to"]
        events.append({"type": "place", "seat": seat, "piece": piece.id, "to": piece.at})
        waiting = [s for s in (0, 1) if self.placements(state, s)]
        if not waiting:
            self.start_play(state, dice, events)
            return
        # Alternate, one creature at a time; a player with nothing left to place is skipped.
        state.turn = 1 - seat if (1 - seat) in waiting else seat

    def start_play(self, state: SimeoneState, dice: Dice, events: list[Event]) -> None:
        """Both d6 for initiative, rerolled on a tie; the higher starts every round."""
        while True:
            rolls = [dice.roll([6], "initiative", seat=s) for s in (0, 1)]
            events += rolls
            blue, red = (r["total"] for r in rolls)
            if blue != red:
                break
            events.append({"type": "initiative_tie", "total": blue})
        state.initiative = 0 if blue > red else 1
        events.append({"type": "initiative", "seat": state.initiative})
        state.phase = "play"
        self.start_round(state, events)

    def move(self, state: SimeoneState, piece: SimeonePiece, to: str, events: list[Event]) -> None:
        events.append({"type": "move", "seat": piece.owner, "piece": piece.id, "from": piece.at, "to": to})
        piece.at = to
        if to == board.CORE and state.options.center_point == "enter":
            self.score(state, piece.owner, 1, "entered the core", events)

    def attack(
        self,
        state: SimeoneState,
        attacker: SimeonePiece,
        defender: SimeonePiece,
        dice: Dice,
        events: list[Event],
    ) -> None:
        """A battle; the attacker stays in its own space whatever happens."""
        events.append({"type": "attack", "seat": attacker.owner, "piece": attacker.id, "target": defender.id})
        att = dice.roll([CREATURES[attacker.kind].die], "attack", seat=attacker.owner, piece=attacker.id)
        events.append(att)
        dfn = self.defense_roll(defender, dice)
        events.append(dfn)
        result = battle_result(att["total"], dfn["total"])
        events.append(
            {
                "type": "battle",
                "piece": attacker.id,
                "target": defender.id,
                "attack": att["total"],
                "defense": dfn["total"],
                "result": result,
            }
        )
        if result == "defeated":
            self.defeat(state, defender, attacker, events)
        elif result == "pushed":
            self.start_push(state, attacker, defender, events)
        elif result == "stunned":
            attacker.stunned = True
            events.append({"type": "stunned", "piece": attacker.id})

    def defense_roll(self, defender: SimeonePiece, dice: Dice) -> Event:
        creature = CREATURES[defender.kind]
        about = {"seat": defender.owner, "piece": defender.id, "stunned": defender.stunned}
        if not defender.stunned:
            return dice.roll([creature.die], "defense", **about)
        if creature.stunned_die is None:
            # A static 1: a roll event with no dice, so the table shows what decided it.
            return dice.roll([], "defense", bonus=STATIC_STUNNED, **about)
        return dice.roll([creature.stunned_die], "defense", **about)

    def start_push(
        self, state: SimeoneState, attacker: SimeonePiece, defender: SimeonePiece, events: list[Event]
    ) -> None:
        occupied = self.occupied(state)
        options = [n for n in board.NEIGHBOURS[defender.at] if n not in occupied]
        if board.leads_off_board(defender.at):
            options.append(OFF_BOARD)
        if options:
            state.push = PendingPush(
                chooser=attacker.owner, piece=defender.id, by=attacker.id, options=options
            )
        else:
            events.append({"type": "push_blocked", "piece": defender.id})

    def resolve_push(self, state: SimeoneState, seat: int, to: str, events: list[Event]) -> None:
        push = state.push
        assert push is not None
        state.push = None
        piece = state.pieces[push.piece]
        events.append({"type": "push", "seat": seat, "piece": piece.id, "from": piece.at, "to": to})
        if to == OFF_BOARD:
            self.defeat(state, piece, state.pieces[push.by], events)
        else:
            piece.at = to

    def defeat(
        self, state: SimeoneState, victim: SimeonePiece, by: SimeonePiece, events: list[Event]
    ) -> None:
        events.append({"type": "defeat", "piece": victim.id, "by": by.id, "at": victim.at})
        victim.at = None
        victim.defeated = True
        victim.stunned = False
        state.defeats_this_turn += 1
        self.note_kill(state)
        self.score(
            state, by.owner, CREATURES[victim.kind].value, f"defeated {CREATURES[victim.kind].name}", events
        )
        self.settled(state)

    def score(self, state: SimeoneState, seat: int, points: int, why: str, events: list[Event]) -> None:
        state.scores[seat] += points
        events.append(
            {"type": "score", "seat": seat, "points": points, "total": state.scores[seat], "why": why}
        )
        self.settled(state)

    # --- the end -----------------------------------------------------------------------

    def game_end(self, state: SimeoneState, turn_starts: bool = False) -> Outcome | None:
        """The points to win, then every enemy creature defeated, then the draw by quiet
        turns. (The draw when neither side can act belongs to the turn sequence:
        ``advance`` counts the passes.)"""
        target = state.options.points_to_win
        for seat in (0, 1):
            if target and state.scores[seat] >= target:
                return Outcome(
                    winner=seat, reason=f"{self.seat_name(seat)} reached {state.scores[seat]} points"
                )
        for seat in (0, 1):
            if self.in_play(state) and not self.living(state, seat):
                winner = 1 - seat
                return Outcome(
                    winner=winner, reason=f"{self.seat_name(winner)} defeated every enemy creature"
                )
        return self.quiet_draw(state)

    # --- turns and rounds ------------------------------------------------------------

    def advance(self, state: SimeoneState, events: list[Event]) -> None:
        """End the turn when the activation is spent; pass a turn with nothing to do."""
        passes = 0
        while not self.settled(state) and state.push is None and state.phase == "play":
            if state.active is not None:
                if state.actions_left > 0:
                    return
                self.end_turn(state, events)
                continue
            if self.game_actions(state, state.turn):
                return
            events.append({"type": "pass", "seat": state.turn, "reason": "no legal action"})
            self.end_turn(state, events)
            passes += 1
            if passes >= 2:
                state.result = Outcome(winner=None, reason="neither player can act")

    def end_turn(self, state: SimeoneState, events: list[Event]) -> None:
        """The turn is over: score the round's end, count quiet turns, pass the turn."""
        if self.settled(state):
            return
        state.active = None
        state.actions_left = 0
        round_over = state.turn_in_round == 1
        if round_over:
            self.end_round(state, events)  # a core point may win before the draw count
            if self.settled(state):
                return
        self.count_quiet_turn(state)
        state.defeats_this_turn = 0
        if self.settled(state):
            return
        if round_over:
            self.start_round(state, events)
        else:
            state.turn_in_round = 1
            state.turn = 1 - state.turn
            events.append({"type": "turn", "seat": state.turn, "round": state.round})

    def end_round(self, state: SimeoneState, events: list[Event]) -> None:
        events.append({"type": "round_end", "round": state.round})
        if state.options.center_point == "end_of_round":
            holder = self.occupied(state).get(board.CORE)
            if holder is not None:
                self.score(state, holder.owner, 1, "held the core at the end of the round", events)

    def start_round(self, state: SimeoneState, events: list[Event]) -> None:
        state.round += 1
        state.turn_in_round = 0
        state.turn = state.initiative
        events.append({"type": "turn", "seat": state.turn, "round": state.round})

    # --- reading the state -------------------------------------------------------------

    def in_play(self, state: SimeoneState) -> bool:
        return state.phase == "play"

    def kind_name(self, kind: str) -> str:
        return CREATURES[kind].name

    def game_facts(self, state: SimeoneState) -> list[dict[str, Any]]:
        out = []
        if state.phase == "setup":
            out.append(fact("phase", "Phase", "Setting up"))
        goal = state.options.points_to_win
        scores = [str(points) for points in state.scores]
        out.append(fact("scores", "Score", f"({goal} to win)" if goal else "", seats=scores))
        if state.round:
            words = str(state.round)
            if state.initiative is not None:
                words += f" · initiative: {self.seat_name(state.initiative)}"
            out.append(fact("round", "Round", words))
        if state.active:
            left = state.actions_left
            actions = f"{left} action{'' if left == 1 else 's'}"
            words = f"{self.kind_name(state.active)}: {actions} left in this activation"
            out.append(fact("activation", "Active", words, action="end_activation"))
        if state.options.center_point != "off":
            words = (
                "1 point each time a creature moves into C"
                if state.options.center_point == "enter"
                else "1 point to whoever holds C at the end of a round"
            )
            out.append(fact("core", "Core", words, minor=True))
        return out

    def off_board_status(self, state: SimeoneState, piece: SimeonePiece) -> str:
        return "defeated" if piece.defeated else "to place"

    def pending_choice(self, state: SimeoneState) -> dict[str, Any] | None:
        return None if state.push is None else state.push.choice()

    @staticmethod
    def creature_info(kind: str) -> dict[str, Any]:
        c = CREATURES[kind]
        return {
            "name": c.name,
            "actions": c.actions,
            "value": c.value,
            "die": f"d{c.die}",
            "stunned_die": f"d{c.stunned_die}" if c.stunned_die else str(STATIC_STUNNED),
        }

    def game_view(self, state: SimeoneState, seat: int | None) -> dict[str, Any]:
        return {
            "phase": state.phase,
            "pieces": [
                {
                    "id": p.id,
                    "kind": p.kind,
                    "owner": p.owner,
                    "at": p.at,
                    "stunned": p.stunned,
                    **self.creature_info(p.kind),
                }
                for p in state.pieces.values()
                if p.at is not None
            ],
            "unplaced": [
                {"id": p.id, "kind": p.kind, "owner": p.owner}
                for p in state.pieces.values()
                if p.at is None and not p.defeated
            ],
            "defeated": [
                {"id": p.id, "kind": p.kind, "owner": p.owner} for p in state.pieces.values() if p.defeated
            ],
            "turn": state.turn,
            "round": state.round,
            "initiative": state.initiative,
            "active": state.active,
            "actions_left": state.actions_left,
            "scores": list(state.scores),
            "points_to_win": state.options.points_to_win,
            "center_point": state.options.center_point,
            "push": state.push.model_dump() if state.push else None,
            "legend": {kind: self.creature_info(kind) for kind in CREATURES},
            "turns_without_kill": state.options.turns_without_kill,
        }

    def event_text(self, event: Event, words: Words) -> str | None:
        """Simeone's own events: battles and stuns, scores, activations, initiative, rounds."""
        kind, name, seat = event.get("type"), words.owned_name, event.get("seat")
        if kind == "battle":
            target, attacker = name(event.get("target")), name(event.get("piece"))
            result = {
                "defeated": f"{target} is defeated",
                "pushed": f"{target} is pushed",
                "stunned": f"{attacker} is stunned",
                "nothing": "nothing happens",
            }.get(event.get("result")) or humanise(event.get("result"))
            return (
                f"{attacker} rolled {shown(event.get('attack'))} against {target}'s "
                f"{shown(event.get('defense'))}: {result}"
            )
        if kind == "stunned":
            return f"{name(event.get('piece'))} was stunned"
        if kind == "unstun":
            return f"{name(event.get('piece'))} shook off the stun"
        if kind == "score":
            return (
                f"{words.seat_label(seat)} scored {shown(event.get('points'))} ({shown(event.get('why'))}): "
                f"{shown(event.get('total'))} in all"
            )
        if kind == "end_activation":
            return f"{words.seat_label(seat)} ended {name(event.get('piece'))}'s activation"
        if kind == "initiative":
            return f"{words.seat_label(seat)} has the initiative"
        if kind == "initiative_tie":
            return f"Initiative: a tie at {shown(event.get('total'))}, roll again"
        if kind == "round_end":
            return f"Round {shown(event.get('round'))} ended"
        return super().event_text(event, words)
