"""Computer opponents for every ruleset (issue 9, docs/bots.md).

A bot is a level of play over the generic search (:mod:`app.bots.search`) with the
knowledge of a ruleset family (one small module each). :func:`decide` is the whole
interface: the seat's knowledge of the state and its legal actions in, one of those
actions out.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from app.bots import chess, eote, kelly, simeone
from app.bots.search import Family, Game, knowledge, pick_greedy, pick_searched, pick_softmax
from app.rules import get_ruleset, registry
from app.rules.base import Action, Ruleset

FAMILIES: dict[str, Family] = {
    "kelly": kelly.FAMILY,
    "kelly-d20": kelly.DICE_FAMILY,
    "dalsiandon": kelly.DALSIANDON_FAMILY,
    "simeone": simeone.FAMILY,
    "orbit-chess": chess.ORBIT,
    "courtier": chess.COURTIER,
    "eote": eote.FAMILY,
}

MASTER_DEPTH = 12
"""Iterative deepening stops here even with time left (a forced result stops it sooner)."""


@dataclass(frozen=True)
class Level:
    id: str
    title: str
    rank: int
    description: str


LEVELS = {
    level.id: level
    for level in (
        Level(
            "beginner",
            "Beginner",
            1,
            "Weighs each move by how it looks one step ahead and often picks a worse one, like someone "
            "still learning.",
        ),
        Level(
            "club",
            "Club player",
            2,
            "Always takes the move that looks best one step ahead, on the exact odds of every attack.",
        ),
        Level(
            "master",
            "Master",
            3,
            "Searches several moves ahead (expectiminimax over the exact dice odds, alpha-beta where "
            "there are no dice) within a few seconds a move.",
        ),
    )
}
PUBLISHED_RATINGS: dict[str, dict[str, float]] = {
    "courtier": {"beginner": 1360.0, "club": 1500.0, "master": 1800.0},
    "dalsiandon": {"beginner": 1490.0, "club": 1500.0, "master": 1540.0},
    "eote": {"beginner": 1470.0, "club": 1500.0, "master": 1560.0},
    "kelly": {"beginner": 1440.0, "club": 1500.0, "master": 1560.0},
    "kelly-d20": {"beginner": 1470.0, "club": 1500.0, "master": 1550.0},
    "orbit-chess": {"beginner": 1500.0, "club": 1500.0, "master": 1870.0},
    "simeone": {"beginner": 1140.0, "club": 1500.0, "master": 1620.0},
}
"""Each bot's published rating, by ruleset and level: what a rated match against it counts
it at (its own rating never moves). The bots' self-play ladder of 2026-11-27, on an Elo
scale with the club at 1500 in each ruleset, rounded to 10 (docs/bots.md, "Published
ratings": which run and budget each figure comes from). In orbit-chess the beginner and the
club could not be told apart (every game between them drawn): both stand at 1500."""
BEGINNER_TEMPERATURE = 0.08
"""Softmax temperature on the evaluation scale (a whole army is worth about 1)."""
MASTER_BUDGET_S = 1.5
"""Thinking time per master decision in play; the bench and tests may pass less."""


@dataclass(frozen=True)
class Bot:
    id: str
    ruleset: str
    level: Level

    @property
    def name(self) -> str:
        return f"{self.level.title} bot"

    @property
    def rating(self) -> float:
        """Its published rating in its ruleset (:data:`PUBLISHED_RATINGS`)."""
        return PUBLISHED_RATINGS[self.ruleset][self.level.id]

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "rulesets": [self.ruleset],
            "level": self.level.rank,
            "description": self.level.description,
            "rating": self.rating,
        }


def all_bots() -> dict[str, Bot]:
    return {
        f"{ruleset_id}-{level.id}": Bot(f"{ruleset_id}-{level.id}", ruleset_id, level)
        for ruleset_id in registry()
        if ruleset_id in FAMILIES
        for level in LEVELS.values()
    }


def get_bot(bot_id: str) -> Bot | None:
    return all_bots().get(bot_id)


def seat_knowledge(ruleset: Ruleset, state: Any, seat: int) -> Any:
    """What ``seat`` may know of ``state``: the only state a bot is ever given."""
    return knowledge(ruleset, FAMILIES[ruleset.id], state, seat)


def decide(bot: Bot, known: Any, seat: int, seed: int, budget_s: float = MASTER_BUDGET_S) -> Action:
    """The bot's action for ``seat``, from ``known`` (:func:`seat_knowledge`) alone.

    ``seed`` seeds the bot's own ``random.Random`` (its choices, imagined dice).
    """
    ruleset = get_ruleset(bot.ruleset)
    legal = ruleset.legal_actions(known, seat)
    if not legal:
        raise ValueError("the bot has no legal action")
    rng = random.Random(seed)
    game = Game(ruleset, FAMILIES[ruleset.id], seat, rng)
    answer = draw_answer(bot, game, known, legal)
    if answer is not None and seat not in ruleset.to_act(known):
        return answer
    actions = game.playable(legal)
    if not actions:
        return answer or next(a for a in legal if a["type"] == "resign")
    if len(actions) == 1:
        return actions[0]
    if bot.level.id == "beginner":
        return pick_softmax(game, known, actions, BEGINNER_TEMPERATURE)
    if bot.level.id == "club":
        return pick_greedy(game, known, actions)
    return pick_searched(game, known, actions, budget_s, MASTER_DEPTH)


def draw_answer(bot: Bot, game: Game, known: Any, legal: list[Action]) -> Action | None:
    """Answer a standing draw offer: accept only when clearly behind (a beginner never does)."""
    kinds = {a["type"]: a for a in legal}
    if "accept_draw" not in kinds:
        return None
    behind = game.value(known) < -0.3
    return kinds["accept_draw"] if behind and bot.level.id != "beginner" else kinds["decline_draw"]


def bot_json(bot_id: str | None) -> dict[str, str] | None:
    """A bot seat's ``"bot"`` in the match view: ``{"id", "name"}``, or ``None``."""
    bot = get_bot(bot_id) if bot_id else None
    if bot is None:
        return None if bot_id is None else {"id": bot_id, "name": bot_id}
    return {"id": bot.id, "name": bot.name}
