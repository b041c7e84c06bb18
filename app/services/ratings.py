"""Reading ratings: a player's per ruleset, their history, a ruleset's leaderboard.

Ratings change only in the write that finishes a rated match (``Store.append``); what
is read here shows each RD as it stands now, grown by the days since its last match.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Player, PlayerRating, RatingHistory
from app.ratings import PROVISIONAL_RD, Rating, aged, shown
from app.services.clock import system_now

LEADERBOARD_SIZE = 100
CHART_POINTS = 100
"""The player page's chart shows this many of the latest rated matches of a ruleset."""


def rating_of(row: PlayerRating) -> Rating:
    return Rating(row.rating, row.rd, row.volatility, row.games, row.updated_at)


def rating_json(rating: Rating) -> dict[str, Any]:
    return {
        "rating": round(rating.rating, 2),
        "rd": round(rating.rd, 2),
        "volatility": round(rating.volatility, 6),
        "games": rating.games,
        "provisional": rating.provisional,
        "shown": shown(rating),
    }


async def player_ratings(
    session: AsyncSession, player_id: str, now: datetime | None = None
) -> dict[str, dict[str, Any]]:
    """The player's rating in each ruleset they have played rated, by ruleset id."""
    now = now or system_now()
    query = select(PlayerRating).where(PlayerRating.player_id == player_id, PlayerRating.games > 0)
    rows = (await session.scalars(query.order_by(PlayerRating.ruleset))).all()
    return {row.ruleset: rating_json(aged(rating_of(row), now)) for row in rows}


async def rating_history(session: AsyncSession, player_id: str) -> dict[str, list[dict[str, Any]]]:
    """The player's latest rated matches by ruleset, oldest first: ``{"match", "before", "after", "at"}``."""
    query = (
        select(RatingHistory)
        .where(RatingHistory.player_id == player_id)
        .order_by(RatingHistory.at.desc(), RatingHistory.id.desc())
        .limit(CHART_POINTS * 10)
    )
    history: dict[str, list[dict[str, Any]]] = {}
    for row in (await session.scalars(query)).all():
        points = history.setdefault(row.ruleset, [])
        if len(points) < CHART_POINTS:
            points.append({"match": row.match_id, "before": row.before, "after": row.after, "at": row.at})
    return {ruleset: points[::-1] for ruleset, points in history.items()}


async def leaderboard(
    session: AsyncSession, ruleset: str, now: datetime | None = None, size: int = LEADERBOARD_SIZE
) -> list[dict[str, Any]]:
    """Established ratings of ``ruleset`` (RD < 110 now), best first."""
    now = now or system_now()
    query = (
        select(PlayerRating, Player.name)
        .join(Player, Player.id == PlayerRating.player_id)
        .where(PlayerRating.ruleset == ruleset, PlayerRating.rd < PROVISIONAL_RD, PlayerRating.games > 0)
        .order_by(PlayerRating.rating.desc(), PlayerRating.player_id)
    )
    rows = []
    for row, name in (await session.execute(query)).all():
        rating = aged(rating_of(row), now)
        if not rating.provisional:  # an absence may have made it provisional again
            rows.append(
                {
                    "player": {"id": row.player_id, "name": name},
                    "rating": round(rating.rating, 2),
                    "rd": round(rating.rd, 2),
                    "games": rating.games,
                }
            )
        if len(rows) == size:
            break
    return rows


CHART_WIDTH, CHART_HEIGHT, CHART_MARGIN = 300, 80, 6


def chart(points: list[dict[str, Any]]) -> dict[str, Any]:
    """A rating history as an SVG polyline the template draws (no chart library): the
    rating before the first match, then after each, evenly spaced, scaled to fit."""
    values = [points[0]["before"], *(p["after"] for p in points)] if points else []
    low, high = (min(values), max(values)) if values else (0.0, 0.0)
    span = max(high - low, 1.0)
    step = (CHART_WIDTH - 2 * CHART_MARGIN) / max(len(values) - 1, 1)
    inner = CHART_HEIGHT - 2 * CHART_MARGIN
    xy = [
        (round(CHART_MARGIN + i * step, 1), round(CHART_MARGIN + (high - value) / span * inner, 1))
        for i, value in enumerate(values)
    ]
    return {
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "points": " ".join(f"{x},{y}" for x, y in xy),
        "last": xy[-1] if xy else None,
        "low": round(low),
        "high": round(high),
        "matches": len(points),
    }
