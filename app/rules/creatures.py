"""The traditional Dejarik creatures of seed 003, as `kelly` rates them (RULINGS §3)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Creature:
    id: str
    name: str
    attack: int
    defense: int
    movement: int


KELLY_CREATURES: dict[str, Creature] = {
    c.id: c
    for c in (
        Creature("savrip", "Mantellian Savrip", 6, 6, 2),
        Creature("monnok", "Monnok", 6, 5, 3),
        Creature("ghhhk", "Ghhhk", 4, 3, 2),
        Creature("houjix", "Houjix", 4, 4, 1),
        Creature("strider", "Kintan Strider", 2, 7, 3),
        Creature("ngok", "Ng'ok", 3, 8, 1),
        Creature("klorslug", "K'lor'slug", 7, 3, 2),
        # The seed's summary table gives movement 1; both prose texts say 2 (RULINGS §3).
        Creature("molator", "Molator", 8, 2, 2),
    )
}


KELLY_D20_DICE: dict[str, tuple[int, int]] = {
    "savrip": (6, 6),
    "strider": (10, 4),
    "monnok": (6, 6),
    "ngok": (8, 4),
    "ghhhk": (8, 8),
    "klorslug": (4, 8),
    "houjix": (8, 8),
    "molator": (4, 10),
}
"""`kelly-d20`'s secondary die per creature, as (attack die, defense die): the sides of
the die rolled beside the d20 (RULINGS §4, seed 003 "Holochess – alternative rules")."""


def secondary_die(rating: int) -> int:
    """`dalsiandon`'s secondary die for a rating (RULINGS §5, seed 004).

    7–8 → d4, 5–6 → d6, 3–4 → d8, 2 → d10.

    >>> [secondary_die(r) for r in (8, 7, 6, 5, 4, 3, 2)]
    [4, 4, 6, 6, 8, 8, 10]
    """
    if rating >= 7:
        return 4
    if rating >= 5:
        return 6
    if rating >= 3:
        return 8
    return 10
