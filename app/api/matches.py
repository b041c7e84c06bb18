from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import CurrentPlayer, OptionalPlayer, ServiceDep

router = APIRouter(prefix="/api/v1/matches", tags=["matches"])


class NewMatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ruleset: str = Field(description="A ruleset id from GET /api/v1/rulesets.")
    options: dict[str, Any] = Field(default_factory=dict)
    seat: int | None = Field(0, description="The creator's seat; null hosts without playing (a GM).")


class JoinMatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seat: int | None = Field(None, description="The seat to take; omitted: the first free one.")


class SendAction(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: dict[str, Any] = Field(description="One of your legal_actions, sent back verbatim.")
    version: int = Field(description="The match version the action was chosen at.")


class Applied(BaseModel):
    version: int
    events: list[dict[str, Any]]


@router.post("", status_code=201)
async def create_match(body: NewMatch, player: CurrentPlayer, service: ServiceDep) -> dict[str, Any]:
    """Create a match; the creator is its host."""
    match = await service.create(player, body.ruleset, body.options, body.seat)
    return await service.view(match, player)


@router.get("")
async def match_history(
    service: ServiceDep,
    player: Annotated[str | None, Query(max_length=64)] = None,
    ruleset: Annotated[str | None, Query(max_length=64)] = None,
    status: Annotated[str | None, Query(max_length=16)] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    cursor: Annotated[str | None, Query(max_length=64)] = None,
) -> dict[str, Any]:
    """Match summaries, newest first; pass ``next_cursor`` back as ``cursor`` for the next page."""
    matches, next_cursor = await service.history(player, ruleset, status, limit, cursor)
    return {"matches": matches, "next_cursor": next_cursor}


@router.get("/{match_id}")
async def get_match(match_id: str, viewer: OptionalPlayer, service: ServiceDep) -> dict[str, Any]:
    """The match as the caller may see it, with the caller's legal actions."""
    return await service.view(await service.get(match_id), viewer)


@router.post("/{match_id}/join")
async def join_match(
    match_id: str,
    player: CurrentPlayer,
    service: ServiceDep,
    body: Annotated[JoinMatch | None, Body()] = None,
) -> dict[str, Any]:
    """Take a seat; the match starts when every seat is taken (GM-run matches: when the host starts it)."""
    match = await service.join(match_id, player, body.seat if body else None)
    return await service.view(match, player)


@router.post("/{match_id}/actions", response_model=Applied)
async def send_action(match_id: str, body: SendAction, player: CurrentPlayer, service: ServiceDep) -> Applied:
    """Apply one of the caller's legal actions at the current version."""
    applied = await service.act(match_id, player, body.action, body.version)
    return Applied(version=applied.version, events=applied.events)


@router.get("/{match_id}/events")
async def match_events(
    match_id: str,
    service: ServiceDep,
    viewer: OptionalPlayer,
    after: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 1000,
) -> dict[str, Any]:
    """Every applied action after version ``after``, in order, with its events (dice included)."""
    return {"events": await service.log(match_id, viewer, after, limit)}
