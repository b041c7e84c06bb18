"""A match's chat: who may write and read each channel, kept with the match.

``players``: the seated players and the GM write; everyone may read.
``spectators``: signed-in viewers who are not seated write; everyone but the seated
players reads it, and they too once the match is finished (no hints while it runs).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import ChatMessage, Player, utcnow
from app.services.errors import Forbidden, Invalid, TooMany
from app.services.players import as_utc
from app.services.store import MatchRecord, store_for
from app.services.views import player_json, runs_table

CHANNELS = ("players", "spectators")
MAX_TEXT = 500
RATE_WINDOW = timedelta(minutes=1)


def is_seated(match: MatchRecord, player_id: str | None) -> bool:
    return player_id is not None and any(s.player_id == player_id for s in match.seats)


def channel_of_writer(match: MatchRecord, player_id: str) -> str:
    """The one channel ``player_id`` writes to."""
    return "players" if is_seated(match, player_id) or runs_table(match, player_id) else "spectators"


def hidden_from(match: MatchRecord, channel: str) -> frozenset[str]:
    """The players who may not read ``channel`` now: the seated players, from the
    spectators' channel while the match is on. Everyone reads the players' channel."""
    if channel == "players" or match.status == "finished":
        return frozenset()
    return frozenset(s.player_id for s in match.seats if s.player_id is not None)


def may_read(match: MatchRecord, player_id: str | None, channel: str) -> bool:
    return player_id not in hidden_from(match, channel)


def check_channel(channel: str) -> None:
    if channel not in CHANNELS:
        raise Invalid(f"channel: must be 'players' or 'spectators', not {channel!r}")


def message_json(message: ChatMessage, player: Player) -> dict[str, Any]:
    return {
        "id": message.id,
        "at": as_utc(message.at).isoformat(),
        "channel": message.channel,
        "player": player_json(player),
        "text": message.text,
    }


def clean_text(text: str) -> str:
    if not text.strip():
        raise Invalid("text: a message cannot be empty")
    if len(text) > MAX_TEXT:
        raise Invalid(f"text: at most {MAX_TEXT} characters (this one has {len(text)})")
    return text.strip()


async def post(
    session: AsyncSession, match_id: str, player: Player, channel: str, text: str, per_minute: int
) -> tuple[MatchRecord, dict[str, Any]]:
    """Keep ``player``'s message; the match and the message as everyone receives it."""
    check_channel(channel)
    text = clean_text(text)
    match = await store_for(session.bind).load(match_id)
    if channel != channel_of_writer(match, player.id):
        if channel == "players":
            raise Forbidden(
                "only the seated players and the GM write to the players' channel: use 'spectators'"
            )
        raise Forbidden("seated players and the GM write to the 'players' channel, not to the spectators'")
    since = utcnow() - RATE_WINDOW
    recent = await session.scalar(
        select(func.count())
        .select_from(ChatMessage)
        .where(ChatMessage.player_id == player.id, ChatMessage.at > since)
    )
    if (recent or 0) >= per_minute:
        raise TooMany(f"at most {per_minute} messages a minute: wait a moment", retry_after=60)
    message = ChatMessage(match_seq=match.seq, channel=channel, player_id=player.id, text=text, at=utcnow())
    session.add(message)
    await session.commit()
    return match, message_json(message, player)


async def read(
    session: AsyncSession, match_id: str, viewer: Player | None, channel: str, after: int, limit: int
) -> list[dict[str, Any]]:
    """The channel's messages after id ``after``, oldest first."""
    check_channel(channel)
    match = await store_for(session.bind).load(match_id)
    if not may_read(match, viewer.id if viewer else None, channel):
        raise Forbidden(
            "the spectators' channel is hidden from the seated players until the match is finished"
        )
    rows = await session.scalars(
        select(ChatMessage)
        .where(ChatMessage.match_seq == match.seq, ChatMessage.channel == channel, ChatMessage.id > after)
        .order_by(ChatMessage.id)
        .limit(limit)
    )
    return [message_json(row, row.player) for row in rows]
