"""Match clocks: the server's time, kept outside the rules.

A timed match (options ``clock: {"per_move_s": N}``) gives the seat to act N
seconds from the entry that made it that seat's decision (a multi-action turn is
one decision). The record keeps when that decision's clock started
(``turn_since``, the ``updated_at`` of that entry) and, while the GM has paused the
match, when the pause began (``paused_at``); a resume moves ``turn_since`` on by
the time paused, so paused time never counts.

Past the deadline, every other seated player may claim the win
(``{"type": "claim_timeout"}``), or keep waiting.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from app.models import utcnow
from app.rules import get_ruleset
from app.rules.base import CLAIM_TIMEOUT, Action
from app.services.store import MatchRecord

Now = Callable[[], datetime]
"""Where the service and the projection read the time (tests inject their own)."""


def to_act(match: MatchRecord | None) -> list[int]:
    """The seats whose decision ``match`` waits for."""
    if match is None or match.status != "active" or match.state is None:
        return []
    from app.services.views import loaded_state  # views imports this module

    return get_ruleset(match.ruleset).to_act(loaded_state(match))


def per_move(match: MatchRecord) -> timedelta | None:
    clock = match.options.get("clock")
    return timedelta(seconds=clock["per_move_s"]) if isinstance(clock, dict) else None


def timed(before: MatchRecord | None, after: MatchRecord) -> MatchRecord:
    """``after`` with its clock carried on from ``before`` (``None``: a new match)."""
    if after.status != "active":
        return replace(after, turn_since=None, paused_at=None)
    turn_since, paused_at = (before.turn_since, before.paused_at) if before else (None, None)
    moment = after.updated_at
    if before is not None and before.paused and not after.paused and paused_at and turn_since:
        turn_since += moment - paused_at  # the paused time does not count
    if after.paused and paused_at is None:
        paused_at = moment
    elif not after.paused:
        paused_at = None
    if turn_since is None or set(to_act(after)) - set(to_act(before)):
        turn_since = moment  # someone's decision begins
    return replace(after, turn_since=turn_since, paused_at=paused_at)


def deadline(match: MatchRecord) -> datetime | None:
    """When the seat to act runs out of time (``None``: untimed, paused or nobody to act)."""
    allowed = per_move(match)
    if allowed is None or match.paused or match.turn_since is None or not to_act(match):
        return None
    return match.turn_since + allowed


def claim_actions(match: MatchRecord, seat: int | None, now: datetime) -> list[Action]:
    """``seat``'s claim of the win, when the seats to act have run out of time."""
    due = deadline(match)
    if seat is None or due is None or now < due:
        return []
    late = to_act(match)
    if seat in late or match.seats[seat].player is None:
        return []
    names = " and ".join(get_ruleset(match.ruleset).seat_name(s) for s in late)
    return [{"type": CLAIM_TIMEOUT, "label": f"Claim the win: {names} ran out of time"}]


def view_fields(match: MatchRecord) -> dict[str, Any]:
    due = deadline(match)
    return {"deadline": due.isoformat() if due else None}


def system_now() -> datetime:
    return utcnow()
