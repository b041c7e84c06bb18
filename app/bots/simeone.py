"""Bots' knowledge of `simeone`: material by creature value, points, stuns.

Chance: an attack is one attacker die against one defender die (or a stunned
Houjix's or Ng'ok's static 1); every pair of faces is counted, grouped by its
:func:`~app.rules.simeone.battle_result`, one pair scripted per result.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import Any

from app.bots.search import Family, Script
from app.rules import board
from app.rules.base import Action
from app.rules.simeone import CREATURES, STATIC_STUNNED, Simeone, SimeoneState, battle_chances, battle_result


@cache
def battle_scripts(attack_sides: int, defense_sides: int | None) -> tuple[tuple[float, tuple[int, ...]], ...]:
    defenses = [None] if defense_sides is None else range(1, defense_sides + 1)
    groups: dict[str, list[Any]] = {}
    for a in range(1, attack_sides + 1):
        for d in defenses:
            result = battle_result(a, STATIC_STUNNED if d is None else d)
            group = groups.setdefault(result, [0, (a,) if d is None else (a, d)])
            group[0] += 1
    total = attack_sides * len(defenses)
    return tuple((float(Fraction(n, total)), script) for n, script in groups.values())


def chance(
    ruleset: Simeone, state: SimeoneState, seat: int, action: Action
) -> list[tuple[float, Script]] | None:
    if action["type"] != "attack":
        return None
    attacker, target = state.pieces[action["piece"]], state.pieces[action["target"]]
    creature = CREATURES[target.kind]
    sides = creature.stunned_die if target.stunned else creature.die
    return [(p, list(s)) for p, s in battle_scripts(CREATURES[attacker.kind].die, sides)]


def evaluate(ruleset: Simeone, state: SimeoneState, seat: int) -> float:
    def material(s: int) -> float:
        return sum(
            CREATURES[p.kind].value * (0.6 if p.stunned else 1.0)
            for p in state.pieces.values()
            if p.owner == s and not p.defeated
        )

    mine, theirs = material(seat), material(1 - seat)
    value = 0.6 * (mine - theirs) / ((mine + theirs) or 1.0)
    value += 0.3 * threats(state, seat) / ((mine + theirs) or 1.0)
    goal = state.options.points_to_win or 20
    value += 0.4 * (state.scores[seat] - state.scores[1 - seat]) / goal
    return max(-1.0, min(1.0, value))


TO_MOVE, WAITING = 1.0, 1.0
"""How much an open battle counts: fully for the side whose turn it is."""


def threats(state: SimeoneState, seat: int) -> float:
    """Points ``seat`` stands to win by the battles open between adjacent creatures,
    minus those it stands to lose."""
    occupied = {p.at: p for p in state.pieces.values() if p.at is not None and not p.defeated}
    mover = state.turn if state.phase == "play" and state.push is None else None
    out = 0.0
    for piece in occupied.values():
        if piece.stunned:
            continue  # it must recover before it can attack
        weight = TO_MOVE if piece.owner == mover else WAITING
        for n in board.NEIGHBOURS[piece.at]:
            target = occupied.get(n)
            if target is None or target.owner == piece.owner:
                continue
            defender = CREATURES[target.kind]
            odds = battle_chances(
                CREATURES[piece.kind].die, defender.stunned_die if target.stunned else defender.die
            )
            gain = (
                float(odds["defeated"]) * defender.value
                - float(odds["stunned"]) * 0.3 * CREATURES[piece.kind].value
            )
            out += weight * max(gain, 0.0) if piece.owner == seat else -weight * max(gain, 0.0)
    return out


def order(action: Action) -> float:
    return -1.0 if action["type"] == "attack" else 0.0


FAMILY = Family(evaluate=evaluate, chance=chance, order=order, selective=(None, 2))  # type: ignore[arg-type]
"""Past its own activation the master searches the opponent's two best answers (see
:attr:`Family.selective`): at full width it rarely saw past the opponent's first
decision in time, and played no better than the club (docs/bots.md)."""
