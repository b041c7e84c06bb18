"""Bots: the list of computer opponents, and seating one in a match (shared/API.md "Bots")."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from app.api.deps import CurrentPlayer, MatchId, ServiceDep, SessionDep, SettingsDep
from app.api.errors import BOT_QUOTA_RESPONSE, error_responses
from app.api.matches import SeatNumber
from app.api.schemas import MatchView
from app.bots import all_bots
from app.bots.seating import seat_bot

router = APIRouter(prefix="/api/v1", tags=["bots"])


class BotOut(BaseModel):
    id: str
    name: str
    rulesets: list[str]
    level: int = Field(description="1 for a ruleset's weakest bot, upward.")
    description: str
    rating: float = Field(
        description="Its published rating in its ruleset: what a rated match against it counts it at "
        "(it never moves; docs/bots.md)."
    )


BotId = Literal[tuple(all_bots())]  # type: ignore[valid-type]


def bot_ids_by_ruleset() -> dict[str, Any]:
    """The JSON Schema of a bot id, one choice per ruleset: the ids of the bots that play it."""
    ids: dict[str, list[str]] = {}
    for bot in all_bots().values():
        ids.setdefault(bot.ruleset, []).append(bot.id)
    return {
        "type": "string",
        "oneOf": [
            {"title": f"Bots for {ruleset} matches", "enum": ruleset_ids}
            for ruleset, ruleset_ids in ids.items()
        ],
    }


class SeatBot(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seat: SeatNumber = Field(description="An open seat, or the NPC seat of a GM-run match.")
    bot: Annotated[BotId, WithJsonSchema(bot_ids_by_ruleset())] = Field(
        description="A bot id from GET /api/v1/bots, of a bot that plays the match's ruleset (the "
        "choice titled with it); another ruleset's bot is refused (422, shared/API.md)."
    )


@router.get("/bots", response_model=list[BotOut])
async def list_bots() -> list[dict[str, Any]]:
    """Every bot, by ruleset and level."""
    return [bot.describe() for bot in all_bots().values()]


@router.post(
    "/matches/{match_id}/bots",
    response_model=MatchView,
    response_model_exclude_unset=True,
    responses={**error_responses(401, 403, 404, 409, 422), **BOT_QUOTA_RESPONSE},
)
async def add_bot(
    match_id: MatchId,
    body: SeatBot,
    player: CurrentPlayer,
    service: ServiceDep,
    session: SessionDep,
    settings: SettingsDep,
) -> dict[str, Any]:
    """The host seats a bot: it plays that seat on its own from now on. The first bot of a
    match counts towards the host's quota of unfinished matches with a bot (429 past it)."""
    quota = settings.bot_matches_per_player
    match = await seat_bot(service, session, match_id, player, body.seat, body.bot, quota)
    return await service.view(match, player)
