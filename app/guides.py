"""How to play each ruleset, written for players (the rulings are in docs/rulesets/).

The words are here; every number comes from the ruleset's own code: the creatures'
numbers from its view's legend, the odds from ``app/rules/odds.py`` (or simeone's
``battle_chances``) over the pools the ruleset itself builds, the options from its
options JSON Schema, and the board diagrams from a real starting position.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any

from app.api.option_form import OptionField, option_fields
from app.rules import registry
from app.rules.base import Ruleset
from app.rules.dice import Dice
from app.rules.kelly import Kelly, Piece
from app.rules.odds import RESULTS, attack_odds
from app.rules.simeone import CREATURES as SIMEONE_CREATURES
from app.rules.simeone import RESULTS as SIMEONE_RESULTS
from app.rules.simeone import battle_chances


@dataclass(frozen=True)
class Guide:
    aim: str
    setup: str
    turn: list[str]
    combat: list[str]
    winning: list[str]
    tips: list[str] = field(default_factory=list)


_KELLY_TURN = [
    "Your turn is two actions. Each action is a move or an attack, by any of your creatures "
    "(the same one may act twice).",
    "To move, click one of your creatures (it is outlined), then one of the spaces lit in green. "
    "A creature moves exactly its Movement in steps, each to an empty space next to it "
    "(around a ring, along a ray, or between the core and ring B), never entering a space twice.",
    "To attack, click your creature, then an enemy creature right next to it. "
    "The page shows the exact odds before you commit.",
    "When you win an exchange by a push, you choose where the loser goes: click one of the lit spaces.",
]
_KELLY_WIN = [
    "Destroy every enemy creature.",
    "When each side has one creature left, both go to the core and fight To-The-Death: "
    "they roll again and again until one is destroyed.",
]
_KELLY_RESULTS = [
    "The attacker's total minus the defender's total decides: 7 or more destroys the defender "
    "(kill); 1 to 6 pushes it (push); 0 to −6 pushes the attacker back (counter-push); "
    "−7 or less destroys the attacker (counter-kill).",
]

GUIDES: dict[str, Guide] = {
    "kelly": Guide(
        aim="Destroy all four of your opponent's creatures.",
        setup="The eight creatures are dealt at random, four each, onto each side's home spaces on "
        "the outer ring. A coin decides who goes first.",
        turn=_KELLY_TURN,
        combat=[
            "The attacker rolls as many six-sided dice as its Attack, the defender as many as its Defense.",
            *_KELLY_RESULTS,
        ],
        winning=_KELLY_WIN,
        tips=["A Ng'ok on defence is very hard to shift; a Molator hits hard but breaks easily."],
    ),
    "kelly-d20": Guide(
        aim="Destroy all four enemy creatures, or hold the core for three of your turns in a row.",
        setup="As in Kelly's Dejarik: four creatures each, dealt at random; a coin decides who starts.",
        turn=_KELLY_TURN,
        combat=[
            "Each side's total is its rating plus a d20 plus the creature's own second die "
            "(shown in the table below as attack die and defense die).",
            *_KELLY_RESULTS,
        ],
        winning=[
            *_KELLY_WIN,
            "Or end three of your own turns in a row with a creature on the core (C) while your "
            "opponent declares no attack on any of your creatures: the counter shows beside the board.",
        ],
    ),
    "dalsiandon": Guide(
        aim="Destroy all four enemy creatures.",
        setup="The creatures are drafted by rolling d8s (or dealt at random, an option). Then both "
        "roll a d10: the lower roll places its creatures first, one by one, on its home spaces, "
        "and moves first.",
        turn=_KELLY_TURN,
        combat=[
            "Each side's total is its rating plus 2d10 plus a second die set by the rating: "
            "7–8 a d4, 5–6 a d6, 3–4 a d8, 2 a d10.",
            "The outer ring A is a safe zone: no attack into or out of it (unless the option "
            "'Nowhere is safe' is on).",
            *_KELLY_RESULTS,
        ],
        winning=_KELLY_WIN,
    ),
    "simeone": Guide(
        aim="Defeat every enemy creature, or be first to the points to win (defeats and the core score).",
        setup="Teams are fixed. Players place their creatures on their home spaces one at a time, "
        "Blue first. Then each rolls a d6: the higher roll moves first in every round.",
        turn=[
            "A round is one turn each. In your turn you activate one of your creatures.",
            "Click it, then a lit space: it takes up to its number of actions — move one step, or attack "
            "an enemy next to it. 'End activation' stops early.",
            "A stunned creature's only action is to shake off the stun.",
            "When you push, you choose where the defender goes; from the outer ring you may push it "
            "off the board, which defeats it.",
        ],
        combat=[
            "The attacker rolls its die, the defender its die (a smaller one while stunned).",
            "Attack at least twice the defense: the defender is defeated. Attack at least the defense: "
            "it is pushed. Defense at least twice the attack: the attacker is stunned. Otherwise nothing "
            "happens. The attacker never leaves its space.",
        ],
        winning=[
            "Score each creature you defeat at its value, and a point for entering the core (an option).",
            "Reach the points to win (12 unless changed), or defeat every enemy creature.",
        ],
    ),
    "orbit-chess": Guide(
        aim="Start one of your turns with your king on the core (C).",
        setup="Each side has a king, a queen, a knight and a pawn on its four home spaces. "
        "White moves first.",
        turn=[
            "Move one of your pieces, or bring a captured piece of yours back onto an empty space "
            "of the outer ring.",
            "King: one step straight. Queen: one step diagonally. Knight: one step diagonally, then up "
            "to four steps on around the ring it reached, the same way round.",
            "Pawn: any distance along one straight line, around a ring or along a ray through the core. "
            "It never captures, but it may push one piece ahead of it.",
            "King, queen and knight capture by ending on an enemy piece. A piece right next to its own "
            "queen cannot be captured.",
        ],
        combat=["No dice: a capture always succeeds."],
        winning=[
            "Start your turn with your king on C.",
            "A player who cannot move or bring a piece back loses. The same position three times is a draw.",
        ],
    ),
    "courtier": Guide(
        aim="Capture the enemy king.",
        setup="Each side has a king and five guards on six spaces of the outer ring. Blue moves first "
        "(or a roll decides, an option).",
        turn=[
            "Move one piece one step to an empty space next to it.",
            "Capture by enclosing: an enemy between the piece you moved and another of yours, in a "
            "straight line and next to both, is removed. If a move could capture two, you choose one.",
            "If your moved piece captures and ends between two enemies, it is removed too. Moving "
            "between two enemies without capturing is safe.",
        ],
        combat=["No dice: captures follow from where the pieces stand."],
        winning=[
            "Capture the enemy king.",
            "A player who cannot move loses. The same position three times is a draw.",
        ],
    ),
    "eote": Guide(
        aim="Take all four of your opponent's pieces. Each character's pieces are their destiny "
        "points: Light plays the light side, Dark the dark side. There is no board: the pieces lie in "
        "piles, and each round is settled by one roll of Edge of the Empire's narrative dice.",
        setup="Each character starts with four active pieces and a sheet: Intellect, Cunning, "
        "Willpower and Presence (1 to 6), and ranks in Dejarik Attack and Dejarik Defence (0 to 5). "
        "A d2 decides who attacks first; attacker and defender swap every round.",
        turn=[
            "Setting pieces: the defender, then the attacker, chooses how many active pieces to set. "
            "Each piece set makes that side's dice stronger this round (it upgrades a die), but set "
            "pieces are at stake: the loser of the roll loses one set piece for each net success or "
            "failure against them. A side that set nothing loses only one piece if it loses. The "
            "first to set keeps the choice hidden until done; the second sees it.",
            "The defender chooses a defence. Primary: their Cunning and Dejarik Defence ranks make "
            "the difficulty, each set piece upgrading a die — better for a cunning or trained "
            "defender. Secondary: their Presence alone (ranks do not count), with at least as many "
            "dice as pieces set — better when Presence is their best, or they set many pieces.",
            "The attacker chooses an attack, which rolls at once. Primary: their Intellect and "
            "Dejarik Attack ranks, each set piece upgrading a die — better for a clever or trained "
            "player. Secondary: their Willpower alone (ranks do not count), with at least as many "
            "dice as pieces set — better when Willpower is their best. Each button shows the dice "
            "it rolls and what it can be expected to score.",
            "Spending: the attacker spends advantages (▲) and triumphs (✪), then the defender threats "
            "(▼) and despairs (⊗), on effects for later rounds: boost or setback dice, upgrades, "
            "strain, who sets first. Set pieces then go to the inactive pile; when both active piles "
            "are empty, the inactive pieces become active again.",
        ],
        combat=[
            "The attacker's dice: green ability dice (d8) and yellow proficiency dice (d12, an "
            "upgraded ability die), with light blue boost dice (d6) from earlier effects. The "
            "defence's dice: purple difficulty dice (d8) and red challenge dice (d12, an upgraded "
            "difficulty die), with black setback dice (d6).",
            "Successes (★) cancel failures (✖); advantages (▲) cancel threats (▼). A triumph (✪) "
            "counts as a success and a despair (⊗) as a failure, and neither is cancelled for spending.",
            "Net successes: the defender loses that many of their set pieces (one piece if they "
            "set none). Net failures: the attacker loses theirs the same way. The dice tray shows "
            "every die and symbol of the roll.",
            "Strain: some effects give a character strain; strain beyond their threshold (12 "
            "unless the sheet says otherwise) makes them concede the game.",
        ],
        winning=[
            "Take all of your opponent's pieces.",
            "Or push them past their strain threshold: they concede.",
        ],
        tips=[
            "Setting pieces is a wager: more dice upgrades, more pieces at risk. Set when your dice "
            "are the stronger ones; hold back when they are not.",
            "Compare the two buttons before you choose: each says what it rolls and what it can be "
            "expected to score; the stronger one is marked.",
        ],
    ),
}


# --- numbers from the code -----------------------------------------------------------


def _seed(ruleset_id: str) -> bytes:
    return hashlib.sha256(f"rules page {ruleset_id}".encode()).digest()


def opening(ruleset: Ruleset) -> tuple[Any, dict[str, Any]]:
    """A real match of ``ruleset`` set up and ready to play (the first legal choice made
    at every set-up step): its state and the public view of it, with legal actions."""
    dice = Dice(_seed(ruleset.id))
    state, _ = ruleset.new_game(ruleset.options({}), dice)
    for _ in range(200):
        view = ruleset.view(state, None)
        if view.get("phase") in (None, "play") or ruleset.outcome(state) is not None:
            break
        seat = ruleset.to_act(state)[0]
        state, _ = ruleset.apply(state, seat, ruleset.legal_actions(state, seat)[0], dice)
    seat = ruleset.to_act(state)[0]
    return state, {
        "state": ruleset.view(state, None),
        "legal_actions": ruleset.legal_actions(state, seat),
        "you": {"seat": seat},
        "seat": seat,
    }


def creature_rows(view: dict[str, Any]) -> tuple[list[str], list[dict[str, Any]]]:
    """The legend of the view as table columns and rows (kind, name and its numbers)."""
    legend = view["state"].get("legend") or {}
    columns: list[str] = []
    for info in legend.values():
        for key, value in info.items():
            if key != "name" and not isinstance(value, dict | list) and key not in columns:
                columns.append(key)
    rows = [
        {"kind": kind, "name": info.get("name", kind), **{k: as_written(k, v) for k, v in info.items()}}
        for kind, info in legend.items()
    ]
    return columns, rows


def as_written(key: str, value: Any) -> Any:
    """A legend value as players write it: a die's sides as "d8", not "8"."""
    return f"d{value}" if key.endswith("_die") and isinstance(value, int) else value


@dataclass
class OddsTable:
    title: str
    results: tuple[str, ...]
    attackers: list[tuple[str, str]]
    """(kind, name) of each row."""
    defenders: list[tuple[str, str]]
    cells: dict[tuple[str, str], dict[str, Fraction | float]]


def _percent(p: Fraction | float) -> str:
    return f"{float(p) * 100:.1f}"


def odds_tables(ruleset: Ruleset, state: Any) -> list[OddsTable]:
    """Every attacker against every defender, the exact chance of each result."""
    if isinstance(ruleset, Kelly):
        kinds = sorted(ruleset.creatures, key=lambda k: ruleset.creatures[k].name)
        names = [(k, ruleset.creatures[k].name) for k in kinds]
        cells = {
            (a, d): attack_odds(
                *ruleset.attack_pools(state, Piece(id=a, kind=a, owner=0), Piece(id=d, kind=d, owner=1))
            )
            for a in kinds
            for d in kinds
        }
        return [OddsTable("Attacker (rows) against defender (columns)", RESULTS, names, names, cells)]
    if ruleset.id == "simeone":
        tables = []
        for seat, side in ((0, "Blue"), (1, "Red")):
            mine = [c for c in SIMEONE_CREATURES.values() if c.owner == seat]
            theirs = [c for c in SIMEONE_CREATURES.values() if c.owner != seat]
            cells = {(a.id, d.id): battle_chances(a.die, d.die) for a in mine for d in theirs}
            tables.append(
                OddsTable(
                    f"{side} attacks (defender not stunned)",
                    SIMEONE_RESULTS,
                    [(c.id, c.name) for c in mine],
                    [(c.id, c.name) for c in theirs],
                    cells,
                )
            )
        return tables
    return []


def option_help(ruleset: Ruleset) -> list[OptionField]:
    return option_fields(ruleset.options_schema.model_json_schema(), "options", ruleset.seat_names)


@cache
def rules_page(ruleset_id: str) -> dict[str, Any]:
    """Everything the rules page of ``ruleset_id`` shows; KeyError for an unknown id."""
    ruleset = registry()[ruleset_id]
    state, view = opening(ruleset)
    columns, creatures = creature_rows(view)
    return {
        "ruleset": ruleset,
        "guide": GUIDES.get(ruleset_id),
        "columns": columns,
        "creatures": creatures,
        "odds": odds_tables(ruleset, state),
        "percent": _percent,
        "options": option_help(ruleset),
        "diagram": view if view["state"].get("kind") == "board" else None,
        "rulesets": list(registry().values()),
    }
