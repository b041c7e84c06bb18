"""The typed contract covers what the rulesets really produce: every event of random
games of every ruleset is one of the published event types, every roll fully typed,
and every attack's odds in the one odds shape."""

from __future__ import annotations

from fractions import Fraction

import pytest
from pydantic import TypeAdapter, ValidationError

from app.api.schemas import Event, Odds, RollEvent
from app.rules import registry
from app.rules.dice import Dice
from tests.rules.helpers import play_randomly

EVENTS = TypeAdapter(list[Event])


@pytest.mark.parametrize("ruleset_id", sorted(registry()))
def test_every_event_of_random_games_is_a_published_type(ruleset_id):
    ruleset = registry()[ruleset_id]
    for game in range(4):
        _, setup = ruleset.new_game(ruleset.options(None), Dice(game.to_bytes(32, "big")))
        _, log, _ = play_randomly(ruleset, game)
        events = setup + [e for _, _, evs in log for e in evs]
        typed = EVENTS.validate_python(events)
        for event, model in zip(events, typed, strict=True):
            if event["type"] == "roll":
                assert isinstance(model, RollEvent) and model.dice is not None
                assert all({"n", "sides", "face"} <= set(d) for d in event["dice"])
        for _, action, _ in log:
            if "odds" in action:
                odds = Odds.model_validate(action["odds"])
                assert sum(Fraction(o.exact) for o in odds.outcomes) == 1
                assert all(o.text for o in odds.outcomes)


def test_an_event_type_nobody_published_is_refused():
    with pytest.raises(ValidationError):
        EVENTS.validate_python([{"type": "teleport", "piece": "ngok"}])
    with pytest.raises(ValidationError):  # a roll's dice are typed
        EVENTS.validate_python([{"type": "roll", "purpose": "attack", "dice": [{"sides": 6}]}])
