"""A match's chat: who may write and read each channel, kept with the match.

``players``: the seated players and the GM write; everyone may read.
``spectators``: signed-in viewers who are not seated write; everyone may read it but a
seated player who identifies as one, until the match is finished. "No hints while it
runs" is a courtesy, not a secret: a seated player who reads without a token (or with
a second account) is anyone, and reads it.

Each message keeps its author's name and role (seat, GM, spectator) as they were when
posted, so a later rename changes nothing, and a spectator may not post under the name
of a player of the match.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import ChatMessage, Player, utcnow
from app.rules import get_ruleset
from app.services.errors import Forbidden, Invalid
from app.services.players import as_utc
from app.services.store import MatchRecord, store_for
from app.services.views import player_json, runs_table

CHANNELS = ("players", "spectators")
MAX_TEXT = 500
GM, SPECTATOR = "gm", "spectator"


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


def role_of(match: MatchRecord, player_id: str) -> str:
    """What ``player_id`` is in ``match``: ``gm``, its seat's name in lower case
    (``blue``, ``red``, …), or ``spectator``."""
    if runs_table(match, player_id):
        return GM
    seat = next((s.seat for s in match.seats if s.player_id == player_id), None)
    return SPECTATOR if seat is None else get_ruleset(match.ruleset).seat_name(seat).lower()


def check_not_impersonating(match: MatchRecord, player: Player) -> None:
    """A spectator may not write under the name of a seated player or of the GM."""
    taken = [s.player.name for s in match.seats if s.player is not None]
    if runs_table(match, match.host_id):
        taken.append(match.host.name)
    if player.name.casefold() in {name.casefold() for name in taken}:
        raise Invalid(
            f"name: {player.name!r} is the name of a player in this match; "
            "choose another name to write to the spectators' channel"
        )


def message_json(message: ChatMessage, player: Player, match: MatchRecord) -> dict[str, Any]:
    return {
        "id": message.id,
        "at": as_utc(message.at).isoformat(),
        "channel": message.channel,
        "player": player_json(player),
        # Messages older than these columns: the current name, and the role now.
        "author_name": message.author_name or player.name,
        "author_role": message.author_role or role_of(match, player.id),
        "text": message.text,
    }


def clean_text(text: str) -> str:
    if not text.strip():
        raise Invalid("text: a message cannot be empty")
    if len(text) > MAX_TEXT:
        raise Invalid(f"text: at most {MAX_TEXT} characters (this one has {len(text)})")
    return text.strip()


async def post(
    session: AsyncSession,
    match_id: str,
    player: Player,
    channel: str,
    text: str,
    spend: Callable[[], Awaitable[None]],
) -> tuple[MatchRecord, dict[str, Any]]:
    """Keep ``player``'s message; the match and the message as everyone receives it.

    ``spend`` takes one of the player's messages this minute (or raises), once the
    message is known to be one the server takes: a refused message costs nothing."""
    check_channel(channel)
    text = clean_text(text)
    match = await store_for(session.bind).load(match_id)
    if channel != channel_of_writer(match, player.id):
        if channel == "players":
            raise Forbidden(
                "only the seated players and the GM write to the players' channel: use 'spectators'"
            )
        raise Forbidden("seated players and the GM write to the 'players' channel, not to the spectators'")
    if channel == "spectators":
        check_not_impersonating(match, player)
    await spend()
    message = ChatMessage(
        match_seq=match.seq,
        channel=channel,
        player_id=player.id,
        text=text,
        at=utcnow(),
        author_name=player.name,
        author_role=role_of(match, player.id),
    )
    session.add(message)
    await session.commit()
    return match, message_json(message, player, match)


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
    return [message_json(row, row.player, match) for row in rows]
