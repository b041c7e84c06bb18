"""A player's devices: each signed-in browser or program holds a token of its own
(``player_tokens``). The player sees them by name and signs the others out.

A device's name comes from its ``User-Agent`` when it signs in ("Firefox on Android"):
a few well-known browsers and systems, read in the order that disambiguates them (every
Chromium says "Safari", Edge and Opera also say "Chrome"). Anything else is named by its
first product token ("curl", "python-httpx"); no header, no name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Player, PlayerToken, utcnow
from app.services.errors import Conflict, NotFound

MAX_DEVICE_NAME = 80
TOUCH_EVERY = timedelta(minutes=1)
"""How stale ``last_used_at`` may get before a request records it again."""

BROWSERS = (
    ("Edge", re.compile(r"\bEdg(e|A|iOS)?/")),
    ("Opera", re.compile(r"\b(OPR|OPiOS|Opera)/")),
    ("Samsung Internet", re.compile(r"\bSamsungBrowser/")),
    ("Firefox", re.compile(r"\b(Firefox|FxiOS)/")),
    ("Chrome", re.compile(r"\b(HeadlessChrome|Chrome|CriOS|Chromium)/")),
    ("Safari", re.compile(r"\bVersion/[\d.]+.*\bSafari/")),
)
SYSTEMS = (
    ("iPhone", re.compile(r"\biPhone\b")),
    ("iPad", re.compile(r"\biPad\b")),
    ("Android", re.compile(r"\bAndroid\b")),
    ("ChromeOS", re.compile(r"\bCrOS\b")),
    ("Windows", re.compile(r"\bWindows\b")),
    ("macOS", re.compile(r"\bMac OS X\b|\bMacintosh\b")),
    ("Linux", re.compile(r"\bLinux\b")),
)
PRODUCT = re.compile(r"[A-Za-z][\w.+-]{0,39}")


def describe_device(user_agent: str | None) -> str | None:
    """What a device is, for its player to recognise it: "Chrome on Windows"."""
    agent = (user_agent or "")[:1000]
    if not agent.isprintable():
        agent = "".join(c for c in agent if c.isprintable())
    browser = next((name for name, pattern in BROWSERS if pattern.search(agent)), None)
    system = next((name for name, pattern in SYSTEMS if pattern.search(agent)), None)
    if browser and system:
        return f"{browser} on {system}"
    if browser or system:
        return browser or f"A browser on {system}"
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
