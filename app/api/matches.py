from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from fastapi import APIRouter, Body, Depends, Path, Query, Request
from fastapi.responses import Response
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    WithJsonSchema,
    create_model,
)

from app.api.deps import (
    OPTIONAL_AUTH,
    CurrentPlayer,
    MatchId,
    OptionalPlayer,
    ServiceDep,
    SessionDep,
    SettingsDep,
)
from app.api.errors import BOT_QUOTA_RESPONSE, error_responses
from app.api.exports import NDJSON, ndjson_response, wants_ndjson
from app.api.json_input import INT32_MAX, NO_NUL, storable_object_schema
from app.api.limits import export_limit, rate_limit, viewer_export_limit
from app.api.schemas import Applied, AtView, LogEntry, LogPage, MatchPage, MatchSummary, MatchView, Presence
from app.bots import all_bots
from app.bots.seating import check_bot_quota, check_bot_seats, seat_bot
from app.models import Player
from app.rules import get_ruleset, registry
from app.rules.base import Ruleset
from app.rules.dice import PLAYER_SEED_PATTERN
from app.services import records
from app.services.errors import NotFound

router = APIRouter(prefix="/api/v1/matches", tags=["matches"], responses=error_responses(429, 503))


def links_to_the_match() -> dict[str, Any]:
    """OpenAPI links: what a client does next with the id of the match it created."""
    by_id = {"match_id": "$response.body#/id"}
    return {
        name: {"operationId": operation, "parameters": by_id}
        for name, operation in (
            ("GetMatch", "get_match"),
            ("JoinMatch", "join_match"),
            ("SendAction", "send_action"),
            ("MatchEvents", "match_events"),
        )
    }


def not_a_boolean(value: Any) -> Any:
    # JSON Schema's integer is any whole number (1.0 too) but never true or false.
    if isinstance(value, bool):
        raise ValueError("must be a number, not true or false")
    return value


WholeNumber = Annotated[int, BeforeValidator(not_a_boolean)]
MOST_SEATS = max(r.seats for r in registry().values())
SeatNumber = Annotated[int, Field(ge=0, le=MOST_SEATS - 1), BeforeValidator(not_a_boolean)]


RulesetId = Literal[tuple(registry())]  # type: ignore[valid-type]


def bot_seat_model(ruleset: Ruleset) -> type[BaseModel]:
    """A bot to seat at a match's creation: one of the ruleset's own bots."""
    name = "".join(part.capitalize() for part in ruleset.id.split("-"))
    ids = tuple(b.id for b in all_bots().values() if b.ruleset == ruleset.id)
    return create_model(
        f"{name}BotSeat",
        __config__=ConfigDict(extra="forbid"),
        seat=(Annotated[int, Field(ge=0, le=ruleset.seats - 1), BeforeValidator(not_a_boolean)], ...),
        bot=(Literal[ids], Field(description="A bot id from GET /api/v1/bots.")),
    )


def new_match_model(ruleset: Ruleset) -> type[BaseModel]:
    """The body that creates a match of ``ruleset``, with that ruleset's own options."""
    name = "".join(part.capitalize() for part in ruleset.id.split("-"))
    return create_model(
        f"New{name}Match",
        __config__=ConfigDict(extra="forbid"),
        ruleset=(Literal[ruleset.id], Field(description="A ruleset id from GET /api/v1/rulesets.")),
        options=(ruleset.options_schema, Field(default_factory=ruleset.options_schema)),
        seat=(
            SeatNumber | None,
            Field(0, description="The creator's seat; null hosts without playing (a GM)."),
        ),
        seed=(
            str | None,
            Field(
                None,
                pattern=PLAYER_SEED_PATTERN,
                description="Your own dice seed for your seat (hex, 16 to 64 bytes), mixed into every "
                "die (docs/dice.md); omitted: the server draws one.",
            ),
        ),
        bots=(
            list[bot_seat_model(ruleset)],
            Field(default_factory=list, max_length=8, description="Bots to seat at once (GET /api/v1/bots)."),
        ),
        rated=(
            StrictBool,
            Field(
                False,
                description="Rated: the result changes both players' ratings (Glicko-2 per ruleset) once "
                "every seat has played; against a bot only the person's, by half. False: casual.",
            ),
        ),
    )


NewMatch = Annotated[
    Union[tuple(new_match_model(r) for r in registry().values())],  # noqa: UP007
    Field(discriminator="ruleset"),
]


class JoinMatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seat: SeatNumber | None = Field(None, description="The seat to take; omitted: the first free one.")
    seed: str | None = Field(
        None,
        pattern=PLAYER_SEED_PATTERN,
        description="Your own dice seed (hex, 16 to 64 bytes); omitted: the server draws one. "
        "A seat taken after the start keeps the seed it had.",
    )


ACTION_SCHEMA = {
    **storable_object_schema(),
    "properties": {"type": {"type": "string", "pattern": NO_NUL}},
    "required": ["type"],
}
"""An action as every ruleset takes it (``GET /api/v1/rulesets/{id}``'s ``actions_schema``
has the shape of each): an object with a string ``type``."""


class SendAction(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: Annotated[dict[str, Any], WithJsonSchema(ACTION_SCHEMA)] = Field(
        description="One of your legal_actions, sent back verbatim (each names its ``type``)."
    )
    version: WholeNumber = Field(
        ge=-INT32_MAX, le=INT32_MAX, description="The match version the action was chosen at."
    )


@router.post(
    "",
    status_code=201,
    response_model=MatchView,
    response_model_exclude_unset=True,
    responses={
        **error_responses(400, 401, 409, 413, 422),
        **BOT_QUOTA_RESPONSE,
        201: {"links": links_to_the_match()},
    },
    dependencies=[rate_limit("matches", signed_in=True)],
)
async def create_match(
    body: Annotated[NewMatch, Body()],
    player: CurrentPlayer,
    service: ServiceDep,
    session: SessionDep,
    settings: SettingsDep,
) -> dict[str, Any]:
    """Create a match; the creator is its host. ``bots`` take their seats at once (429 past
    the host's quota of unfinished matches with a bot, ``BOT_MATCHES_PER_PLAYER``)."""
    bots = []
    quota = settings.bot_matches_per_player
    if body.bots:  # checked before anything is created
        ruleset = get_ruleset(body.ruleset)
        bots = check_bot_seats(ruleset.id, ruleset.seats, body.seat, [(b.seat, b.bot) for b in body.bots])
        await check_bot_quota(session, player, quota)
    options = body.options.model_dump(mode="json", exclude_unset=True)
    match = await service.create(player, body.ruleset, options, body.seat, body.seed, rated=body.rated)
    for seat, bot in bots:
        match = await seat_bot(service, session, match.id, player, seat, bot.id, quota)
    return await service.view(match, player)


NDJSON_ANSWER: dict[int | str, dict[str, Any]] = {
    200: {
        "content": {
            NDJSON: {"schema": {"type": "string", "description": "one JSON object per line"}},
        },
        "description": "With Accept: application/x-ndjson, every item streamed, one JSON object "
        "per line; at most one such export streaming at a time per address (else 429, retry in a minute).",
    },
}


@router.get(
    "",
    response_model=MatchPage,
    response_model_exclude_unset=True,
    responses={**error_responses(404, 422), **NDJSON_ANSWER},
    dependencies=[Depends(export_limit)],
)
async def match_history(
    request: Request,
    service: ServiceDep,
    session: SessionDep,
    player: Annotated[
        str | None,
        Query(max_length=64, pattern=NO_NUL, description="Matches this player hosts or plays."),
    ] = None,
    ruleset: RulesetId | None = None,
    status: Literal["waiting", "active", "finished"] | None = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    cursor: Annotated[
        str | None, Query(pattern=r"^[1-9][0-9]{0,17}$", description="A page's next_cursor.")
    ] = None,
) -> dict[str, Any] | Response:
    """Match summaries, newest first; pass ``next_cursor`` back as ``cursor`` for the next page.
    With ``Accept: application/x-ndjson``: every matching summary, newest first, one
    per line, streamed (no ``limit`` or ``cursor``)."""
    if player is not None:
        known = await session.get(Player, player)
        await session.commit()  # end the read: the history takes a connection of its own
        if known is None:
            raise NotFound(f"player: no player with id {player!r}")
    if wants_ndjson(request):
        return ndjson_response(
            request, records.summaries(service.store, player, ruleset, status), MatchSummary
        )
    matches, next_cursor = await service.history(player, ruleset, status, limit, cursor)
    return {"matches": matches, "next_cursor": next_cursor}


@router.get(
    "/{match_id}",
    operation_id="get_match",
    response_model=MatchView,
    response_model_exclude_unset=True,
    responses=error_responses(401, 404),
    openapi_extra=OPTIONAL_AUTH,
)
async def get_match(match_id: MatchId, viewer: OptionalPlayer, service: ServiceDep) -> dict[str, Any]:
    """The match as the caller may see it, with the caller's legal actions."""
    return await service.view(await service.get(match_id), viewer)


@router.post(
    "/{match_id}/join",
    operation_id="join_match",
    response_model=MatchView,
    response_model_exclude_unset=True,
    responses=error_responses(400, 401, 404, 409, 413, 422),
)
async def join_match(
    match_id: MatchId,
    player: CurrentPlayer,
    service: ServiceDep,
    body: Annotated[JoinMatch | None, Body()] = None,
) -> dict[str, Any]:
    """Take a seat; the match starts when every seat is taken (GM-run matches: when the host starts it)."""
    seed = body.seed if body else None
    match = await service.join(match_id, player, body.seat if body else None, player_seed=seed)
    return await service.view(match, player)


@router.post(
    "/{match_id}/actions",
    operation_id="send_action",
    response_model=Applied,
    response_model_exclude_unset=True,
    responses=error_responses(400, 401, 403, 404, 409, 413, 422),
    dependencies=[rate_limit("actions", signed_in=True)],
)
async def send_action(
    match_id: MatchId, body: SendAction, player: CurrentPlayer, service: ServiceDep
) -> dict[str, Any]:
    """Apply one of the caller's legal actions at the current version."""
    applied = await service.act(match_id, player, body.action, body.version)
    return {"version": applied.version, "events": applied.seen()}


@router.get(
    "/{match_id}/at/{version}",
    response_model=AtView,
    response_model_exclude_unset=True,
    responses=error_responses(404, 422),
)
async def match_at(
    match_id: MatchId,
    version: Annotated[int, Path(ge=0, le=INT32_MAX)],
    service: ServiceDep,
    log: Annotated[bool, Query(description="Include the log up to ``version``.")] = True,
) -> dict[str, Any]:
    """The match view right after ``version``, as a spectator saw it then (404: a
    version not reached). Once the match is finished it also shows what was hidden
    then (``hidden``); ``log`` is every entry up to ``version`` (others' private
    choices hidden while the match runs)."""
    return await records.view_at(service.store, match_id, version, with_log=log)


@router.get(
    "/{match_id}/events",
    operation_id="match_events",
    response_model=LogPage,
    response_model_exclude_unset=True,
    responses={**error_responses(401, 404, 422), **NDJSON_ANSWER},
    openapi_extra=OPTIONAL_AUTH,
    dependencies=[Depends(viewer_export_limit)],
)
async def match_events(
    request: Request,
    match_id: MatchId,
    service: ServiceDep,
    viewer: OptionalPlayer,
    after: Annotated[int, Query(ge=0, le=INT32_MAX)] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 1000,
) -> dict[str, Any] | Response:
    """Every applied action after version ``after``, in order, with its events (dice included).
    With ``Accept: application/x-ndjson``: every entry after ``after``, one per line, streamed."""
    if wants_ndjson(request):
        viewer_id = viewer.id if viewer else None
        pages = await records.log_pages(service.store, match_id, viewer_id, after)
        return ndjson_response(request, pages, LogEntry)
    return {"events": await service.log(match_id, viewer, after, limit)}


@router.get("/{match_id}/presence", response_model=Presence, responses=error_responses(404))
async def match_presence(match_id: MatchId, request: Request, service: ServiceDep) -> dict[str, Any]:
    """Each seat: ``connected`` (a websocket of its player is open now) and ``last_seen``."""
    return {"seats": await request.app.state.presence.of_match(await service.get(match_id))}
