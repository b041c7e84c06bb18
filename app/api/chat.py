"""``/api/v1/matches/{id}/chat``: the match's chat, kept with it and sent live over its websocket."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import (
    OPTIONAL_AUTH,
    CurrentPlayer,
    HubDep,
    MatchId,
    OptionalPlayer,
    SessionDep,
    SettingsDep,
)
from app.api.errors import error_responses
from app.api.json_input import INT64_MAX, SPACE, documented_pattern
from app.api.limits import CHAT_PLAYER, RateLimited, rate_limit
from app.models import Player
from app.services import chat
from app.services.errors import TooMany

router = APIRouter(prefix="/api/v1/matches", tags=["chat"], responses=error_responses(401, 403, 404, 413))

Channel = Literal["players", "spectators"]
TEXT_PATTERN = rf"^[^\x00]*[^\x00{SPACE}][^\x00]*$"
"""Something to read: a character that is not blank (``str.strip()``'s blanks), no NUL."""


class NewMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(
        min_length=1,
        max_length=chat.MAX_TEXT,
        description=f"1 to {chat.MAX_TEXT} characters, not all blank, shown as plain text.",
        # Documented for clients; checked by chat.clean_text, whose refusals say what is wrong.
        json_schema_extra=documented_pattern(TEXT_PATTERN),
    )
    channel: Channel = Field(
        "players", description="'players' for the seated players and the GM, 'spectators' for everyone else."
    )


class ChatPlayer(BaseModel):
    id: str
    name: str


class ChatMessageOut(BaseModel):
    id: int = Field(description="Increasing within the match; pass as ``after`` to read on.")
    at: str = Field(description="When it was posted (ISO 8601, UTC).")
    channel: Channel
    player: ChatPlayer = Field(description="Who posted it, by id, with the name they have now.")
    author_name: str = Field(description="The author's name when posting: a later rename does not change it.")
    author_role: str = Field(
        description="What the author was in the match when posting: a seat's name in lower case "
        "('blue', 'red', 'light', …), 'gm' or 'spectator'. Show it beside the name."
    )
    text: str


class ChatMessages(BaseModel):
    messages: list[ChatMessageOut]


def spender(request: Request, player: Player, per_minute: int) -> Callable[[], Awaitable[None]]:
    """Takes one of ``player``'s chat messages this minute, or refuses with a 429.

    The count is taken atomically where the rate limits count (``app/api/limits.py``:
    Redis for every process, or this process's memory), so that concurrent posts cannot
    all pass (a count of the stored messages could)."""

    async def spend() -> None:
        try:
            await request.app.state.limiter.take(CHAT_PLAYER, player.id)
        except RateLimited as limited:
            message = f"at most {per_minute} messages a minute: wait a moment"
            raise TooMany(message, retry_after=limited.retry_after) from None

    return spend


@router.post(
    "/{match_id}/chat",
    status_code=201,
    response_model=ChatMessageOut,
    dependencies=[rate_limit("chat", signed_in=True)],
)
async def post_message(
    match_id: MatchId,
    body: NewMessage,
    request: Request,
    player: CurrentPlayer,
    session: SessionDep,
    settings: SettingsDep,
    hub: HubDep,
) -> dict[str, Any]:
    """Post to the match's chat; every connection that may read the channel gets it live.
    A spectator whose name is that of a player of the match is refused (422)."""
    spend = spender(request, player, settings.chat_messages_per_minute)
    match, message = await chat.post(session, match_id, player, body.channel, body.text, spend)
    await hub.broadcast(match.id, {"type": "chat", **message}, chat.hidden_from(match, body.channel))
    return message


@router.get("/{match_id}/chat", response_model=ChatMessages, openapi_extra=OPTIONAL_AUTH)
async def read_messages(
    match_id: MatchId,
    viewer: OptionalPlayer,
    session: SessionDep,
    channel: Channel = "players",
    after: Annotated[int, Query(ge=0, le=INT64_MAX, description="Only messages with a greater id.")] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 500,
) -> dict[str, Any]:
    """The channel's messages, oldest first: the match's chat as kept with it (its export).
    The spectators' channel is public while the match runs: only a reader identified as
    seated is refused it, so it keeps no secrets from the players."""
    return {"messages": await chat.read(session, match_id, viewer, channel, after, limit)}
