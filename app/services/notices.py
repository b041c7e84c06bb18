"""Which notifications a change owes: a pure function of the match before and after.

A player hears "your turn" when their seat becomes one the match waits for (once
per turn: the further actions of a multi-action turn owe nothing), and "match
finished" once, when it ends. One notice per channel the player has set, so a
webhook that fails is retried without sending the email again.
"""

from __future__ import annotations

import re

from app.rules import get_ruleset
from app.services.clock import to_act
from app.services.store import MatchRecord, Notice

YOUR_TURN, MATCH_FINISHED = "your_turn", "match_finished"
DISCORD_MARKUP = re.compile(r"[\\*_~`|>#\-\[\]()<:@]")
"""What Discord reads as markdown, a link, a mention or an emoji in a webhook's text."""


def shown_name(name: str, channel: str) -> str:
    """A player's name as ``channel`` shows it: on a webhook (Discord), each markup
    character escaped, so ``[win](https://evil.example)`` is not a link. Mentions are
    also off in the payload (``allowed_mentions``, ``app/services/notifier.py``)."""
    return DISCORD_MARKUP.sub(lambda m: "\\" + m[0], name) if channel == "webhook" else name


def notice_text(match: MatchRecord, event: str, seat: int, channel: str) -> str:
    ruleset = get_ruleset(match.ruleset)
    if event == MATCH_FINISHED:
        result = match.result or {}
        winner = result.get("winner")
        verdict = "a draw" if winner is None else "you won" if winner == seat else "you lost"
        return f"Your {ruleset.name} match is over, {verdict}: {result.get('reason', '')}."
    opponents = [shown_name(s.player.name, channel) for s in match.seats if s.seat != seat and s.player]
    against = f" against {', '.join(opponents)}" if opponents else ""
    return f"Your turn ({ruleset.seat_name(seat)}) in {ruleset.name}{against}."


def owed(before: MatchRecord, after: MatchRecord) -> tuple[Notice, ...]:
    if after.status == "finished" and before.status != "finished":
        event, seats = MATCH_FINISHED, [s.seat for s in after.seats]
    elif after.status == "active":
        event, seats = YOUR_TURN, sorted(set(to_act(after)) - set(to_act(before)))
    else:
        return ()
    notices = []
    for seat in seats:
        record = after.seats[seat]
        if record.player is None or (record.npc and event == YOUR_TURN):
            continue  # the GM plays an NPC seat at the table
        notices += [
            Notice(
                record.player.id,
                channel,
                event,
                after.id,
                after.ruleset,
                after.version,
                notice_text(after, event, seat, channel)[:500],
            )
            for channel in record.player.channels
        ]
    return tuple(notices)
