"""Pairing a league's rounds: round-robin by FIDE's Berger tables, Swiss by the FIDE Dutch system.

Pure functions over plain values. Seat 0 moves first: it plays the part of White in the FIDE rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from py4swiss.engines import DutchEngine
from py4swiss.engines.common import PairingError
from py4swiss.trf import ParsedTrf
from py4swiss.trf.codes import PlayerCode
from py4swiss.trf.results import ColorToken, ResultToken, RoundResult
from py4swiss.trf.sections import PlayerSection, XSection

MIN_ROUND_ROBIN_PLAYERS = 3
MAX_ROUND_ROBIN_PLAYERS = 20


@dataclass(frozen=True)
class Pairing:
    first: str  # player id in seat 0 (moves first)
    second: str | None  # player id in seat 1; None: `first` has a bye this round


@dataclass(frozen=True)
class Game:
    round: int  # 1-based
    first: str
    second: str | None  # None: a bye
    result: str | None  # None (not yet played), "1-0", "0-1", "½-½", "bye"
    forfeit: bool = False  # decided without play (a withdrawal, or the host's adjudication of a forfeit)


def round_robin(players: list[str], double: bool = False) -> list[list[Pairing]]:
    """Every round of a round-robin among `players` (in their order = pairing numbers), by FIDE's Berger
    tables (Handbook C.05 Annex 1). An odd number adds a dummy: the player drawn against it has a bye
    (Pairing(p, None)). `double`: a second cycle, each pair again with colours (seats) swapped.
    3 to 20 players (raise ValueError with a clear message otherwise).

    Each round lists its games in the table's order, a bye last. With `double`, as FIDE recommends, the
    last two rounds of the first cycle are played in reverse order, so that nobody has the same seat three
    times running across the two cycles; the second cycle then repeats the first, seats swapped."""
    if not MIN_ROUND_ROBIN_PLAYERS <= len(players) <= MAX_ROUND_ROBIN_PLAYERS:
        raise ValueError(
            f"a round-robin needs {MIN_ROUND_ROBIN_PLAYERS} to {MAX_ROUND_ROBIN_PLAYERS} players, "
            f"not {len(players)}"
        )
    if len(set(players)) != len(players):
        raise ValueError("a round-robin's players must be distinct")

    # Berger tables for an even number n of pairing numbers 1..n (n itself is the dummy when the number of
    # players is odd). In round r the numbers 1..n-1 stand in the cycle p_1..p_{n-1} with
    # p_k = (k - 1 + (r - 1) * n/2) mod (n - 1) + 1; table 1 is p_1 against n (p_1 has seat 0 in odd
    # rounds, n in even ones) and table t >= 2 is p_t (seat 0) against p_{n+1-t}.
    n = len(players) + len(players) % 2
    half = n // 2
    numbered = dict(enumerate(players, start=1))  # the dummy, n for an odd count, is not in it

    cycle: list[list[Pairing]] = []
    for r in range(1, n):
        p = [0] + [(k - 1 + (r - 1) * half) % (n - 1) + 1 for k in range(1, n)]  # 1-based: p[1..n-1]
        tables = [(p[1], n) if r % 2 else (n, p[1])]
        tables += [(p[t], p[n + 1 - t]) for t in range(2, half + 1)]
        games, byes = [], []
        for a, b in tables:
            if n not in numbered and n in (a, b):  # against the dummy: a bye
                byes.append(Pairing(numbered[b if a == n else a], None))
            else:
                games.append(Pairing(numbered[a], numbered[b]))
        cycle.append(games + byes)

    if not double:
        return cycle
    cycle[-2], cycle[-1] = cycle[-1], cycle[-2]
    second = [[p if p.second is None else Pairing(p.second, p.first) for p in rnd] for rnd in cycle]
    return cycle + second


def swiss_round(
    players: list[tuple[str, float]],
    games: list[Game],
    round_number: int,
    total_rounds: int,
    withdrawn: frozenset[str] = frozenset(),
) -> list[Pairing]:
    """Round `round_number`'s pairings by the FIDE Dutch system (py4swiss): `players` are (id, rating) in
    any order (initial ranking: rating desc, then id), `games` every earlier game with its result;
    withdrawn players are not paired. An odd number: the player the system chooses gets the bye. No pair
    meets twice; colours as the Dutch system asks.

    Games of round `round_number` or later are ignored; an earlier game without a result is a ValueError.
    A player with no game in an earlier round was not paired then (0 points). Forfeits are unplayed games
    for the Dutch system (no colour, and a forfeit win counts as a bye already had); the pair is still
    forbidden to meet again. A forfeited draw, which the TRF cannot express, is a half-point bye for each.
    Raises ValueError when the round cannot be paired (e.g. everybody has met everybody)."""
    if not 1 <= round_number <= total_rounds:
        raise ValueError(f"round {round_number} is not one of the tournament's {total_rounds} rounds")
    ranking = sorted(players, key=lambda player: (-player[1], player[0]))
    number = {player_id: i for i, (player_id, _) in enumerate(ranking, start=1)}
    if len(number) != len(players):
        raise ValueError("a Swiss tournament's players must be distinct")
    if unknown := withdrawn - number.keys():
        raise ValueError(f"withdrawn players not in the tournament: {sorted(unknown)}")
    if len(number) - len(withdrawn) < 2:
        raise ValueError("a Swiss round needs at least two players")

    trf = _trf(ranking, number, games, round_number, total_rounds, withdrawn)
    try:
        pairs = DutchEngine.generate_pairings(trf)
    except PairingError as error:
        raise ValueError(f"round {round_number} cannot be paired by the Dutch system: {error}") from error
    player_id = {i: player for player, i in number.items()}
    return [Pairing(player_id[pair.white], player_id.get(pair.black)) for pair in pairs]  # black 0: bye


def _trf(
    ranking: list[tuple[str, float]],
    number: dict[str, int],
    games: list[Game],
    round_number: int,
    total_rounds: int,
    withdrawn: frozenset[str],
) -> ParsedTrf:
    """The tournament so far as py4swiss's in-memory TRF(x): no file, no text, the parsed models directly.
    Players are numbered by the initial ranking; a round without a game is 'not paired' (zero-point bye)."""
    results = {i: [_NOT_PAIRED] * (round_number - 1) for i in number.values()}
    forbidden: set[tuple[int, int]] = set()

    for game in games:
        if game.round >= round_number:
            continue
        if game.round < 1:
            raise ValueError(f"a game's round must be 1 or more, not {game.round}")
        for player in (game.first, game.second):
            if player is not None and player not in number:
                raise ValueError(f"round {game.round}: {player!r} is not in the tournament")
        first = number[game.first]
        if game.second is None:
            if game.result not in (None, "bye"):
                raise ValueError(f"round {game.round}: a bye's result is 'bye', not {game.result!r}")
            results[first][game.round - 1] = _BYE
            continue
        if game.result not in ("1-0", "0-1", "½-½"):
            raise ValueError(f"round {game.round}: {game.first}-{game.second} has no result: {game.result!r}")
        second = number[game.second]
        if game.forfeit and game.result == "½-½":
            # The TRF has no unplayed draw between two players: a half-point bye each is the same to the
            # Dutch system (½ point, no colour, no meeting; the pair is forbidden below).
            results[first][game.round - 1] = results[second][game.round - 1] = _HALF_POINT_BYE
        else:
            first_token, second_token = _TOKENS[game.result, game.forfeit]
            results[first][game.round - 1] = RoundResult(
                id=second, color=ColorToken.WHITE, result=first_token
            )
            results[second][game.round - 1] = RoundResult(
                id=first, color=ColorToken.BLACK, result=second_token
            )
        if game.forfeit:
            # FIDE does not count an unplayed game as a meeting; a league does: they may not meet again.
            forbidden.add((first, second))

    x_section = XSection(
        number_of_rounds=total_rounds,
        zeroed_ids={number[player] for player in withdrawn},
        forbidden_pairs=forbidden,
    )
    sections = []
    for player, _rating in ranking:
        i = number[player]
        points = sum(x_section.scoring_point_system.get_points_times_ten(result) for result in results[i])
        sections.append(
            PlayerSection(
                code=PlayerCode.PLAYER, starting_number=i, points_times_ten=points, rank=i, results=results[i]
            )
        )
    trf = ParsedTrf(player_sections=sections, x_section=x_section)
    trf.validate_contents()
    return trf


_NOT_PAIRED = RoundResult(id=0, color=ColorToken.BYE_OR_NOT_PAIRED, result=ResultToken.ZERO_POINT_BYE)
_BYE = RoundResult(id=0, color=ColorToken.BYE_OR_NOT_PAIRED, result=ResultToken.PAIRING_ALLOCATED_BYE)
_HALF_POINT_BYE = RoundResult(id=0, color=ColorToken.BYE_OR_NOT_PAIRED, result=ResultToken.HALF_POINT_BYE)
_W, _D, _L = ResultToken.WIN, ResultToken.DRAW, ResultToken.LOSS
_TOKENS = {  # (result, forfeit) -> the TRF result tokens of seat 0 and seat 1
    ("1-0", False): (_W, _L),
    ("0-1", False): (_L, _W),
    ("½-½", False): (_D, _D),
    ("1-0", True): (ResultToken.FORFEIT_WIN, ResultToken.FORFEIT_LOSS),
    ("0-1", True): (ResultToken.FORFEIT_LOSS, ResultToken.FORFEIT_WIN),
}
