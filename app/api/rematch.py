"""Rematch: offer, accept or decline, each answered live to the finished match's viewers."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import CurrentPlayer, HubDep, MatchId, ServiceDep
from app.api.errors import error_responses
from app.api.limits import rate_limit
from app.rules.dice import PLAYER_SEED_PATTERN
from app.services import rematch, views
from app.services.store import MatchRecord

router = APIRouter(prefix="/api/v1/matches", tags=["matches"])


class Accept(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seed: str | None = Field(
        None, pattern=PLAYER_SEED_PATTERN, description="Your own dice seed for the new match (hex)."
    )


async def tell_viewers(hub: Any, match: MatchRecord) -> dict[str, Any] | None:
    """Every viewer of the finished match, on every process, hears of the rematch now."""
    shown = views.rematch_json(match)
    await hub.broadcast(match.id, {"type": "rematch", "match": match.id, "rematch": shown})
    return shown


ANSWERS = error_responses(401, 403, 404, 409)


@router.post("/{match_id}/rematch", responses=ANSWERS)
async def offer_rematch(
    match_id: MatchId, player: CurrentPlayer, service: ServiceDep, hub: HubDep
) -> dict[str, Any]:
    """Offer a rematch of a finished match: the same ruleset and options, seats swapped."""
    match = await rematch.offer(service, match_id, player)
    return {"rematch": await tell_viewers(hub, match)}


@router.post(
    "/{match_id}/rematch/accept",
    responses=error_responses(401, 403, 404, 409, 413, 422),
    dependencies=[rate_limit("matches", signed_in=True)],
)
async def accept_rematch(
    match_id: MatchId,
    player: CurrentPlayer,
    service: ServiceDep,
    hub: HubDep,
    body: Annotated[Accept | None, Body()] = None,
) -> dict[str, Any]:
    """Accept your opponent's offer: the new match starts with both of you seated."""
    match, new = await rematch.answer(service, match_id, player, True, body.seed if body else None)
    return {"rematch": await tell_viewers(hub, match), "match": await service.view(new, player)}


@router.post("/{match_id}/rematch/decline", responses=ANSWERS)
async def decline_rematch(
    match_id: MatchId, player: CurrentPlayer, service: ServiceDep, hub: HubDep
) -> dict[str, Any]:
    """Decline your opponent's offer."""
    match, _ = await rematch.answer(service, match_id, player, False)
    return {"rematch": await tell_viewers(hub, match)}
