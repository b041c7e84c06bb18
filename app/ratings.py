"""Glicko-2 ratings, with lichess's parameters, as small pure functions over plain values.

Glickman's paper (http://www.glicko.net/glicko/glicko2.pdf) updates ratings once per
rating period. Like lichess, we rate each match on its own, as its own period: a
player's RD first grows with the days since their last rated match (the paper's step
6 for the periods they sat out, ``0.21436`` periods a day), then the match updates
rating, RD and volatility (steps 3 to 8, without step 6's one-period increase, which
the absence already stands for). RD stays within 45–500; a rating is provisional while
its RD is 110 or more ("1500?").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

NEW_RATING = 1500.0
NEW_RD = 500.0
NEW_VOLATILITY = 0.09
TAU = 0.75
"""How much the volatility may change in a period (Glickman: 0.3 to 1.2)."""
PERIODS_PER_DAY = 0.21436
MIN_RD, MAX_RD = 45.0, 500.0
PROVISIONAL_RD = 110.0
"""A rating whose RD is this or more is provisional, and left off the leaderboards."""
BOT_CHANGE = 0.5
"""A human's change against a bot counts this much (bots' ratings never move)."""
BOT_RD = 60.0
"""The RD a bot's published rating is taken with: settled, but only measured on a ladder."""

SCALE = 173.7178
"""Glicko-2's scale: μ = (r − 1500) / 173.7178, φ = RD / 173.7178."""
CONVERGENCE = 1e-6
"""ε of the volatility's iteration (step 5)."""


@dataclass(frozen=True)
class Rating:
    rating: float = NEW_RATING
    rd: float = NEW_RD
    volatility: float = NEW_VOLATILITY
    games: int = 0
    last_rated_at: datetime | None = None

    @property
    def provisional(self) -> bool:
        return self.rd >= PROVISIONAL_RD


def shown(rating: Rating) -> str:
    """A rating as people read it: ``1500``, or ``1500?`` while provisional."""
    return f"{round(rating.rating)}{'?' if rating.provisional else ''}"


def clamped_rd(rd: float) -> float:
    return min(MAX_RD, max(MIN_RD, rd))


def aged(rating: Rating, now: datetime) -> Rating:
    """``rating`` at ``now``: its RD grown by the days since it was last rated (step 6,
    φ* = √(φ² + σ²·t) for t = days × 0.21436 periods)."""
    if rating.last_rated_at is None:
        return rating
    days = max(0.0, (now - rating.last_rated_at).total_seconds() / 86400)
    phi = rating.rd / SCALE
    phi_star = math.sqrt(phi**2 + rating.volatility**2 * days * PERIODS_PER_DAY)
    return replace(rating, rd=clamped_rd(phi_star * SCALE))


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi**2 / math.pi**2)


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm (regula falsi) as in the paper."""
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > CONVERGENCE:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)


def updated(
    player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU, periods: float = 1.0
) -> Rating:
    """Glickman's steps 2 to 8: ``player`` after one rating period of ``results``
    (each an opponent's rating and the player's score against it: 1, ½ or 0).

    ``periods``: how many periods step 6 adds to the RD (1 in the paper; 0 when the
    absence was already counted, :func:`rated_match`). RD and rating as computed,
    unclamped; ``games`` counts the results."""
    mu, phi = (player.rating - NEW_RATING) / SCALE, player.rd / SCALE
    if not results:
        return replace(player, rd=math.sqrt(phi**2 + periods * player.volatility**2) * SCALE)
    opponents = [((o.rating - NEW_RATING) / SCALE, o.rd / SCALE, score) for o, score in results]
    expected = [(_g(phi_j), _expected(mu, mu_j, phi_j), score) for mu_j, phi_j, score in opponents]
    v = 1 / sum(g**2 * e * (1 - e) for g, e, _ in expected)
    improvement = sum(g * (score - e) for g, e, score in expected)
    sigma = _new_volatility(player.volatility, phi, v, v * improvement, tau)
    phi_star = math.sqrt(phi**2 + periods * sigma**2)
    new_phi = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    new_mu = mu + new_phi**2 * improvement
    return replace(
        player,
        rating=new_mu * SCALE + NEW_RATING,
        rd=new_phi * SCALE,
        volatility=sigma,
        games=player.games + len(results),
    )


def rated_match(
    player: Rating, opponent: Rating, score: float, now: datetime, against_bot: bool = False
) -> Rating:
    """``player`` after one rated match against ``opponent`` ending at ``now`` with
    ``score`` (1 won, ½ drawn, 0 lost): both RDs aged to ``now`` first. Against a bot
    the rating's change is halved (the RD and volatility update in full)."""
    before = aged(player, now)
    after = updated(before, [(aged(opponent, now), score)], periods=0.0)
    change = after.rating - before.rating
    if against_bot:
        change *= BOT_CHANGE
    return replace(after, rating=before.rating + change, rd=clamped_rd(after.rd), last_rated_at=now)


def bot_rating(published: float) -> Rating:
    """A bot as an opponent: its published rating, settled, never aged."""
    return Rating(rating=published, rd=BOT_RD)


@dataclass(frozen=True)
class RatedSeat:
    """A seat of a rated match at its end, as the rating update needs it."""

    seat: int
    player_id: str
    score: float
    """Against the other seat: 1 won, ½ drawn, 0 lost."""
    bot_rating: float | None = None
    """A bot's published rating (it never moves); ``None``: a person."""


def settle(
    seats: Sequence[RatedSeat], stored: dict[str, Rating], now: datetime
) -> tuple[dict[str, Rating], list[dict[str, object]]]:
    """A two-seat rated match's end: the people's new ratings (by player id), and each
    seat's change as the match shows it (``rating_changes``). ``stored``: the people's
    ratings before (a missing one is new)."""
    one, two = seats

    def before(seat: RatedSeat) -> Rating:
        if seat.bot_rating is not None:
            return bot_rating(seat.bot_rating)
        return aged(stored.get(seat.player_id, Rating()), now)

    new: dict[str, Rating] = {}
    changes: list[dict[str, object]] = []
    for seat, other in ((one, two), (two, one)):
        was = before(seat)
        now_is = was
        if seat.bot_rating is None:
            now_is = rated_match(was, before(other), seat.score, now, other.bot_rating is not None)
            new[seat.player_id] = now_is
        changes.append(
            {
                "seat": seat.seat,
                "player": seat.player_id,
                "before": round(was.rating, 2),
                "after": round(now_is.rating, 2),
                "before_provisional": was.provisional,
                "after_provisional": now_is.provisional,
                "bot": seat.bot_rating is not None,
            }
        )
    return new, changes
