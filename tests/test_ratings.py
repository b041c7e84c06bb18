"""Glicko-2 (app/ratings.py): the paper's worked example, RD ageing, provisional ratings, bots."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.ratings import Rating, aged, bot_rating, rated_match, shown, updated

NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


def test_glickmans_worked_example_is_reproduced():
    """glicko2.pdf, section "Example": a 1500/200/0.06 player beats a 1400/30 and loses to
    1550/100 and 1700/300 in one period, τ = 0.5. The paper prints 1464.06 from rounded
    intermediate steps; unrounded it is 1464.05."""
    player = Rating(1500, 200, 0.06)
    results = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    after = updated(player, results, tau=0.5)
    assert after.rating == pytest.approx(1464.05, abs=0.005)
    assert after.rd == pytest.approx(151.52, abs=0.005)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)  # 0.059996
    assert after.games == 3


def test_rd_grows_with_days_of_absence_up_to_500():
    settled = Rating(1700, 50, 0.06, 40, NOW)
    assert aged(settled, NOW).rd == 50
    a_month, a_year = aged(settled, NOW + timedelta(days=30)), aged(settled, NOW + timedelta(days=365))
    assert 50 < a_month.rd < a_year.rd
    # φ* = √(φ² + σ²·t), t = 365 × 0.21436 periods: on the rating scale √(50² + (173.7178·0.06)²·78.24)
    assert a_year.rd == pytest.approx((50**2 + (173.7178 * 0.06) ** 2 * 365 * 0.21436) ** 0.5)
    assert aged(settled, NOW + timedelta(days=365 * 500)).rd == 500
    assert a_year.rating == 1700, "absence changes the RD only"


def test_rd_never_falls_below_45():
    player = Rating(1800, 46, 0.06, 500, NOW)
    for day in range(20):
        player = rated_match(player, Rating(1800, 45, 0.06, 500, NOW), 0.5, NOW + timedelta(minutes=day))
    assert player.rd == 45


def test_a_new_player_is_provisional_until_rd_falls_below_110():
    player = Rating()
    assert shown(player) == "1500?" and player.provisional
    games = 0
    while player.provisional:
        player = rated_match(player, Rating(1500, 60, 0.06, 100, NOW), 0.5, NOW + timedelta(seconds=games))
        games += 1
    assert player.rd < 110 and shown(player) == f"{round(player.rating)}"
    assert 5 < games < 40 and player.games == games


def test_a_win_raises_a_rating_and_a_loss_lowers_it_by_the_same_between_equals():
    won = rated_match(Rating(), Rating(), 1.0, NOW)
    lost = rated_match(Rating(), Rating(), 0.0, NOW)
    assert won.rating - 1500 == pytest.approx(1500 - lost.rating)
    assert won.rating > 1600 and won.rd < 500 and won.games == 1 and won.last_rated_at == NOW


def test_against_a_bot_the_change_is_halved():
    human = Rating(1500, 200, 0.06, 10, NOW)
    bot = bot_rating(1500)
    as_if_human = rated_match(human, bot, 1.0, NOW)
    against_bot = rated_match(human, bot, 1.0, NOW, against_bot=True)
    assert against_bot.rating - 1500 == pytest.approx((as_if_human.rating - 1500) / 2)
    assert against_bot.rd == as_if_human.rd, "the game still says as much about the RD"
