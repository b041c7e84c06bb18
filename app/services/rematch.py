"""Rematch at the end of a match: the same ruleset and options, seats swapped.

A seated player of a finished match offers it; another seated player accepts
(the new match is made then, both seated, each a seat further round, so the
first player changes) or declines. A bot answers at once: it accepts, and the new
match starts with it seated. An offer nobody answers expires
(``views.REMATCH_OFFER_LASTS``): either player may then offer again. The offer and
its answer live on the finished match (``rematch_*``), not in its log: they are not
part of the game. Each step is guarded, so of two answers only one counts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.bots.seating import check_bot_quota, seat_bot
from app.services.errors import Conflict, Forbidden
from app.services.matches import MatchService, as_player
from app.services.store import MatchRecord, SeatRecord
from app.services.views import rematch_status, seat_of

SeatOther = Callable[[MatchRecord], Awaitable[MatchRecord]]
"""Seats the one who accepts in the new match (given as it is made), and returns it."""


def _seated(match: MatchRecord, player: Any) -> int:
    seat = seat_of(match, player.id)
    if seat is None or match.seats[seat].npc:
        raise Forbidden("only the players of this match can offer or answer a rematch")
    return seat


def _bot_opponent(match: MatchRecord, seat: int) -> SeatRecord | None:
    """The bot that answers ``seat``'s offer, when every other seat is a bot's."""
    others = [s for s in match.seats if s.seat != seat]
    return others[0] if len(others) == 1 and others[0].bot else None


async def offer(
    service: MatchService, session: AsyncSession, match_id: str, player: Any, quota: int | None = None
) -> MatchRecord:
    """The finished match with ``player``'s offer; against a bot, already accepted."""
    match = await service.get(match_id)
    if match.status != "finished":
        raise Conflict("a rematch is offered once the match is over")
    seat = _seated(match, player)
    now = service.now()
    state = rematch_status(match, now)
    if state not in (None, "expired"):
        raise Conflict(f"a rematch was already {state}")
    bot = _bot_opponent(match, seat)
    host = match.seats[seat].player
    if bot is not None:  # before anything is written: the new match would be one more with a bot
        await check_bot_quota(session, host, quota)
    if not await service.store.set_rematch(match, match.rematch_state, "offered", seat, None, now):
        raise Conflict("a rematch was offered meanwhile")
    match = await service.get(match_id)
    if bot is not None:  # the computer is always ready for another game

        async def seat_the_bot(new: MatchRecord) -> MatchRecord:
            return await seat_bot(service, session, new.id, host, _turned(match, bot.seat), bot.bot, quota)

        await _start(service, match, seat_the_bot)
        match = await service.get(match_id)
    return match


async def answer(
    service: MatchService, match_id: str, player: Any, accept: bool, player_seed: str | None = None
) -> tuple[MatchRecord, MatchRecord | None]:
    """The finished match after the answer, and the new match when accepted."""
    match = await service.get(match_id)
    seat = _seated(match, player)
    state = rematch_status(match, service.now())
    if state != "offered":
        raise Conflict(
            "there is no rematch offer to answer"
            if state is None
            else "the rematch offer expired: offer one yourself"
            if state == "expired"
            else f"the rematch was already {state}"
        )
    if seat == match.rematch_by:
        raise Forbidden("your opponent answers your offer")
    if not accept:
        if not await service.store.set_rematch(match, "offered", "declined", match.rematch_by, None):
            raise Conflict("the offer was answered meanwhile")
        return await service.get(match_id), None

    async def join(new: MatchRecord) -> MatchRecord:
        return await service.join(new.id, as_player(player), _turned(match, seat), player_seed=player_seed)

    new = await _start(service, match, join)
    return await service.get(match_id), new


def _turned(match: MatchRecord, seat: int) -> int:
    """Where ``seat``'s player sits in the rematch: a seat further round."""
    return (seat + 1) % len(match.seats)


async def _start(service: MatchService, match: MatchRecord, seat_other: SeatOther) -> MatchRecord:
    """Accept ``match``'s offer: the offerer makes the new match, the other is seated."""
    if not await service.store.set_rematch(match, "offered", "accepting", match.rematch_by, None):
        raise Conflict("the offer was answered meanwhile")
    by = match.rematch_by
    assert by is not None
    offerer = match.seats[by].player
    new = await service.create(offerer, match.ruleset, match.options, _turned(match, by), rated=match.rated)
    new = await seat_other(new)
    await service.store.set_rematch(match, "accepting", "accepted", by, new.id)
    return new
