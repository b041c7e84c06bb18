"""`dalsiandon`: Don Thomas's revised Dejarik (RULINGS §5, seed 004).

`kelly` except:

- a combat total is the rating + 2d10 + a secondary die chosen by the rating
  (:func:`~app.rules.creatures.secondary_die`);
- teams are drafted with d8 rolls (option ``teams="draft"``, the default) or dealt
  at random (``teams="random"``);
- each player rolls a d10 (ties rerolled); the lower roll arranges first and moves
  first, the higher arranges second, seeing the first arrangement; every placement
  is its own decision;
- ring A is a safe zone: no attack into or out of it;
- five advanced options, each off by default and freely combinable:
  ``king_of_the_center``, ``death_push``, ``nowhere_is_safe``,
  ``twenty_sides_of_terror`` and ``rays_of_death``.

Where the seed is silent, the rulings are in ``docs/rulesets/kelly-family.md``.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from app.rules import board
from app.rules.base import Action, BaseOptions, Event, GameState
from app.rules.board_game import fact
from app.rules.contract import ActionModel, Closed, GameView, Seat, Space
from app.rules.creatures import secondary_die
from app.rules.dice import Dice
from app.rules.kelly import ACTIONS_PER_TURN, CreatureId, DiceView, Kelly, KellyState, Piece, Pool
from app.rules.odds import KELLY_WORDS, attack_odds, death_push, odds_for
from app.rules.words import Words, humanise, shown

DEATH_PUSH_WORDS = {
    **KELLY_WORDS,
    "kill": "{defender} is killed (a push would find no room: a death push kills too)",
}

DRAFT_NUMBERS: tuple[str, ...] = (
    "savrip",
    "monnok",
    "ghhhk",
    "houjix",
    "klorslug",
    "molator",
    "strider",
    "ngok",
)
"""The creatures' draft numbers 1–8, as in seed 004's own example numbering."""

FINAL_ROUND_MISSES = 3
"""Rolls in a row that miss both last creatures before the higher roller chooses."""


class DalsiandonOptions(BaseOptions):
    """Match options. No combination contradicts another: restrictions on attacks stack."""

    teams: Literal["draft", "random"] = Field(
        "draft",
        description="Draft: the players roll d8s to pick their creatures one by one; "
        "random: the creatures are dealt at random.",
    )
    king_of_the_center: bool = Field(False, description="Every attack must be into or out of the core.")
    death_push: bool = Field(
        False, description="An attacker's push that finds no empty space kills the pushed creature."
    )
    nowhere_is_safe: bool = Field(
        False,
        description="Attacks are legal on every ring; the higher setup roller chooses "
        "to move first or second.",
    )
    twenty_sides_of_terror: bool = Field(False, description="1d20 replaces 2d10 in every combat roll.")
    rays_of_death: bool = Field(
        False,
        description="Each creature acts once per cycle; a d4 and a d12 choose the ray "
        "every attack must involve.",
    )


class DraftRoll(Closed):
    """One simultaneous draft roll as the view shows it."""

    faces: list[int | None] = Field(description="Each seat's standing d8 face (null before its first roll).")
    rolled: list[Seat] = Field(description="The seats that rolled this time.")
    outcome: Literal["drafted", "tie", "taken", "miss", "choice"]


class Draft(BaseModel):
    numbers: list[str] = Field(default_factory=lambda: list(DRAFT_NUMBERS))
    """Creature kinds by draft number (number = index + 1)."""
    taken: dict[str, int] = Field(default_factory=dict)
    """Drafted creature kind -> seat."""
    rolls: list[DraftRoll] = Field(default_factory=list)
    misses: int = 0
    """Final-round rolls in a row where neither player rolled an undrafted creature."""
    chooser: int | None = None
    """The seat that must choose one of the last two creatures (or defer)."""
    deferred: bool = False


class Setup(Closed):
    rolls: list[list[int]] = Field(
        default_factory=list, description="Each pair of d10 faces [seat 0, seat 1]; the last pair decided."
    )
    higher: Seat = Field(description="The higher roller.")
    first_arranger: Seat
    arranging: Seat | None = Field(description="The seat placing its creatures now, if any.")
    first_mover: Seat | None = Field(description="Null until the higher roller has chosen (nowhere_is_safe).")


class CombatRay(Closed):
    ring: Literal["C", "B", "A"]
    ray: int | None = Field(ge=1, le=12)
    spaces: list[Space] = Field(description="Every attack must involve a piece on one of these spaces.")


Phase = Literal["draft", "order", "arrange", "play"]


PHASE_WORDS = {"draft": "Draft", "order": "Choosing who moves first", "arrange": "Arranging the creatures"}


class DalsiandonState(KellyState):
    options: DalsiandonOptions
    phase: Phase = "play"
    draft: Draft | None = None
    teams: list[list[str]] = Field(default_factory=lambda: [[], []])
    setup: Setup | None = None
    cycle_used: list[list[str]] = Field(default_factory=lambda: [[], []])
    """``rays_of_death``: the pieces each seat has acted with in its current cycle."""
    cycle_done: list[bool] = Field(default_factory=lambda: [False, False])
    """``rays_of_death``: whether each seat completed a cycle since the last ray roll."""
    combat_ray: CombatRay | None = None


# --- the published contract: actions and the view (GET /api/v1/rulesets/{id}) ----------


class DraftChoice(ActionModel):
    """Choose one of the last two creatures of the draft (the other goes to the other seat)."""

    type: Literal["draft"]
    creature: CreatureId


class Defer(ActionModel):
    """Let the other player choose from the last two creatures."""

    type: Literal["defer"]


class ChooseOrder(ActionModel):
    """The higher setup roller chooses to move first or second (nowhere_is_safe)."""

    type: Literal["choose_order"]
    move: Literal["first", "second"]


class Place(ActionModel):
    """Place one of your creatures on one of your empty home spaces."""

    type: Literal["place"]
    piece: CreatureId
    to: Literal[(*board.HOME[0], *board.HOME[1])]  # type: ignore[valid-type]


class DraftNumber(Closed):
    number: int = Field(ge=1, le=len(DRAFT_NUMBERS))
    kind: CreatureId
    name: str
    taken_by: Seat | None


class DraftView(Closed):
    numbers: list[DraftNumber] = Field(description="The creatures by draft number.")
    rolls: list[DraftRoll]
    misses: int = Field(description="Final-round rolls in a row that missed both last creatures.")
    chooser: Seat | None = Field(description="The seat that must choose one of the last two creatures.")
    deferred: bool


class Cycle(Closed):
    used: list[list[CreatureId]] = Field(description="Per seat: the creatures used in its current cycle.")
    done: list[bool] = Field(description="Per seat: a cycle completed since the last ray roll.")


class DalsiandonView(DiceView):
    phase: Phase
    options: DalsiandonOptions
    safe_zone: list[Space] = Field(description="Spaces no attack may go into or out of.")
    attack_must_involve: list[Space] | None = Field(description="king_of_the_center: the core.")
    combat_ray: CombatRay | None = Field(description="rays_of_death: the ray every attack must involve.")
    cycle: Cycle | None = Field(description="rays_of_death: each seat's cycle.")
    teams: list[list[CreatureId]] = Field(description="Per seat: its creatures, drafted or dealt.")
    unplaced: list[list[CreatureId]] = Field(description="Per seat: its creatures not yet placed.")
    draft: DraftView | None
    setup: Setup | None


class Dalsiandon(Kelly):
    id: ClassVar[str] = "dalsiandon"
    name: ClassVar[str] = "Dejarik (DalsianDon)"
    description: ClassVar[str] = (
        "Don Thomas's revised Dejarik: drafted teams, rating + 2d10 + a secondary die, "
        "the outer ring a safe zone, and five advanced options."
    )
    options_schema: ClassVar[type[BaseOptions]] = DalsiandonOptions
    state_type: ClassVar[type[GameState]] = DalsiandonState
    mutable_fields: ClassVar[tuple[str, ...]] = (
        "draft",
        "teams",
        "setup",
        "cycle_used",
        "cycle_done",
        "combat_ray",
    )
    action_models: ClassVar[tuple[type[ActionModel], ...]] = (
        *Kelly.action_models, DraftChoice, Defer, ChooseOrder, Place,
    )  # fmt: skip
    view_model: ClassVar[type[GameView]] = DalsiandonView

    # --- combat ------------------------------------------------------------------

    def main_dice(self, state: DalsiandonState) -> tuple[int, ...]:
        return (20,) if state.options.twenty_sides_of_terror else (10, 10)

    def rated_pool(self, state: DalsiandonState, rating: int) -> Pool:
        return Pool(rating, (*self.main_dice(state), secondary_die(rating)))

    def attack_pools(self, state: DalsiandonState, attacker: Piece, defender: Piece) -> tuple[Pool, Pool]:
        att, dfn = self.creatures[attacker.kind], self.creatures[defender.kind]
        return self.rated_pool(state, att.attack), self.rated_pool(state, dfn.defense)

    def to_the_death_pool(self, state: DalsiandonState, piece: Piece) -> Pool:
        creature = self.creatures[piece.kind]
        return self.rated_pool(state, max(creature.attack, creature.defense))

    def may_attack(self, state: DalsiandonState, attacker: Piece, defender: Piece) -> bool:
        options = state.options
        spaces = (attacker.at, defender.at)
        if not options.nowhere_is_safe and any(board.ring(s) == "A" for s in spaces):
            return False
        if options.king_of_the_center and board.CORE not in spaces:
            return False
        ray = state.combat_ray
        return not (options.rays_of_death and ray is not None and not set(spaces) & set(ray.spaces))

    def attack_action(self, state: DalsiandonState, piece: Piece, target: Piece) -> Action:
        action = super().attack_action(state, piece, target)
        if state.options.death_push and self.death_push_applies(state, target):
            chances = death_push(attack_odds(*self.attack_pools(state, piece, target)))
            action["odds"] = odds_for(chances, DEATH_PUSH_WORDS, *self.names(piece, target))
        return action

    def death_push_applies(self, state: DalsiandonState, piece: Piece) -> bool:
        """A push would find no empty space for ``piece`` (so it is enclosed on every side)."""
        occupied = self.occupied(state)
        return all(n in occupied for n in board.NEIGHBOURS[piece.at])

    def start_push(
        self,
        state: DalsiandonState,
        attacker: Piece,
        winner: Piece,
        loser: Piece,
        result: str,
        events: list[Event],
        dice: Dice,
    ) -> None:
        if state.options.death_push and result == "push" and self.death_push_applies(state, loser):
            events.append({"type": "death_push", "piece": loser.id, "by": attacker.id, "at": loser.at})
            self.kill(state, loser, attacker, events, dice)
            return
        super().start_push(state, attacker, winner, loser, result, events, dice)

    # --- rays of death -----------------------------------------------------------

    def turn_actions(self, state: DalsiandonState, seat: int) -> list[Action]:
        """With ``rays_of_death`` only creatures not yet used in the cycle may act; if none of
        them can, the rest of the cycle is skipped and every creature may act again."""
        if not state.options.rays_of_death:
            return super().turn_actions(state, seat)
        occupied = self.occupied(state)
        living = self.living(state, seat)
        used = set(state.cycle_used[seat])
        fresh = [p for p in living if p.id not in used]
        actions = [a for p in fresh for a in self.piece_actions(state, p, occupied)]
        if actions:
            return actions
        return [a for p in living for a in self.piece_actions(state, p, occupied)]

    def on_action_done(self, state: DalsiandonState, piece: Piece, events: list[Event], dice: Dice) -> None:
        if not state.options.rays_of_death or self.settled(state):
            return
        seat = piece.owner
        used = state.cycle_used[seat]
        if piece.id in used:
            # None of the cycle's other creatures could act: that cycle ends, a new one begins.
            self._complete_cycle(state, seat, events, skipped=True)
        state.cycle_used[seat].append(piece.id)
        for s in (0, 1):
            alive = {p.id for p in self.living(state, s)}
            if alive and alive <= set(state.cycle_used[s]):
                self._complete_cycle(state, s, events)
        if all(state.cycle_done):
            state.cycle_done = [False, False]
            self.roll_combat_ray(state, dice, events)

    def _complete_cycle(
        self, state: DalsiandonState, seat: int, events: list[Event], skipped: bool = False
    ) -> None:
        state.cycle_done[seat] = True
        event: Event = {"type": "cycle_complete", "seat": seat, "pieces": list(state.cycle_used[seat])}
        if skipped:
            event["skipped"] = True
        events.append(event)
        state.cycle_used[seat] = []

    def roll_combat_ray(self, state: DalsiandonState, dice: Dice, events: list[Event]) -> None:
        """d4: 1 or 4 the core, 2 ring B, 3 ring A; d12: the ray."""
        roll = dice.roll([4, 12], "combat ray")
        orbit, ray = (d["face"] for d in roll["dice"])
        if orbit in (1, 4):
            combat = CombatRay(ring="C", ray=None, spaces=[board.CORE])
        else:
            combat = CombatRay(ring="B" if orbit == 2 else "A", ray=ray, spaces=[f"A{ray}", f"B{ray}"])
        state.combat_ray = combat
        events += [roll, {"type": "combat_ray", **combat.model_dump()}]

    # --- setting up: draft, setup roll, arrangement -----------------------------

    def new_game(self, options: DalsiandonOptions, dice: Dice) -> tuple[DalsiandonState, list[Event]]:
        state = DalsiandonState(options=options, pieces={}, phase="draft")
        events: list[Event] = []
        if options.teams == "random":
            kinds, roll = dice.shuffle(
                sorted(self.creatures), f"teams (the first four to {self.seat_name(0)})"
            )
            state.teams = [sorted(kinds[:4]), sorted(kinds[4:])]
            events += [roll, {"type": "teams", "how": "random", "teams": state.teams}]
            self.roll_setup(state, dice, events)
        else:
            state.draft = Draft()
            self.run_draft(state, dice, events)
        return state, events

    def number_of(self, draft: Draft, kind: str) -> int:
        return draft.numbers.index(kind) + 1

    def run_draft(self, state: DalsiandonState, dice: Dice, events: list[Event]) -> None:
        """Roll the draft on until it is done or a player must choose."""
        draft = state.draft
        while draft.chooser is None and len(draft.taken) < len(draft.numbers):
            if len(draft.numbers) - len(draft.taken) > 2:
                self._draft_round(state, dice, events)
            else:
                self._final_round(state, dice, events)
        if draft.chooser is None:
            events.append({"type": "teams", "how": "draft", "teams": state.teams})
            self.roll_setup(state, dice, events)

    def _draft_roll(
        self, draft: Draft, dice: Dice, seats: list[int], faces: list[int | None], events: list[Event]
    ) -> None:
        for seat in seats:
            roll = dice.roll([8], "draft", seat=seat)
            events.append(roll)
            faces[seat] = roll["total"]

    def _note(
        self, draft: Draft, faces: list[int | None], rolled: list[int], outcome: str, events: list[Event]
    ) -> None:
        draft.rolls.append(DraftRoll(faces=list(faces), rolled=rolled, outcome=outcome))
        if outcome in ("tie", "taken", "miss"):
            events.append({"type": "draft_reroll", "reason": outcome, "faces": list(faces)})

    def _draft_round(self, state: DalsiandonState, dice: Dice, events: list[Event]) -> None:
        """Both roll a d8; ties are rerolled by both, a taken creature by its roller alone
        (the other waits with their roll standing); then both draft at once."""
        draft = state.draft
        faces: list[int | None] = [None, None]
        seats = [0, 1]
        while seats:
            self._draft_roll(draft, dice, seats, faces, events)
            rolled, seats = seats, []
            if faces[0] == faces[1]:
                seats = [0, 1]
                self._note(draft, faces, rolled, "tie", events)
                continue
            seats = [s for s in (0, 1) if draft.numbers[faces[s] - 1] in draft.taken]
            self._note(draft, faces, rolled, "taken" if seats else "drafted", events)
        for seat in (0, 1):
            self._pick(state, seat, draft.numbers[faces[seat] - 1], "roll", events)

    def _final_round(self, state: DalsiandonState, dice: Dice, events: list[Event]) -> None:
        """Two creatures left: one roll of each; a single hit takes its creature and the
        other player gets the last by default; the third miss in a row lets the higher
        roll choose (or defer). Ties are rerolled and never count as a miss."""
        draft = state.draft
        faces: list[int | None] = [None, None]
        self._draft_roll(draft, dice, [0, 1], faces, events)
        if faces[0] == faces[1]:
            self._note(draft, faces, [0, 1], "tie", events)
            return
        hits = [s for s in (0, 1) if draft.numbers[faces[s] - 1] not in draft.taken]
        if hits:
            self._note(draft, faces, [0, 1], "drafted", events)
            for seat in hits:
                self._pick(state, seat, draft.numbers[faces[seat] - 1], "roll", events)
            if len(hits) == 1:
                self._pick(state, 1 - hits[0], self.undrafted(draft)[0], "default", events)
            return
        draft.misses += 1
        if draft.misses < FINAL_ROUND_MISSES:
            self._note(draft, faces, [0, 1], "miss", events)
            return
        self._note(draft, faces, [0, 1], "choice", events)
        draft.chooser = 0 if faces[0] > faces[1] else 1
        state.turn = draft.chooser
        events.append({"type": "draft_choice", "seat": draft.chooser, "creatures": self.undrafted(draft)})

    @staticmethod
    def undrafted(draft: Draft) -> list[str]:
        return [k for k in draft.numbers if k not in draft.taken]

    def _pick(self, state: DalsiandonState, seat: int, kind: str, how: str, events: list[Event]) -> None:
        draft = state.draft
        draft.taken[kind] = seat
        state.teams[seat].append(kind)
        events.append(
            {
                "type": "draft_pick",
                "seat": seat,
                "creature": kind,
                "number": self.number_of(draft, kind),
                "how": how,
            }
        )

    def roll_setup(self, state: DalsiandonState, dice: Dice, events: list[Event]) -> None:
        """Each rolls a d10, ties rerolled: the lower arranges first and moves first."""
        state.phase = "arrange"
        rolls: list[list[int]] = []
        while True:
            pair = [dice.roll([10], "setup", seat=seat) for seat in (0, 1)]
            events += pair
            faces = [r["total"] for r in pair]
            rolls.append(faces)
            if faces[0] != faces[1]:
                break
            events.append({"type": "setup_reroll", "faces": faces})
        lower = 0 if faces[0] < faces[1] else 1
        higher = 1 - lower
        choose = state.options.nowhere_is_safe
        state.setup = Setup(
            rolls=rolls,
            higher=higher,
            first_arranger=lower,
            arranging=lower,
            first_mover=None if choose else lower,
        )
        events.append(
            {"type": "setup_order", "arranges_first": lower, "moves_first": None if choose else lower}
        )
        if choose:
            state.phase = "order"
            state.turn = higher
        else:
            state.turn = lower

    def start_play(self, state: DalsiandonState, dice: Dice, events: list[Event]) -> None:
        state.phase = "play"
        state.turn = state.setup.first_mover
        state.actions_left = ACTIONS_PER_TURN
        state.turn_number = 1
        events.append({"type": "first_player", "seat": state.turn})
        if state.options.rays_of_death:
            self.roll_combat_ray(state, dice, events)
        self._advance(state, events)

    def game_facts(self, state: DalsiandonState) -> list[dict[str, Any]]:
        options = state.options
        out = []
        if state.phase in PHASE_WORDS:
            out.append(fact("phase", "Phase", PHASE_WORDS[state.phase]))
        if not options.nowhere_is_safe:
            out.append(
                fact("safe-zone", "Safe zone", "ring A, hatched: no attacks into or out of it", swatch="safe")
            )
        if options.king_of_the_center:
            out.append(
                fact("must-involve", "King of the centre", "every attack must involve C", swatch="must")
            )
        if options.rays_of_death:
            ray = state.combat_ray
            if ray is None:
                out.append(fact("combat-ray", "Combat ray", "rolled when the first cycle begins"))
            else:
                where = "the core (C)" if ray.ring == "C" else f"ray {ray.ray}: {', '.join(ray.spaces)}"
                out.append(
                    fact("combat-ray", "Combat ray", f"every attack must involve {where}", swatch="ray")
                )
            out.append(
                fact("cycle", "Rays of death cycle", seats=[self.cycle_words(state, s) for s in (0, 1)])
            )
        main = "d20" if options.twenty_sides_of_terror else "2d10"
        out.append(fact("combat-dice", "Combat", f"rating + {main} + secondary die", minor=True))
        return out

    def cycle_words(self, state: DalsiandonState, seat: int) -> str:
        used = state.cycle_used[seat]
        words = f"{len(used)}/{len(self.living(state, seat))} acted"
        if state.cycle_done[seat]:
            words += " (cycle done)"
        if used:
            words += ": " + ", ".join(self.kind_name(kind) for kind in used)
        return words

    def in_play(self, state: DalsiandonState) -> bool:
        return state.phase == "play"

    def still_to_place(self, state: DalsiandonState) -> list[dict[str, Any]]:
        return [
            {"id": kind, "kind": kind, "owner": seat, "name": self.kind_name(kind), "status": "to place"}
            for seat in (0, 1)
            for kind in self.unplaced(state, seat)
        ]

    def unplaced(self, state: DalsiandonState, seat: int) -> list[str]:
        return [k for k in state.teams[seat] if k not in state.pieces]

    # --- the protocol --------------------------------------------------------------

    def chooser(self, state: DalsiandonState) -> int | None:
        if state.phase == "draft":
            return state.draft.chooser
        if state.phase == "order":
            return state.setup.higher
        if state.phase == "arrange":
            return state.setup.arranging
        return super().chooser(state)

    def decisions(self, state: DalsiandonState, seat: int) -> list[Action]:
        if state.phase == "play":
            return super().decisions(state, seat)
        if state.phase == "draft":
            draft = state.draft
            actions: list[Action] = [
                {
                    "type": "draft",
                    "creature": kind,
                    "label": f"Draft #{self.number_of(draft, kind)} {self.creatures[kind].name}",
                }
                for kind in self.undrafted(draft)
            ]
            if not draft.deferred:
                actions.append({"type": "defer", "label": "Let the other player choose"})
            return actions
        if state.phase == "order":
            return [
                {"type": "choose_order", "move": "first", "label": "Move first"},
                {"type": "choose_order", "move": "second", "label": "Move second"},
            ]
        occupied = self.occupied(state)
        return [
            {"type": "place", "piece": kind, "to": space}
            for kind in self.unplaced(state, seat)
            for space in board.HOME[seat]
            if space not in occupied
        ]

    def apply_game(self, state: DalsiandonState, seat: int, action: Action, dice: Dice) -> list[Event]:
        if state.phase == "play":
            return super().apply_game(state, seat, action, dice)
        events: list[Event] = []
        kind = action["type"]
        if kind == "draft":
            draft = state.draft
            draft.chooser = None
            self._pick(state, seat, action["creature"], "choice", events)
            self._pick(state, 1 - seat, self.undrafted(draft)[0], "default", events)
            self.run_draft(state, dice, events)
        elif kind == "defer":
            state.draft.chooser = 1 - seat
            state.draft.deferred = True
            state.turn = 1 - seat
            events.append({"type": "draft_defer", "seat": seat, "to": 1 - seat})
        elif kind == "choose_order":
            first = seat if action["move"] == "first" else 1 - seat
            state.setup.first_mover = first
            state.phase = "arrange"
            state.turn = state.setup.arranging
            events.append({"type": "order_chosen", "seat": seat, "moves_first": first})
        elif kind == "place":
            piece = Piece(id=action["piece"], kind=action["piece"], owner=seat, at=action["to"])
            state.pieces[piece.id] = piece
            events.append({"type": "place", "seat": seat, "piece": piece.id, "to": piece.at})
            if not self.unplaced(state, seat):
                if seat == state.setup.first_arranger:
                    state.setup.arranging = 1 - seat
                    state.turn = 1 - seat
                else:
                    state.setup.arranging = None
                    self.start_play(state, dice, events)
        return events

    # --- the view ----------------------------------------------------------------

    def creature_info(self, kind: str) -> dict[str, Any]:
        info = super().creature_info(kind)
        return {
            **info,
            "attack_die": secondary_die(info["attack"]),
            "defense_die": secondary_die(info["defense"]),
        }

    def game_view(self, state: DalsiandonState, seat: int | None) -> dict[str, Any]:
        options = state.options
        draft = state.draft
        setup = state.setup
        view = super().game_view(state, seat)
        main = "d20" if options.twenty_sides_of_terror else "2d10"
        view.update(
            {
                "phase": state.phase,
                "options": options.model_dump(),
                "combat_dice": f"rating + {main} + secondary die",
                "safe_zone": [] if options.nowhere_is_safe else list(board.RING_A),
                "attack_must_involve": [board.CORE] if options.king_of_the_center else None,
                "combat_ray": state.combat_ray.model_dump() if state.combat_ray else None,
                "cycle": (
                    {"used": [list(u) for u in state.cycle_used], "done": list(state.cycle_done)}
                    if options.rays_of_death
                    else None
                ),
                "teams": [list(t) for t in state.teams],
                "unplaced": [self.unplaced(state, s) for s in (0, 1)],
                "draft": (
                    {
                        "numbers": [
                            {
                                "number": i + 1,
                                "kind": kind,
                                "name": self.creatures[kind].name,
                                "taken_by": draft.taken.get(kind),
                            }
                            for i, kind in enumerate(draft.numbers)
                        ],
                        "rolls": [r.model_dump() for r in draft.rolls],
                        "misses": draft.misses,
                        "chooser": draft.chooser,
                        "deferred": draft.deferred,
                    }
                    if draft
                    else None
                ),
                "setup": setup.model_dump() if setup else None,
            }
        )
        return view

    def event_text(self, event: Event, words: Words) -> str | None:
        """Dalsiandon's own events: the draft, the teams, the set-up, combat rays, cycles."""
        kind, label, seat = event.get("type"), words.seat_label, event.get("seat")

        def creature(kind: Any) -> str:
            return words.legend_name(kind) or shown(kind)

        def faces() -> str:
            return ", ".join(shown(f) for f in event.get("faces") or [])

        if kind == "draft_pick":
            chosen = words.legend_name(event.get("creature")) or words.owned_name(event.get("creature"))
            how = DRAFT_HOW.get(event.get("how")) or shown(event.get("how"))
            return f"{label(seat)} drafted #{shown(event.get('number'))} {chosen} ({how})"
        if kind == "draft_reroll":
            reason = DRAFT_REROLL.get(event.get("reason")) or shown(event.get("reason"))
            return f"Draft: {reason} ({faces()}): roll again"
        if kind == "draft_defer":
            return f"{label(seat)} let {label(event.get('to'))} choose"
        if kind == "draft_choice":
            choices = " and ".join(words.legend_name(k) or humanise(k) for k in event.get("creatures") or [])
            return f"{label(seat)} chooses between {choices}"
        if kind == "teams":
            how = "drafted" if event.get("how") == "draft" else "dealt at random"
            teams = "; ".join(
                f"{words.seat_name(s)} {', '.join(creature(k) for k in team)}"
                for s, team in enumerate(event.get("teams") or [])
            )
            return f"Teams {how}: {teams}"
        if kind == "setup_order":
            moves = event.get("moves_first")
            then = "" if moves is None else f"; {label(moves)} moves first"
            return f"{label(event.get('arranges_first'))} arranges first{then}"
        if kind == "setup_reroll":
            return f"Setup: a tie ({faces()}), roll again"
        if kind == "order_chosen":
            return f"{label(seat)} chose to move {'first' if event.get('moves_first') == seat else 'second'}"
        if kind == "death_push":
            victim, by = words.owned_name(event.get("piece")), words.owned_name(event.get("by"))
            return (
                f"Death push: {victim}, boxed in on {shown(event.get('at'))}, is pushed to its death by {by}"
            )
        if kind == "combat_ray":
            if event.get("ring") == "C":
                return "Combat ray: the core"
            spaces = ", ".join(shown(s) for s in event.get("spaces") or [])
            return f"Combat ray: ray {shown(event.get('ray'))} ({spaces})"
        if kind == "cycle_complete":
            skipped = " (the rest could not act)" if event.get("skipped") else ""
            return f"{label(seat)} completed a cycle{skipped}"
        return super().event_text(event, words)


DRAFT_HOW = {"roll": "by roll", "default": "the last one, by default", "choice": "by choice"}
DRAFT_REROLL = {"tie": "a tie", "taken": "a creature already taken", "miss": "both missed"}
