"""Bots' knowledge of the two games without dice: `orbit-chess` and `courtier`."""

from __future__ import annotations

from app.bots.search import Family
from app.rules import board
from app.rules.base import Action
from app.rules.courtier import Courtier, CourtierState
from app.rules.orbit_chess import OrbitChess, OrbitState

ORBIT_VALUES = {"queen": 5.0, "knight": 3.0, "pawn": 1.5, "king": 4.0}
ORBIT_STATUS = {"active": 1.0, "inactive": 0.6, "captured": 0.4}
"""A captured piece comes back (inactive, then activated): it is worth less, not nothing."""


def evaluate_orbit(ruleset: OrbitChess, state: OrbitState, seat: int) -> float:
    material = [0.0, 0.0]
    king_near = [0.0, 0.0]
    for piece in state.pieces.values():
        material[piece.owner] += ORBIT_VALUES[piece.kind] * ORBIT_STATUS[piece.status]
        if piece.kind == "king" and piece.at is not None and board.ring(piece.at) == "B":
            king_near[piece.owner] = 1.0  # one step from the core, and a win
    value = 0.7 * (material[seat] - material[1 - seat]) / sum(material)
    value += 0.2 * (king_near[seat] - king_near[1 - seat])
    return max(-1.0, min(1.0, value))


def order_orbit(action: Action) -> float:
    if action.get("to") == board.CORE:
        return -2.0
    return -1.0 if action.get("captures") else 0.0


def evaluate_courtier(ruleset: Courtier, state: CourtierState, seat: int) -> float:
    occupied = ruleset.occupied(state)
    guards = [0, 0]
    danger = [0.0, 0.0]
    for piece in state.pieces.values():
        if piece.at is None:
            continue
        if piece.kind == "guard":
            guards[piece.owner] += 1
        else:  # a king with enemies beside it is close to being enclosed
            enemies = sum(
                1 for n in board.NEIGHBOURS[piece.at] if n in occupied and occupied[n].owner != piece.owner
            )
            danger[piece.owner] = 0.05 * enemies
    value = 0.15 * (guards[seat] - guards[1 - seat]) - danger[seat] + danger[1 - seat]
    return max(-1.0, min(1.0, value))


ORBIT = Family(evaluate=evaluate_orbit, order=order_orbit)  # type: ignore[arg-type]
COURTIER = Family(evaluate=evaluate_courtier, order=lambda action: 0.0 if action["type"] == "move" else -1.0)  # type: ignore[arg-type]
