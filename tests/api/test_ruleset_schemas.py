"""``GET /api/v1/rulesets/{id}`` publishes the JSON Schemas of a ruleset's actions and
state. A client written from them alone is right: through REST, in a GM-run timed match
of every ruleset, every ``legal_actions`` entry of every viewer (the GM's controls and
a claim of the win on time included) and every ``state`` validate against them."""

from __future__ import annotations

import json
import random
from datetime import timedelta
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from app.rules import registry
from app.rules.base import COMMON_ACTION_TYPES
from tests.api.helpers import view
from tests.conftest import new_player

OPTIONS = {
    "dalsiandon": {"nowhere_is_safe": True, "rays_of_death": True, "death_push": True},
    "simeone": {"center_point": "end_of_round"},
    "courtier": {"first": "random"},
    "eote": {"initial_ranks_check": True},
}
STEPS = 30
"""Game actions played before the seat to act runs out of time and the other claims the win."""


def problems(validator: Draft202012Validator, instance: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(instance)]


async def published(client, ruleset_id: str) -> tuple[Draft202012Validator, Draft202012Validator]:
    response = await client.get(f"/api/v1/rulesets/{ruleset_id}")
    assert response.status_code == 200
    info = response.json()
    listed = {r["id"]: r for r in (await client.get("/api/v1/rulesets")).json()}
    assert listed[ruleset_id] == info, "the list and the ruleset's own page agree"
    for schema in (info["actions_schema"], info["state_schema"]):
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        Draft202012Validator.check_schema(schema)
    return Draft202012Validator(info["actions_schema"]), Draft202012Validator(info["state_schema"])


class Checker:
    """Looks at a match as each of its viewers sees it, and checks what they see."""

    def __init__(self, client, match_id: str, viewers: list[dict | None], schemas) -> None:
        self.client, self.id, self.viewers = client, match_id, viewers
        self.actions, self.state = schemas
        self.types: set[str] = set()
        self.checked: set[str] = set()  # what was checked once is not checked again

    def check(self, validator: Draft202012Validator, instance: dict[str, Any]) -> None:
        key = json.dumps(instance, sort_keys=True)
        if key not in self.checked:
            self.checked.add(key)
            assert not problems(validator, instance), (instance, problems(validator, instance))

    async def look(self) -> list[dict[str, Any]]:
        """Every viewer's match view, each checked; in the order of ``viewers``."""
        seen = []
        for who in self.viewers:
            shown = await view(self.client, self.id, who)
            if shown["status"] == "waiting":
                assert shown["state"] == {}, "no state before the start"
            else:
                self.check(self.state, shown["state"])
            for action in shown["legal_actions"]:
                self.check(self.actions, action)
                self.types.add(action["type"])
            seen.append(shown)
        return seen

    async def send(self, who: dict, action: dict, version: int) -> None:
        response = await self.client.post(
            f"/api/v1/matches/{self.id}/actions",
            json={"action": action, "version": version},
            headers=who["headers"],
        )
        assert response.status_code == 200, response.text


def control(shown: dict, kind: str) -> dict:
    return next(a for a in shown["legal_actions"] if a["type"] == kind)


@pytest.mark.parametrize("ruleset_id", sorted(registry()))
async def test_a_gm_run_timed_match_shows_only_what_the_published_schemas_describe(
    client, server_clock, ruleset_id
):
    schemas = await published(client, ruleset_id)
    gm, *players = [await new_player(client, name) for name in ("The GM", "Kyla", "Dorn")]
    options = {"turns_without_kill": 20, "clock": {"per_move_s": 60}, **OPTIONS.get(ruleset_id, {})}
    created = await client.post(
        "/api/v1/matches",
        json={"ruleset": ruleset_id, "options": options, "seat": None},
        headers=gm["headers"],
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    for seat, player in enumerate(players):
        joined = await client.post(
            f"/api/v1/matches/{match_id}/join", json={"seat": seat}, headers=player["headers"]
        )
        assert joined.status_code == 200, joined.text
    table = Checker(client, match_id, [gm, *players, None], schemas)

    host = (await table.look())[0]
    await table.send(gm, control(host, "gm_set_options"), host["version"])  # sent back as listed
    host = (await table.look())[0]
    await table.send(gm, control(host, "gm_start"), host["version"])
    rng = random.Random(ruleset_id)
    for step in range(STEPS):
        host, *seated, spectator = await table.look()
        if spectator["status"] == "finished":
            break
        if step == 3:  # the GM pauses (every view while paused is checked) and resumes
            await table.send(gm, control(host, "gm_pause"), host["version"])
            host = (await table.look())[0]
            await table.send(gm, control(host, "gm_resume"), host["version"])
            continue
        if step == 6 and any(a["type"] == "gm_undo" for a in host["legal_actions"]):
            await table.send(gm, control(host, "gm_undo"), host["version"])
            continue
        decisions = [a for a in host["legal_actions"] if a["type"] in {"gm_grant_reroll", "gm_refuse_reroll"}]
        if decisions:  # eote: a seat asked the GM for a re-roll of its ranks; the GM decides
            await table.send(gm, rng.choice(decisions), host["version"])
            continue
        seat = rng.choice(spectator["to_act"])
        game = [a for a in seated[seat]["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES]
        await table.send(players[seat], rng.choice(game), spectator["version"])
    else:
        # The seat to act runs out of time; the other claims the win with what it is offered.
        server_clock.skew = timedelta(seconds=61)
        _, *seated, spectator = await table.look()
        waiting = 1 - spectator["to_act"][0]
        await table.send(players[waiting], control(seated[waiting], "claim_timeout"), spectator["version"])
        assert "claim_timeout" in table.types
    assert all(shown["status"] == "finished" for shown in await table.look())
    assert {"gm_set_options", "gm_start", "gm_pause", "gm_resume", "resign", "offer_draw"} <= table.types
    published_types = set(schemas[0].schema["discriminator"]["mapping"])
    assert table.types <= published_types


async def test_the_published_schemas_refuse_a_wrong_action_and_a_wrong_state(client):
    actions, state = await published(client, "kelly")
    players = [await new_player(client, name) for name in ("Han", "Chewie")]
    created = await client.post(
        "/api/v1/matches", json={"ruleset": "kelly", "seat": 0}, headers=players[0]["headers"]
    )
    match_id = created.json()["id"]
    await client.post(f"/api/v1/matches/{match_id}/join", headers=players[1]["headers"])
    shown = await view(client, match_id)
    mover = players[shown["to_act"][0]]
    move = next(a for a in (await view(client, match_id, mover))["legal_actions"] if a["type"] == "move")
    assert not problems(actions, move) and not problems(state, shown["state"])
    assert problems(actions, {**move, "type": "teleport"})
    assert problems(actions, {k: v for k, v in move.items() if k != "to"})
    assert problems(actions, {**move, "to": "D1"})
    assert problems(actions, {**move, "piece": "rancor"})
    assert problems(state, {k: v for k, v in shown["state"].items() if k != "pieces"})
    assert problems(state, {**shown["state"], "turn": 2})
    # And the server agrees: what the schema refuses, the server refuses too.
    for wrong in (
        {**move, "type": "teleport"},
        {**move, "to": "D1"},
        {k: v for k, v in move.items() if k != "to"},
    ):
        response = await client.post(
            f"/api/v1/matches/{match_id}/actions",
            json={"action": wrong, "version": shown["version"]},
            headers=mover["headers"],
        )
        assert response.status_code == 422, response.text
