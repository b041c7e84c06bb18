"""Edge-of-the-Empire narrative dice (RULINGS §9), rolled through the match's :class:`Dice`.

Six kinds of dice, each a plain numbered die underneath: the seeded source gives
every die its face number (``dice.die(8)`` for an ability die …) and this module
reads the symbols printed on that face. So every narrative roll stays verifiable
from the match seed: each die in a roll event keeps ``sides``, ``face`` and ``n``.

Faces, numbered from 1 in the order RULINGS §9 lists them (S success, F failure,
A advantage, T threat, Tr triumph, De despair):

======================  ====  ===================================================
kind                    die   faces 1..n
======================  ====  ===================================================
boost                   d6    –, –, S, SA, AA, A
setback                 d6    –, –, F, F, T, T
ability                 d8    –, S, S, SS, A, A, SA, AA
difficulty              d8    –, F, FF, T, T, T, TT, FT
proficiency             d12   –, S, S, SS, SS, A, SA, SA, SA, AA, AA, Tr
challenge               d12   –, F, F, FF, FF, T, T, FT, FT, TT, TT, De
======================  ====  ===================================================

A triumph also counts as a success and a despair as a failure when the results
are netted; the triumph and the despair themselves are never cancelled.

>>> Pool(ability=4).upgrade_ability(2).describe()
'2 ability + 2 proficiency'
>>> skill_pool(4, 2).upgrade_ability(1).describe()
'1 ability + 3 proficiency'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from typing import Any

from app.rules.dice import Dice

SUCCESS, FAILURE, ADVANTAGE, THREAT, TRIUMPH, DESPAIR = (
    "success",
    "failure",
    "advantage",
    "threat",
    "triumph",
    "despair",
)
SYMBOLS: tuple[str, ...] = (SUCCESS, FAILURE, ADVANTAGE, THREAT, TRIUMPH, DESPAIR)

_CODES = {"S": SUCCESS, "F": FAILURE, "A": ADVANTAGE, "T": THREAT, "Tr": TRIUMPH, "De": DESPAIR}


def _faces(*written: str) -> tuple[tuple[str, ...], ...]:
    """Faces written as in RULINGS §9: ``"-"`` blank, ``"SA"``, ``"Tr"`` …"""
    out = []
    for text in written:
        if text in ("-", "Tr", "De"):
            out.append(() if text == "-" else (_CODES[text],))
        else:
            out.append(tuple(_CODES[c] for c in text))
    return tuple(out)


FACES: dict[str, tuple[tuple[str, ...], ...]] = {
    "boost": _faces("-", "-", "S", "SA", "AA", "A"),
    "setback": _faces("-", "-", "F", "F", "T", "T"),
    "ability": _faces("-", "S", "S", "SS", "A", "A", "SA", "AA"),
    "difficulty": _faces("-", "F", "FF", "T", "T", "T", "TT", "FT"),
    "proficiency": _faces("-", "S", "S", "SS", "SS", "A", "SA", "SA", "SA", "AA", "AA", "Tr"),
    "challenge": _faces("-", "F", "F", "FF", "FF", "T", "T", "FT", "FT", "TT", "TT", "De"),
}
"""The symbols on each face, face 1 first."""

SIDES: dict[str, int] = {kind: len(faces) for kind, faces in FACES.items()}

KINDS: tuple[str, ...] = ("ability", "proficiency", "boost", "difficulty", "challenge", "setback")
"""Every kind, in the order a pool is rolled: the character's dice first, then the opposition's."""

POSITIVE: frozenset[str] = frozenset({"ability", "proficiency", "boost"})


def symbols(kind: str, face: int) -> list[str]:
    """The symbols on ``face`` (1-based) of a die of ``kind``.

    >>> symbols("proficiency", 12), symbols("difficulty", 8), symbols("boost", 1)
    (['triumph'], ['failure', 'threat'], [])
    """
    return list(FACES[kind][face - 1])


@dataclass(frozen=True)
class Pool:
    """A narrative dice pool: how many dice of each kind."""

    ability: int = 0
    proficiency: int = 0
    boost: int = 0
    difficulty: int = 0
    challenge: int = 0
    setback: int = 0

    def upgrade_ability(self, times: int = 1) -> Pool:
        """Upgrade the positive dice ``times`` times, one step at a time: an ability die
        becomes a proficiency die; with no ability die left, an ability die is added."""
        return self._upgrade("ability", "proficiency", times)

    def upgrade_difficulty(self, times: int = 1) -> Pool:
        """Upgrade the negative dice: difficulty becomes challenge; with no difficulty
        die left, a difficulty die is added."""
        return self._upgrade("difficulty", "challenge", times)

    def _upgrade(self, plain: str, upgraded: str, times: int) -> Pool:
        pool = self
        for _ in range(max(0, times)):
            left = getattr(pool, plain)
            if left:
                pool = replace(pool, **{plain: left - 1, upgraded: getattr(pool, upgraded) + 1})
            else:
                pool = replace(pool, **{plain: 1})
        return pool

    def __add__(self, other: Pool) -> Pool:
        return Pool(**{k: getattr(self, k) + getattr(other, k) for k in KINDS})

    def kinds(self) -> list[str]:
        """One entry per die, in rolling order."""
        return [kind for kind in KINDS for _ in range(getattr(self, kind))]

    def counts(self) -> dict[str, int]:
        return asdict(self)

    def size(self) -> int:
        return sum(asdict(self).values())

    def describe(self) -> str:
        """``'1 ability + 3 proficiency'``; ``'no dice'`` for an empty pool."""
        parts = [f"{getattr(self, kind)} {kind}" for kind in KINDS if getattr(self, kind)]
        return " + ".join(parts) or "no dice"


def skill_pool(characteristic: int, ranks: int) -> Pool:
    """A skill check's positive dice: max(characteristic, ranks) dice, min(...) of
    them upgraded to proficiency."""
    high, low = max(characteristic, ranks, 0), max(min(characteristic, ranks), 0)
    return Pool(ability=high - low, proficiency=low)


def opposition_pool(characteristic: int, ranks: int) -> Pool:
    """The same rule for the difficulty side: difficulty dice, min(...) upgraded to challenge."""
    high, low = max(characteristic, ranks, 0), max(min(characteristic, ranks), 0)
    return Pool(difficulty=high - low, challenge=low)


def tally(symbol_lists: Iterable[Iterable[str]]) -> dict[str, int]:
    """How many of each symbol the dice show, before anything cancels."""
    counted = Counter(s for faces in symbol_lists for s in faces)
    return {s: counted.get(s, 0) for s in SYMBOLS}


def net(symbol_lists: Iterable[Iterable[str]]) -> dict[str, int]:
    """The net result: ``success`` (negative: net failures), ``advantage`` (negative:
    net threats), and the triumphs and despairs, which are never cancelled.

    >>> net([["success", "advantage"], ["failure"], ["triumph"], ["threat", "threat"]])
    {'success': 1, 'advantage': -1, 'triumph': 1, 'despair': 0}
    """
    t = tally(symbol_lists)
    return {
        "success": t[SUCCESS] + t[TRIUMPH] - t[FAILURE] - t[DESPAIR],
        "advantage": t[ADVANTAGE] - t[THREAT],
        "triumph": t[TRIUMPH],
        "despair": t[DESPAIR],
    }


def roll_pool(dice: Dice, pool: Pool, purpose: str, **about: Any) -> dict[str, Any]:
    """Roll ``pool`` and return its ``roll`` event.

    Each die is ``dice.die(sides)`` with its ``kind`` and ``symbols`` added (its face
    number still checks against the seed); ``tally`` counts the symbols shown and
    ``net`` is the net result. A sum of face numbers would mean nothing: none is given.
    """
    rolled = []
    for kind in pool.kinds():
        die = dice.die(SIDES[kind])
        rolled.append({**die, "kind": kind, "symbols": symbols(kind, die["face"])})
    shown = [d["symbols"] for d in rolled]
    return {
        "type": "roll",
        "purpose": purpose,
        **about,
        "pool": pool.counts(),
        "dice": rolled,
        "tally": tally(shown),
        "net": net(shown),
    }


POOL_ORDER = ("proficiency", "ability", "boost", "challenge", "difficulty", "setback")
"""The order a pool is listed in words (the character's dice, then the opposition's)."""
PLURALS = {
    SUCCESS: "successes", FAILURE: "failures", ADVANTAGE: "advantages",
    THREAT: "threats", TRIUMPH: "triumphs", DESPAIR: "despairs",
}  # fmt: skip


def pool_words(pool: dict[str, int] | None) -> str:
    """A pool in words: "2 ability + 1 difficulty" (as the browser's dice show it)."""
    parts = [f"{pool[k]} {k}" for k in POOL_ORDER if pool and pool.get(k)]
    return " + ".join(parts) or "no dice"


def net_words(result: dict[str, int] | None) -> str:
    """A net result in words: "2 successes, 1 threat"."""
    result = result or {}
    parts: list[tuple[str, int]] = []
    success, advantage = result.get(SUCCESS, 0), result.get(ADVANTAGE, 0)
    if success:
        parts.append((SUCCESS, success) if success > 0 else (FAILURE, -success))
    if advantage:
        parts.append((ADVANTAGE, advantage) if advantage > 0 else (THREAT, -advantage))
    for symbol in (TRIUMPH, DESPAIR):
        if result.get(symbol, 0) > 0:
            parts.append((symbol, result[symbol]))
    words = [f"{n} {symbol if n == 1 else PLURALS[symbol]}" for symbol, n in parts]
    return ", ".join(words) if words else "nothing: everything cancelled"
