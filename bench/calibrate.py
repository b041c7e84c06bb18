"""How well a ruleset's evaluation reads as the game's expected result (docs/bots.md).

The search weighs a won game (±1.01) and evaluated positions at the same chance nodes,
so an evaluation ``v`` should be the expected result: ``v = 2 P(win) − 1`` for the
side it values. This bench checks that on self-play. It plays ``--games`` games
(club against club, and club against beginner for variety, with the bench's own
seeded dice). It keeps every position where a game action is due, with the result
of its game (settled positions only, as the search evaluates them: no kelly push
waiting for its chooser), and fits the one scale ``s`` for which ``tanh(s · v)`` predicts the
results best (logistic regression on ``2v``, by Newton's method). ``s`` near 1: the
evaluation is calibrated. Far from 1: it over- or understates how much a position
decides. It prints the fitted scale and the log loss of both readings on the quarter
of the games held out::

    .venv/bin/python bench/calibrate.py kelly-d20 --games 3000 --workers 2

A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Callable
from multiprocessing import Pool

from app.bots import FAMILIES, all_bots, decide
from app.bots.search import Game
from app.rules import get_ruleset
from app.rules.dice import Dice

PAIRS = (("club", "club"), ("club", "beginner"), ("club", "club"), ("beginner", "club"))
MAX_DECISIONS = 1500


def positions(job: tuple[str, int]) -> tuple[list[float], float]:
    """One self-play game: seat 0's value of each position where a game action is due,
    and seat 0's result (1, ½ or 0)."""
    ruleset_id, seed = job
    ruleset = get_ruleset(ruleset_id)
    bots = [all_bots()[f"{ruleset_id}-{level}"] for level in PAIRS[seed % len(PAIRS)]]
    judge = Game(ruleset, FAMILIES[ruleset_id], 0, random.Random(seed))
    dice = Dice(seed.to_bytes(32, "big"))
    state, _ = ruleset.new_game(ruleset.options({}), dice)
    rng = random.Random(seed)
    values: list[float] = []
    for _ in range(MAX_DECISIONS):
        if ruleset.outcome(state) is not None:
            break
        seat = ruleset.to_act(state)[0]
        if judge.actions(state, seat) and judge.family.settled(state):  # as the search evaluates
            values.append(judge.value(state))
        state, _ = ruleset.apply(state, seat, decide(bots[seat], state, seat, rng.getrandbits(32)), dice)
    result = ruleset.outcome(state)
    won = 0.5 if result is None or result.winner is None else float(result.winner == 0)
    return values, won


def fit_scale(samples: list[tuple[float, float]]) -> float:
    """The ``s`` maximising the likelihood of the results under P(win) = σ(2 s v)."""
    s = 1.0
    for _ in range(30):
        gradient = curvature = 0.0
        for v, won in samples:
            p = 1 / (1 + math.exp(-2 * s * v))
            gradient += (p - won) * 2 * v
            curvature += p * (1 - p) * 4 * v * v
        if not curvature:
            break
        s -= gradient / curvature
    return s


def log_loss(samples: list[tuple[float, float]], chance: Callable[[float], float]) -> float:
    total = 0.0
    for v, won in samples:
        p = min(max(chance(v), 1e-6), 1 - 1e-6)
        total -= won * math.log(p) + (1 - won) * math.log(1 - p)
    return total / len(samples)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("ruleset")
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with Pool(args.workers) as pool:
        games = pool.map(positions, [(args.ruleset, 100_000 + g) for g in range(args.games)], chunksize=8)
    held_out = len(games) // 4

    def samples(part: list[tuple[list[float], float]]) -> list[tuple[float, float]]:
        # Each position from both sides: the evaluation is antisymmetric.
        return [pair for values, won in part for v in values for pair in ((v, won), (-v, 1 - won))]

    train, test = samples(games[held_out:]), samples(games[:held_out])
    scale = fit_scale(train)
    as_is = log_loss(test, lambda v: (1 + v) / 2)
    fitted = log_loss(test, lambda v: (1 + math.tanh(scale * v)) / 2)
    fitting, held = len(train) // 2, len(test) // 2
    print(f"{args.ruleset}: {len(games)} games, {fitting} positions to fit, {held} held out")
    print(f"fitted scale s = {scale:.2f}: tanh(s·v) predicts the results best")
    print(f"log loss held out: v read as 2P−1 {as_is:.4f}; tanh(s·v) {fitted:.4f}; a coin {math.log(2):.4f}")


if __name__ == "__main__":
    main()
