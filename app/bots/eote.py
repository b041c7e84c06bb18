"""Bots' knowledge of `eote`: pieces, strain, ranks and pending effects.

Hidden information: while the other character is setting, how many pieces they have
chosen is theirs alone (``Eote.secrets``); :func:`redact` replaces it by 0 before a
bot looks at the state.

A GM-hosted match: a re-roll of the initial ranks check is asked for (``ask_reroll``)
and waits for the GM, whom no bot models; the bot counts an asked re-roll as the
ranks it wins if granted (asking costs nothing: a refusal leaves the roll standing,
as declining does). While the GM decides, no seat is to act and no bot moves.

Chance: a narrative roll's dice are convolved exactly into the distribution of
(net successes, net advantages, triumphs, despairs). Outcomes that play the same are
one class: net successes beyond what the loser has set (at least one piece) cannot
kill more, and advantages and threats are counted up to ``SPEND_CAP``. Each class
keeps one representative set of faces (its script).
"""

from __future__ import annotations

from functools import cache

from app.bots.search import Family, Script
from app.rules.base import Action
from app.rules.eote import PIECES, Eote, EoteState
from app.rules.narrative_dice import FACES, Pool, net

SPEND_CAP = 2
"""Advantages (threats) beyond this many are counted as this many by the bots."""

Key = tuple[int, int, int, int]


@cache
def net_outcomes(pool: Pool) -> dict[Key, tuple[int, tuple[int, ...]]]:
    """Every net result of ``pool`` with how many ways it falls and one script of faces."""
    outcomes: dict[Key, tuple[int, tuple[int, ...]]] = {(0, 0, 0, 0): (1, ())}
    for kind in pool.kinds():
        step: dict[Key, tuple[int, tuple[int, ...]]] = {}
        for key, (ways, script) in outcomes.items():
            for face, symbols in enumerate(FACES[kind], start=1):
                n = net([symbols])
                new = (
                    key[0] + n["success"],
                    key[1] + n["advantage"],
                    key[2] + n["triumph"],
                    key[3] + n["despair"],
                )
                before = step.get(new)
                step[new] = (ways + (before[0] if before else 0), before[1] if before else (*script, face))
        outcomes = step
    return outcomes


def grouped(pool: Pool, classify) -> list[tuple[float, Script]]:  # type: ignore[no-untyped-def]
    """The outcome classes of ``pool`` under ``classify(key)``, with exact probabilities."""
    outcomes = net_outcomes(pool)
    total = sum(ways for ways, _ in outcomes.values())
    classes: dict[object, list] = {}
    for key, (ways, script) in outcomes.items():
        entry = classes.setdefault(classify(key), [0, list(script)])
        entry[0] += ways
    return [(ways / total, script) for ways, script in classes.values()]


def clip(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


def chance(ruleset: Eote, state: EoteState, seat: int, action: Action) -> list[tuple[float, Script]] | None:
    kind = action["type"]
    if kind == "attack":
        attacker, defender = state.sides[state.attacker], state.sides[1 - state.attacker]
        most_lost = (max(attacker.set, 1), max(defender.set, 1))

        def round_class(key: Key) -> Key:
            success, advantage, triumph, despair = key
            return (
                clip(success, -most_lost[0], most_lost[1]),
                clip(advantage, -SPEND_CAP, SPEND_CAP),
                min(triumph, 1),
                min(despair, 1),
            )

        return grouped(ruleset.round_pool(state, action["mode"]), round_class)
    if kind in ("choose_difficulty", "reroll"):
        check = state.ranks
        difficulty = action.get("difficulty", check.difficulty)
        rerolls = check.rerolls + (kind == "reroll")
        pool = ruleset.ranks_pool(state, seat, difficulty, rerolls)
        return grouped(pool, lambda key: (key[0] >= 1, key[2] >= 1 or key[1] >= 3))
    return None


def redact(ruleset: Eote, state: EoteState, seat: int) -> EoteState:
    if ruleset.secrets(state, seat):
        state.choosing = 0
    return state


EFFECT_WORTH = {
    "boost": 0.03,
    "setback": -0.03,
    "upgrade_attack": 0.05,
    "upgrade_defence": 0.05,
    "sets_first": -0.02,
    "adjust_set": 0.04,
}


RANK_WORTH = 0.03


def hoped_ranks(ruleset: Eote, state: EoteState) -> float:
    """The ranks a re-roll asked of the GM wins if granted: its chance to pass times the
    difficulty (0 when none is asked)."""
    check = state.ranks
    if check is None or check.step != "asked":
        return 0.0
    outcomes = net_outcomes(ruleset.ranks_pool(state, check.seat, check.difficulty, check.rerolls + 1))
    total = sum(ways for ways, _ in outcomes.values())
    passes = sum(ways for key, (ways, _) in outcomes.items() if key[0] >= 1)
    return passes / total * check.difficulty


def evaluate(ruleset: Eote, state: EoteState, seat: int) -> float:
    mine, theirs = state.sides[seat], state.sides[1 - seat]
    value = 0.7 * (mine.pieces() - theirs.pieces()) / PIECES
    sheets = state.options.sheets
    value -= 0.15 * mine.strain / sheets[seat].strain_threshold
    value += 0.15 * theirs.strain / sheets[1 - seat].strain_threshold
    value += RANK_WORTH * (
        mine.attack_ranks + mine.defence_ranks - theirs.attack_ranks - theirs.defence_ranks
    )
    hoped = RANK_WORTH * hoped_ranks(ruleset, state)
    value += hoped if state.ranks and state.ranks.seat == seat else -hoped
    for effect in state.effects:
        worth = EFFECT_WORTH[effect.kind]
        value += worth if effect.seat == seat else -worth
    return max(-1.0, min(1.0, value))


def plays(action: Action) -> bool:
    """A bot sets its pieces one by one, then is done: it never takes one back. (Set and
    take back again tied in value, and a bot played them turn after turn, for ever.)"""
    return action["type"] != "unset_piece"


FAMILY = Family(evaluate=evaluate, chance=chance, redact=redact, plays=plays)  # type: ignore[arg-type]
