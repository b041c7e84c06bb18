"""Request dependencies: database session, the caller, the match service."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.models import Player
from app.services.errors import Unauthorized
from app.services.matches import MatchService
from app.services.players import player_by_token


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    async with request.app.state.sessionmaker() as session:
        yield session


SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionDep = Annotated[AsyncSession, Depends(get_session)]


def request_token(request: Request, settings: SettingsDep) -> str | None:
    """The bearer token from ``Authorization: Bearer …``, else from the browser cookie."""
    header = request.headers.get("authorization")
    if header:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("the Authorization header must be 'Bearer <token>'")
        return token.strip()
    return request.cookies.get(settings.cookie_name)


async def optional_player(
    session: SessionDep, token: Annotated[str | None, Depends(request_token)]
) -> Player | None:
    if token is None:
        return None
    player = await player_by_token(session, token)
    if player is None:
        raise Unauthorized("the token is not valid")
    return player


OptionalPlayer = Annotated[Player | None, Depends(optional_player)]


async def current_player(player: OptionalPlayer) -> Player:
    if player is None:
        raise Unauthorized("sign in: send 'Authorization: Bearer <token>' (POST /api/v1/players gives one)")
    return player


CurrentPlayer = Annotated[Player, Depends(current_player)]


def get_service(request: Request, session: SessionDep) -> MatchService:
    return MatchService(session, request.app.state.hub.publish, request.app.state.recent)


ServiceDep = Annotated[MatchService, Depends(get_service)]
