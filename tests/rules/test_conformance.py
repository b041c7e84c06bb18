"""What every registered ruleset must do (ARCHITECTURE §Rulesets).

Runs over every ruleset in the ``dejarik.rulesets`` entry-point group, so a new
ruleset is checked the moment it is registered.
"""

from __future__ import annotations

import json
import random

import pytest

from app.rules import registry
from app.rules.base import COMMON_ACTION_TYPES, IllegalAction
from app.rules.dice import Dice
from tests.rules.helpers import MAX_STEPS, play_randomly

RULESETS = sorted(registry())
GAMES = 12


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_random_play_reaches_an_end(ruleset_id):
    ruleset = registry()[ruleset_id]
    for game in range(GAMES):
        _, _, states = play_randomly(ruleset, game)
        assert ruleset.outcome(states[-1]) is not None, f"game {game} did not finish"


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_replaying_the_log_gives_the_same_states_and_dice(ruleset_id):
    ruleset = registry()[ruleset_id]
    for game in range(3):
        dice_seed, log, states = play_randomly(ruleset, 100 + game)
        dice = Dice(dice_seed)
        state, _ = ruleset.new_game(ruleset.options(None), dice)
        assert ruleset.dump_state(state) == ruleset.dump_state(states[0])
        for (seat, action, events), expected in zip(log, states[1:], strict=True):
            state, replayed = ruleset.apply(state, seat, action, dice)
            assert replayed == events
            assert ruleset.dump_state(state) == ruleset.dump_state(expected)


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_states_survive_json(ruleset_id):
    ruleset = registry()[ruleset_id]
    _, _, states = play_randomly(ruleset, 7)
    for state in states[:: max(1, len(states) // 50)]:
        dumped = json.loads(json.dumps(ruleset.dump_state(state)))
        assert ruleset.load_state(dumped) == state


EVERY_OPTION = {
    "dalsiandon": {"death_push": True, "rays_of_death": True, "king_of_the_center": True},
    "simeone": {"center_point": "end_of_round"},
    "eote": {"initial_ranks_check": True},
}


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_applying_an_action_leaves_the_state_it_started_from_untouched(ruleset_id):
    """The match service and the bots keep a state and apply actions to it again and
    again: ``copy_state`` may share only what ``apply`` never changes."""
    ruleset = registry()[ruleset_id]
    for options in (None, EVERY_OPTION.get(ruleset_id)):
        for game in range(3):
            rng = random.Random(game)
            dice = Dice(game.to_bytes(32, "big"))
            state, _ = ruleset.new_game(ruleset.options(options), dice)
            kept = []
            while ruleset.outcome(state) is None and len(kept) < MAX_STEPS:
                seat = rng.choice(ruleset.to_act(state))
                legal = [
                    a for a in ruleset.legal_actions(state, seat) if a["type"] not in COMMON_ACTION_TYPES
                ]
                kept.append((state, ruleset.dump_state(state)))
                for other in rng.sample(legal, min(3, len(legal))):  # roads not taken
                    ruleset.apply(state, seat, other, Dice(b"other"))
                state, _ = ruleset.apply(state, seat, rng.choice(legal), dice)
            for old, dumped in kept:
                assert ruleset.dump_state(old) == dumped


def _tampered(action: dict, rng: random.Random) -> list:
    bad = [None, [], "move", {}, {"type": 3}, {"type": "no-such-action"}, {**action, "extra": 1}]
    for key in action:
        if key != "type":
            bad.append({**action, key: "Z99"})
            bad.append({k: v for k, v in action.items() if k != key})
    return bad


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_actions_not_listed_are_refused_and_change_nothing(ruleset_id):
    ruleset = registry()[ruleset_id]
    rng = random.Random(5)
    _, log, states = play_randomly(ruleset, 11)
    for (seat, action, _), state in list(zip(log, states, strict=False))[:200]:
        before = ruleset.dump_state(state)
        legal = [ruleset.essential(a) for a in ruleset.legal_actions(state, seat)]
        for bad in _tampered(action, rng):
            if isinstance(bad, dict) and ruleset.essential(bad) in legal:
                continue
            with pytest.raises(IllegalAction) as refused:
                ruleset.apply(state, seat, bad, Dice(b"x"))
            assert str(refused.value), "a refusal says why"
        assert ruleset.dump_state(state) == before


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_views_are_json_and_hide_secrets(ruleset_id):
    ruleset = registry()[ruleset_id]
    _, _, states = play_randomly(ruleset, 3)
    for state in states[:: max(1, len(states) // 50)]:
        for seat in [None, *range(ruleset.seats)]:
            shown = json.dumps(ruleset.view(state, seat))
            for secret in ruleset.secrets(state, seat):
                assert json.dumps(secret) not in shown, f"seat {seat} sees {secret!r}"


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_every_seat_may_resign_and_offer_a_draw(ruleset_id):
    ruleset = registry()[ruleset_id]
    _, _, states = play_randomly(ruleset, 21)
    state = states[len(states) // 2]
    if ruleset.outcome(state) is not None:
        state = states[0]
    for seat in range(ruleset.seats):
        after, events = ruleset.apply(state, seat, {"type": "resign"}, Dice(b"x"))
        assert ruleset.outcome(after).winner != seat
        assert events[-1]["type"] == "end"
    offered, _ = ruleset.apply(state, 0, {"type": "offer_draw"}, Dice(b"x"))
    agreed, _ = ruleset.apply(offered, 1, {"type": "accept_draw"}, Dice(b"x"))
    assert ruleset.outcome(agreed).winner is None
    with pytest.raises(IllegalAction):
        ruleset.apply(agreed, 0, {"type": "resign"}, Dice(b"x"))


@pytest.mark.parametrize("ruleset_id", [r for r in RULESETS if hasattr(registry()[r], "can_act")])
def test_can_act_agrees_with_the_listed_actions(ruleset_id):
    """The kelly family's shortcut "does this seat have any move or attack?" must give
    the same answer as listing them, or a turn would be passed (or not) wrongly."""
    ruleset = registry()[ruleset_id]
    for game in range(4):
        _, _, states = play_randomly(ruleset, 300 + game)
        for state in states:
            if (
                ruleset.outcome(state) is None
                and getattr(state, "push", None) is None
                and hasattr(state, "turn")
            ):
                for seat in (0, 1):
                    assert ruleset.can_act(state, seat) == bool(ruleset.turn_actions(state, seat))
