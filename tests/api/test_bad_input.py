"""Bad input gets a clear 4xx that says what is wrong, and the match is untouched."""

from __future__ import annotations

import random

import pytest

from app.rules.base import COMMON_ACTION_TYPES
from tests.api.helpers import start_match, view
from tests.conftest import new_player


async def refuse(response, status: int, *words: str) -> dict:
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    for word in words:
        assert word in detail, f"{word!r} not in {detail!r}"
    return response.json()


async def test_creating_a_match_with_an_unknown_ruleset_or_bad_options(client):
    host = await new_player(client, "Han")
    post = lambda body: client.post("/api/v1/matches", json=body, headers=host["headers"])  # noqa: E731
    await refuse(await post({"ruleset": "sabacc"}), 422, "sabacc", "kelly")
    await refuse(
        await post({"ruleset": "kelly", "options": {"turns_without_kill": -3}}),
        422,
        "options.turns_without_kill",
    )
    await refuse(await post({"ruleset": "kelly", "options": {"tunrs": 1}}), 422, "options.tunrs")
    await refuse(
        await post({"ruleset": "kelly", "options": {"turns_without_kill": "many"}}), 422, "turns_without_kill"
    )
    await refuse(await post({"ruleset": "kelly", "seat": 2}), 422, "seat")
    await refuse(await post({"ruleset": "kelly", "options": []}), 422, "options")
    await refuse(await post({"rules": "kelly"}), 422, "ruleset")
    # Types as the published schema says: true is not a number, nor "5", nor is 1 a boolean.
    await refuse(
        await post({"ruleset": "kelly", "options": {"turns_without_kill": True}}), 422, "turns_without_kill"
    )
    await refuse(
        await post({"ruleset": "kelly", "options": {"turns_without_kill": "5"}}), 422, "turns_without_kill"
    )
    await refuse(await post({"ruleset": "dalsiandon", "options": {"death_push": 1}}), 422, "death_push")
    await refuse(await post({"ruleset": "kelly", "seat": False}), 422, "seat")
    history = await client.get("/api/v1/matches", params={"player": host["id"]})
    assert history.json()["matches"] == [], "nothing was created"
    # A whole number written 5.0 is 5.
    whole = await post({"ruleset": "kelly", "options": {"turns_without_kill": 5.0}, "seat": 1.0})
    assert whole.status_code == 201, whole.text
    assert whole.json()["options"]["turns_without_kill"] == 5 and whole.json()["you"]["seat"] == 1


@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        b"",
        b"[1, 2]",
        b'{"action": {"type": "move"}}',
        b'{"action": "move", "version": 1}',
        b"\xff\xfe",
    ],
)
async def test_malformed_bodies_are_refused_and_change_nothing(client, body):
    match, players = await start_match(client)
    response = await client.post(
        f"/api/v1/matches/{match['id']}/actions",
        content=body,
        headers={**players[0]["headers"], "content-type": "application/json"},
    )
    assert response.status_code == 422, response.text
    assert isinstance(response.json()["detail"], str) and response.json()["detail"]
    assert (await view(client, match["id"]))["version"] == match["version"]


async def test_a_body_over_64_kb_is_refused(client):
    match, players = await start_match(client)
    huge = {"action": {"type": "move", "pad": "x" * 70_000}, "version": match["version"]}
    url = f"/api/v1/matches/{match['id']}/actions"
    await refuse(await client.post(url, json=huge, headers=players[0]["headers"]), 413, "64 KB")

    async def chunks():
        yield b'{"action": {"type": "move", "pad": "'
        for _ in range(80):
            yield b"x" * 1000
        yield b'"}, "version": 2}'

    chunked = await client.post(
        url, content=chunks(), headers={**players[0]["headers"], "content-type": "application/json"}
    )
    assert chunked.status_code == 413
    assert (await view(client, match["id"]))["version"] == match["version"]


async def test_unknown_matches_and_missing_credentials(client):
    chewie = await new_player(client, "Chewie")
    await refuse(await client.get("/api/v1/matches/nope"), 404, "nope")
    await refuse(await client.post("/api/v1/matches/nope/join", headers=chewie["headers"]), 404, "nope")
    await refuse(
        await client.post(
            "/api/v1/matches/nope/actions", json={"action": {}, "version": 0}, headers=chewie["headers"]
        ),
        404,
    )
    await refuse(await client.get("/api/v1/matches/nope/events"), 404)
    match, _ = await start_match(client)
    url = f"/api/v1/matches/{match['id']}/actions"
    body = {"action": {"type": "resign"}, "version": match["version"]}
    await refuse(await client.post(url, json=body), 401, "Bearer")
    await refuse(
        await client.post(url, json=body, headers={"Authorization": "Bearer forged"}), 401, "not valid"
    )
    await refuse(await client.post("/api/v1/matches", json={"ruleset": "kelly"}), 401)
    assert (await view(client, match["id"]))["status"] == "active"


async def test_illegal_stale_and_out_of_turn_actions(client):
    match, players = await start_match(client)
    seat = match["to_act"][0]
    mover, waiter = players[seat], players[1 - seat]
    url = f"/api/v1/matches/{match['id']}/actions"
    legal = (await view(client, match["id"], mover))["legal_actions"]
    move = next(a for a in legal if a["type"] == "move")
    version = match["version"]

    wrong_square = {**move, "to": "Z9"}
    await refuse(
        await client.post(url, json={"action": wrong_square, "version": version}, headers=mover["headers"]),
        422,
        '"to"',
        "possible",
    )
    unknown = {"type": "teleport"}
    await refuse(
        await client.post(url, json={"action": unknown, "version": version}, headers=mover["headers"]),
        422,
        "teleport",
    )
    await refuse(
        await client.post(url, json={"action": move, "version": version}, headers=waiter["headers"]),
        403,
        "not your decision",
    )
    stale = await refuse(
        await client.post(url, json={"action": move, "version": version - 1}, headers=mover["headers"]),
        409,
        "not current",
    )
    assert stale["version"] == version
    outsider = await new_player(client, "Greedo")
    await refuse(
        await client.post(url, json={"action": move, "version": version}, headers=outsider["headers"]),
        403,
        "no seat",
    )
    await refuse(
        await client.post(f"/api/v1/matches/{match['id']}/join", headers=outsider["headers"]), 409, "active"
    )
    after = await view(client, match["id"], mover)
    assert after["version"] == version and after["legal_actions"] == legal, "the match is untouched"


async def test_actions_after_the_end_are_refused(client):
    """Once a match is over (here by a resignation: how it ended does not matter), neither
    player can act in it, not even with an action that was legal a moment before."""
    match, players = await start_match(client)
    mover = players[match["to_act"][0]]
    before = await view(client, match["id"], mover)
    move = next(a for a in before["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES)
    url = f"/api/v1/matches/{match['id']}/actions"
    resigned = await client.post(
        url, json={"action": {"type": "resign"}, "version": before["version"]}, headers=mover["headers"]
    )
    assert resigned.status_code == 200, resigned.text
    finished = await view(client, match["id"])
    assert finished["status"] == "finished"
    for player in players:
        for action in ({"type": "resign"}, move):
            await refuse(
                await client.post(
                    url,
                    json={"action": action, "version": finished["version"]},
                    headers=player["headers"],
                ),
                409,
                "over",
            )
    assert (await view(client, match["id"]))["version"] == finished["version"]


async def test_a_match_that_has_not_started_refuses_actions(client):
    host = await new_player(client, "Han")
    created = (
        await client.post("/api/v1/matches", json={"ruleset": "kelly"}, headers=host["headers"])
    ).json()
    response = await client.post(
        f"/api/v1/matches/{created['id']}/actions",
        json={"action": {"type": "resign"}, "version": 0},
        headers=host["headers"],
    )
    await refuse(response, 409, "not started")
    await refuse(await client.get("/api/v1/matches", params={"cursor": "!!"}), 422, "cursor")
    await refuse(await client.get("/api/v1/matches", params={"status": "paused"}), 422, "status")
    await refuse(await client.get("/api/v1/matches", params={"limit": 0}), 422, "limit")


async def test_random_junk_never_makes_a_500(client):
    match, players = await start_match(client)
    rng = random.Random(42)
    url = f"/api/v1/matches/{match['id']}/actions"
    legal = (await view(client, match["id"], players[match["to_act"][0]]))["legal_actions"]
    samples = [
        None,
        0,
        -1,
        2**70,
        "",
        "x" * 300,
        [],
        {},
        {"type": None},
        True,
        1.5,
        {"type": "move", "piece": []},
    ]
    for _ in range(60):
        action = dict(rng.choice([a for a in legal if a["type"] not in COMMON_ACTION_TYPES]))
        action[rng.choice([*action, "type", "extra"])] = rng.choice(samples)
        version = rng.choice([match["version"], -5, 2**40, "3", None])
        for player in players:
            response = await client.post(
                url, json={"action": action, "version": version}, headers=player["headers"]
            )
            assert 400 <= response.status_code < 500, response.text
    assert (await view(client, match["id"]))["version"] == match["version"]


async def test_digits_that_are_not_decimal_get_no_500(client):
    """``"²".isdigit()`` is true but ``int("²")`` fails: the pages that read numbers from
    text treat it as what it is, not a number."""
    match, _ = await start_match(client)
    replay = await client.get(f"/matches/{match['id']}/replay", params={"v": "²"})
    assert replay.status_code == 200, "opens on the latest position, as without ?v="
    picture = await client.get(f"/matches/{match['id']}/board.png", params={"v": "²"})
    assert picture.status_code == 422 and "whole number" in picture.text
