"""Leagues (issue 32, shared/API.md "Leagues"): create, join, bots, start, withdraw,
adjudicate, the league's view and its NDJSON export, and its live websocket."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from functools import partial
from typing import Annotated, Any, Literal, Union

import orjson
from fastapi import APIRouter, Body, Depends, FastAPI, Path, Request, WebSocket
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool, WithJsonSchema, create_model

from app.api.bots import BotId, bot_ids_by_ruleset
from app.api.deps import CurrentPlayer, SessionDep
from app.api.errors import error_responses
from app.api.exports import NDJSON, GatedStream, export_gate
from app.api.json_input import NO_NUL
from app.api.limits import client_address, rate_limit
from app.api.schemas import PlayerRef
from app.bots.seating import bot_player
from app.rules import registry
from app.rules.base import Ruleset
from app.services.leagues import FORMATS, MAX_SWISS_ROUNDS, RESULTS, LeagueService

router = APIRouter(prefix="/api/v1/leagues", tags=["leagues"], responses=error_responses(429, 503))
socket_router = APIRouter()

LeagueId = Annotated[
    str, Path(max_length=64, pattern=NO_NUL, description="The league's id, as POST /api/v1/leagues gives it.")
]
TWO_SEATS = [r for r in registry().values() if r.seats == 2]


def league_service(app: FastAPI) -> LeagueService:
    state = app.state
    return LeagueService(state.store, state.publish, lambda: state.now(), state.league_rooms.say)


def get_league_service(request: Request) -> LeagueService:
    return league_service(request.app)


LeagueServiceDep = Annotated[LeagueService, Depends(get_league_service)]


def new_league_model(ruleset: Ruleset) -> type[BaseModel]:
    """The body that creates a league of ``ruleset``'s matches, with its own options."""
    name = "".join(part.capitalize() for part in ruleset.id.split("-"))
    return create_model(
        f"New{name}League",
        __config__=ConfigDict(extra="forbid"),
        name=(str, Field(min_length=1, max_length=80, pattern=NO_NUL, description="The league's name.")),
        ruleset=(
            Literal[ruleset.id],
            Field(description="A two-player ruleset id from GET /api/v1/rulesets."),
        ),
        options=(
            ruleset.options_schema,
            Field(
                default_factory=ruleset.options_schema,
                description="Every league match's options (a clock, per_move_s, for correspondence).",
            ),
        ),
        format=(Literal[FORMATS], Field(description="round-robin (Berger tables) or swiss (FIDE Dutch).")),
        rounds=(
            int | None,
            Field(
                None,
                ge=1,
                le=MAX_SWISS_ROUNDS,
                description="Swiss: how many rounds (fewer than the players; omitted: about log2 of the "
                "players, chosen at the start). Round-robin: ignored (its rounds follow from its players).",
            ),
        ),
        double=(
            StrictBool,
            Field(False, description="Round-robin: each pair twice, colours swapped (Swiss: ignored)."),
        ),
        rated=(StrictBool, Field(False, description="Its matches are rated (Glicko-2).")),
        play=(StrictBool, Field(True, description="The host plays in it; false: only runs it (a GM).")),
    )


NewLeague = Annotated[
    Union[tuple(new_league_model(r) for r in TWO_SEATS)],  # noqa: UP007
    Field(discriminator="ruleset"),
]


class LeagueEntrant(BaseModel):
    id: str
    name: str
    bot: str | None = Field(description="The bot's id when the host entered a bot.")
    withdrawn: bool


class LeaguePairing(BaseModel):
    seats: list[PlayerRef | None] = Field(description="Seat 0 (moves first), seat 1; seat 1 null: a bye.")
    match: str | None = Field(description="The match's id (none for a bye).")
    result: Literal["1-0", "0-1", "½-½", "bye"] | None
    forfeit: bool = Field(description="Decided without play: a withdrawal or the host's adjudication.")


class LeagueRound(BaseModel):
    round: int
    pairings: list[LeaguePairing]


class LeagueStanding(BaseModel):
    player: PlayerRef
    points: float
    played: int
    won: int
    drawn: int
    lost: int
    tiebreak: float = Field(description="Sonneborn–Berger (round-robin) or Buchholz (swiss).")


class LeagueView(BaseModel):
    id: str
    name: str
    host: PlayerRef
    ruleset: str
    options: dict[str, Any]
    format: Literal["round-robin", "swiss"]
    total_rounds: int = Field(description="Swiss: the rounds to play; round-robin: 0 until it starts.")
    double: bool
    rated: bool
    status: Literal["open", "running", "finished"]
    created_at: datetime
    players: list[LeagueEntrant]
    rounds: list[LeagueRound] = Field(description="Every round paired so far.")
    standings: list[LeagueStanding] = Field(description="Points, then the tiebreak; best first.")


class LeagueBot(BaseModel):
    model_config = ConfigDict(extra="forbid")
    bot: Annotated[BotId, WithJsonSchema(bot_ids_by_ruleset())] = Field(
        description="A bot id from GET /api/v1/bots, of a bot that plays the league's ruleset (the choice "
        "titled with it); another ruleset's bot is refused (422)."
    )


class LeagueWithdrawal(BaseModel):
    model_config = ConfigDict(extra="forbid")
    player: str | None = Field(
        None,
        max_length=64,
        pattern=NO_NUL,
        description="Who withdraws (the host may name anyone); omitted: you.",
    )


class LeagueAdjudication(BaseModel):
    model_config = ConfigDict(extra="forbid")
    round: int = Field(ge=1, le=1000, description="The round, from 1.")
    pairing: int = Field(ge=0, le=1000, description="The pairing's place in the round's list, from 0.")
    result: Literal[RESULTS] = Field(description="1-0: seat 0 wins; 0-1: seat 1 wins; ½-½: a draw.")


class LeagueHelloFrame(BaseModel):
    """Sent once the league's socket is open: news of the league follows."""

    type: Literal["hello"]
    league: str


class LeagueChangedFrame(BaseModel):
    """The league changed (a result, a round, an entrant, its status): fetch GET /api/v1/leagues/{id}."""

    type: Literal["league"]
    league: str


class LeaguePingFrame(BaseModel):
    """A keep-alive: answered with a pong."""

    type: Literal["ping"]


class LeaguePongFrame(BaseModel):
    """The answer to a ping."""

    type: Literal["pong"]


LEAGUE_SERVER_FRAMES = (LeagueHelloFrame, LeagueChangedFrame, LeaguePongFrame)
LEAGUE_CLIENT_FRAMES = (LeaguePingFrame,)
LEAGUE_ANSWER = {"response_model": LeagueView}


def links_to_the_league() -> dict[str, Any]:
    """OpenAPI links: what a client does next with the id of the league it created."""
    by_id = {"league_id": "$response.body#/id"}
    return {
        name: {"operationId": operation, "parameters": by_id}
        for name, operation in (
            ("GetLeague", "get_league"),
            ("JoinLeague", "join_league"),
            ("EnterLeagueBot", "enter_league_bot"),
            ("StartLeague", "start_league"),
            ("WithdrawFromLeague", "withdraw_from_league"),
            ("AdjudicateLeagueGame", "adjudicate_league_game"),
            ("ExportLeague", "export_league"),
        )
    }


@router.post(
    "",
    operation_id="create_league",
    status_code=201,
    responses={**error_responses(401, 413, 422), 201: {"links": links_to_the_league()}},
    dependencies=[rate_limit("matches", signed_in=True)],
    **LEAGUE_ANSWER,
)
async def create_league(
    body: Annotated[NewLeague, Body()], player: CurrentPlayer, leagues: LeagueServiceDep
) -> dict[str, Any]:
    """Create a league; the creator is its host (and plays in it unless ``play`` is false)."""
    league = await leagues.create(
        player,
        body.name,
        body.ruleset,
        body.options.model_dump(mode="json"),
        body.format,
        body.rounds,
        body.double,
        body.rated,
        body.play,
    )
    return leagues.view(league)


@router.get("/{league_id}", operation_id="get_league", responses=error_responses(404, 422), **LEAGUE_ANSWER)
async def get_league(league_id: LeagueId, leagues: LeagueServiceDep) -> dict[str, Any]:
    """The league: its players, rounds with pairings and results, and standings."""
    return leagues.view(await leagues.load(league_id))


@router.post(
    "/{league_id}/join",
    operation_id="join_league",
    responses=error_responses(401, 404, 409, 422),
    dependencies=[rate_limit("actions", signed_in=True)],
    **LEAGUE_ANSWER,
)
async def join_league(
    league_id: LeagueId, player: CurrentPlayer, leagues: LeagueServiceDep
) -> dict[str, Any]:
    """Enter the league while it is open (joining again changes nothing)."""
    return leagues.view(await leagues.join(league_id, player))


@router.post(
    "/{league_id}/bots",
    operation_id="enter_league_bot",
    responses=error_responses(401, 403, 404, 409, 422),
    dependencies=[rate_limit("actions", signed_in=True)],
    **LEAGUE_ANSWER,
)
async def enter_bot(
    league_id: LeagueId,
    body: LeagueBot,
    player: CurrentPlayer,
    session: SessionDep,
    leagues: LeagueServiceDep,
) -> dict[str, Any]:
    """The host enters a bot while the league is open: it plays its league matches on its own."""
    return leagues.view(await leagues.add_bot(league_id, player, body.bot, partial(bot_player, session)))


@router.post(
    "/{league_id}/start",
    operation_id="start_league",
    responses=error_responses(401, 403, 404, 409, 422),
    dependencies=[rate_limit("matches", signed_in=True)],
    **LEAGUE_ANSWER,
)
async def start_league(
    league_id: LeagueId, player: CurrentPlayer, leagues: LeagueServiceDep
) -> dict[str, Any]:
    """The host starts the league: the first round (round-robin: every round) is paired and
    its matches created, with the league's ruleset and options."""
    return leagues.view(await leagues.start(league_id, player))


@router.post(
    "/{league_id}/withdraw",
    operation_id="withdraw_from_league",
    responses=error_responses(401, 403, 404, 409, 422),
    dependencies=[rate_limit("actions", signed_in=True)],
    **LEAGUE_ANSWER,
)
async def withdraw_from_league(
    league_id: LeagueId,
    player: CurrentPlayer,
    leagues: LeagueServiceDep,
    body: Annotated[LeagueWithdrawal | None, Body()] = None,
) -> dict[str, Any]:
    """Withdraw (the host may withdraw anyone, a bot too). Before the start, they leave; after,
    their unplayed matches are lost by forfeit (round-robin: all; swiss: this round's) and they
    are not paired again."""
    return leagues.view(await leagues.withdraw(league_id, player, body.player if body else None))


@router.post(
    "/{league_id}/adjudicate",
    operation_id="adjudicate_league_game",
    responses=error_responses(401, 403, 404, 409, 422),
    dependencies=[rate_limit("actions", signed_in=True)],
    **LEAGUE_ANSWER,
)
async def adjudicate_game(
    league_id: LeagueId, body: LeagueAdjudication, player: CurrentPlayer, leagues: LeagueServiceDep
) -> dict[str, Any]:
    """The host decides an unfinished game (``round``, and ``pairing``: its place in the
    round's list, from 0) that will never be played. The result stands as a forfeit and its
    match ends with it: the loser resigns it, or for ½-½ a draw is agreed."""
    return leagues.view(await leagues.adjudicate(league_id, player, body.round, body.pairing, body.result))


@router.get(
    "/{league_id}/export",
    operation_id="export_league",
    responses={
        **error_responses(404, 422),
        200: {
            "content": {NDJSON: {"schema": {"type": "string", "description": "one JSON object per line"}}},
            "description": 'The league (``"type": "league"``, as GET gives it), then each of its games '
            '(``"type": "game"``), one JSON object per line.',
        },
    },
    response_class=StreamingResponse,
)
async def export_league(
    league_id: LeagueId, request: Request, leagues: LeagueServiceDep
) -> StreamingResponse:
    """The league and its games as NDJSON (one export streaming at a time per address)."""
    league = await leagues.load(league_id)
    await request.app.state.limiter.take("exports", client_address(request))
    view = LeagueView.model_validate(leagues.view(league)).model_dump(mode="json")
    lines = [{"type": "league", **view}]
    for game in league.games:
        lines.append(
            {
                "type": "game",
                "league": league.id,
                "round": game.round,
                "pairing": game.board,
                "seats": [game.first, game.second],
                "match": game.match,
                "result": game.result,
                "forfeit": game.forfeit,
            }
        )
    gate, client = export_gate(request), client_address(request)
    gate.enter(client)

    async def stream() -> AsyncIterator[bytes]:
        for line in lines:
            yield orjson.dumps(line) + b"\n"

    return GatedStream(stream(), lambda: gate.leave(client))


@socket_router.websocket("/ws/leagues/{league_id}")
async def league_socket(websocket: WebSocket, league_id: str) -> None:
    """Live news of a league: ``{"type": "league", "league": id}`` whenever it changes."""
    app = websocket.app
    await app.state.league_rooms.serve(websocket, league_id, app.state.settings)
