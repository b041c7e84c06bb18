"""Leagues benchmark: the CPU of pairing a round and of the standings (issue 32).

A benchmark, not a test. A Swiss league's next round is paired by py4swiss in the
process whose write ended the round before (or in a sweep), and the standings are
recomputed from the stored games on every read of the league: its page, each live
refresh of every viewer, the REST view. This plays leagues of each size with seeded
results (never the global ``random``) and times, in CPU seconds of this process
(``time.process_time``, steadier than wall clock on a shared machine):

- each Swiss round's pairing (``swiss_round``), the median and the slowest over the rounds;
- the standings at the end of the event (``standings``), the median of ``--repeat`` runs;
- a whole round-robin's schedule (``round_robin``).

::

    .venv/bin/python bench/leagues.py --players 8 20 40 --rounds 7 --repeat 20

It prints a Markdown table (docs/performance.md, "Leagues").
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from app.leagues.pairing import Game, round_robin, swiss_round
from app.leagues.standings import standings

RESULTS = ("1-0", "0-1", "½-½")


def cpu(work: Callable[..., Any], *args: Any) -> tuple[float, Any]:
    """The CPU seconds of ``work(*args)``, and its value."""
    started = time.process_time()
    value = work(*args)
    return time.process_time() - started, value


def swiss_event(size: int, rounds: int, rng: random.Random) -> tuple[list[float], list[str], list[Game]]:
    """A Swiss event of ``size`` players over ``rounds`` rounds: each round's pairing CPU,
    the players, the games."""
    players = [(f"p{i:02}", 1200.0 + rng.randrange(800)) for i in range(size)]
    games: list[Game] = []
    times = []
    for number in range(1, rounds + 1):
        spent, pairings = cpu(swiss_round, players, games, number, rounds)
        times.append(spent)
        for p in pairings:
            result = "bye" if p.second is None else rng.choice(RESULTS)
            games.append(Game(number, p.first, p.second, result))
    return times, [p for p, _ in players], games


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, nargs="+", default=[8, 20, 40])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--seed", type=int, default=20261127)
    args = parser.parse_args()
    print(
        "| players | Swiss rounds | Swiss round paired, median / slowest (ms) "
        "| Swiss standings after the event (ms) | round-robin schedule (ms) "
        "| round-robin standings, all played (ms) |"
    )
    print("|---|---|---|---|---|---|")
    for size in args.players:
        rng = random.Random(args.seed + size)
        rounds = min(args.rounds, size // 2 + 1)  # more can leave a last round no pairing allows
        pairing, players, games = swiss_event(size, rounds, rng)
        swiss_table = statistics.median(
            cpu(standings, players, games, "swiss")[0] for _ in range(args.repeat)
        )
        robin = "—"
        robin_table = "—"
        if size <= 20:
            schedule_cpu, schedule = cpu(round_robin, players)
            played = [
                Game(n, p.first, p.second, "bye" if p.second is None else rng.choice(RESULTS))
                for n, pairs in enumerate(schedule, 1)
                for p in pairs
            ]
            robin = f"{schedule_cpu * 1000:.2f}"
            robin_cpu = statistics.median(
                cpu(standings, players, played, "round-robin")[0] for _ in range(args.repeat)
            )
            robin_table = f"{robin_cpu * 1000:.2f}"
        print(
            f"| {size} | {rounds} | {statistics.median(pairing) * 1000:.1f} / {max(pairing) * 1000:.1f} "
            f"| {swiss_table * 1000:.2f} | {robin} | {robin_table} |"
        )


if __name__ == "__main__":
    main()
