"""Pairing a league's rounds: Berger tables for round-robins, the FIDE Dutch system (py4swiss) for Swiss."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from pathlib import Path

import pytest
from py4swiss.engines import DutchEngine
from py4swiss.engines.dutch.criteria.absolute import C1, C2, C3
from py4swiss.engines.dutch.player import get_player_infos_from_trf
from py4swiss.trf import TrfParser

from app.leagues.pairing import Game, Pairing, round_robin, swiss_round

# ---------------------------------------------------------------------------------------------------------
# Round-robin


def _cycles(n: int, double: bool) -> list[list[list[Pairing]]]:
    players = [f"p{i}" for i in range(1, n + 1)]
    rounds = round_robin(players, double=double)
    per_cycle = n + n % 2 - 1
    assert len(rounds) == per_cycle * (2 if double else 1)
    return [rounds[i : i + per_cycle] for i in range(0, len(rounds), per_cycle)]


@pytest.mark.parametrize("double", [False, True], ids=["single", "double"])
@pytest.mark.parametrize("n", range(3, 21))
def test_round_robin_every_pair_meets_once_a_cycle_with_balanced_seats_and_spread_byes(n: int, double: bool):
    players = [f"p{i}" for i in range(1, n + 1)]
    cycles = _cycles(n, double)
    for cycle in cycles:
        met = Counter(frozenset((p.first, p.second)) for rnd in cycle for p in rnd if p.second is not None)
        assert set(met) == {frozenset(pair) for pair in itertools.combinations(players, 2)}
        assert set(met.values()) == {1}

        for rnd in cycle:
            seated = [p.first for p in rnd] + [p.second for p in rnd if p.second is not None]
            assert sorted(seated) == sorted(players)  # everybody once a round: a game or a bye
            assert sum(p.second is None for p in rnd) == n % 2

        byes = Counter(p.first for rnd in cycle for p in rnd if p.second is None)
        assert byes == (Counter(players) if n % 2 else Counter())

        # Berger: with n even a player has n-1 games, one seat once more than the other; with n odd the
        # game against the dummy is the bye, and the n-1 real games split evenly between the seats.
        for player in players:
            first = sum(p.first == player and p.second is not None for rnd in cycle for p in rnd)
            second = sum(p.second == player for rnd in cycle for p in rnd)
            assert first + second == n - 1
            assert abs(first - second) == (1 if n % 2 == 0 else 0)

    if double:
        first_cycle, second_cycle = cycles
        for rnd_1, rnd_2 in zip(first_cycle, second_cycle, strict=True):
            assert rnd_2 == [p if p.second is None else Pairing(p.second, p.first) for p in rnd_1]


def _longest_same_seat_run(rounds: list[list[Pairing]], player: str) -> int:
    seats = [
        p.first == player
        for rnd in rounds
        for p in rnd
        if p.second is not None and player in (p.first, p.second)
    ]
    return max(len(list(run)) for _, run in itertools.groupby(seats))


@pytest.mark.parametrize("n", [n for n in range(3, 21) if n != 4])
def test_double_round_robin_never_gives_a_seat_three_times_running(n: int):
    # FIDE's recommendation (C.05 Annex 1): the first cycle's last two rounds swapped. Without it, every even
    # n has a player with three same seats across the two cycles; with 4 players it cannot be avoided.
    players = [f"p{i}" for i in range(1, n + 1)]
    rounds = round_robin(players, double=True)
    assert max(_longest_same_seat_run(rounds, player) for player in players) == 2


def test_single_round_robin_is_fides_published_berger_tables():
    def table(n: int) -> list[list[tuple[int, int | None]]]:
        rounds = round_robin([str(i) for i in range(1, n + 1)])
        return [[(int(p.first), None if p.second is None else int(p.second)) for p in rnd] for rnd in rounds]

    # FIDE Handbook C.05 Annex 1, Berger tables, in table order.
    assert table(4) == [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]
    assert table(6) == [
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)],
        [(3, 6), (4, 2), (5, 1)],
    ]
    assert table(8) == [
        [(1, 8), (2, 7), (3, 6), (4, 5)],
        [(8, 5), (6, 4), (7, 3), (1, 2)],
        [(2, 8), (3, 1), (4, 7), (5, 6)],
        [(8, 6), (7, 5), (1, 4), (2, 3)],
        [(3, 8), (4, 2), (5, 1), (6, 7)],
        [(8, 7), (1, 6), (2, 5), (3, 4)],
        [(4, 8), (5, 3), (6, 2), (7, 1)],
    ]
    assert table(10) == [
        [(1, 10), (2, 9), (3, 8), (4, 7), (5, 6)],
        [(10, 6), (7, 5), (8, 4), (9, 3), (1, 2)],
        [(2, 10), (3, 1), (4, 9), (5, 8), (6, 7)],
        [(10, 7), (8, 6), (9, 5), (1, 4), (2, 3)],
        [(3, 10), (4, 2), (5, 1), (6, 9), (7, 8)],
        [(10, 8), (9, 7), (1, 6), (2, 5), (3, 4)],
        [(4, 10), (5, 3), (6, 2), (7, 1), (8, 9)],
        [(10, 9), (1, 8), (2, 7), (3, 6), (4, 5)],
        [(5, 10), (6, 4), (7, 3), (8, 2), (9, 1)],
    ]
    # Five players: the table for six, number 6 the dummy; its opponent has the bye, listed last.
    assert table(5) == [
        [(2, 5), (3, 4), (1, None)],
        [(5, 3), (1, 2), (4, None)],
        [(3, 1), (4, 5), (2, None)],
        [(1, 4), (2, 3), (5, None)],
        [(4, 2), (5, 1), (3, None)],
    ]


def test_round_robin_pairing_numbers_are_the_players_order():
    rounds = round_robin(["zed", "amy", "kim", "bob"])
    assert rounds[0] == [Pairing("zed", "bob"), Pairing("amy", "kim")]


@pytest.mark.parametrize("players", [[], ["a"], ["a", "b"], [f"p{i}" for i in range(21)]])
def test_round_robin_refuses_fewer_than_3_or_more_than_20_players(players: list[str]):
    with pytest.raises(ValueError, match=f"3 to 20 players, not {len(players)}"):
        round_robin(players)


def test_round_robin_refuses_a_player_twice():
    with pytest.raises(ValueError, match="distinct"):
        round_robin(["a", "b", "a"])


# ---------------------------------------------------------------------------------------------------------
# Swiss


def _trf_text(
    ranking: list[str], games: list[Game], round_number: int, total_rounds: int, withdrawn: frozenset[str]
) -> str:
    """The tournament so far as TRF(x) text, written here independently of app.leagues.pairing's in-memory
    TRF: FIDE's fixed columns (player lines '001'), javafo's XXR (rounds), XXZ (not paired), XXP
    (forbidden pairs: forfeits). A forfeited draw is a half-point bye (H) for each, as the app writes it."""
    number = {player: i for i, player in enumerate(ranking, start=1)}
    cells = {player: ["0000 - Z"] * (round_number - 1) for player in ranking}
    points = dict.fromkeys(ranking, 0.0)
    forbidden = []
    for game in games:
        if game.round >= round_number:
            continue
        r = game.round - 1
        if game.second is None:
            cells[game.first][r] = "0000 - U"
            points[game.first] += 1
            continue
        first, second = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "½-½": (0.5, 0.5)}[game.result]
        if game.forfeit:
            forbidden.append(f"XXP {number[game.first]} {number[game.second]}")
        if game.forfeit and game.result == "½-½":
            cells[game.first][r] = cells[game.second][r] = "0000 - H"  # no unplayed draw in a TRF
        else:
            codes = {1.0: "+", 0.0: "-"} if game.forfeit else {1.0: "1", 0.0: "0", 0.5: "="}
            cells[game.first][r] = f"{number[game.second]:>4} w {codes[first]}"
            cells[game.second][r] = f"{number[game.first]:>4} b {codes[second]}"
        points[game.first] += first
        points[game.second] += second
    lines = []
    for player in ranking:
        i = number[player]
        line = f"001 {i:>4}".ljust(80) + f"{points[player]:>4.1f} {i:>4}  " + "  ".join(cells[player])
        lines.append(line)
    lines.append(f"XXR {total_rounds}")
    if withdrawn:
        lines.append("XXZ " + " ".join(str(number[p]) for p in sorted(withdrawn)))
    return "\n".join([*lines, *forbidden]) + "\n"


def _check_with_py4swiss(
    tmp: Path,
    ranking: list[str],
    games: list[Game],
    round_number: int,
    total_rounds: int,
    withdrawn: frozenset[str],
    pairings: list[Pairing],
) -> None:
    """py4swiss ships no checker of its own (its tests compare with bbpPairings' binary): check the round
    against its absolute criteria C1 (no second meeting), C2 (no second bye) and C3 (no two non-topscorers
    with the same absolute colour preference), on the players' state read by py4swiss's own TRF parser;
    and check that pairing that TRF file gives the same round as app.leagues.pairing's in-memory path."""
    path = tmp / f"round-{round_number}.trf"
    path.write_text(_trf_text(ranking, games, round_number, total_rounds, withdrawn), encoding="utf-8")
    trf = TrfParser.parse(path, strict=True)
    number = {player: i for i, player in enumerate(ranking, start=1)}
    info = {p.id: p for p in get_player_infos_from_trf(trf)}
    forbidden = trf.x_section.forbidden_pairs
    for pairing in pairings:
        a = info[number[pairing.first]]
        if pairing.second is None:
            assert C2.evaluate(a, a), pairing
            continue
        b = info[number[pairing.second]]
        assert C1.evaluate(a, b) and C3.evaluate(a, b), pairing
        assert (a.id, b.id) not in forbidden and (b.id, a.id) not in forbidden, pairing
    by_file = DutchEngine.generate_pairings(trf)
    assert [(p.white, p.black) for p in by_file] == [
        (number[p.first], 0 if p.second is None else number[p.second]) for p in pairings
    ]


def _play_swiss(
    tmp: Path,
    n: int,
    total_rounds: int,
    seed: int,
    withdrawals: dict[int, list[str]] | None = None,
    forfeits: float = 0.0,
) -> list[Game]:
    """A whole Swiss tournament with seeded random results, every round checked as it is paired.
    `withdrawals`: round -> players withdrawn before it is paired. `forfeits`: the chance a game is one."""
    rng = random.Random(seed)
    players = [(f"p{i:02d}", float(rng.randint(1200, 2200))) for i in range(n)]
    ranking = [p for p, _ in sorted(players, key=lambda p: (-p[1], p[0]))]
    games: list[Game] = []
    withdrawn: frozenset[str] = frozenset()
    for r in range(1, total_rounds + 1):
        withdrawn |= frozenset((withdrawals or {}).get(r, []))
        pairings = swiss_round(players, games, r, total_rounds, withdrawn)
        _check_round(players, games, r, total_rounds, withdrawn, pairings)
        _check_with_py4swiss(tmp, ranking, games, r, total_rounds, withdrawn, pairings)
        for p in pairings:
            if p.second is None:
                games.append(Game(r, p.first, None, "bye"))
            else:
                result = rng.choices(["1-0", "0-1", "½-½"], weights=[4, 4, 2])[0]
                games.append(Game(r, p.first, p.second, result, forfeit=rng.random() < forfeits))
    return games


def _check_round(
    players: list[tuple[str, float]],
    games: list[Game],
    r: int,
    total_rounds: int,
    withdrawn: frozenset[str],
    pairings: list[Pairing],
) -> None:
    """The Dutch system's absolute criteria, checked from the games alone."""
    active = sorted(p for p, _ in players if p not in withdrawn)
    seated = [p.first for p in pairings] + [p.second for p in pairings if p.second is not None]
    assert sorted(seated) == active  # every active player once, no withdrawn one
    assert sum(p.second is None for p in pairings) == len(active) % 2

    met = {frozenset((g.first, g.second)) for g in games if g.second is not None}
    byes = {g.first for g in games if g.second is None}
    for p in pairings:
        if p.second is None:
            assert p.first not in byes, f"round {r}: {p.first} has a second bye"
        else:
            assert frozenset((p.first, p.second)) not in met, f"round {r}: {p} meet again"

    # Colours (seats) of played games: difference within ±2, never three the same running. In the last
    # round FIDE lets a topscorer (over 50% of the maximum score) and their opponent off (A.7, C.3).
    points = Counter()
    for g in games:
        if g.second is None:
            points[g.first] += 1
        else:
            first, second = {"1-0": (1, 0), "0-1": (0, 1), "½-½": (0.5, 0.5)}[g.result]
            points[g.first] += first
            points[g.second] += second
    topscorers = {p for p, score in points.items() if score > (r - 1) / 2} if r == total_rounds else set()
    for p in pairings:
        if p.second is None or {p.first, p.second} & topscorers:
            continue
        for player, seat in ((p.first, True), (p.second, False)):
            seats = [
                g.first == player
                for g in games
                if not g.forfeit and g.second and player in (g.first, g.second)
            ]
            seats.append(seat)
            difference = sum(seats) - (len(seats) - sum(seats))
            assert abs(difference) <= 2, f"round {r}: {player}'s colours {seats}"
            assert seats[-3:] not in ([True] * 3, [False] * 3), f"round {r}: {player}'s colours {seats}"


@pytest.mark.parametrize(
    ("n", "total_rounds", "seed"),
    [(8, 5, 1), (8, 5, 2), (9, 5, 3), (9, 6, 4), (15, 6, 5), (15, 7, 6), (24, 7, 7), (40, 7, 8)],
)
def test_swiss_tournament_keeps_the_dutch_absolute_criteria(
    tmp_path: Path, n: int, total_rounds: int, seed: int
):
    games = _play_swiss(tmp_path, n, total_rounds, seed)
    assert max(g.round for g in games) == total_rounds
    byes = Counter(g.first for g in games if g.second is None)
    assert len(byes) == (total_rounds if n % 2 else 0)
    assert set(byes.values()) <= {1}


def test_swiss_with_forfeits_and_withdrawals(tmp_path: Path):
    withdrawals = {3: ["p03", "p11"], 4: ["p07"]}
    games = _play_swiss(tmp_path, 16, 6, seed=9, withdrawals=withdrawals, forfeits=0.15)
    assert any(g.forfeit for g in games)  # the forfeit path was taken
    for r, gone in [(r, p) for r, ps in withdrawals.items() for p in ps]:
        assert not [g for g in games if g.round >= r and gone in (g.first, g.second)]


def test_swiss_first_round_pairs_top_half_with_bottom_half_by_rating_then_id():
    # The initial ranking: rating desc, then id ("b" before "c" at 1900). Top seed in seat 0, alternating.
    players = [("h", 1200.0), ("c", 1900.0), ("a", 2000.0), ("e", 1500.0), ("b", 1900.0)]
    players += [("g", 1300.0), ("f", 1400.0), ("d", 1600.0)]
    assert swiss_round(players, [], 1, 5) == [
        Pairing("a", "e"),
        Pairing("f", "b"),
        Pairing("c", "g"),
        Pairing("h", "d"),
    ]


@pytest.mark.parametrize("seed", range(10, 16))
def test_swiss_second_round_pairs_winners_with_winners(seed: int):
    rng = random.Random(seed)
    players = [(f"p{i:02d}", float(rng.randint(1200, 2200))) for i in range(rng.choice([12, 13, 20, 21]))]
    first_round = swiss_round(players, [], 1, 5)
    games = [
        Game(1, p.first, p.second, "bye" if p.second is None else rng.choice(["1-0", "0-1", "½-½"]))
        for p in first_round
    ]
    winners = {g.first for g in games if g.result in ("1-0", "bye")} | {
        g.second for g in games if g.result == "0-1"
    }
    second_round = swiss_round(players, games, 2, 5)
    mixed = [p for p in second_round if p.second is not None and len({p.first, p.second} & winners) == 1]
    # Winners never met in round 1 and nobody's colour is absolute yet: only an odd one out floats down.
    assert len(mixed) == len(winners) % 2
    assert not [p for p in second_round if p.second is None and p.first in winners]


def test_swiss_round_refuses_inconsistent_input():
    players = [("a", 1.0), ("b", 2.0), ("c", 3.0), ("d", 4.0)]
    with pytest.raises(ValueError, match="no result"):
        swiss_round(players, [Game(1, "a", "b", None), Game(1, "c", "d", "1-0")], 2, 3)
    with pytest.raises(ValueError, match="not in the tournament"):
        swiss_round(players, [Game(1, "a", "x", "1-0"), Game(1, "c", "d", "1-0")], 2, 3)
    with pytest.raises(ValueError, match="not one of the tournament's 3 rounds"):
        swiss_round(players, [], 4, 3)
    with pytest.raises(ValueError, match="withdrawn players not in the tournament"):
        swiss_round(players, [], 1, 3, frozenset({"x"}))
    with pytest.raises(ValueError, match="at least two players"):
        swiss_round(players, [], 1, 3, frozenset({"a", "b", "c"}))


def test_swiss_round_that_cannot_be_paired_is_a_value_error():
    players = [("a", 1.0), ("b", 2.0)]
    with pytest.raises(ValueError, match="cannot be paired"):
        swiss_round(players, [Game(1, "b", "a", "1-0")], 2, 2)


def test_swiss_ignores_games_of_the_round_being_paired_and_later():
    players = [("a", 4.0), ("b", 3.0), ("c", 2.0), ("d", 1.0)]
    assert swiss_round(players, [Game(1, "a", "b", None)], 1, 3) == swiss_round(players, [], 1, 3)
