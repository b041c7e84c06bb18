"""The tutorial's scripted opponent: a fixed rule choosing among the legal actions of
a `kelly` match, so a newcomer meets moving, attacking and pushing within minutes.

It comes to the student: it attacks whenever it can (the attack most likely to end
in a push either way, so the push choice comes up), otherwise it moves the piece that
ends nearest a student's creature. It never resigns nor offers a draw. Pure: the
same view gives the same choice.
"""

from __future__ import annotations

from typing import Any

from app.rules.base import COMMON_ACTION_TYPES
from app.rules.board import distance

TUTOR_NAME = "Tutor"
TUTOR_PLAYER_ID = "tutor"
"""The one Tutor player of every tutorial (a player the server plays, like the bots)."""
TUTORIAL_RULESET = "kelly"
STUDENT_SEAT, TUTOR_SEAT = 0, 1


def push_chance(action: dict[str, Any]) -> float:
    """The chance that an attack of ``legal_actions`` ends in a push either way, from
    its ``odds`` (``{"outcomes": [{"key", "probability", …}]}``)."""
    outcomes = (action.get("odds") or {}).get("outcomes") or []
    return sum(float(o["probability"]) for o in outcomes if o.get("key") in ("push", "counter-push"))


def tutor_choice(view: dict[str, Any]) -> dict[str, Any] | None:
    """The tutor's action in ``view`` (the tutor's own view), or ``None`` if it has none."""
    legal = [a for a in view.get("legal_actions", []) if a.get("type") not in COMMON_ACTION_TYPES]
    if not legal:
        return None
    pushes = [a for a in legal if a["type"] == "push"]
    if pushes:  # where the loser goes: the first space offered
        return pushes[0]
    attacks = [a for a in legal if a["type"] == "attack"]
    if attacks:
        return max(attacks, key=lambda a: (push_chance(a), a["piece"], a["target"]))
    pieces = view["state"]["pieces"]
    students = {p["at"] for p in pieces if p["at"] and p["owner"] != view["you"]["seat"]}
    moves = [a for a in legal if a["type"] == "move"]
    if moves:
        return min(moves, key=lambda a: (distance(a["to"], students) or 0, a["piece"], a["to"]))
    return legal[0]
