"""Every ruleset publishes the JSON Schemas of its actions and of its state as a seat
sees it (``GET /api/v1/rulesets/{id}``). Random games of every ruleset, with its
options, check them against what the rules really produce: every legal action of
every seat, and every view of every seat and of a spectator, at every step."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from functools import cache
from itertools import chain
from typing import Any

import jsonschema_rs
import pytest
from jsonschema import Draft202012Validator

from app.rules import registry
from app.rules.base import Ruleset
from app.rules.dice import Dice
from tests.rules.courtier_positions import move as courtier_move
from tests.rules.courtier_positions import position as courtier_position
from tests.rules.helpers import play_randomly

OPTION_SETS: dict[str, list[dict[str, Any]]] = {
    "kelly": [{}],
    "kelly-d20": [{}],
    "dalsiandon": [
        {},
        {"teams": "random", "king_of_the_center": True, "death_push": True},
        {"nowhere_is_safe": True, "twenty_sides_of_terror": True, "rays_of_death": True, "death_push": True},
    ],
    "simeone": [{}, {"center_point": "end_of_round", "points_to_win": 0}],
    "courtier": [{}, {"first": "random"}],
    "orbit-chess": [{}],
    "eote": [
        {},
        {
            "initial_ranks_check": True,
            "sheets": [{"intellect": 5, "knowledge_core_worlds": 4}, {"intellect": 1, "strain_threshold": 3}],
        },
    ],
}
GAMES = 3
RULESETS = sorted(registry())

# Actions no random game of the rules alone lists: claiming the win on time (the match
# service lists it, for timed matches: tests/api/test_ruleset_schemas.py plays it).
NOT_FROM_THE_RULES = {"claim_timeout"}


@cache
def validators(
    ruleset_id: str,
) -> tuple[jsonschema_rs.Draft202012Validator, jsonschema_rs.Draft202012Validator]:
    """The published schemas, each checked against the 2020-12 metaschema, then compiled by
    ``jsonschema-rs`` (Schemathesis's validator): the reference ``jsonschema`` took 18 of
    the 21 s a ruleset's random games took here."""
    ruleset = registry()[ruleset_id]
    actions, state = ruleset.actions_schema(), ruleset.state_schema()
    for schema in (actions, state):
        Draft202012Validator.check_schema(schema)
    return jsonschema_rs.Draft202012Validator(actions), jsonschema_rs.Draft202012Validator(state)


def errors(validator: jsonschema_rs.Draft202012Validator, instance: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.instance_path))}: {e.message}" for e in validator.iter_errors(instance)]


def positions(ruleset: Ruleset, seed: int, options: dict[str, Any]) -> Iterator[Any]:
    """Every state of a random game, then the same states with a draw offered (the
    answers are legal actions too) and one with the game over by resignation."""
    _, _, states = play_randomly(ruleset, seed, options)
    yield from states
    middle = states[len(states) // 2]
    if ruleset.outcome(middle) is None:
        offered, _ = ruleset.apply(middle, 0, {"type": "offer_draw"}, Dice(b"x"))
        yield offered
        resigned, _ = ruleset.apply(middle, 1, {"type": "resign"}, Dice(b"x"))
        yield resigned


def first_game(ruleset: Ruleset, options: dict[str, Any], found: Any) -> Any:
    """The first new game (seed 0, 1, …) for which ``found(state, dice)`` gives a state."""
    for seed in range(3000):
        dice = Dice(seed.to_bytes(32, "big"))
        state, _ = ruleset.new_game(ruleset.options(options), dice)
        hit = found(state, dice)
        if hit is not None:
            return hit
    raise AssertionError("no game reached the position")


def rare_positions(ruleset_id: str) -> Iterator[Any]:
    """Real positions that random games seldom reach, where rare actions are legal."""
    ruleset = registry()[ruleset_id]
    if ruleset_id == "dalsiandon":
        # The third miss in a row of the draft's last round: the higher roll chooses, or defers.
        choosing = first_game(ruleset, {}, lambda s, _: s if s.draft.chooser is not None else None)
        yield choosing
        yield ruleset.apply(choosing, choosing.draft.chooser, {"type": "defer"}, Dice(b"x"))[0]
    if ruleset_id == "eote":
        # A failed initial ranks check that showed a triumph or three advantages: a re-roll.
        options = {"initial_ranks_check": True, "sheets": [{"intellect": 5, "knowledge_core_worlds": 5}, {}]}

        def rerolled(state: Any, dice: Dice) -> Any:
            after, _ = ruleset.apply(state, 0, {"type": "choose_difficulty", "difficulty": 5}, dice)
            return after if after.ranks is not None and after.ranks.step == "reroll" else None

        offered = first_game(ruleset, options, rerolled)
        yield offered
        # The same in a GM-hosted match: the player asks, and the GM grants or refuses.
        hosted = offered.model_copy(update={"gm": True})
        yield hosted
        yield ruleset.apply(hosted, 0, {"type": "ask_reroll"}, Dice(b"x"))[0]
    if ruleset_id == "courtier":
        # Blue moving to B3 encloses B2 and C: it chooses which one to capture.
        yield courtier_move(courtier_position("B1=b B2=r C=r B9=b A3=b"), "A3", "B3")[0]


def test_every_registered_ruleset_is_covered():
    assert set(OPTION_SETS) == set(registry())


@pytest.mark.runs_long
@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_every_action_and_view_of_random_games_matches_the_published_schemas(ruleset_id):
    ruleset = registry()[ruleset_id]
    actions, state = validators(ruleset_id)
    checked: set[str] = set()  # the same view or action is checked once (jsonschema is slow)
    seen: set[str] = set()

    def check(
        validator: jsonschema_rs.Draft202012Validator, instance: dict[str, Any], seat: int | None
    ) -> None:
        key = json.dumps(instance, sort_keys=True)
        if key not in checked:
            checked.add(key)
            assert not errors(validator, instance), (seat, instance, errors(validator, instance))

    games = (
        positions(ruleset, 1000 * n + game, {"turns_without_kill": 30, **options})
        for n, options in enumerate(OPTION_SETS[ruleset_id])
        for game in range(GAMES)
    )
    for position in chain(*games, rare_positions(ruleset_id)):
        for seat in (None, *range(ruleset.seats)):
            check(state, ruleset.view(position, seat), seat)
            mine = ruleset.legal_actions(position, seat) if seat is not None else ruleset.gm_actions(position)
            for action in mine:
                check(actions, action, seat)
                seen.add(action["type"])
    published = set(ruleset.actions_schema()["discriminator"]["mapping"])
    assert seen == published - NOT_FROM_THE_RULES, "every action type published was played, and no other"


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_the_schemas_refuse_what_the_server_would_not_send_or_accept(ruleset_id):
    """So the test above can fail: a wrong type, a missing or unknown field, a piece
    or a space the ruleset does not have, a state with a field missing or added."""
    ruleset = registry()[ruleset_id]
    actions, state = validators(ruleset_id)
    _, log, states = play_randomly(ruleset, 5, OPTION_SETS[ruleset_id][-1])
    played = [action for _, action, _ in log]
    assert errors(actions, {"type": "teleport"})
    assert errors(actions, {"piece": "x"}), "an action names its type"
    for action in random.Random(1).sample(played, min(len(played), 40)):
        assert errors(actions, {**action, "teleport": True}), "unknown fields are refused"
        for key, value in action.items():
            if key in ruleset.info_keys or key == "type":
                continue
            without = {k: v for k, v in action.items() if k != key}
            assert errors(actions, without), f"{key} is required (a pawn's push: with push_to)"
            if isinstance(value, str):
                assert errors(actions, {**action, key: "Z99"}), f"{key} is one of a fixed set"
    view = ruleset.view(states[len(states) // 2], 0)
    for key in view:
        assert errors(state, {k: v for k, v in view.items() if k != key}), f"{key} is required"
    assert errors(state, {**view, "secret": 1}), "the state names every field it has"
    broken = copy.deepcopy(view)
    broken["draw_offer"] = 7
    assert errors(state, broken), "a seat is 0 or 1"
    pieces = [p for p in view.get("pieces", []) if "at" in p]
    if pieces:
        broken = copy.deepcopy(view)
        broken["pieces"][0]["at"] = "Z99"
        assert errors(state, broken), "a piece stands on a space of the board"
