"""A league's standings: points, games, and Sonneborn–Berger (round-robin) or Buchholz (swiss)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from app.leagues.pairing import Game, round_robin, swiss_round
from app.leagues.standings import Standing, standings


def _row(standing: Standing) -> tuple:
    return (
        standing.player,
        standing.points,
        standing.played,
        standing.won,
        standing.drawn,
        standing.lost,
        standing.tiebreak,
    )


def test_round_robin_of_four_with_sonneborn_berger_by_hand():
    games = [
        Game(1, "A", "B", "1-0"),
        Game(1, "C", "D", "½-½"),
        Game(2, "A", "C", "1-0"),
        Game(2, "B", "D", "1-0"),
        Game(3, "D", "A", "1-0"),
        Game(3, "B", "C", "½-½"),
    ]
    # Points: A 1+1+0 = 2; B 0+1+½ = 1.5; C ½+0+½ = 1; D ½+0+1 = 1.5.
    # Sonneborn–Berger, the beaten opponents' points plus half the drawn ones':
    #   A: B 1.5 + C 1 = 2.5;  B: D 1.5 + ½·C 1 = 2;  C: ½·D 1.5 + ½·B 1.5 = 1.5;  D: A 2 + ½·C 1 = 2.5.
    # B and D tie on 1.5 points: D's Sonneborn–Berger puts D first, whatever the ids say.
    assert [_row(s) for s in standings(["A", "B", "C", "D"], games, "round-robin")] == [
        ("A", 2.0, 3, 2, 0, 1, 2.5),
        ("D", 1.5, 3, 1, 1, 1, 2.5),
        ("B", 1.5, 3, 1, 1, 1, 2.0),
        ("C", 1.0, 3, 0, 2, 1, 1.5),
    ]


def test_round_robin_bye_is_no_point_and_no_game_and_a_forfeit_counts_as_its_result():
    # Three players, the Berger table for four: the one drawn against number 4 has the bye.
    games = [
        Game(1, "A", None, "bye"),
        Game(1, "B", "C", "½-½"),
        Game(2, "C", None, "bye"),
        Game(2, "A", "B", "1-0", forfeit=True),
        Game(3, "B", None, "bye"),
        Game(3, "C", "A", "0-1"),
    ]
    # A: 2 points from 2 games; B, C: ½ each. SB: A ½ + ½ = 1; B ½·C ½ = ¼; C ½·B ½ = ¼. B v C: all equal,
    # so by id.
    assert [_row(s) for s in standings(["C", "B", "A"], games, "round-robin")] == [
        ("A", 2.0, 2, 2, 0, 0, 1.0),
        ("B", 0.5, 2, 0, 1, 1, 0.25),
        ("C", 0.5, 2, 0, 1, 1, 0.25),
    ]


def test_swiss_buchholz_with_byes_and_forfeits_by_hand():
    games = [
        Game(1, "A", "B", "1-0"),
        Game(1, "C", "D", "½-½"),
        Game(1, "E", None, "bye"),
        Game(2, "E", "A", "0-1"),
        Game(2, "B", "C", "1-0", forfeit=True),
        Game(2, "D", None, "bye"),
        Game(3, "A", "D", "½-½"),
        Game(3, "C", "E", "1-0"),
        Game(3, "B", None, "bye"),
    ]
    # Points: A 1+1+½ = 2.5; B 0+1(forfeit)+1(bye) = 2; C ½+0(forfeit)+1 = 1.5; D ½+1(bye)+½ = 2;
    # E 1(bye)+0+0 = 1.  n = 3 rounds.
    # Opponents' scores for Buchholz count their unplayed rounds as draws:
    #   A 2.5;  B 0+½+½ = 1;  C ½+½+1 = 2;  D ½+½+½ = 1.5;  E ½+0+0 = 0.5.
    # An unplayed round R: a virtual opponent, SPR + (1 − SfPR) + ½(n − R).
    #   A: B 1 + E 0.5 + D 1.5                                  = 3
    #   B: A 2.5 + (forfeit win, R2: 0 + 0 + ½) + (bye, R3: 1 + 0 + 0)  = 4
    #   C: D 1.5 + (forfeit loss, R2: ½ + 1 + ½) + E 0.5              = 4
    #   D: C 2 + (bye, R2: ½ + 0 + ½) + A 2.5                         = 5.5
    #   E: (bye, R1: 0 + 0 + 1) + A 2.5 + C 2                         = 5.5
    # A bye is a game won; a forfeit is a game won or lost.
    assert [_row(s) for s in standings(["A", "B", "C", "D", "E"], games, "swiss")] == [
        ("A", 2.5, 3, 2, 1, 0, 3.0),
        ("D", 2.0, 3, 1, 2, 0, 5.5),
        ("B", 2.0, 3, 2, 0, 1, 4.0),
        ("C", 1.5, 3, 1, 1, 1, 4.0),
        ("E", 1.0, 3, 1, 0, 2, 5.5),
    ]


def test_swiss_buchholz_of_a_withdrawn_player_and_their_opponents():
    # D withdrew after round 1: not paired in round 2, an unplayed round (0 points) for D.
    games = [
        Game(1, "A", "B", "1-0"),
        Game(1, "C", "D", "1-0"),
        Game(2, "A", "C", "½-½"),
        Game(2, "B", None, "bye"),
    ]
    # Opponents' scores: A 1.5; B 0 + ½ = 0.5; C 1.5; D 0 + ½ (absent as a draw) = 0.5.
    #   A: B 0.5 + C 1.5 = 2;  B: A 1.5 + (bye, R2: 0 + 0 + 0) = 1.5;  C: D 0.5 + A 1.5 = 2;
    #   D: C 1.5 + (absent, R2: 0 + 1 + 0) = 2.5.  A and C tie on everything: by id.
    assert [_row(s) for s in standings(["D", "C", "B", "A"], games, "swiss")] == [
        ("A", 1.5, 2, 1, 1, 0, 2.0),
        ("C", 1.5, 2, 1, 1, 0, 2.0),
        ("B", 1.0, 2, 1, 0, 1, 1.5),
        ("D", 0.0, 1, 0, 0, 1, 2.5),
    ]


def test_unplayed_games_count_nowhere():
    players = ["A", "B", "C", "D"]
    games = [Game(1, "A", "B", "1-0"), Game(2, "B", "A", None), Game(1, "C", "D", None)]
    assert standings(players, games, "round-robin") == standings(players, games[:1], "round-robin")

    def counts(table: list[Standing]) -> list[tuple]:
        return [_row(s)[:6] for s in table]

    swiss = standings(players, games, "swiss")
    assert counts(swiss) == counts(standings(players, games[:1], "swiss"))
    # A pending round adds nothing to Buchholz either (with no game at all, C would be absent in round 1).
    assert {s.player: s.tiebreak for s in swiss} == {"A": 0.0, "B": 1.0, "C": 0.0, "D": 0.0}


def test_nobody_has_played_yet():
    assert [_row(s) for s in standings(["b", "a"], [], "swiss")] == [
        ("a", 0.0, 0, 0, 0, 0, 0.0),
        ("b", 0.0, 0, 0, 0, 0, 0.0),
    ]


def test_standings_refuse_bad_input():
    with pytest.raises(ValueError, match="system"):
        standings(["a", "b"], [], "knockout")
    with pytest.raises(ValueError, match="not one of the league's players"):
        standings(["a", "b"], [Game(1, "a", "x", "1-0")], "swiss")
    with pytest.raises(ValueError, match="not a game's result"):
        standings(["a", "b"], [Game(1, "a", "b", "2-0")], "swiss")
    with pytest.raises(ValueError, match="a bye's result"):
        standings(["a", "b"], [Game(1, "a", None, "1-0")], "swiss")


# ---------------------------------------------------------------------------------------------------------
# Recomputed from scratch, after every result, equal to a live tally kept as the results come in.

_SCORES = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "½-½": (0.5, 0.5)}


class _Tally:
    """A plain running tally, updated one result at a time (independent of app.leagues.standings)."""

    def __init__(self, players: list[str], swiss: bool):
        self.swiss = swiss
        self.points = dict.fromkeys(players, 0.0)
        self.played = dict.fromkeys(players, 0)
        self.won = dict.fromkeys(players, 0)
        self.drawn = dict.fromkeys(players, 0)
        self.lost = dict.fromkeys(players, 0)
        self.beaten: dict[str, list[tuple[str, float]]] = {p: [] for p in players}  # (opponent, my score)
        self.adjusted = dict.fromkeys(players, 0.0)  # swiss: points with unplayed rounds as ½
        self.virtual: dict[str, list[tuple[int, float, float]]] = {p: [] for p in players}  # (R, SPR, SfPR)
        self.last_round = 0

    def add(self, game: Game) -> None:
        self.last_round = max(self.last_round, game.round)
        if game.second is None:
            if self.swiss:
                self.virtual[game.first].append((game.round, self.points[game.first], 1.0))
                self.points[game.first] += 1
                self.adjusted[game.first] += 0.5
                self.played[game.first] += 1
                self.won[game.first] += 1
            return
        for player, opponent, score in zip(
            (game.first, game.second), (game.second, game.first), _SCORES[game.result], strict=True
        ):
            if self.swiss and game.forfeit:
                self.virtual[player].append((game.round, self.points[player], score))
                self.adjusted[player] += 0.5
            else:
                self.beaten[player].append((opponent, score))
                self.adjusted[player] += score
            self.points[player] += score
            self.played[player] += 1
            self.won[player] += score == 1
            self.drawn[player] += score == 0.5
            self.lost[player] += score == 0

    def tiebreak(self, player: str) -> float:
        if not self.swiss:
            return sum(self.points[opponent] * score for opponent, score in self.beaten[player])
        n = self.last_round
        return sum(self.adjusted[opponent] for opponent, _ in self.beaten[player]) + sum(
            before + (1 - score) + 0.5 * (n - r) for r, before, score in self.virtual[player]
        )

    def table(self) -> list[tuple]:
        rows = [
            (p, self.points[p], self.played[p], self.won[p], self.drawn[p], self.lost[p], self.tiebreak(p))
            for p in self.points
        ]
        return sorted(rows, key=lambda row: (-row[1], -row[6], -row[3], row[0]))


def _finish_one_at_a_time(
    rng: random.Random, players: list[str], games: list[Game], tally: _Tally, system: str
) -> list[Game]:
    """Decide the undecided games in a random order, checking the standings after each result."""
    for i in rng.sample(range(len(games)), len(games)):
        if games[i].result is not None:
            continue
        result = rng.choices(["1-0", "0-1", "½-½"], weights=[4, 4, 2])[0]
        games[i] = replace(games[i], result=result, forfeit=rng.random() < 0.1)
        tally.add(games[i])
        assert [_row(s) for s in standings(players, games, system)] == tally.table()
    return games


@pytest.mark.parametrize("seed", range(3))
def test_round_robin_recomputed_equals_live_after_every_result(seed: int):
    rng = random.Random(seed)
    players = [f"p{i}" for i in range(rng.choice([5, 6, 7]))]
    tally = _Tally(players, swiss=False)
    games: list[Game] = []
    for r, pairings in enumerate(round_robin(players, double=True), start=1):
        for p in pairings:  # the league's matches exist from the start; byes are decided at once
            games.append(Game(r, p.first, p.second, "bye" if p.second is None else None))
            if p.second is None:
                tally.add(games[-1])
    assert [_row(s) for s in standings(players, games, "round-robin")] == tally.table()
    _finish_one_at_a_time(rng, players, games, tally, "round-robin")


@pytest.mark.parametrize("seed", range(3))
def test_swiss_recomputed_equals_live_after_every_result(seed: int):
    rng = random.Random(seed)
    rated = [(f"p{i:02d}", float(rng.randint(1000, 2000))) for i in range(rng.choice([9, 10, 11]))]
    players = [p for p, _ in rated]
    tally = _Tally(players, swiss=True)
    games: list[Game] = []
    for r in range(1, 5):  # a round is paired when the one before has ended
        for p in swiss_round(rated, games, r, 4):
            games.append(Game(r, p.first, p.second, "bye" if p.second is None else None))
            if p.second is None:
                tally.add(games[-1])
        assert [_row(s) for s in standings(players, games, "swiss")] == tally.table()
        games = _finish_one_at_a_time(rng, players, games, tally, "swiss")
