from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import CurrentPlayer, SessionDep
from app.services.players import create_player

router = APIRouter(prefix="/api/v1/players", tags=["players"])


class NewPlayer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=40, description="The display name others see.")


class PlayerOut(BaseModel):
    id: str
    name: str


class PlayerWithToken(PlayerOut):
    token: str = Field(description="The bearer credential. Shown only in this response; stored hashed.")


@router.post("", status_code=201, response_model=PlayerWithToken)
async def register(body: NewPlayer, session: SessionDep) -> PlayerWithToken:
    """Create a player and its bearer token."""
    player, token = await create_player(session, body.name)
    return PlayerWithToken(id=player.id, name=player.name, token=token)


@router.get("/me", response_model=PlayerOut)
async def me(player: CurrentPlayer) -> PlayerOut:
    """The player the token belongs to."""
    return PlayerOut(id=player.id, name=player.name)
