"""Seating bots: each bot is a real player (a fixed id, created on first use) that
takes a seat through :meth:`MatchService.join` like anyone."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.bots import Bot, all_bots, get_bot
from app.config import get_settings
from app.models import Match, Player, Seat
from app.services.errors import Conflict, Forbidden, Invalid, TooMany
from app.services.matches import MatchService
from app.services.players import hash_token
from app.services.store import MatchRecord
from app.services.views import seat_of

BOT_PLAYER_PREFIX = "bot-"


def bot_player_id(bot: Bot) -> str:
    return f"{BOT_PLAYER_PREFIX}{bot.id}"


async def server_player(session: AsyncSession, player_id: str, name: str) -> Player:
    """A player the server plays (a bot, the tutorial's Tutor), created on first use.
    Its token is a random secret that is hashed and forgotten at once: nobody can sign
    in as it."""
    player = await session.get(Player, player_id)
    if player is not None:
        # End the read: the session gives its connection back before the caller's match
        # change takes one of its own (a request holding two at once could wait forever
        # for a second when as many requests as the pool holds each had a first).
        await session.commit()
        return player
    player = Player(id=player_id, name=name, token_hash=hash_token(secrets.token_urlsafe(32)))
    session.add(player)
    try:
        await session.commit()
    except IntegrityError:  # another request created it first
        await session.rollback()
        # The rollback expired every object in the session (the caller's signed-in player
        # too), and an expired attribute cannot be loaded lazily under asyncio: load them now.
        for held in list(session.identity_map.values()):
            await session.refresh(held)
        player = await session.get(Player, player_id)
        assert player is not None
        await session.commit()  # end the read, as above
    return player


async def bot_player(session: AsyncSession, bot: Bot) -> Player:
    """The bot's player row, created on first use."""
    return await server_player(session, bot_player_id(bot), bot.name)


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


async def running_bot_matches(session: AsyncSession, host_id: str) -> int:
    """How many unfinished matches ``host_id`` hosts with a bot seated (bot-only ones included)."""
    count = await session.scalar(
        select(func.count(func.distinct(Match.seq)))
        .join(Seat, Seat.match_seq == Match.seq)
        .where(Match.host_id == host_id, Match.status != "finished", Seat.bot.is_not(None))
    )
    return count or 0


def quota_refusal(running: int, quota: int) -> TooMany | None:
    """The 429 for a host with ``running`` bot matches who wants one more; None within ``quota``."""
    if quota <= 0 or running < quota:
        return None
    matches = "match" if running == 1 else "matches"
    return TooMany(
        f"you have {running} {matches} against bots running (at most {quota} at once); "
        "finish or resign one first"
    )


async def check_bot_quota(session: AsyncSession, host: Player, quota: int | None = None) -> None:
    """Refuse (429) a new match with bots, or a bot in a match with none yet, past the
    host's quota (``BOT_MATCHES_PER_PLAYER``; None: the environment's setting)."""
    limit = get_settings().bot_matches_per_player if quota is None else quota
    if limit <= 0:
        return
    running = await running_bot_matches(session, host.id)
    await session.commit()  # end the read: the session's connection goes back to the pool
    if refusal := quota_refusal(running, limit):
        raise refusal


async def seat_bot(
    service: MatchService,
    session: AsyncSession,
    match_id: str,
    host: Player,
    seat: int,
    bot_id: Any,
    quota: int | None = None,
) -> MatchRecord:
    """The host seats a bot in an open seat, or in the NPC seat of a GM-run match
    (the bot then plays it instead of the GM). A match that has no bot yet counts
    towards the host's ``quota`` of running bot matches (None: the environment's)."""
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
    if not any(s.bot for s in match.seats):  # a match with a bot already counts
        await check_bot_quota(session, host, quota)
    player = await bot_player(session, bot)
    return await service.join(match_id, player, seat, bot=bot.id)


async def active_bot_matches(session: AsyncSession) -> list[str]:
    """Ids of the active matches with a bot seated: the runner's scan."""
    rows = await session.scalars(
        select(Match.id)
        .join(Seat, Seat.match_seq == Match.seq)
        .where(Match.status == "active", Seat.bot.is_not(None))
        .distinct()
    )
    return list(rows)
