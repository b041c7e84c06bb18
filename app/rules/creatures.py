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
