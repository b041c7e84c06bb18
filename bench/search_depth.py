"""How deep the master's search gets: the iterations it finishes per decision.

Positions are taken from club self-play (every third decision of play, no push
pending), shuffled with a fixed seed; on each, :func:`app.bots.search.pick_searched`
runs with ``--budget`` seconds, and the iterations of :func:`app.bots.search.schedule`
that it finished are counted::

    .venv/bin/python bench/search_depth.py kelly-d20 --budget 0.5 --positions 20

A benchmark, not a test (docs/bots.md).
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from typing import Any

from app.bots import FAMILIES, MASTER_DEPTH, all_bots, decide, search
from app.rules import get_ruleset
from app.rules.dice import Dice


def positions(ruleset_id: str, games: int) -> list[tuple[Any, int]]:
    ruleset = get_ruleset(ruleset_id)
    club = all_bots()[f"{ruleset_id}-club"]
    out = []
    for seed in range(games):
        dice = Dice(seed.to_bytes(32, "big"))
        state, _ = ruleset.new_game(ruleset.options({}), dice)
        rng = random.Random(seed)
        n = 0
        while ruleset.outcome(state) is None and n < 400:
            seat = ruleset.to_act(state)[0]
            settled = getattr(state, "push", None) is None
            if getattr(state, "phase", "play") == "play" and settled and n % 3 == 0:
                out.append((state, seat))
            state, _ = ruleset.apply(state, seat, decide(club, state, seat, rng.getrandbits(32)), dice)
            n += 1
    random.Random(1).shuffle(out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("ruleset")
    parser.add_argument("--budget", type=float, default=0.5)
    parser.add_argument("--positions", type=int, default=20)
    args = parser.parse_args()
    ruleset = get_ruleset(args.ruleset)
    family = FAMILIES[args.ruleset]
    plan = search.schedule(family, MASTER_DEPTH)
    finished: Counter[int] = Counter()
    nodes, seconds = 0, 0.0
    real = search.best_scored
    for state, seat in positions(args.ruleset, 6)[: args.positions]:
        game = search.Game(ruleset, family, seat, random.Random(0))
        actions = game.playable(ruleset.legal_actions(state, seat))
        done: list[bool] = []

        def spy(scored: list[tuple[float, Any]], done: list[bool] = done, n: int = len(actions)) -> Any:
            done.append(len(scored) == n)  # an iteration that scored every root action finished
            return real(scored)

        search.best_scored = spy
        started = time.monotonic()
        search.pick_searched(game, state, actions, args.budget, MASTER_DEPTH)
        seconds += time.monotonic() - started
        search.best_scored = real
        nodes += game.nodes
        finished[sum(done)] += 1
    print(f"{args.ruleset}, {args.budget} s a decision, {sum(finished.values())} decisions")
    print("| iterations finished | decisions | the last one |")
    print("|---|---|---|")
    for n in sorted(finished):
        depth, _, _, last = plan[n - 1] if n else (0, None, None, None)
        cut = f", the last cut after {last} decision(s)" if last else ""
        what = f"{depth} turn(s){cut}" if n else "none"
        print(f"| {n} | {finished[n]} | {what} |")
    print(f"\nsearch nodes a second: {nodes / seconds:.0f} (decisions' one-ply lists not counted)")


if __name__ == "__main__":
    main()
