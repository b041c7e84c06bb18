"""Rematch: offer, accept or decline, each answered live to the finished match's viewers."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Body
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import CurrentPlayer, HubDep, MatchId, ServiceDep, SessionDep, SettingsDep
from app.api.errors import BOT_QUOTA_RESPONSE, error_responses
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


async def tell_viewers(hub: Any, match: MatchRecord, now: datetime) -> dict[str, Any] | None:
    """Every viewer of the finished match, on every process, hears of the rematch now."""
    shown = views.rematch_json(match, now)
    await hub.broadcast(match.id, {"type": "rematch", "match": match.id, "rematch": shown})
    return shown


ANSWERS = error_responses(401, 403, 404, 409)


@router.post(
    "/{match_id}/rematch",
    responses={**ANSWERS, **BOT_QUOTA_RESPONSE},
    dependencies=[rate_limit("matches", signed_in=True)],
)
async def offer_rematch(
    match_id: MatchId,
    player: CurrentPlayer,
    service: ServiceDep,
    hub: HubDep,
    session: SessionDep,
    settings: SettingsDep,
) -> dict[str, Any]:
    """Offer a rematch of a finished match: the same ruleset and options, seats swapped.
    An offer left unanswered expires (``expires_at``); against a bot it is accepted at
    once, and ``rematch.match`` is the new match."""
    match = await rematch.offer(service, session, match_id, player, settings.bot_matches_per_player)
    return {"rematch": await tell_viewers(hub, match, service.now())}


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
    shown = await tell_viewers(hub, match, service.now())
    return {"rematch": shown, "match": await service.view(new, player)}


@router.post("/{match_id}/rematch/decline", responses=ANSWERS)
async def decline_rematch(
    match_id: MatchId, player: CurrentPlayer, service: ServiceDep, hub: HubDep
) -> dict[str, Any]:
    """Decline your opponent's offer."""
    match, _ = await rematch.answer(service, match_id, player, False)
    return {"rematch": await tell_viewers(hub, match, service.now())}
