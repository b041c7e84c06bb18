"""Bot benchmark: a round-robin ladder per ruleset, and self-play balance figures.

A benchmark, not a test. Games are played in-process through the rules alone (the
same :func:`app.bots.decide` the server's runner calls, from each seat's knowledge),
with the bench's own seeded dice per game.

``ladder``: every pair of players of a ruleset (the three levels and ``random``, a
uniform random legal game action) plays ``--games`` games, half with each seat;
W/D/L, Elo-style ratings (maximum likelihood, a draw half a win, ``random``
anchored at 0) and seconds per decision. Master thinks ``--budget`` seconds a move::

    .venv/bin/python bench/bots.py ladder --games 4 --budget 0.1 --workers 2

``match``: two named players (``random``, ``greedy``, a level) in one ruleset, ``--games``
games alternating seats (``--options`` as JSON, several spread round-robin over the
games): W/D/L from the first player's side, and how the games ended::

    .venv/bin/python bench/bots.py match dalsiandon master random --games 50 --budget 1.5 --workers 2

``greedy`` is DejarikXR's greedy rule, for the kelly family's attacks: it declares the
attack whose exact odds favour it most (a kill likelier than a counter-kill), and only
such an attack; otherwise it plays a random action that is not an attack (an attack
only when nothing else is legal: then the one with the best odds).

``balance``: club against club (``--level``) on every option set below: first-player
advantage, draw rate, game length, and each creature's survival and kill rates::

    .venv/bin/python bench/bots.py balance --games 40 --workers 2

Both print Markdown tables (docs/bots.md, docs/balance.md).
"""

from __future__ import annotations

import argparse
import json
import random
import time
import zlib
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations
from multiprocessing import Pool
from typing import Any

from app.bots import LEVELS, all_bots, decide, seat_knowledge
from app.rules import get_ruleset, registry
from app.rules.base import COMMON_ACTION_TYPES
from app.rules.dice import Dice

PLAYERS = ("random", *LEVELS)
"""The ladder's players."""
MATCH_PLAYERS = ("random", "greedy", *LEVELS)
OPTION_SETS: dict[str, list[dict[str, Any]]] = {
    "kelly": [{}],
    "kelly-d20": [{}],
    "dalsiandon": [
        {},
        {"teams": "random"},
        {"king_of_the_center": True},
        {"death_push": True},
        {"nowhere_is_safe": True},
        {"twenty_sides_of_terror": True},
        {"rays_of_death": True},
    ],
    "simeone": [{}, {"center_point": "end_of_round"}, {"center_point": "off"}],
    "orbit-chess": [{}],
    "courtier": [{}, {"first": "random"}],
    "eote": [{}, {"initial_ranks_check": True}],
}
MAX_DECISIONS = 3000
PLAY_ACTIONS = {"move", "attack", "activate", "place", "set_piece", "done_setting"}


@dataclass
class Game:
    ruleset: str
    options: dict[str, Any]
    players: tuple[str, str]
    winner: int | None = None
    reason: str = ""
    decisions: int = 0
    first: int | None = None
    seconds: list[float] = field(default_factory=lambda: [0.0, 0.0])
    moves: list[int] = field(default_factory=lambda: [0, 0])
    kills: dict[str, int] = field(default_factory=dict)
    """Kills by creature kind."""
    pieces: list[tuple[str, bool]] = field(default_factory=list)
    """Each piece's kind and whether it is on the board at the end (the board games)."""
    left: list[int] = field(default_factory=lambda: [0, 0])
    """Each seat's pieces on the board at the end (the board games)."""


def play_all(jobs: list, workers: int) -> tuple[list, float]:
    """Every job's game, played by ``workers`` processes, and the wall time it took."""
    started = time.perf_counter()
    with Pool(workers) as pool:
        games = pool.map(play, jobs, chunksize=1)
    return games, time.perf_counter() - started


def play(job: tuple[str, dict[str, Any], tuple[str, str], int, float]) -> Game:
    ruleset_id, options, players, seed, budget = job
    ruleset = get_ruleset(ruleset_id)
    dice = Dice(seed.to_bytes(32, "big"))
    state, _ = ruleset.new_game(ruleset.options(options), dice)
    rng = random.Random(seed)
    game = Game(ruleset_id, options, players)
    kinds = {pid: p.kind for pid, p in getattr(state, "pieces", {}).items()}
    while ruleset.outcome(state) is None and game.decisions < MAX_DECISIONS:
        seat = ruleset.to_act(state)[0]
        started = time.perf_counter()
        if players[seat] == "random":
            legal = ruleset.legal_actions(state, seat)
            action = rng.choice([a for a in legal if a["type"] not in COMMON_ACTION_TYPES])
        elif players[seat] == "greedy":
            action = greedy(ruleset.legal_actions(state, seat), rng)
        else:
            bot = all_bots()[f"{ruleset_id}-{players[seat]}"]
            action = decide(bot, seat_knowledge(ruleset, state, seat), seat, rng.getrandbits(32), budget)
        game.seconds[seat] += time.perf_counter() - started
        game.moves[seat] += 1
        game.decisions += 1
        if game.first is None and action["type"] in PLAY_ACTIONS and action["type"] != "place":
            game.first = seat
        state, events = ruleset.apply(state, seat, action, dice)
        for pid, piece in getattr(state, "pieces", {}).items():
            kinds.setdefault(pid, piece.kind)
        for event in events:
            if event["type"] in ("kill", "defeat", "capture") and event.get("by"):
                killer = kinds.get(event["by"], event["by"])
                game.kills[killer] = game.kills.get(killer, 0) + 1
    if ruleset_id == "eote":
        game.first = state.first_attacker
    result = ruleset.outcome(state)
    game.winner, game.reason = (result.winner, result.reason) if result else (None, "decision limit")
    for piece in getattr(state, "pieces", {}).values():
        alive = getattr(piece, "at", None) is not None and not getattr(piece, "defeated", False)
        game.pieces.append((piece.kind, alive))
        owner = getattr(piece, "owner", None)
        if alive and owner in (0, 1):
            game.left[owner] += 1
    return game


def edge(action: dict[str, Any]) -> float:
    """An attack's chance to kill less its chance to be killed, on the exact odds it lists."""
    odds = {o["key"]: o["probability"] for o in action["odds"]["outcomes"]}
    return odds.get("kill", 0.0) - odds.get("counter-kill", 0.0)


def greedy(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """DejarikXR's greedy rule: the attack with the best favourable odds (a kill likelier
    than a counter-kill), else a random action that is not an attack."""
    actions = [a for a in legal if a["type"] not in COMMON_ACTION_TYPES]
    attacks = sorted((a for a in actions if a["type"] == "attack" and "odds" in a), key=edge, reverse=True)
    if attacks and edge(attacks[0]) > 0:
        return attacks[0]
    others = [a for a in actions if a["type"] != "attack"]
    return rng.choice(others) if others else (attacks[0] if attacks else rng.choice(actions))


def elo(
    results: dict[tuple[str, str], list[float]], names: list[str], anchor: str = "random"
) -> dict[str, float]:
    """Maximum-likelihood Elo ratings (logistic, 400 points a factor of 10), ``anchor``
    at 0 (or, when it played no game, the lowest rated player that did)."""
    ratings = dict.fromkeys(names, 0.0)
    played = dict.fromkeys(names, 0)
    for (a, b), scores in results.items():
        played[a] += len(scores)
        played[b] += len(scores)
    for _ in range(2000):
        gradient = dict.fromkeys(names, 0.0)
        for (a, b), scores in results.items():
            expected = 1 / (1 + 10 ** ((ratings[b] - ratings[a]) / 400))
            for score in scores:
                gradient[a] += score - expected
                gradient[b] -= score - expected
        for name in names:
            # A step in proportion to the player's mean surprise: steady however many
            # games (a step per game's surprise overshot and swung with a hundred).
            ratings[name] += 200 * gradient[name] / max(played[name], 1)
            ratings[name] = max(-2000.0, min(2000.0, ratings[name]))
    present = [name for name in names if played[name]]
    shift = ratings[anchor] if played[anchor] or not present else min(ratings[n] for n in present)
    return {name: ratings[name] - shift for name in names}


def ladder(args: argparse.Namespace) -> None:
    rulesets = args.rulesets or sorted(registry())
    jobs = []
    for ruleset_id in rulesets:
        for a, b in combinations(PLAYERS, 2):
            if args.only and {a, b} != set(args.only):
                continue
            focus = {a, b} == {"master", "club"}
            for g in range(args.games * (args.focus if focus else 1)):
                pair = (a, b) if g % 2 == 0 else (b, a)
                jobs.append(
                    (
                        ruleset_id,
                        {},
                        pair,
                        7919 * g + zlib.crc32(f"{ruleset_id}:{a}:{b}".encode()),
                        args.budget,
                    )
                )
    games, wall = play_all(jobs, args.workers)
    print(
        f"{len(games)} games in {wall:.0f} s ({args.games} per pair, {args.games * args.focus} for master "
        f"against club; master budget {args.budget} s)\n"
    )
    for ruleset_id in rulesets:
        mine = [g for g in games if g.ruleset == ruleset_id]
        record: dict[str, list[int]] = {p: [0, 0, 0] for p in PLAYERS}
        pair_scores: dict[tuple[str, str], list[float]] = defaultdict(list)
        head: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
        seconds, moves = defaultdict(float), defaultdict(int)
        for g in mine:
            for seat in (0, 1):
                me, them = g.players[seat], g.players[1 - seat]
                outcome = 1 if g.winner is None else 0 if g.winner == seat else 2
                record[me][outcome] += 1
                head[(me, them)][outcome] += 1
                seconds[me] += g.seconds[seat]
                moves[me] += g.moves[seat]
            score = 0.5 if g.winner is None else 1.0 if g.winner == 0 else 0.0
            pair_scores[g.players].append(score)
        ratings = elo(pair_scores, list(PLAYERS))
        # The published scale: one imagined draw per pair that met keeps a player that never
        # lost finite, and the club sits at 1500 (PUBLISHED_RATINGS, rounded to 10).
        prior = {pair: [*scores, 0.5] for pair, scores in pair_scores.items()}
        shrunk = elo(prior, list(PLAYERS), anchor="club")
        print(f"### {ruleset_id}\n")
        print(
            "| player | W | D | L | Elo | published (club 1500) | s/decision "
            "| vs random | vs beginner | vs club | vs master |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for p in PLAYERS:
            w, d, lost = record[p]
            cells = ["—" if o == p else "{}-{}-{}".format(*head[(p, o)]) for o in PLAYERS]
            per = seconds[p] / max(moves[p], 1)
            rating = f"{ratings[p]:+.0f}" if w + d + lost else "—"
            published = f"{round((1500 + shrunk[p]) / 10) * 10}" if w + d + lost else "—"
            print(
                f"| {p} | {w} | {d} | {lost} | {rating} | {published} | {per:.4f} | "
                + " | ".join(cells)
                + " |"
            )
        print()


def match(args: argparse.Namespace) -> None:
    """``--games`` games of ``a`` against ``b`` in one ruleset, seats alternating."""
    ruleset_id, a, b = args.ruleset, args.a, args.b
    option_sets = [json.loads(o) for o in args.options] or [{}]
    jobs = []
    for g in range(args.games):
        pair = (a, b) if g % 2 == 0 else (b, a)
        options = option_sets[(g // 2) % len(option_sets)]
        jobs.append((ruleset_id, options, pair, args.seed + 7919 * g, args.budget))
    games, wall = play_all(jobs, args.workers)
    print(
        f"{ruleset_id}: {a} against {b}, {len(games)} games in {wall:.0f} s (master budget {args.budget} s; "
        f"seeds from {args.seed}; options {', '.join(label(o) for o in option_sets)})\n"
    )
    print(f"| options | games | {a} W-D-L | as seat 0 | as seat 1 | quiet-turn draws | decisions (median) |")
    print("|---|---|---|---|---|---|---|")
    for options in [*option_sets, None] if len(option_sets) > 1 else option_sets:
        mine = [g for g in games if options is None or g.options == options]
        record, by_seat = [0, 0, 0], [[0, 0, 0], [0, 0, 0]]
        for g in mine:
            seat = g.players.index(a) if g.players[0] != g.players[1] else 0
            outcome = 1 if g.winner is None else 0 if g.winner == seat else 2
            record[outcome] += 1
            by_seat[seat][outcome] += 1
        quiet = sum(1 for g in mine if g.winner is None and "without a piece lost" in g.reason)
        lengths = sorted(g.decisions for g in mine)
        print(
            f"| {'all' if options is None else label(options)} | {len(mine)} | "
            + " | ".join("{}-{}-{}".format(*r) for r in (record, *by_seat))
            + f" | {quiet} | {lengths[len(lengths) // 2]} |"
        )
    ends: dict[str, int] = defaultdict(int)
    for g in games:
        who = "drawn" if g.winner is None else f"{g.players[g.winner]} won"
        ends[f"{who}: {g.reason}"] += 1
    print("\nHow the games ended:\n")
    for reason, n in sorted(ends.items(), key=lambda kv: -kv[1]):
        print(f"- {n} × {reason}")
    drawn = [g for g in games if g.winner is None]
    if drawn and any(sum(g.left) for g in drawn):
        ahead = [0, 0, 0]  # a's pieces left against b's: more, as many, fewer
        for g in drawn:
            seat = g.players.index(a)
            mine, theirs = g.left[seat], g.left[1 - seat]
            ahead[0 if mine > theirs else 1 if mine == theirs else 2] += 1
        print(
            f"\nDrawn games, {a}'s pieces left against {b}'s: "
            f"more {ahead[0]}, as many {ahead[1]}, fewer {ahead[2]}"
        )
    seconds = defaultdict(float)
    moves = defaultdict(int)
    for g in games:
        for seat in (0, 1):
            seconds[g.players[seat]] += g.seconds[seat]
            moves[g.players[seat]] += g.moves[seat]
    print("\nSeconds per decision: " + ", ".join(f"{p} {seconds[p] / max(moves[p], 1):.3f}" for p in seconds))


def label(options: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in options.items()) or "defaults"


def balance(args: argparse.Namespace) -> None:
    rulesets = args.rulesets or sorted(registry())
    jobs = [
        (ruleset_id, options, (args.level, args.level), 104729 * g + i, args.budget)
        for ruleset_id in rulesets
        for i, options in enumerate(OPTION_SETS[ruleset_id])
        for g in range(args.games)
    ]
    games, wall = play_all(jobs, args.workers)
    print(f"{len(games)} games of {args.level} against {args.level} in {wall:.0f} s\n")
    print("| ruleset | options | games | first player wins | second wins | draws | decisions (median) |")
    print("|---|---|---|---|---|---|---|")
    for ruleset_id in rulesets:
        for options in OPTION_SETS[ruleset_id]:
            mine = [g for g in games if g.ruleset == ruleset_id and g.options == options]
            n = len(mine)
            first = sum(1 for g in mine if g.winner is not None and g.winner == g.first)
            draws = sum(1 for g in mine if g.winner is None)
            lengths = sorted(g.decisions for g in mine)
            print(
                f"| {ruleset_id} | {label(options)} | {n} | {first / n:.0%} | {(n - first - draws) / n:.0%} "
                f"| {draws / n:.0%} | {lengths[n // 2]} |"
            )
    print("\nCreatures (all option sets of the ruleset together):\n")
    print("| ruleset | creature | games | survives | kills per game |")
    print("|---|---|---|---|---|")
    for ruleset_id in rulesets:
        mine = [g for g in games if g.ruleset == ruleset_id]
        played: dict[str, int] = defaultdict(int)
        alive: dict[str, int] = defaultdict(int)
        kills: dict[str, int] = defaultdict(int)
        for g in mine:
            for kind, survived in g.pieces:
                played[kind] += 1
                alive[kind] += survived
            for kind, n in g.kills.items():
                kills[kind] += n
        for kind in sorted(played, key=lambda k: -alive[k] / played[k]):
            print(
                f"| {ruleset_id} | {kind} | {played[kind]} | {alive[kind] / played[kind]:.0%} "
                f"| {kills[kind] / played[kind]:.2f} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("mode", choices=("ladder", "balance", "match"))
    parser.add_argument("ruleset", nargs="?", help="match: the ruleset")
    parser.add_argument("a", nargs="?", choices=MATCH_PLAYERS, help="match: the first player")
    parser.add_argument("b", nargs="?", choices=MATCH_PLAYERS, help="match: the second player")
    parser.add_argument(
        "--options", action="append", default=[], help="match: options as JSON (several: spread over games)"
    )
    parser.add_argument("--seed", type=int, default=20261127, help="match: the first game's seed")
    parser.add_argument("--rulesets", nargs="*")
    parser.add_argument("--games", type=int, default=4, help="games per pair (ladder) or per option set")
    parser.add_argument("--budget", type=float, default=0.1, help="master's seconds per decision")
    parser.add_argument("--level", default="club", choices=list(LEVELS), help="balance: the self-play level")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--focus", type=int, default=1, help="ladder: master against club plays this many times more"
    )
    parser.add_argument("--only", nargs=2, metavar="PLAYER", help="ladder: this one pair only")
    args = parser.parse_args()
    if args.mode == "match" and not (args.ruleset and args.a and args.b):
        parser.error("match needs a ruleset and two players")
    {"ladder": ladder, "balance": balance, "match": match}[args.mode](args)


if __name__ == "__main__":
    main()
