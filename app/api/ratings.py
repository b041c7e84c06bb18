"""Ratings: a player's public profile with their ratings, and each ruleset's leaderboard."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path

from app.api.deps import ServiceDep, SessionDep
from app.api.errors import error_responses
from app.api.json_input import NO_NUL
from app.api.schemas import Leaderboard, PlayerProfile
from app.models import Player
from app.rules import registry
from app.services import ratings
from app.services.errors import NotFound

router = APIRouter(prefix="/api/v1", tags=["ratings"])

PlayerId = Annotated[str, Path(max_length=64, pattern=NO_NUL, description="A player's id.")]
RulesetPath = Annotated[str, Path(max_length=64, pattern=NO_NUL, description="A ruleset id.")]


@router.get("/players/{player_id}", response_model=PlayerProfile, responses=error_responses(404, 422))
async def player_profile(player_id: PlayerId, session: SessionDep, service: ServiceDep) -> dict[str, Any]:
    """A player's name and Glicko-2 rating in each ruleset they have played rated."""
    player = await session.get(Player, player_id)
    if player is None:
        raise NotFound(f"no player with id {player_id!r}")
    return {
        "id": player.id,
        "name": player.name,
        "ratings": await ratings.player_ratings(session, player.id, service.now()),
    }


@router.get(
    "/rulesets/{ruleset_id}/leaderboard", response_model=Leaderboard, responses=error_responses(404, 422)
)
async def ruleset_leaderboard(
    ruleset_id: RulesetPath, session: SessionDep, service: ServiceDep
) -> dict[str, Any]:
    """The ruleset's established ratings (RD < 110), best first (at most 100)."""
    if ruleset_id not in registry():
        raise NotFound(f"no ruleset {ruleset_id!r}; rulesets: {', '.join(registry())}")
    return {"players": await ratings.leaderboard(session, ruleset_id, service.now())}
