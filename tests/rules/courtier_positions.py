"""Courtier positions written as text, and a move on them (used beyond test_courtier)."""

from __future__ import annotations

from app.rules.courtier import Courtier, CourtierOptions, CourtierPiece, CourtierState
from app.rules.dice import Dice

RULES = Courtier()


NO_DICE = Dice(b"courtier uses no dice")


def position(layout: str, *, turn: int = 0, **options) -> CourtierState:
    """A position from ``"A1=b A2=r B3=R ..."``: b/r a blue/red guard, B/R a king.

    A king not named is parked out of the way (blue on ``A6``, red on ``A9``, or the
    next free space on), so every position has both kings.
    """
    placed = dict(item.split("=") for item in layout.split())
    for king, parking in (("B", range(6, 0, -1)), ("R", range(9, 13))):
        if king not in placed.values():
            placed[next(f"A{i}" for i in parking if f"A{i}" not in placed)] = king
    pieces = {}
    counts = {0: 0, 1: 0}
    for at, code in placed.items():
        owner = 0 if code.lower() == "b" else 1
        colour = ("blue", "red")[owner]
        if code.isupper():
            pid, kind = f"{colour}-king", "king"
        else:
            counts[owner] += 1
            pid, kind = f"{colour}-guard-{counts[owner]}", "guard"
        pieces[pid] = CourtierPiece(id=pid, kind=kind, owner=owner, at=at)
    state = CourtierState(options=CourtierOptions(**options), pieces=pieces, turn=turn)
    RULES.record_position(state)
    return state


def move(state: CourtierState, frm: str, to: str) -> tuple[CourtierState, list]:
    piece = next(p for p in state.pieces.values() if p.at == frm)
    return RULES.apply(state, piece.owner, {"type": "move", "piece": piece.id, "to": to}, NO_DICE)
