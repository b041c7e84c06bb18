"""`eote`: Dejarik played as an Edge-of-the-Empire skill contest (RULINGS §9, seed 000).

No board: each character has four pieces (destiny points: seat 0 plays the light
side, seat 1 the dark side) in an *active*, an *inactive* and a *set* pile. Each
round one character attacks and the other defends:

1. both set pieces from their active pile, the defender first (the 3-advantage
   effect reverses this); a setter's choice stays hidden until they confirm it;
2. a 3-threat effect lets this round's attacker add or remove defender's set pieces;
3. the defender announces a primary or secondary defence, then the attacker a
   primary or secondary attack;
4. the attacker rolls the opposed check (pool rules below); net successes kill the
   defender's set pieces, net failures the attacker's (no pieces set: one unset
   piece, from the inactive pile first);
5. the attacker spends advantages and triumphs, then the defender threats and
   despairs, one effect at a time, then "done" (Limit Rule enforced);
6. set pieces go to the inactive pile; when both active piles are empty the
   inactive piles become active; roles swap.

Optional start step ``initial_ranks_check``: each character rolls Knowledge (Core
Worlds) at a chosen difficulty to learn their Dejarik ranks. A failed check that
shows a triumph or 3+ advantages may be rolled again: with no GM the player takes or
declines the re-roll; in a GM-hosted match the player asks for it and the GM grants
or refuses it. docs/rulesets/eote.md lists the rulings made where the seed is silent.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.rules.base import Action, BaseOptions, Event, GameState, JsonOptions, Outcome, Ruleset
from app.rules.contract import ActionModel, Closed, GameView, NetSymbols, RollEvent, Seat
from app.rules.dice import Dice
from app.rules.narrative_dice import (
    KINDS,
    Pool,
    net_words,
    opposition_pool,
    pool_words,
    roll_pool,
    skill_pool,
)
from app.rules.words import Words, humanise, plural, shown

PIECES = 4
PRIMARY, SECONDARY = "primary", "secondary"
Mode = Literal["primary", "secondary"]
MODES: tuple[Mode, ...] = (PRIMARY, SECONDARY)
DIFFICULTY_NAMES = {1: "Easy", 2: "Average", 3: "Difficult", 4: "Daunting", 5: "Formidable"}


# --- the seed's four pool rules ---------------------------------------------------


def attack_pool(mode: str, intellect: int, willpower: int, ranks: int, pieces_set: int) -> Pool:
    """The attacker's dice.

    Primary: the Dejarik Attack skill (Intellect and ranks), upgraded once per piece
    the attacker set. Secondary: max(Willpower, pieces set) ability dice, upgraded
    min(Willpower, pieces set) times; ranks do not apply.

    >>> attack_pool("primary", 4, 2, 2, 1).describe()
    '1 ability + 3 proficiency'
    >>> attack_pool("secondary", 2, 2, 0, 3).describe()
    '1 ability + 2 proficiency'
    """
    if mode == PRIMARY:
        return skill_pool(intellect, ranks).upgrade_ability(pieces_set)
    return Pool(ability=max(willpower, pieces_set)).upgrade_ability(min(willpower, pieces_set))


def defence_pool(mode: str, cunning: int, presence: int, ranks: int, pieces_set: int) -> Pool:
    """The difficulty of the attacker's check.

    Primary: the Dejarik Defence skill (Cunning and ranks) as difficulty, upgraded
    once per piece the defender set. Secondary: max(Presence, pieces set)
    difficulty dice, upgraded min(Presence, pieces set) times.

    >>> defence_pool("primary", 1, 2, 3, 2).describe()
    '3 challenge'
    """
    if mode == PRIMARY:
        return opposition_pool(cunning, ranks).upgrade_difficulty(pieces_set)
    return Pool(difficulty=max(presence, pieces_set)).upgrade_difficulty(min(presence, pieces_set))


# --- options -------------------------------------------------------------------------


class Sheet(JsonOptions):
    """One character's sheet, as far as Dejarik needs it."""

    name: str = Field(
        "",
        max_length=40,
        pattern=r"^[^\x00]*$",  # no text the server stores holds a NUL (app/api/json_input.py)
        description="The character's name (shown on the table).",
    )
    intellect: int = Field(2, ge=1, le=6, description="Intellect: primary attack characteristic.")
    cunning: int = Field(2, ge=1, le=6, description="Cunning: primary defence characteristic.")
    willpower: int = Field(2, ge=1, le=6, description="Willpower: secondary attack characteristic.")
    presence: int = Field(2, ge=1, le=6, description="Presence: secondary defence characteristic.")
    dejarik_attack: int = Field(0, ge=0, le=5, description="Ranks in Dejarik Attack.")
    dejarik_defence: int = Field(0, ge=0, le=5, description="Ranks in Dejarik Defence.")
    knowledge_core_worlds: int = Field(
        0,
        ge=0,
        le=5,
        title="Knowledge (Core Worlds)",
        description="Ranks in Knowledge (Core Worlds), used by the initial ranks check.",
    )
    strain_threshold: int = Field(
        12, ge=1, le=40, description="Strain beyond this makes the character concede."
    )


class EoteOptions(BaseOptions):
    sheets: list[Sheet] = Field(
        default=[Sheet(), Sheet()],
        min_length=2,
        max_length=2,
        title="Character sheets",
        description="The two characters: Light's sheet first, then Dark's.",
    )
    initial_ranks_check: bool = Field(
        False,
        description="Start with each character rolling Knowledge (Core Worlds) to learn their "
        "Dejarik ranks (replacing the sheets' ranks).",
    )


# --- state ---------------------------------------------------------------------------


class Side(BaseModel):
    """One character at the table: piles, strain and the Dejarik ranks in use."""

    active: int = PIECES
    inactive: int = 0
    set: int = 0
    strain: int = 0
    attack_ranks: int = 0
    defence_ranks: int = 0

    def pieces(self) -> int:
        return self.active + self.inactive + self.set


EffectKind = Literal["boost", "setback", "upgrade_attack", "upgrade_defence", "sets_first", "adjust_set"]


class Effect(Closed):
    """An effect bought with advantages or threats that applies in a later round."""

    kind: EffectKind
    seat: Seat = Field(
        description="Whose roll (or setting, or choice) it changes: the attacking seat for boost, setback "
        "and upgrade_attack, the defending seat for upgrade_defence, the seat that sets first, the seat "
        "that may adjust."
    )
    round: int = Field(description="The round it applies in.")
    source: str = Field(description="What paid for it: '1 advantage', 'triumph', '3 threats' …")
    by: Seat = Field(description="The seat that spent it.")


class RanksCheck(Closed):
    seat: Seat
    step: Literal["difficulty", "reroll", "asked", "split"] = "difficulty"
    """``reroll``: the roll qualifies for a re-roll; ``asked``: the player asked the GM
    for it (a GM-hosted match), who grants or refuses it."""
    difficulty: int = 0
    rerolls: int = 0


class Spending(Closed):
    """One character spending their advantages (the attacker) or threats (the defender)."""

    seat: Seat
    currency: Literal["advantage", "threat"]
    total: int = Field(description="Net advantages or threats rolled: the Limit Rule's base.")
    left: int
    specials_left: int = Field(description="Triumphs (attacker) or despairs (defender) not yet spent.")
    used: dict[str, int] = Field(
        default_factory=dict,
        description="Applications of each effect paid with advantages or threats (for the Limit Rule).",
    )


Step = Literal["ranks", "setting", "adjust", "defence", "attack", "spend"]


class EoteState(GameState):
    options: EoteOptions
    sides: list[Side]
    step: Step = "setting"
    round: int = 0
    attacker: int = 0
    first_attacker: int = 0
    setting_order: list[int] = Field(default_factory=list)
    setter: int | None = None
    choosing: int = 0
    """Pieces the current setter has chosen but not confirmed: hidden from the opponent."""
    adjustments: int = 0
    """Set pieces this round's attacker may still add to or remove from the defender's."""
    defence_mode: str | None = None
    attack_mode: str | None = None
    last_roll: dict[str, Any] | None = None
    last_result: dict[str, Any] | None = None
    effects: list[Effect] = Field(default_factory=list)
    spending: Spending | None = None
    ranks: RanksCheck | None = None
    lost_this_round: int = 0


# --- effects that advantages, threats, triumphs and despairs buy ------------------------


class Spend(BaseModel):
    """One effect on the seed's list: its cost in advantages/threats (0: only a
    triumph or despair buys it) and whether the Limit Rule counts it."""

    id: str
    cost: int
    text: str


ADVANTAGE_EFFECTS: dict[str, Spend] = {
    s.id: s
    for s in (
        Spend(
            id="defender_setback", cost=1, text="the defender gets a setback die on their attack next round"
        ),
        Spend(id="recover_strain", cost=1, text="the attacker recovers 1 strain"),
        Spend(id="attacker_boost", cost=2, text="the attacker gets a boost die on their next attack"),
        Spend(id="defender_sets_first", cost=3, text="next round the attacker sets their pieces first"),
        Spend(id="upgrade_next_defence", cost=0, text="the attacker upgrades their next defence"),
        Spend(id="upgrade_next_attack", cost=0, text="the attacker upgrades their next attack"),
    )
}
THREAT_EFFECTS: dict[str, Spend] = {
    s.id: s
    for s in (
        Spend(id="defender_boost", cost=1, text="the defender gets a boost die on their attack next round"),
        Spend(id="attacker_strain", cost=1, text="the attacker takes 1 strain"),
        Spend(id="attacker_setback", cost=2, text="the attacker gets a setback die on their next attack"),
        Spend(
            id="adjust_set_piece",
            cost=3,
            text="next round the defender may add or remove one of the attacker's set pieces",
        ),
        Spend(id="upgrade_next_attack", cost=0, text="the defender upgrades their next attack"),
        Spend(id="upgrade_next_defence", cost=0, text="the defender upgrades their next defence"),
    )
}
LIMITED = frozenset({"defender_setback", "recover_strain", "defender_boost", "attacker_strain"})
"""The "1 advantage" and "1 threat" effects, which the Limit Rule caps."""


def limit(total: int) -> int:
    """The Limit Rule: a "1 advantage"/"1 threat" effect applies at most total/2 rounded up times.

    >>> limit(2), limit(3)
    (1, 2)
    """
    return math.ceil(total / 2)


# --- the published contract: actions and the view (GET /api/v1/rulesets/{id}) ----------

EffectId = Literal[tuple(ADVANTAGE_EFFECTS | THREAT_EFFECTS)]  # type: ignore[valid-type]


class ChooseDifficulty(ActionModel):
    """Initial ranks check: the difficulty to roll against, and the ranks a success gives."""

    type: Literal["choose_difficulty"]
    difficulty: int = Field(ge=1, le=5)


class Reroll(ActionModel):
    """Initial ranks check: take the re-roll granted (at an upgraded difficulty)."""

    type: Literal["reroll"]


class DeclineReroll(ActionModel):
    """Initial ranks check: decline the re-roll, and have no Dejarik ranks."""

    type: Literal["decline_reroll"]


class AskReroll(ActionModel):
    """Initial ranks check, in a GM-hosted match: ask the game master for the re-roll."""

    type: Literal["ask_reroll"]


class GmGrantReroll(ActionModel):
    """The game master's decision, in a GM-hosted match: grant the re-roll ``seat`` asked for."""

    type: Literal["gm_grant_reroll"]
    seat: Seat


class GmRefuseReroll(ActionModel):
    """The game master's decision, in a GM-hosted match: refuse the re-roll; the roll stands."""

    type: Literal["gm_refuse_reroll"]
    seat: Seat


class SplitRanks(ActionModel):
    """Initial ranks check passed: split the ranks won between attack and defence."""

    type: Literal["split_ranks"]
    attack: int = Field(ge=0, le=5)
    defence: int = Field(ge=0, le=5)


class SetPiece(ActionModel):
    """Choose one more active piece to set (hidden until done_setting)."""

    type: Literal["set_piece"]


class UnsetPiece(ActionModel):
    """Take back one piece chosen to set."""

    type: Literal["unset_piece"]


class DoneSetting(ActionModel):
    """Confirm the pieces chosen: they are set, and everyone sees how many."""

    type: Literal["done_setting"]


class AdjustSet(ActionModel):
    """3 threats spent last round: add one of the defender's active pieces to their set,
    remove one of their set pieces, or leave them."""

    type: Literal["adjust_set"]
    change: Literal["add", "remove", "none"]


class Defence(ActionModel):
    """The defender announces a primary (Cunning, ranks) or secondary (Presence) defence."""

    type: Literal["defence"]
    mode: Mode


class Attack(ActionModel):
    """The attacker announces a primary (Intellect, ranks) or secondary (Willpower) attack,
    and rolls."""

    type: Literal["attack"]
    mode: Mode


class SpendEffect(ActionModel):
    """Spend advantages (attacker) or threats (defender) on an effect, or a triumph or a
    despair on one; one effect at a time."""

    type: Literal["spend"]
    effect: EffectId
    pay: Literal["advantage", "threat", "triumph", "despair"]


class Done(ActionModel):
    """Done spending."""

    type: Literal["done"]


Piles = dict[Literal["active", "inactive", "set"], int]
PoolCounts = dict[Literal[KINDS], int]  # type: ignore[valid-type]
"""How many dice of each kind: ability, proficiency, boost, difficulty, challenge, setback."""


class CharacterView(Closed):
    seat: Seat
    name: str
    sheet: Sheet
    attack_ranks: int = Field(description="Dejarik Attack ranks in use.")
    defence_ranks: int = Field(description="Dejarik Defence ranks in use.")
    strain: int
    strain_threshold: int
    piles: Piles = Field(description="Pieces in each pile.")
    pieces: int = Field(description="Pieces left in all piles.")
    lost: int = Field(description="Pieces lost.")


class Setting(Closed):
    seat: Seat = Field(description="The seat setting pieces now.")
    chosen: int | None = Field(description="Pieces chosen so far: shown to the setter only, else null.")


class PendingEffect(Effect):
    text: str


class PendingAdjustment(Closed):
    """This round's attacker may add or remove the defender's set pieces after setting."""

    kind: Literal["adjust_set"]
    seat: Seat
    round: int
    count: int
    text: str


class RoundResult(Closed):
    """The last round's outcome: net successes kill the defender's set pieces, net
    failures the attacker's."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=False)

    type: Literal["round_result"]
    round: int
    net: NetSymbols
    loser: Seat | None
    lost: int
    pile: Literal["set", "inactive", "active"] = Field(
        None, description="The pile the loser lost from (absent when nobody lost)."
    )


class EoteView(GameView):
    round: int = Field(ge=0, description="0 before the first round (the initial ranks check).")
    step: Step | Literal["over"] = Field(description="What the table waits for.")
    attacker: Seat | None = Field(description="This round's attacker (null before the first round).")
    defender: Seat | None
    first_attacker: Seat
    gm_hosted: bool = Field(
        description="A game master hosts the match: a re-roll of the ranks is asked of the GM."
    )
    setting_order: list[Seat] = Field(description="Who sets first this round, then second.")
    setting: Setting | None
    characters: list[CharacterView]
    strain: list[int] = Field(description="Each seat's strain.")
    defence_mode: Mode | None
    attack_mode: Mode | None
    pool: PoolCounts | None = Field(description="The last roll's pool.")
    pool_preview: dict[Mode, PoolCounts] | None = Field(
        description="At the defence or attack step: the pool each mode would give."
    )
    last_roll: RollEvent | None
    net: NetSymbols | None = Field(description="The last roll's net result.")
    last_result: RoundResult | None
    spending: Spending | None
    pending_effects: list[PendingEffect | PendingAdjustment] = Field(
        description="Effects bought that apply later, in words."
    )
    ranks_check: RanksCheck | None
    initial_ranks_check: bool = Field(description="The option.")
    turns_without_kill: int = Field(description="The option: quiet rounds that end the match in a draw.")


class Eote(Ruleset[EoteState]):
    id: ClassVar[str] = "eote"
    name: ClassVar[str] = "Dejarik (Edge of the Empire)"
    description: ClassVar[str] = (
        "No board: two characters set pieces from their piles and settle each round with an "
        "opposed roll of narrative dice, spending advantages and threats, with strain."
    )
    seat_names: ClassVar[tuple[str, ...]] = ("Light", "Dark")
    view_kind: ClassVar[str] = "eote"
    private_actions: ClassVar[frozenset[str]] = frozenset({"set_piece", "unset_piece"})
    gm_action_types: ClassVar[frozenset[str]] = frozenset({"gm_grant_reroll", "gm_refuse_reroll"})
    options_schema: ClassVar[type[BaseOptions]] = EoteOptions
    state_type: ClassVar[type[GameState]] = EoteState
    action_models: ClassVar[tuple[type[ActionModel], ...]] = (
        ChooseDifficulty, Reroll, AskReroll, DeclineReroll, GmGrantReroll, GmRefuseReroll, SplitRanks,
        SetPiece, UnsetPiece, DoneSetting, AdjustSet, Defence, Attack, SpendEffect, Done,
    )  # fmt: skip
    view_model: ClassVar[type[GameView]] = EoteView

    # --- set-up -------------------------------------------------------------------

    def new_game(self, options: BaseOptions, dice: Dice) -> tuple[EoteState, list[Event]]:
        assert isinstance(options, EoteOptions)
        sides = [Side(attack_ranks=s.dejarik_attack, defence_ranks=s.dejarik_defence) for s in options.sheets]
        coin = dice.roll([2], "first attacker")
        first = coin["dice"][0]["face"] - 1
        events: list[Event] = [coin, {"type": "first_attacker", "seat": first}]
        state = EoteState(options=options, sides=sides, attacker=first, first_attacker=first)
        if options.initial_ranks_check:
            state.step = "ranks"
            state.ranks = RanksCheck(seat=0)
            for side in sides:
                side.attack_ranks = side.defence_ranks = 0
            events.append({"type": "ranks_check", "seat": 0})
        else:
            self._start_round(state, events)
        return state, events

    def character(self, state: EoteState, seat: int) -> str:
        name = state.options.sheets[seat].name
        return f"{name} ({self.seat_name(seat)})" if name else self.seat_name(seat)

    # --- whose decision -------------------------------------------------------------

    def game_to_act(self, state: EoteState) -> list[int]:
        if state.step == "ranks":
            assert state.ranks is not None
            return [] if state.ranks.step == "asked" else [state.ranks.seat]  # asked: the GM decides
        if state.step == "setting":
            assert state.setter is not None
            return [state.setter]
        if state.step in ("adjust", "attack"):
            return [state.attacker]
        if state.step == "defence":
            return [1 - state.attacker]
        assert state.spending is not None
        return [state.spending.seat]

    def game_actions(self, state: EoteState, seat: int) -> list[Action]:
        if state.result is not None or seat not in self.game_to_act(state):
            return []
        step = state.step
        if step == "ranks":
            return self._ranks_actions(state)
        if step == "setting":
            side = state.sides[seat]
            actions: list[Action] = []
            if side.active - state.choosing > 0:
                actions.append({"type": "set_piece", "label": f"Set a piece ({state.choosing + 1} set)"})
            if state.choosing > 0:
                actions.append(
                    {"type": "unset_piece", "label": f"Take a piece back ({state.choosing - 1} set)"}
                )
            word = "piece" if state.choosing == 1 else "pieces"
            actions.append({"type": "done_setting", "label": f"Done: set {state.choosing} {word}"})
            return actions
        if step == "adjust":
            target = state.sides[1 - seat]
            actions = []
            if target.active:
                actions.append(
                    {
                        "type": "adjust_set",
                        "change": "add",
                        "label": "Add one of the defender's active pieces to their set",
                    }
                )
            if target.set:
                actions.append(
                    {
                        "type": "adjust_set",
                        "change": "remove",
                        "label": "Remove one of the defender's set pieces",
                    }
                )
            actions.append(
                {
                    "type": "adjust_set",
                    "change": "none",
                    "label": "Leave the defender's set pieces as they are",
                }
            )
            return actions
        if step == "defence":
            return [
                {
                    "type": "defence",
                    "mode": mode,
                    "label": f"{mode.capitalize()} defence: {self._defence_pool(state, mode).describe()}",
                }
                for mode in MODES
            ]
        if step == "attack":
            return [
                {
                    "type": "attack",
                    "mode": mode,
                    "label": f"{mode.capitalize()} attack: rolls {self.round_pool(state, mode).describe()}",
                }
                for mode in MODES
            ]
        return self._spend_actions(state)

    # --- applying ----------------------------------------------------------------------

    def apply_game(self, state: EoteState, seat: int, action: Action, dice: Dice) -> list[Event]:
        events: list[Event] = []
        kind = action["type"]
        if kind in ("choose_difficulty", "reroll", "ask_reroll", "decline_reroll", "split_ranks"):
            self._apply_ranks(state, seat, action, dice, events)
        elif kind == "set_piece":
            state.choosing += 1
            events.append({"type": "setting", "seat": seat})
        elif kind == "unset_piece":
            state.choosing -= 1
            events.append({"type": "setting", "seat": seat})
        elif kind == "done_setting":
            self._confirm_setting(state, seat, events)
        elif kind == "adjust_set":
            self._adjust(state, seat, action["change"], events)
        elif kind == "defence":
            state.defence_mode = action["mode"]
            state.step = "attack"
            events.append({"type": "defence", "seat": seat, "mode": action["mode"]})
        elif kind == "attack":
            state.attack_mode = action["mode"]
            events.append({"type": "attack", "seat": seat, "mode": action["mode"]})
            self._roll_round(state, dice, events)
        elif kind == "spend":
            self._spend(state, seat, action, events)
        elif kind == "done":
            events.append({"type": "done_spending", "seat": seat})
            self._finish_spending(state, events)
        return events

    # --- the initial ranks check ----------------------------------------------------

    def ranks_pool(self, state: EoteState, seat: int, difficulty: int, rerolls: int) -> Pool:
        """Knowledge (Core Worlds), an Intellect skill, against ``difficulty`` difficulty
        dice upgraded once per re-roll."""
        sheet = state.options.sheets[seat]
        return skill_pool(sheet.intellect, sheet.knowledge_core_worlds) + Pool(
            difficulty=difficulty
        ).upgrade_difficulty(rerolls)

    def _ranks_actions(self, state: EoteState) -> list[Action]:
        check = state.ranks
        assert check is not None
        if check.step == "difficulty":
            return [
                {
                    "type": "choose_difficulty",
                    "difficulty": d,
                    "label": f"{DIFFICULTY_NAMES[d]} ({d}): {d} rank{'s' if d > 1 else ''} on success",
                }
                for d in range(1, 6)
            ]
        if check.step == "reroll":
            pool = self.ranks_pool(state, check.seat, check.difficulty, check.rerolls + 1).describe()
            take = (
                {"type": "ask_reroll", "label": f"Ask the game master for a re-roll (upgraded: {pool})"}
                if state.gm
                else {"type": "reroll", "label": f"Re-roll (upgraded: {pool})"}
            )
            return [take, {"type": "decline_reroll", "label": "Decline the re-roll: no Dejarik ranks"}]
        n = check.difficulty
        return [
            {
                "type": "split_ranks",
                "attack": a,
                "defence": n - a,
                "label": f"Dejarik Attack {a}, Dejarik Defence {n - a}",
            }
            for a in range(n + 1)
        ]

    def _apply_ranks(
        self, state: EoteState, seat: int, action: Action, dice: Dice, events: list[Event]
    ) -> None:
        check = state.ranks
        assert check is not None
        kind = action["type"]
        if kind == "choose_difficulty":
            check.difficulty = action["difficulty"]
            self._roll_ranks(state, check, dice, events)
        elif kind == "reroll":
            self._reroll(state, check, dice, events)
        elif kind == "ask_reroll":
            check.step = "asked"
            who = self.character(state, seat)
            text = f"{who} asked the game master for a re-roll"
            events.append({"type": "reroll_asked", "seat": seat, "text": text})
        elif kind == "decline_reroll":
            events.append(
                {"type": "ranks", "seat": seat, "attack": 0, "defence": 0, "reason": "re-roll declined"}
            )
            self._next_ranks_check(state, events)
        elif kind == "split_ranks":
            side = state.sides[seat]
            side.attack_ranks, side.defence_ranks = action["attack"], action["defence"]
            events.append(
                {"type": "ranks", "seat": seat, "attack": side.attack_ranks, "defence": side.defence_ranks}
            )
            self._next_ranks_check(state, events)

    def _reroll(self, state: EoteState, check: RanksCheck, dice: Dice, events: list[Event]) -> None:
        check.rerolls += 1
        events.append({"type": "reroll", "seat": check.seat, "rerolls": check.rerolls})
        self._roll_ranks(state, check, dice, events)

    # --- the GM's decision on an asked re-roll (RULINGS §9) ---------------------------

    def gm_actions(self, state: EoteState) -> list[Action]:
        check = state.ranks
        if not state.gm or state.result is not None or check is None or check.step != "asked":
            return []
        who = self.character(state, check.seat)
        pool = self.ranks_pool(state, check.seat, check.difficulty, check.rerolls + 1).describe()
        return [
            {
                "type": "gm_grant_reroll",
                "seat": check.seat,
                "label": f"Grant {who} a re-roll (upgraded: {pool})",
            },
            {
                "type": "gm_refuse_reroll",
                "seat": check.seat,
                "label": f"Refuse {who} a re-roll: the roll stands",
            },
        ]

    def apply_gm_game(self, state: EoteState, action: Action, dice: Dice) -> list[Event]:
        check = state.ranks
        assert check is not None and check.step == "asked"
        who = self.character(state, check.seat)
        if action["type"] == "gm_grant_reroll":
            events: list[Event] = [
                {
                    "type": "reroll_granted",
                    "seat": check.seat,
                    "text": f"The game master granted {who} a re-roll",
                }
            ]
            self._reroll(state, check, dice, events)
            return events
        events = [
            {
                "type": "reroll_refused",
                "seat": check.seat,
                "text": f"The game master refused {who} a re-roll",
            },
            {"type": "ranks", "seat": check.seat, "attack": 0, "defence": 0, "reason": "re-roll refused"},
        ]
        self._next_ranks_check(state, events)
        return events

    def gm_decision(self, state: EoteState) -> str | None:
        check = state.ranks
        if not state.gm or check is None or check.step != "asked":
            return None
        who = self.character(state, check.seat)
        return f"{who} asked for a re-roll: waiting for the game master to grant or refuse it"

    def _roll_ranks(self, state: EoteState, check: RanksCheck, dice: Dice, events: list[Event]) -> None:
        pool = self.ranks_pool(state, check.seat, check.difficulty, check.rerolls)
        roll = roll_pool(
            dice,
            pool,
            "initial ranks check",
            seat=check.seat,
            difficulty=check.difficulty,
            rerolls=check.rerolls,
        )
        state.last_roll = roll
        events.append(roll)
        result = roll["net"]
        if result["success"] >= 1:
            check.step = "split"
            events.append({"type": "ranks_check_passed", "seat": check.seat, "ranks": check.difficulty})
        elif result["triumph"] >= 1 or result["advantage"] >= 3:
            check.step = "reroll"
            events.append({"type": "reroll_offered", "seat": check.seat})
        else:
            events.append(
                {"type": "ranks", "seat": check.seat, "attack": 0, "defence": 0, "reason": "check failed"}
            )
            self._next_ranks_check(state, events)

    def _next_ranks_check(self, state: EoteState, events: list[Event]) -> None:
        assert state.ranks is not None
        if state.ranks.seat == 0:
            state.ranks = RanksCheck(seat=1)
            events.append({"type": "ranks_check", "seat": 1})
        else:
            state.ranks = None
            self._start_round(state, events)

    # --- rounds and setting -----------------------------------------------------------

    def _due(self, state: EoteState, kind: str, seat: int) -> int:
        """How many pending effects of ``kind`` for ``seat`` apply in the current round."""
        return sum(1 for e in state.effects if e.round == state.round and e.kind == kind and e.seat == seat)

    def _start_round(self, state: EoteState, events: list[Event]) -> None:
        state.round += 1
        state.step = "setting"
        state.lost_this_round = 0
        state.defence_mode = state.attack_mode = None
        attacker, defender = state.attacker, 1 - state.attacker
        first = attacker if self._due(state, "sets_first", attacker) else defender
        state.adjustments = self._due(state, "adjust_set", attacker)
        state.effects = [
            e
            for e in state.effects
            if e.round > state.round
            or (e.round == state.round and e.kind not in ("sets_first", "adjust_set"))
        ]
        state.setting_order = [first, 1 - first]
        events.append(
            {
                "type": "round",
                "number": state.round,
                "attacker": attacker,
                "defender": defender,
                "sets_first": first,
            }
        )
        self._next_setter(state, first, events)

    def _next_setter(self, state: EoteState, seat: int | None, events: list[Event]) -> None:
        """Hand setting to ``seat`` (None: setting is over); a seat with no active piece
        sets none without being asked."""
        while seat is not None and state.sides[seat].active == 0:
            events.append({"type": "set_revealed", "seat": seat, "count": 0, "reason": "no active piece"})
            seat = self._after(state, seat)
        state.choosing = 0
        state.setter = seat
        if seat is None:
            self._after_setting(state, events)

    @staticmethod
    def _after(state: EoteState, seat: int) -> int | None:
        order = state.setting_order
        return order[1] if seat == order[0] else None

    def _confirm_setting(self, state: EoteState, seat: int, events: list[Event]) -> None:
        side = state.sides[seat]
        side.active -= state.choosing
        side.set += state.choosing
        events.append({"type": "set_revealed", "seat": seat, "count": state.choosing})
        self._next_setter(state, self._after(state, seat), events)

    def _after_setting(self, state: EoteState, events: list[Event]) -> None:
        target = state.sides[1 - state.attacker]
        if state.adjustments and not (target.active or target.set):
            events.append(
                {
                    "type": "adjust_skipped",
                    "seat": state.attacker,
                    "reason": "the defender has no piece to add or remove",
                }
            )
            state.adjustments = 0
        state.step = "adjust" if state.adjustments else "defence"

    def _adjust(self, state: EoteState, seat: int, change: str, events: list[Event]) -> None:
        target = state.sides[1 - seat]
        if change == "add":
            target.active -= 1
            target.set += 1
        elif change == "remove":
            target.set -= 1
            target.active += 1
        state.adjustments -= 1
        events.append(
            {"type": "adjust_set", "seat": seat, "target": 1 - seat, "change": change, "set": target.set}
        )
        self._after_setting(state, events)

    # --- the roll ---------------------------------------------------------------------

    def _defence_pool(self, state: EoteState, mode: str) -> Pool:
        defender = 1 - state.attacker
        sheet, side = state.options.sheets[defender], state.sides[defender]
        pool = defence_pool(mode, sheet.cunning, sheet.presence, side.defence_ranks, side.set)
        return pool.upgrade_difficulty(self._due(state, "upgrade_defence", defender))

    def round_pool(self, state: EoteState, attack_mode: str) -> Pool:
        """The whole pool of this round's opposed check: the attacker's dice (upgraded by
        pending upgrades, with pending boost and setback dice) and the defence's."""
        attacker = state.attacker
        sheet, side = state.options.sheets[attacker], state.sides[attacker]
        positive = attack_pool(attack_mode, sheet.intellect, sheet.willpower, side.attack_ranks, side.set)
        positive = positive.upgrade_ability(self._due(state, "upgrade_attack", attacker))
        extra = Pool(boost=self._due(state, "boost", attacker), setback=self._due(state, "setback", attacker))
        return positive + extra + self._defence_pool(state, state.defence_mode or PRIMARY)

    def _roll_round(self, state: EoteState, dice: Dice, events: list[Event]) -> None:
        assert state.attack_mode is not None
        attacker, defender = state.attacker, 1 - state.attacker
        pool = self.round_pool(state, state.attack_mode)
        state.effects = [e for e in state.effects if e.round > state.round]
        roll = roll_pool(
            dice,
            pool,
            "round",
            round=state.round,
            seat=attacker,
            defender=defender,
            attack=state.attack_mode,
            defence=state.defence_mode,
        )
        state.last_roll = roll
        events.append(roll)
        result = roll["net"]
        successes = result["success"]
        outcome: dict[str, Any] = {
            "type": "round_result",
            "round": state.round,
            "net": result,
            "loser": None,
            "lost": 0,
        }
        if successes:
            loser = defender if successes > 0 else attacker
            lost, pile = self._lose(state.sides[loser], abs(successes))
            outcome.update(loser=loser, lost=lost, pile=pile)
            state.lost_this_round += lost
        state.last_result = outcome
        events.append(outcome)
        if self.settled(state):
            return
        attacker_spends = result["advantage"] > 0 or result["triumph"] > 0
        self._start_spending(state, attacker if attacker_spends else defender, events)

    @staticmethod
    def _lose(side: Side, count: int) -> tuple[int, str]:
        """Kill up to ``count`` set pieces; with none set, one unset piece (inactive first)."""
        if side.set:
            lost = min(count, side.set)
            side.set -= lost
            return lost, "set"
        if side.inactive:
            side.inactive -= 1
            return 1, "inactive"
        side.active -= 1
        return 1, "active"

    # --- spending advantages and threats -------------------------------------------------

    def _start_spending(self, state: EoteState, seat: int, events: list[Event]) -> None:
        """Open ``seat``'s spending step (attacker: advantages and triumphs; defender:
        threats and despairs); skip it when there is nothing to spend."""
        assert state.last_roll is not None
        result = state.last_roll["net"]
        if seat == state.attacker:
            total, specials, currency = max(result["advantage"], 0), result["triumph"], "advantage"
        else:
            total, specials, currency = max(-result["advantage"], 0), result["despair"], "threat"
        state.step = "spend"
        state.spending = Spending(
            seat=seat, currency=currency, total=total, left=total, specials_left=specials
        )
        if not self._spend_actions(state, with_done=False):
            self._finish_spending(state, events, announce=False)

    def _spend_options(self, state: EoteState) -> list[tuple[Spend, str]]:
        """Every (effect, what pays for it) open to the spender now."""
        spending = state.spending
        assert spending is not None
        attacking = spending.seat == state.attacker
        effects = ADVANTAGE_EFFECTS if attacking else THREAT_EFFECTS
        special = "triumph" if attacking else "despair"
        out: list[tuple[Spend, str]] = []
        for effect in effects.values():
            if not self._effect_possible(state, effect):
                continue
            affordable = effect.cost and spending.left >= effect.cost
            within_limit = effect.id not in LIMITED or spending.used.get(effect.id, 0) < limit(spending.total)
            if affordable and within_limit:
                out.append((effect, spending.currency))
            if spending.specials_left:
                out.append((effect, special))
        return out

    def _effect_possible(self, state: EoteState, effect: Spend) -> bool:
        if effect.id == "recover_strain":
            return state.sides[state.attacker].strain > 0
        if effect.id == "defender_sets_first":
            defender = 1 - state.attacker
            return not any(
                e.kind == "sets_first" and e.round == state.round + 1 and e.seat == defender
                for e in state.effects
            )
        return True

    def _spend_actions(self, state: EoteState, with_done: bool = True) -> list[Action]:
        spending = state.spending
        assert spending is not None
        actions: list[Action] = []
        for effect, pay in self._spend_options(state):
            price = (
                f"{effect.cost} {pay}{'s' if effect.cost > 1 else ''}"
                if pay == spending.currency
                else f"a {pay}"
            )
            actions.append(
                {"type": "spend", "effect": effect.id, "pay": pay, "label": f"Spend {price}: {effect.text}"}
            )
        if actions and with_done:
            actions.append({"type": "done", "label": "Done spending"})
        return actions

    def _spend(self, state: EoteState, seat: int, action: Action, events: list[Event]) -> None:
        spending = state.spending
        assert spending is not None
        attacking = seat == state.attacker
        effect = (ADVANTAGE_EFFECTS if attacking else THREAT_EFFECTS)[action["effect"]]
        if action["pay"] == spending.currency:
            spending.left -= effect.cost
            spending.used[effect.id] = spending.used.get(effect.id, 0) + 1
            source = f"{effect.cost} {spending.currency}{'s' if effect.cost > 1 else ''}"
        else:
            spending.specials_left -= 1
            source = action["pay"]
        attacker, defender, r = state.attacker, 1 - state.attacker, state.round
        event: Event = {
            "type": "spend",
            "seat": seat,
            "effect": effect.id,
            "pay": action["pay"],
            "source": source,
        }
        events.append(event)

        def later(kind: EffectKind, target: int, rounds_ahead: int) -> None:
            state.effects.append(
                Effect(kind=kind, seat=target, round=r + rounds_ahead, source=source, by=seat)
            )

        match effect.id:
            case "defender_setback":
                later("setback", defender, 1)
            case "recover_strain":
                state.sides[attacker].strain -= 1
                event["strain"] = state.sides[attacker].strain
            case "attacker_boost":
                later("boost", attacker, 2)
            case "defender_sets_first":
                later("sets_first", defender, 1)
            case "defender_boost":
                later("boost", defender, 1)
            case "attacker_strain":
                self._strain(state, attacker, event)
            case "attacker_setback":
                later("setback", attacker, 2)
            case "adjust_set_piece":
                later("adjust_set", defender, 1)
            case "upgrade_next_defence":
                # The attacker defends next round; the defender in two rounds.
                later("upgrade_defence", seat, 1 if attacking else 2)
            case "upgrade_next_attack":
                later("upgrade_attack", seat, 2 if attacking else 1)
        if state.result is None and not self._spend_actions(state, with_done=False):
            self._finish_spending(state, events, announce=False)

    def _strain(self, state: EoteState, seat: int, event: Event) -> None:
        side = state.sides[seat]
        side.strain += 1
        event["strain"] = side.strain
        self.settled(state)

    def game_end(self, state: EoteState, turn_starts: bool = False) -> Outcome | None:
        """A character with no piece left, or beyond their strain threshold, loses;
        then the draw by quiet rounds."""
        for seat in (0, 1):
            if state.sides[seat].pieces() == 0:
                return Outcome(winner=1 - seat, reason=f"{self.character(state, seat)} lost every piece")
        for seat in (0, 1):
            threshold = state.options.sheets[seat].strain_threshold
            if state.sides[seat].strain > threshold:
                who = self.character(state, seat)
                reason = f"{who} went beyond their strain threshold ({threshold}) and conceded"
                return Outcome(winner=1 - seat, reason=reason)
        return self.quiet_draw(state)

    def _finish_spending(self, state: EoteState, events: list[Event], announce: bool = True) -> None:
        spending = state.spending
        assert spending is not None
        if not announce and (spending.left or spending.specials_left):
            events.append(
                {"type": "done_spending", "seat": spending.seat, "reason": "nothing left to spend on"}
            )
        state.spending = None
        if spending.seat == state.attacker:
            self._start_spending(state, 1 - state.attacker, events)
        else:
            self._end_round(state, events)

    def _end_round(self, state: EoteState, events: list[Event]) -> None:
        for side in state.sides:
            side.inactive += side.set
            side.set = 0
        events.append(
            {"type": "round_end", "round": state.round, "piles": [self._piles(side) for side in state.sides]}
        )
        if all(side.active == 0 for side in state.sides):
            for side in state.sides:
                side.active, side.inactive = side.inactive, 0
            events.append({"type": "refill", "piles": [self._piles(side) for side in state.sides]})
        if state.lost_this_round:
            self.note_kill(state)
        self.count_quiet_turn(state)
        if not self.settled(state):
            state.attacker = 1 - state.attacker
            self._start_round(state, events)

    # --- views ---------------------------------------------------------------------------

    @staticmethod
    def _piles(side: Side) -> dict[str, int]:
        return {"active": side.active, "inactive": side.inactive, "set": side.set}

    def secrets(self, state: EoteState, seat: int | None) -> list[Any]:
        """A setter's choice before they confirm it: ``{"seat", "chosen"}``."""
        if (
            state.result is None
            and state.step == "setting"
            and state.setter is not None
            and seat != state.setter
        ):
            return [{"seat": state.setter, "chosen": state.choosing}]
        return []

    def effect_text(self, state: EoteState, effect: Effect) -> str:
        who = self.character(state, effect.seat)
        return {
            "boost": f"{who} rolls a boost die when attacking in round {effect.round}",
            "setback": f"{who} rolls a setback die when attacking in round {effect.round}",
            "upgrade_attack": f"{who}'s attack is upgraded in round {effect.round}",
            "upgrade_defence": f"{who}'s defence is upgraded in round {effect.round}",
            "sets_first": f"{who} sets first in round {effect.round}",
            "adjust_set": f"{who} may add or remove one of the opponent's set pieces in round {effect.round}",
        }[effect.kind]

    def game_view(self, state: EoteState, seat: int | None) -> dict[str, Any]:
        characters = []
        for s, (sheet, side) in enumerate(zip(state.options.sheets, state.sides, strict=True)):
            characters.append(
                {
                    "seat": s,
                    "name": sheet.name or self.seat_name(s),
                    "sheet": sheet.model_dump(),
                    "attack_ranks": side.attack_ranks,
                    "defence_ranks": side.defence_ranks,
                    "strain": side.strain,
                    "strain_threshold": sheet.strain_threshold,
                    "piles": self._piles(side),
                    "pieces": side.pieces(),
                    "lost": PIECES - side.pieces(),
                }
            )
        setting = None
        if state.step == "setting" and state.setter is not None and state.result is None:
            setting = {"seat": state.setter, "chosen": state.choosing if seat == state.setter else None}
        pending = [{**e.model_dump(), "text": self.effect_text(state, e)} for e in state.effects]
        if state.adjustments and state.step in ("setting", "adjust"):
            pending.append(
                {
                    "kind": "adjust_set",
                    "seat": state.attacker,
                    "round": state.round,
                    "count": state.adjustments,
                    "text": f"{self.character(state, state.attacker)} may add or remove "
                    f"{state.adjustments} of the opponent's set pieces after setting",
                }
            )
        ranks = state.ranks.model_dump() if state.ranks else None
        preview = None
        if state.result is None and state.step == "defence":
            preview = {mode: self._defence_pool(state, mode).counts() for mode in MODES}
        elif state.result is None and state.step == "attack":
            preview = {mode: self.round_pool(state, mode).counts() for mode in MODES}
        return {
            "round": state.round,
            "step": state.step if state.result is None else "over",
            "attacker": state.attacker if state.round else None,
            "defender": 1 - state.attacker if state.round else None,
            "first_attacker": state.first_attacker,
            "setting_order": state.setting_order,
            "setting": setting,
            "characters": characters,
            "strain": [side.strain for side in state.sides],
            "defence_mode": state.defence_mode,
            "attack_mode": state.attack_mode,
            "pool": state.last_roll["pool"] if state.last_roll else None,
            "pool_preview": preview,
            "last_roll": state.last_roll,
            "net": state.last_roll["net"] if state.last_roll else None,
            "last_result": state.last_result,
            "spending": state.spending.model_dump() if state.spending else None,
            "pending_effects": pending,
            "ranks_check": ranks,
            "initial_ranks_check": state.options.initial_ranks_check,
            "gm_hosted": state.gm,
            "turns_without_kill": state.options.turns_without_kill,
        }

    # --- the log in words -----------------------------------------------------------

    def event_text(self, event: Event, words: Words) -> str | None:
        """Eote's events, seats named by their characters: "Han (Light, Leia) attacks first"."""
        kind, seat = event.get("type"), event.get("seat")
        who = partial(character_label, words)
        if kind == "roll":
            dice = event.get("dice") or []
            if not any(d.get("kind") for d in dice):
                return super().event_text(event, words)
            faces = "; ".join(
                f"{d.get('kind')} {' and '.join(d.get('symbols') or []) or 'blank'}" for d in dice
            )
            if event.get("purpose") == "initial ranks check":
                what = "the initial ranks check"
            else:
                what = f"round {shown(event['round']) if event.get('round') is not None else ''}".strip()
            return (
                f"{who(seat)} rolled {what} ({pool_words(event.get('pool'))}): {faces}. "
                f"Net: {net_words(event.get('net'))}"
            )
        if kind == "attack" and event.get("piece"):
            return super().event_text(event, words)
        simple = {
            "first_attacker": lambda: f"{who(seat)} attacks first",
            "round": lambda: (
                f"Round {shown(event.get('number'))}: {who(event.get('attacker'))} attacks, "
                f"{who(event.get('defender'))} defends; {who(event.get('sets_first'))} sets first"
            ),
            "setting": lambda: f"{who(seat)} is choosing pieces to set",
            "set_revealed": lambda: (
                f"{who(seat)} set {plural(event.get('count', 0), 'piece')}"
                + (f" ({shown(event['reason'])})" if event.get("reason") else "")
            ),
            "adjust_set": lambda: adjust_words(words, event),
            "adjust_skipped": lambda: f"{who(seat)} could not adjust: {shown(event.get('reason'))}",
            "defence": lambda: f"{who(seat)} chose a {shown(event.get('mode'))} defence",
            "attack": lambda: f"{who(seat)} made a {shown(event.get('mode'))} attack",
            "round_result": lambda: result_words(words, event).removesuffix("."),
            "spend": lambda: (
                f"{who(seat)} spent {shown(event.get('source'))}: "
                f"{EFFECT_WORDS.get(event.get('effect', '')) or humanise(event.get('effect'))}"
                + (f" (strain now {shown(event['strain'])})" if "strain" in event else "")
            ),
            "done_spending": lambda: (
                f"{who(seat)} finished spending"
                + (f" ({shown(event['reason'])})" if event.get("reason") else "")
            ),
            "round_end": lambda: (
                f"Round {shown(event.get('round'))} ended: set pieces went to the inactive piles"
            ),
            "refill": lambda: "Both active piles were empty: the inactive piles became active",
            "ranks_check": lambda: f"{who(seat)} makes the initial ranks check",
            "ranks_check_passed": lambda: (
                f"{who(seat)} passed the check: {plural(event.get('ranks', 0), 'rank')} to split"
            ),
            "reroll_offered": lambda: (
                f"{who(seat)} may "
                f"{'ask the game master for' if words.state.get('gm_hosted') else 'take'} a re-roll"
            ),
            "reroll": lambda: f"{who(seat)} re-rolls (upgraded {plural(event.get('rerolls', 0), 'time')})",
            "ranks": lambda: (
                f"{who(seat)} has Dejarik Attack {shown(event.get('attack'))}, "
                f"Defence {shown(event.get('defence'))}"
                + (f" ({shown(event['reason'])})" if event.get("reason") else "")
            ),
        }
        if kind in simple:
            return simple[kind]()
        if kind in ("reroll_asked", "reroll_granted", "reroll_refused"):
            return event.get("text") or None  # worded when they happened, naming the GM's decision
        return super().event_text(event, words)


EFFECT_WORDS = {
    "defender_setback": "the defender gets a setback die on their attack next round",
    "recover_strain": "the attacker recovers 1 strain",
    "attacker_boost": "the attacker gets a boost die on their next attack",
    "defender_sets_first": "next round the attacker sets their pieces first",
    "defender_boost": "the defender gets a boost die on their attack next round",
    "attacker_strain": "the attacker takes 1 strain",
    "attacker_setback": "the attacker gets a setback die on their next attack",
    "adjust_set_piece": "next round the defender may add or remove one of the attacker's set pieces",
    "upgrade_next_attack": "their next attack is upgraded",
    "upgrade_next_defence": "their next defence is upgraded",
}
"""What a spent advantage, triumph, threat or despair does, in the log's words."""


def character_label(words: Words, seat: Any) -> str:
    """ "Light (Rey)", or with a character name "Han (Light, Rey)"."""
    if seat is None:
        return "Nobody"
    characters = words.state.get("characters") or []
    character = characters[seat] if isinstance(seat, int) and 0 <= seat < len(characters) else None
    side = words.seat_name(seat)
    player = words.players.get(seat) if isinstance(seat, int) else None
    name = character.get("name") if isinstance(character, dict) else None
    if name and name != side:
        return f"{name} ({side}{f', {player}' if player else ''})"
    return f"{side} ({player})" if player else side


def result_words(words: Words, result: dict[str, Any]) -> str:
    """A round's result: "Han (Light, Leia) lost 1 piece from the set pile."."""
    if result.get("loser") is None or not result.get("lost"):
        return "No piece lost this round."
    pile = result.get("pile")
    where = "set pile" if pile == "set" else f"{shown(pile)} pile (no piece was set)"
    return (
        f"{character_label(words, result['loser'])} lost {plural(result['lost'], 'piece')} from the {where}."
    )


def adjust_words(words: Words, event: Event) -> str:
    who, target = character_label(words, event.get("seat")), character_label(words, event.get("target"))
    if event.get("change") == "none":
        return f"{who} left {target}'s set pieces as they were"
    change = "added one piece to" if event.get("change") == "add" else "removed one piece from"
    return f"{who} {change} {target}'s set ({shown(event.get('set'))} set)"
