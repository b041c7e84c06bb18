"""Shared by the bots' tests: positions along random games of each ruleset, and waiting for a bot."""

from __future__ import annotations

import asyncio

from app.rules import registry
from tests.api.helpers import view
from tests.rules.helpers import play_randomly

OPTION_SETS = {
    "kelly": [{}],
    "kelly-d20": [{}],
    "dalsiandon": [
        {},
        {"teams": "random", "death_push": True, "rays_of_death": True},
        {"nowhere_is_safe": True, "king_of_the_center": True, "twenty_sides_of_terror": True},
    ],
    "simeone": [{}, {"center_point": "end_of_round", "points_to_win": 0}],
    "orbit-chess": [{}],
    "courtier": [{"first": "random"}],
    "eote": [{}, {"initial_ranks_check": True}],
}


def positions(ruleset_id: str, games: int = 2, every: int = 7):
    """(options, state, seat to act) along random games of the ruleset, set-up steps included."""
    ruleset = registry()[ruleset_id]
    for options in OPTION_SETS[ruleset_id]:
        for game in range(games):
            _, _, states = play_randomly(ruleset, 1000 + game, options)
            for i, state in enumerate(states):
                to_act = ruleset.to_act(state)
                if to_act and (i % every == 0 or i < 3):
                    yield state, to_act[0]


async def wait_for(client, match_id, done, player=None, limit_s: float = 180.0, every_s: float = 0.1):
    """Poll the match every ``every_s`` until ``done(view)``; a bot that stalls fails the test."""
    for _ in range(int(limit_s / every_s)):
        current = await view(client, match_id, player)
        if done(current):
            return current
        await asyncio.sleep(every_s)
    raise AssertionError(f"the match did not get there: {current['status']} v{current['version']}")
