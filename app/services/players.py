"""Players and their bearer tokens (stored only as SHA-256 hashes)."""

from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Player
from app.services.errors import Invalid

MAX_NAME = 40


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def clean_name(name: str) -> str:
    name = " ".join(name.split())
    if not name:
        raise Invalid("name: a display name cannot be empty")
    if len(name) > MAX_NAME:
        raise Invalid(f"name: at most {MAX_NAME} characters")
    return name


async def create_player(session: AsyncSession, name: str) -> tuple[Player, str]:
    """A new player and their token; the token is shown only this once."""
    token = secrets.token_urlsafe(32)
    player = Player(id=secrets.token_hex(8), name=clean_name(name), token_hash=hash_token(token))
    session.add(player)
    await session.commit()
    return player, token


async def player_by_token(session: AsyncSession, token: str) -> Player | None:
    if not token or len(token) > 200:
        return None
    return await session.scalar(select(Player).where(Player.token_hash == hash_token(token)))
