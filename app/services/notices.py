"""Which notifications a change owes: a pure function of the match before and after.

A player hears "your turn" when their seat becomes one the match waits for (once
per turn: the further actions of a multi-action turn owe nothing), and "match
finished" once, when it ends. One notice per channel the player has set, so a
webhook that fails is retried without sending the email again.
"""

from __future__ import annotations

from app.rules import get_ruleset
from app.services.clock import to_act
from app.services.store import MatchRecord, Notice

YOUR_TURN, MATCH_FINISHED = "your_turn", "match_finished"


def owed(before: MatchRecord, after: MatchRecord) -> tuple[Notice, ...]:
    ruleset = get_ruleset(after.ruleset)
    texts: dict[int, tuple[str, str]] = {}  # seat -> (event, text)
    if after.status == "finished" and before.status != "finished":
        result = after.result or {}
        for seat in after.seats:
            winner = result.get("winner")
            verdict = "a draw" if winner is None else "you won" if winner == seat.seat else "you lost"
            texts[seat.seat] = (
                MATCH_FINISHED,
                f"Your {ruleset.name} match is over, {verdict}: {result.get('reason', '')}.",
            )
    elif after.status == "active":
        for seat in sorted(set(to_act(after)) - set(to_act(before))):
            opponents = [s.player.name for s in after.seats if s.seat != seat and s.player]
            against = f" against {', '.join(opponents)}" if opponents else ""
            texts[seat] = (
                YOUR_TURN,
                f"Your turn ({ruleset.seat_name(seat)}) in {ruleset.name}{against}.",
            )
    notices = []
    for seat, (event, text) in texts.items():
        record = after.seats[seat]
        if record.player is None or (record.npc and event == YOUR_TURN):
            continue  # the GM plays an NPC seat at the table
        notices += [
            Notice(record.player.id, channel, event, after.id, after.ruleset, after.version, text[:500])
            for channel in record.player.channels
        ]
    return tuple(notices)
