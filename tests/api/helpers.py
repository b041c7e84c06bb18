"""Small clients that play through the public API only, as a REST bot would."""

from __future__ import annotations

import random
from typing import Any

import httpx

from app.rules.base import COMMON_ACTION_TYPES
from tests.conftest import new_player


async def start_match(client: httpx.AsyncClient, ruleset: str = "kelly", options: dict | None = None):
    """Two players, a match between them, started. Returns (match view, [player0, player1])."""
    blue, red = await new_player(client, "Chewie"), await new_player(client, "R2-D2")
    created = await client.post(
        "/api/v1/matches",
        json={"ruleset": ruleset, "options": options or {}, "seat": 0},
        headers=blue["headers"],
    )
    assert created.status_code == 201, created.text
    joined = await client.post(f"/api/v1/matches/{created.json()['id']}/join", headers=red["headers"])
    assert joined.status_code == 200, joined.text
    return joined.json(), [blue, red]


async def view(client: httpx.AsyncClient, match_id: str, player: dict | None = None) -> dict[str, Any]:
    response = await client.get(f"/api/v1/matches/{match_id}", headers=player["headers"] if player else {})
    assert response.status_code == 200, response.text
    return response.json()


async def play_one(client: httpx.AsyncClient, match_id: str, players: list[dict], rng: random.Random):
    """The seat to act plays a random legal game action. Returns (seat, action, response)."""
    current = await view(client, match_id)
    seat = rng.choice(current["to_act"])
    mine = await view(client, match_id, players[seat])
    action = rng.choice([a for a in mine["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES])
    response = await client.post(
        f"/api/v1/matches/{match_id}/actions",
        json={"action": action, "version": mine["version"]},
        headers=players[seat]["headers"],
    )
    assert response.status_code == 200, response.text
    return seat, action, response


async def play_to_the_end(client: httpx.AsyncClient, match_id: str, players: list[dict], seed: int = 1):
    rng = random.Random(seed)
    for _ in range(5000):
        if (await view(client, match_id))["status"] == "finished":
            return await view(client, match_id)
        await play_one(client, match_id, players, rng)
    raise AssertionError("the match did not finish")
