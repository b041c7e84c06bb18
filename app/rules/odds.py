"""Exact odds of an attack in the `kelly` family (RULINGS §3–§5).

An attack compares two :class:`Pool` totals, each a flat bonus (a rating) plus a
sum of dice. The difference decides the result by the outcome table of
:func:`classify`. Here the distributions are convolved exactly with integers, so
the four probabilities are exact fractions and always sum to exactly 1.

Distributions are cached: a ruleset may ask for the odds of every attack in its
``legal_actions`` without slowing down.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

RESULTS: tuple[str, ...] = ("kill", "push", "counter-push", "counter-kill")
"""The four results of an attack, from the attacker's best to its worst."""


@dataclass(frozen=True)
class Pool:
    """A combat roll: a flat bonus (a rating) plus dice with these numbers of sides."""

    bonus: int
    sides: tuple[int, ...]


def classify(difference: int) -> str:
    """The result of an attack from attack total minus defense total (RULINGS §3).

    >>> [classify(d) for d in (7, 6, 1, 0, -6, -7)]
    ['kill', 'push', 'push', 'counter-push', 'counter-push', 'counter-kill']
    """
    if difference >= 7:
        return "kill"
    if difference >= 1:
        return "push"
    if difference >= -6:
        return "counter-push"
    return "counter-kill"


@cache
def _dice_counts(sides: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """How many ways each sum of these dice can fall, as ``((sum, ways), …)``; ``sides`` sorted."""
    counts = {0: 1}
    for n in sides:
        nxt: dict[int, int] = {}
        for total, ways in counts.items():
            for face in range(1, n + 1):
                nxt[total + face] = nxt.get(total + face, 0) + ways
        counts = nxt
    return tuple(sorted(counts.items()))


def distribution(pool: Pool) -> dict[int, Fraction]:
    """The exact probability of each total of ``pool``.

    >>> distribution(Pool(3, (2,)))
    {4: Fraction(1, 2), 5: Fraction(1, 2)}
    """
    counts = _dice_counts(tuple(sorted(pool.sides)))
    outcomes = _outcomes(pool.sides)
    return {pool.bonus + total: Fraction(ways, outcomes) for total, ways in counts}


def _outcomes(sides: Iterable[int]) -> int:
    product = 1
    for n in sides:
        product *= n
    return product


@cache
def _difference_counts(att_sides: tuple[int, ...], def_sides: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """Ways for each value of (attack dice sum − defense dice sum), both tuples sorted."""
    diff: dict[int, int] = {}
    for a, wa in _dice_counts(att_sides):
        for d, wd in _dice_counts(def_sides):
            diff[a - d] = diff.get(a - d, 0) + wa * wd
    return tuple(sorted(diff.items()))


@cache
def attack_odds(attack: Pool, defense: Pool) -> dict[str, Fraction]:
    """The exact probability of each result when ``attack`` rolls against ``defense``.

    >>> attack_odds(Pool(0, (6,)), Pool(0, (6,)))["push"]
    Fraction(5, 12)
    """
    att, dfn = tuple(sorted(attack.sides)), tuple(sorted(defense.sides))
    shift = attack.bonus - defense.bonus
    ways = dict.fromkeys(RESULTS, 0)
    for difference, count in _difference_counts(att, dfn):
        ways[classify(difference + shift)] += count
    outcomes = _outcomes(att) * _outcomes(dfn)
    return {result: Fraction(n, outcomes) for result, n in ways.items()}


KELLY_WORDS: dict[str, str] = {
    "kill": "{defender} is killed",
    "push": "{defender} is pushed",
    "counter-push": "{attacker} is pushed back",
    "counter-kill": "{attacker} is killed",
}
"""What each result of a kelly-family attack does, in words (``{attacker}``/``{defender}``: names)."""


def death_push(chances: Mapping[str, Fraction]) -> dict[str, Fraction]:
    """The chances when a push would kill (a death push, dalsiandon): a push is a kill."""
    merged = {result: p for result, p in chances.items() if result != "push"}
    merged["kill"] = chances["kill"] + chances["push"]
    return merged


def odds_for(
    chances: Mapping[str, Fraction], words: Mapping[str, str], attacker: str, defender: str
) -> dict[str, Any]:
    """The ``"odds"`` of an attack as shown in ``legal_actions`` (every ruleset's one shape):
    each outcome's ``key``, its ``probability`` (four places), its ``exact`` fraction and
    what it does in words.

    >>> odds_for({"kill": Fraction(3, 16), "push": Fraction(13, 16)}, KELLY_WORDS, "Molator", "Ng'ok")
    ... # doctest: +NORMALIZE_WHITESPACE
    {'outcomes': [{'key': 'kill', 'probability': 0.1875, 'exact': '3/16', 'text': "Ng'ok is killed"},
                  {'key': 'push', 'probability': 0.8125, 'exact': '13/16', 'text': "Ng'ok is pushed"}]}
    """
    return {
        "outcomes": [
            {
                "key": result,
                "probability": round(float(p), 4),
                "exact": str(p),
                "text": words[result].format(attacker=attacker, defender=defender),
            }
            for result, p in chances.items()
        ]
    }


def chance_of(odds: Mapping[str, Any], key: str) -> float:
    """The exact chance of outcome ``key`` in an ``"odds"`` of the one shape (0 if none)."""
    return float(sum((Fraction(o["exact"]) for o in odds["outcomes"] if o["key"] == key), Fraction(0)))
