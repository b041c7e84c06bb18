"""A player's devices: each signed-in browser or program holds a token of its own
(``player_tokens``). The player sees them by name and signs the others out.

A device's name comes from its ``User-Agent`` when it signs in ("Firefox Mobile on Android"),
read by ``ua-parser`` (the uap-core rules that know which browser is which); anything it
does not know is named by its first product token ("curl", "python-httpx"); no header,
no name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from ua_parser import parse

from app.models import Player, PlayerToken, utcnow
from app.services.errors import Conflict, NotFound

MAX_DEVICE_NAME = 80
TOUCH_EVERY = timedelta(minutes=1)
"""How stale ``last_used_at`` may get before a request records it again."""

PRODUCT = re.compile(r"[A-Za-z][\w.+-]{0,39}")
HANDHELDS = ("iPhone", "iPad")
"""Devices named by what they are rather than their system (iOS would not tell them apart)."""


def describe_device(user_agent: str | None) -> str | None:
    """What a device is, for its player to recognise it: "Chrome on Windows", from the
    user agent as ``ua-parser`` (the uap-core rules) reads it; a script, by its name."""
    agent = "".join(c for c in (user_agent or "")[:1000] if c.isprintable())
    found = parse(agent)
    browser = found.user_agent.family if found.user_agent and found.user_agent.family != "Other" else None
    system = found.os.family if found.os and found.os.family != "Other" else None
    if found.device and found.device.family in HANDHELDS:
        system = found.device.family
    if browser and system:
        return f"{browser} on {system}"[:MAX_DEVICE_NAME]
    if browser or system:
        return (browser or f"A browser on {system}")[:MAX_DEVICE_NAME]
    product = PRODUCT.match(agent.strip())
    return product[0][:MAX_DEVICE_NAME] if product else None


@dataclass(frozen=True)
class Device:
    id: str
    name: str | None
    created_at: datetime
    last_used_at: datetime | None
    current: bool


async def list_devices(session: AsyncSession, player: Player, current_hash: str) -> list[Device]:
    """The player's devices, the one asking first, then the most recently used."""
    rows = (await session.scalars(select(PlayerToken).where(PlayerToken.player_id == player.id))).all()
    devices = [
        Device(t.device_id, t.device_name, t.created_at, t.last_used_at, t.token_hash == current_hash)
        for t in rows
    ]
    devices.sort(key=lambda d: (not d.current, -(d.last_used_at or d.created_at).timestamp()))
    return devices


async def sign_out_device(session: AsyncSession, player: Player, device_id: str, current_hash: str) -> None:
    """Sign one of the player's other devices out: its token stops working."""
    if len(device_id) != len(current_hash[:16]):
        raise NotFound("none of your devices has this id")
    if current_hash.startswith(device_id):
        raise Conflict("this is the device you are using: sign it out with POST /api/v1/players/me/sign-out")
    signed_out = await session.execute(
        delete(PlayerToken).where(
            PlayerToken.player_id == player.id, PlayerToken.token_hash.startswith(device_id, autoescape=True)
        )
    )
    await session.commit()
    if signed_out.rowcount == 0:
        raise NotFound("none of your devices has this id")


async def sign_out_others(session: AsyncSession, player: Player, current_hash: str) -> int:
    """Sign every device of the player but this one out; how many were."""
    signed_out = await session.execute(
        delete(PlayerToken).where(PlayerToken.player_id == player.id, PlayerToken.token_hash != current_hash)
    )
    await session.commit()
    return signed_out.rowcount


async def touch(session: AsyncSession, token_hash: str, last_used_at: datetime | None) -> None:
    """Record that a token was used, at most once per ``TOUCH_EVERY``: a write on every
    request would put a write (and on SQLite, the one writer's lock) behind every read."""
    now = utcnow()
    if last_used_at is not None and now - last_used_at < TOUCH_EVERY:
        return
    await session.execute(
        update(PlayerToken).where(PlayerToken.token_hash == token_hash).values(last_used_at=now)
    )
    await session.commit()
