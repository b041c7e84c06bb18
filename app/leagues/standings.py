"""A league's standings: points, games and a tiebreak (Sonneborn–Berger or Buchholz), from its games."""

from __future__ import annotations

from dataclasses import dataclass

from app.leagues.pairing import Game

SYSTEMS = ("round-robin", "swiss")
# What a result is worth to (seat 0, seat 1).
_SCORES = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "½-½": (0.5, 0.5)}


@dataclass(frozen=True)
class Standing:
    player: str
    points: float
    played: int
    won: int
    drawn: int
    lost: int
    tiebreak: float


@dataclass(frozen=True)
class _Entry:
    """One decided round of one player."""

    round: int
    opponent: str | None  # None: a bye
    score: float  # the player's points from it
    unplayed: bool  # a bye or a forfeit: no game was played


def standings(players: list[str], games: list[Game], system: str) -> list[Standing]:
    """`system` is "round-robin" or "swiss". A win 1 point, a draw ½, a loss 0; a bye 1 point in swiss, 0 in
    round-robin (and a round-robin bye is not 'played'). Sorted by points desc, tiebreak desc, then wins
    desc, then player id. Unplayed (result None) games count nowhere; a forfeit counts like its result.

    `played` counts the decided games, forfeits included, and in swiss a bye, which is also a win (as in
    FIDE's count of wins), so that won + drawn + lost = played.

    Tiebreak, round-robin: Sonneborn–Berger, the sum over a player's decided games of the opponent's points
    times the player's score in that game (1, ½, 0); forfeits count as played, as FIDE has it for
    round-robins.

    Tiebreak, swiss: Buchholz, with FIDE's rule for unplayed games (Congress 2009; Handbook C.02 13.15),
    where a round is unplayed for a player who had a bye, a forfeit (won, lost or drawn) or no game at all
    (withdrawn, not paired), and n is the latest round with any result:
    - a game played against O adds O's score adjusted for tiebreaks: O's own unplayed rounds 1..n count
      ½ each instead of what they gave O;
    - an unplayed round R adds a virtual opponent's score, one who started round R with the player's score,
      got the opposite of the player's result in it and drew every round after, to round n:
      Svon = SPR + (1 − SfPR) + ½ (n − R), SPR the player's points before round R, SfPR those from it.
    A round whose game has no result yet adds nothing for either player."""
    if system not in SYSTEMS:
        raise ValueError(f"a league's system is one of {SYSTEMS}, not {system!r}")
    if len(set(players)) != len(players):
        raise ValueError("a league's players must be distinct")
    swiss = system == "swiss"
    entries = _entries(players, games, swiss)
    pending = {
        (p, game.round)
        for game in games
        if game.result is None
        for p in (game.first, game.second)
        if p is not None
    }
    points = {player: sum(entry.score for entry in entries[player]) for player in players}

    if swiss:
        tiebreaks = _buchholz(players, entries, pending)
    else:
        tiebreaks = {
            player: sum(points[e.opponent] * e.score for e in entries[player] if e.opponent is not None)
            for player in players
        }

    table = []
    for player in players:
        counted = [entry for entry in entries[player] if swiss or entry.opponent is not None]
        won = sum(1 for entry in counted if entry.score == 1)
        drawn = sum(1 for entry in counted if entry.score == 0.5)
        table.append(
            Standing(
                player=player,
                points=points[player],
                played=len(counted),
                won=won,
                drawn=drawn,
                lost=len(counted) - won - drawn,
                tiebreak=tiebreaks[player],
            )
        )
    table.sort(key=lambda s: (-s.points, -s.tiebreak, -s.won, s.player))
    return table


def _entries(players: list[str], games: list[Game], swiss: bool) -> dict[str, list[_Entry]]:
    """Every decided round of every player, in round order."""
    entries: dict[str, list[_Entry]] = {player: [] for player in players}
    for game in games:
        for player in (game.first, game.second):
            if player is not None and player not in entries:
                raise ValueError(f"round {game.round}: {player!r} is not one of the league's players")
        if game.result is None:
            continue
        if game.second is None:
            if game.result != "bye":
                raise ValueError(f"round {game.round}: a bye's result is 'bye', not {game.result!r}")
            entries[game.first].append(_Entry(game.round, None, 1.0 if swiss else 0.0, unplayed=True))
            continue
        if game.result not in _SCORES:
            raise ValueError(f"round {game.round}: {game.result!r} is not a game's result")
        first, second = _SCORES[game.result]
        entries[game.first].append(_Entry(game.round, game.second, first, game.forfeit))
        entries[game.second].append(_Entry(game.round, game.first, second, game.forfeit))
    for player_entries in entries.values():
        player_entries.sort(key=lambda entry: entry.round)
    return entries


def _buchholz(
    players: list[str], entries: dict[str, list[_Entry]], pending: set[tuple[str, int]]
) -> dict[str, float]:
    """Buchholz with FIDE's virtual opponent for unplayed rounds (see `standings`). `pending`: the (player,
    round) whose game has no result yet."""
    n = max((entry.round for player_entries in entries.values() for entry in player_entries), default=0)
    by_round = {player: {entry.round: entry for entry in entries[player]} for player in players}
    # A round 1..n in which a player has no game at all: absent, 0 points, unplayed.
    absent = _Entry(round=0, opponent=None, score=0.0, unplayed=True)

    def rounds(player: str) -> list[tuple[int, _Entry]]:
        """The player's rounds 1..n that count, each with its entry."""
        return [(r, by_round[player].get(r, absent)) for r in range(1, n + 1) if (player, r) not in pending]

    # Opponents' points for Buchholz: their unplayed rounds count as draws.
    adjusted = {
        player: sum(0.5 if entry.unplayed else entry.score for _, entry in rounds(player))
        for player in players
    }
    buchholz = {}
    for player in players:
        total, before = 0.0, 0.0  # `before`: the player's points before round r
        for r, entry in rounds(player):
            if entry.unplayed or entry.opponent is None:
                total += before + (1 - entry.score) + 0.5 * (n - r)  # the virtual opponent's score
            else:
                total += adjusted[entry.opponent]
            before += entry.score
        buchholz[player] = total
    return buchholz
