"""Rematch at the end of a match: the same ruleset and options, seats swapped.

A seated player of a finished match offers it; another seated player accepts
(the new match is made then, both seated, each a seat further round, so the
first player changes) or declines. The offer and its answer live on the finished
match (``rematch_*``), not in its log: they are not part of the game. Each step
is guarded, so of two answers only one counts.
"""

from __future__ import annotations

from typing import Any

from app.services.errors import Conflict, Forbidden
from app.services.matches import MatchService, as_player
from app.services.store import MatchRecord
from app.services.views import seat_of


def _seated(match: MatchRecord, player: Any) -> int:
    seat = seat_of(match, player.id)
    if seat is None or match.seats[seat].npc:
        raise Forbidden("only the players of this match can offer or answer a rematch")
    return seat


async def offer(service: MatchService, match_id: str, player: Any) -> MatchRecord:
    match = await service.get(match_id)
    if match.status != "finished":
        raise Conflict("a rematch is offered once the match is over")
    seat = _seated(match, player)
    if match.rematch_state is not None:
        raise Conflict(f"a rematch was already {match.rematch_state}")
    if not await service.store.set_rematch(match, None, "offered", seat, None):
        raise Conflict("a rematch was offered meanwhile")
    return await service.get(match_id)


async def answer(
    service: MatchService, match_id: str, player: Any, accept: bool, player_seed: str | None = None
) -> tuple[MatchRecord, MatchRecord | None]:
    """The finished match after the answer, and the new match when accepted."""
    match = await service.get(match_id)
    seat = _seated(match, player)
    if match.rematch_state != "offered":
        raise Conflict(
            "there is no rematch offer to answer"
            if match.rematch_state is None
            else f"the rematch was already {match.rematch_state}"
        )
    if seat == match.rematch_by:
        raise Forbidden("your opponent answers your offer")
    if not accept:
        if not await service.store.set_rematch(match, "offered", "declined", match.rematch_by, None):
            raise Conflict("the offer was answered meanwhile")
        return await service.get(match_id), None
    if not await service.store.set_rematch(match, "offered", "accepting", match.rematch_by, None):
        raise Conflict("the offer was answered meanwhile")
    turned = len(match.seats)
    offerer = match.seats[match.rematch_by].player
    new = await service.create(offerer, match.ruleset, match.options, (match.rematch_by + 1) % turned)
    new = await service.join(new.id, as_player(player), (seat + 1) % turned, player_seed=player_seed)
    await service.store.set_rematch(match, "accepting", "accepted", match.rematch_by, new.id)
    return await service.get(match_id), new
