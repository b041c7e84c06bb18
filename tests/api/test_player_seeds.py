"""Every seat's own dice seed (hmac-sha256-v2): sent on create and join, or drawn by
the server; settled at the start; a bad one is a clear 422 that changes nothing."""

from __future__ import annotations

from tests.api.helpers import view
from tests.conftest import new_player


async def test_seats_bring_their_own_seeds_and_bad_ones_are_refused(client):
    blue, red = await new_player(client, "Seeds"), await new_player(client, "More seeds")
    bad = await client.post(
        "/api/v1/matches", json={"ruleset": "kelly", "seat": 0, "seed": "zz" * 16}, headers=blue["headers"]
    )
    assert bad.status_code == 422 and "seed" in bad.text
    short = await client.post(
        "/api/v1/matches", json={"ruleset": "kelly", "seat": 0, "seed": "ab" * 8}, headers=blue["headers"]
    )
    assert short.status_code == 422 and "seed" in short.text
    created = await client.post(
        "/api/v1/matches", json={"ruleset": "kelly", "seat": 0, "seed": "AB" * 16}, headers=blue["headers"]
    )
    match = created.json()
    assert match["dice"] == {
        "scheme": "hmac-sha256-v2",
        "commitment": match["seed_sha256"],
        "seed": None,
        "player_seeds": ["ab" * 16, None],
    }
    refused = await client.post(
        f"/api/v1/matches/{match['id']}/join", json={"seed": "x"}, headers=red["headers"]
    )
    assert refused.status_code == 422 and (await view(client, match["id"]))["seats"][1]["player"] is None
    joined = await client.post(
        f"/api/v1/matches/{match['id']}/join", json={"seed": "cd" * 64}, headers=red["headers"]
    )
    assert joined.status_code == 200, joined.text
    shown = await view(client, match["id"])
    assert shown["status"] == "active" and shown["dice"]["player_seeds"] == ["ab" * 16, "cd" * 64]
    assert shown["seats"][1].get("bot") is None


async def test_a_gm_tables_npc_seat_gets_a_server_seed_at_the_start(client):
    host, player = await new_player(client, "GM"), await new_player(client, "Only one")
    created = await client.post(
        "/api/v1/matches", json={"ruleset": "kelly", "seat": None}, headers=host["headers"]
    )
    match_id = created.json()["id"]
    assert created.json()["dice"]["player_seeds"] == [None, None]
    await client.post(f"/api/v1/matches/{match_id}/join", json={"seat": 0}, headers=player["headers"])
    mine = await view(client, match_id, host)
    take = next(a for a in mine["legal_actions"] if a["type"] == "gm_take_seat" and a["seat"] == 1)
    await client.post(
        f"/api/v1/matches/{match_id}/actions",
        json={"action": take, "version": mine["version"]},
        headers=host["headers"],
    )
    mine = await view(client, match_id, host)
    start = next(a for a in mine["legal_actions"] if a["type"] == "gm_start")
    started = await client.post(
        f"/api/v1/matches/{match_id}/actions",
        json={"action": start, "version": mine["version"]},
        headers=host["headers"],
    )
    assert started.status_code == 200, started.text
    seeds = (await view(client, match_id))["dice"]["player_seeds"]
    assert all(len(s) == 64 for s in seeds) and seeds[0] != seeds[1]
