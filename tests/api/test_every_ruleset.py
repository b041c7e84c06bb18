"""Every ruleset, with its options alone and combined, plays to a finish through
REST alone: a client that knows no rules sends back what the server lists."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.rules import registry
from tests.api.helpers import play_to_the_end, start_match

OPTION_SETS = {
    "kelly": [{}],
    "kelly-d20": [{}],
    "dalsiandon": [
        {},
        {"teams": "random", "king_of_the_center": True, "death_push": True},
        {
            "nowhere_is_safe": True,
            "twenty_sides_of_terror": True,
            "rays_of_death": True,
            "death_push": True,
            "king_of_the_center": True,
        },
    ],
    "simeone": [{}, {"center_point": "end_of_round", "points_to_win": 0}],
    "courtier": [{"first": "random"}],
    "orbit-chess": [{}],
    "eote": [{"initial_ranks_check": True}],
}
CASES = [(ruleset, options) for ruleset, sets in OPTION_SETS.items() for options in sets]


def test_every_registered_ruleset_is_covered():
    assert set(OPTION_SETS) == set(registry())


@pytest.mark.parametrize(("ruleset", "options"), CASES, ids=[f"{r}-{i}" for i, (r, _) in enumerate(CASES)])
async def test_a_match_plays_to_a_finish_through_rest(client, ruleset, options):
    match, players = await start_match(client, ruleset, {"turns_without_kill": 30, **options})
    assert match["options"] | options == match["options"], "the options asked for are the match's"
    finished = await play_to_the_end(client, match["id"], players, seed=len(options))
    assert finished["status"] == "finished" and finished["result"]["reason"]
    odds = [
        a["odds"]
        for entry in (await client.get(f"/api/v1/matches/{match['id']}/events")).json()["events"]
        for a in [entry["action"]]
        if a.get("type") == "attack" and "odds" in a
    ]
    if ruleset in ("kelly", "kelly-d20", "dalsiandon", "simeone") and odds:
        assert all(sum(Fraction(o["exact"]) for o in each["outcomes"]) == 1 for each in odds)
        assert all(o["text"] for each in odds for o in each["outcomes"]), "every outcome says what it does"
