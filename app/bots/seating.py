"""Seating bots: each bot is a real player (a fixed id, created on first use) that
takes a seat through :meth:`MatchService.join` like anyone."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.bots import Bot, all_bots, get_bot
from app.models import Match, Player
from app.services.errors import Conflict, Forbidden, Invalid
from app.services.matches import MatchService
from app.services.players import hash_token
from app.services.store import MatchRecord
from app.services.views import seat_of

BOT_PLAYER_PREFIX = "bot-"


def bot_player_id(bot: Bot) -> str:
    return f"{BOT_PLAYER_PREFIX}{bot.id}"


async def bot_player(session: AsyncSession, bot: Bot) -> Player:
    """The bot's player row, created on first use. Its token is a random secret that
    is hashed and forgotten at once: nobody can sign in as a bot."""
    player = await session.get(Player, bot_player_id(bot))
    if player is not None:
        return player
    player = Player(id=bot_player_id(bot), name=bot.name, token_hash=hash_token(secrets.token_urlsafe(32)))
    session.add(player)
    try:
        await session.commit()
    except IntegrityError:  # another request created it first
        await session.rollback()
        player = await session.get(Player, bot_player_id(bot))
        assert player is not None
    return player


def checked_bot(bot_id: Any, ruleset: str) -> Bot:
    """The bot named ``bot_id`` if it plays ``ruleset``; ``Invalid`` saying why not."""
    bot = get_bot(bot_id) if isinstance(bot_id, str) else None
    if bot is None:
        known = ", ".join(b for b in all_bots() if b.startswith(f"{ruleset}-"))
        raise Invalid(f"bot: no bot {bot_id!r}; bots for {ruleset}: {known}")
    if bot.ruleset != ruleset:
        raise Invalid(f"bot: {bot.id} plays {bot.ruleset}, not {ruleset}")
    return bot


def check_bot_seats(
    ruleset: str, seats: int, host_seat: int | None, wanted: list[tuple[int, Any]]
) -> list[tuple[int, Bot]]:
    """Check the ``bots`` of a new match before anything is created."""
    out = []
    taken = {host_seat}
    for seat, bot_id in wanted:
        bot = checked_bot(bot_id, ruleset)
        if not 0 <= seat < seats:
            raise Invalid(f"bots: seat {seat} does not exist; {ruleset} has seats 0 to {seats - 1}")
        if seat in taken:
            raise Conflict(f"bots: seat {seat} is already taken at creation")
        if any(b.id == bot.id for _, b in out):
            raise Conflict(f"bots: {bot.id} can sit in one seat only; pick another level for the other")
        taken.add(seat)
        out.append((seat, bot))
    return out


async def seat_bot(
    service: MatchService, session: AsyncSession, match_id: str, host: Player, seat: int, bot_id: Any
) -> MatchRecord:
    """The host seats a bot in an open seat, or in the NPC seat of a GM-run match
    (the bot then plays it instead of the GM)."""
    match = await service.get(match_id)
    if host.id != match.host_id:
        raise Forbidden("only the match's host seats a bot")
    bot = checked_bot(bot_id, match.ruleset)
    target = next((s for s in match.seats if s.seat == seat), None)
    if target is None:
        raise Invalid(f"seat: this match has seats 0 to {len(match.seats) - 1}")
    if match.status == "finished":
        raise Conflict("the match is finished; its seats are settled")
    if target.player_id is not None and not target.npc:
        raise Conflict(f"seat {seat} is taken")
    if seat_of(match, bot_player_id(bot)) is not None:
        raise Conflict(f"{bot.id} already sits in this match; pick another level")
    if target.npc and target.player_id is not None:
        raise Conflict(f"seat {seat} is held for its player; hand it back or open it first")
    player = await bot_player(session, bot)
    return await service.join(match_id, player, seat, bot=bot.id)


async def active_bot_matches(session: AsyncSession) -> list[str]:
    """Ids of the active matches with a bot seated: the runner's scan."""
    from app.models import Seat

    rows = await session.scalars(
        select(Match.id)
        .join(Seat, Seat.match_seq == Match.seq)
        .where(Match.status == "active", Seat.bot.is_not(None))
        .distinct()
    )
    return list(rows)
