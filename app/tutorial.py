"""The tutorial: a real `kelly` match against the Tutor, a scripted opponent, with
dice seeds chosen so that the lessons come up in order for a newcomer who follows
the panel's advice (``static/js/tutorial.js``).

The rules are the real ones and every die comes from the match's seeded source: only
the seeds are fixed. With them the coin gives the learner the first move, and
following ``LESSON_PLAN`` the learner moves, attacks and wins a push (the dice: 12
against 10), the Tutor moves twice without attacking, and the learner's next attack
destroys a creature (26 against 13). ``tests/api/test_tutorial.py`` replays this
with the rules package. A learner who does something else plays on in the same real
match; the panel then teaches each idea when it comes up.

The Tutor comes to the learner. It is gentle while the learner is still learning:
until it has lost a creature it only moves (it attacks only when it has no move). Then
it attacks whenever it can, choosing the attack most likely to end in a push either
way. It never resigns nor offers a draw. Pure: the same view gives the same choice.
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

# The seeds were found by trying seeds in turn until the lessons came up as planned;
# the tests check that they still do. (They are public: a tutorial has nothing to win.)
TUTORIAL_SEED = bytes.fromhex("03a6e608ef94559309a72c8373b7c35de735ab1f9403b564e9b344f206b974de")
"""The match's seed: sha256 of "dejarik tutorial 789"."""
STUDENT_DICE_SEED = "7a657a6a2a7caf9faf0bfa0e24a969bcc0c326ec4ab1f9317e59d414224ff78d"
"""The learner's seat seed: sha256 of "tutorial student"."""
TUTOR_DICE_SEED = "2c71cc4f2daf32c24191cc7aca68b0f414404fdd4b90e13906aa1501647b76a6"
"""The Tutor's seat seed: sha256 of "tutorial tutor"."""

LESSON_PLAN: dict[str, dict[str, Any]] = {
    "move": {"type": "move", "piece": "ghhhk", "to": "A6"},
    "attack": {"type": "attack", "piece": "ghhhk", "target": "klorslug"},
    "push": {"type": "push", "piece": "klorslug", "to": "B7"},
    "win": {"type": "attack", "piece": "molator", "target": "klorslug"},
}
"""What the panel advises at each lesson, in order: with the seeds above, the attack
ends in a push (the only space the K'lor'slug can go to is B7) and the last attack in
a kill. The page gets it as JSON."""


def push_chance(action: dict[str, Any]) -> float:
    """The chance that an attack of ``legal_actions`` ends in a push either way, from
    its ``odds`` (``{"outcomes": [{"key", "probability", …}]}``)."""
    outcomes = (action.get("odds") or {}).get("outcomes") or []
    return sum(float(o["probability"]) for o in outcomes if o.get("key") in ("push", "counter-push"))


def still_learning(view: dict[str, Any]) -> bool:
    """Whether the learner is still in the lessons: no creature of the Tutor's lost yet
    (the last lesson ends with the learner destroying one)."""
    lost = view["state"].get("lost") or []
    return not any(p["owner"] == view["you"]["seat"] for p in lost)


def tutor_choice(view: dict[str, Any]) -> dict[str, Any] | None:
    """The tutor's action in ``view`` (the tutor's own view), or ``None`` if it has none."""
    legal = [a for a in view.get("legal_actions", []) if a.get("type") not in COMMON_ACTION_TYPES]
    if not legal:
        return None
    pushes = [a for a in legal if a["type"] == "push"]
    if pushes:  # where the loser goes: the first space offered
        return pushes[0]
    attacks = [a for a in legal if a["type"] == "attack"]
    moves = [a for a in legal if a["type"] == "move"]
    if attacks and not (moves and still_learning(view)):
        return max(attacks, key=lambda a: (push_chance(a), a["piece"], a["target"]))
    pieces = view["state"]["pieces"]
    students = {p["at"] for p in pieces if p["at"] and p["owner"] != view["you"]["seat"]}
    if moves:
        return min(moves, key=lambda a: (distance(a["to"], students) or 0, a["piece"], a["to"]))
    return legal[0]
