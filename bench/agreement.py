"""How often the master chooses what the club would: the share of decisions where
searching changes the move, and which kinds of action the two pick when they differ.

Positions come from club self-play, as in ``bench/search_depth.py``; on each, the club
and the master (with ``--budget`` seconds) decide from the seat's knowledge::

    .venv/bin/python bench/agreement.py kelly-d20 --budget 0.5 --positions 200 --workers 2

A benchmark, not a test (docs/bots.md).
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from multiprocessing import Pool
from typing import Any

from search_depth import positions  # bench/, beside this script

from app.bots import FAMILIES, all_bots, decide, seat_knowledge
from app.bots.search import Game
from app.rules import get_ruleset


def choices(job: tuple[str, Any, int, int, float]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The club's and the master's action in one position (the odds stripped)."""
    ruleset_id, state, seat, seed, budget = job
    known = seat_knowledge(get_ruleset(ruleset_id), state, seat)
    picked = [
        decide(all_bots()[f"{ruleset_id}-{level}"], known, seat, seed, budget) for level in ("club", "master")
    ]
    club, master = ({k: v for k, v in a.items() if k != "odds"} for a in picked)
    return club, master


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("ruleset")
    parser.add_argument("--budget", type=float, default=0.5)
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--games", type=int, default=60, help="club self-play games to take positions from")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    ruleset = get_ruleset(args.ruleset)
    rng = random.Random(1)
    # Only real choices: with one game action, both levels play it (see `decide`).
    judge = Game(ruleset, FAMILIES[args.ruleset], 0, rng)
    found = [
        (state, seat)
        for state, seat in positions(args.ruleset, args.games)
        if len(judge.playable(ruleset.legal_actions(state, seat))) > 1
    ]
    jobs = [(args.ruleset, s, seat, rng.getrandbits(32), args.budget) for s, seat in found[: args.positions]]
    with Pool(args.workers) as pool:
        picked = pool.map(choices, jobs, chunksize=1)
    same = sum(club == master for club, master in picked)
    print(
        f"{args.ruleset}, master at {args.budget} s: the club's action in {same} of {len(picked)} decisions"
    )
    differ = Counter((club["type"], master["type"]) for club, master in picked if club != master)
    print("| club's action | master's action | decisions |")
    print("|---|---|---|")
    for (club, master), n in differ.most_common():
        print(f"| {club} | {master} | {n} |")


if __name__ == "__main__":
    main()
