"""Request dependencies: database session, the caller, the match service."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import Depends, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncSession

from app.api.json_input import NO_NUL
from app.config import Settings
from app.models import Player
from app.realtime.hub import Hub
from app.services.devices import describe_device
from app.services.errors import Unauthorized
from app.services.matches import MatchService
from app.services.passkeys import RelyingParty
from app.services.players import player_by_token


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    async with request.app.state.sessionmaker() as session:
        yield session


SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionDep = Annotated[AsyncSession, Depends(get_session)]

MatchId = Annotated[
    str, Path(pattern=NO_NUL, description="The match's id, as POST /api/v1/matches gives it.")
]
"""A match id in an API path (any text but NUL: a path with one is refused, 422)."""


bearer = HTTPBearer(
    auto_error=False,
    scheme_name="bearer",
    description="The token POST /api/v1/players gives (the browser sends it as a cookie instead).",
)

OPTIONAL_AUTH: dict[str, Any] = {"security": [{}]}
"""``openapi_extra`` of a route that works without a token too (a spectator's view)."""


def request_token(
    request: Request,
    settings: SettingsDep,
    _declared: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> str | None:
    """The bearer token from ``Authorization: Bearer …``, else from the browser cookie.

    ``_declared`` only declares the bearer scheme in the OpenAPI schema; the header is
    read here, so that a malformed one gets a clear 401."""
    header = request.headers.get("authorization")
    if header:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("the Authorization header must be 'Bearer <token>'")
        return token.strip()
    return request.cookies.get(settings.cookie_name)


TokenDep = Annotated[str | None, Depends(request_token)]


async def optional_player(session: SessionDep, token: TokenDep) -> Player | None:
    if token is None:
        return None
    player = await player_by_token(session, token)
    # End the read: the request's session gives its connection back to the pool now.
    # Match changes take connections of their own (app/services/store.py); a session
    # holding one for the whole request would leave a busy pool none to give.
    await session.commit()
    if player is None:
        raise Unauthorized("the token is not valid")
    return player


OptionalPlayer = Annotated[Player | None, Depends(optional_player)]


async def current_player(player: OptionalPlayer) -> Player:
    if player is None:
        raise Unauthorized("sign in: send 'Authorization: Bearer <token>' (POST /api/v1/players gives one)")
    return player


CurrentPlayer = Annotated[Player, Depends(current_player)]


def get_service(request: Request) -> MatchService:
    state = request.app.state
    return MatchService(state.store, state.publish, lambda: state.now())


ServiceDep = Annotated[MatchService, Depends(get_service)]


def relying_party(request: Request, settings: SettingsDep) -> RelyingParty:
    """Passkeys belong to the site's host name; the settings name it behind a proxy."""
    origin = settings.webauthn_origin or f"{request.url.scheme}://{request.url.netloc}"
    return RelyingParty(id=settings.webauthn_rp_id or request.url.hostname or "localhost", origin=origin)


RelyingPartyDep = Annotated[RelyingParty, Depends(relying_party)]


def device_name(request: Request) -> str | None:
    """What the calling device is, from its ``User-Agent`` ("Firefox Mobile on Android"), to
    name the token it is given."""
    return describe_device(request.headers.get("user-agent"))


DeviceNameDep = Annotated[str | None, Depends(device_name)]


def get_hub(request: Request) -> Hub:
    return request.app.state.hub


HubDep = Annotated[Hub, Depends(get_hub)]
