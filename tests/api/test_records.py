"""Records: a past version as a spectator saw it (``/at/{version}``) for every
ruleset, and the NDJSON exports of listings and logs, streamed."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from app.rules import registry
from app.services import records
from tests.api.helpers import Table, play_one, start_match, view
from tests.conftest import new_player

NDJSON = {"Accept": "application/x-ndjson"}
COMPARED = ("status", "version", "to_act", "state", "result", "options", "paused")


def spectator_part(shown: dict) -> dict:
    return {key: shown[key] for key in COMPARED} | {"seats": [s["player"] for s in shown["seats"]]}


async def play_recording(client, match_id: str, players: list[dict], seed: int, most: int = 400):
    """Play to the end, keeping what a spectator saw at every version."""
    rng = random.Random(seed)
    seen = {}
    for _ in range(most):
        shown = await view(client, match_id)
        seen[shown["version"]] = shown
        if shown["status"] == "finished":
            return seen
        await play_one(client, match_id, players, rng)
    raise AssertionError("the match did not finish")


def some_versions(versions: list[int]) -> list[int]:
    """All of the first thirty versions, every seventh after, and the last."""
    return sorted({v for v in versions if v <= 30 or v % 7 == 0} | {max(versions)})


@pytest.mark.parametrize("ruleset", sorted(registry()))
async def test_every_version_of_every_ruleset_is_what_a_spectator_saw(client, ruleset, monkeypatch):
    # The server runs in this process: replays go on from a checkpoint every 3 versions.
    monkeypatch.setattr(records, "CHECKPOINT_EVERY", 3)
    match, players = await start_match(client, ruleset, {"turns_without_kill": 12})
    match_id = match["id"]
    seen = await play_recording(client, match_id, players, seed=7)
    for version in some_versions(list(seen)):
        then = (await client.get(f"/api/v1/matches/{match_id}/at/{version}")).json()
        assert spectator_part(then) == spectator_part(seen[version]), f"version {version}"
        assert [e["version"] for e in then["log"]] == list(range(1, version + 1))
        assert then["legal_actions"] == [] and then["you"]["seat"] is None
        assert then["latest_version"] == max(seen) and then["seed"] == seen[max(seen)]["seed"]
    # Before the players sat down: waiting, nobody's turn.
    first = (await client.get(f"/api/v1/matches/{match_id}/at/0")).json()
    assert first["status"] == "waiting" and first["state"] == {} and first["log"] == []
    assert [s["player"] for s in first["seats"]] == [{"id": players[0]["id"], "name": "Chewie"}, None]


async def test_a_version_not_reached_is_404_and_a_bad_one_422(client):
    match, _ = await start_match(client)
    ahead = await client.get(f"/api/v1/matches/{match['id']}/at/{match['version'] + 1}")
    assert ahead.status_code == 404 and f"version {match['version']}" in ahead.json()["detail"]
    assert (await client.get(f"/api/v1/matches/{match['id']}/at/-1")).status_code == 422
    assert (await client.get(f"/api/v1/matches/{match['id']}/at/x")).status_code == 422
    assert (await client.get("/api/v1/matches/nope/at/1")).status_code == 404


async def test_hidden_choices_show_only_once_the_match_is_over(client):
    match, players = await start_match(client, "eote", {"turns_without_kill": 12})
    rng = random.Random(5)
    hidden_then = None
    for _ in range(60):
        _, action, response = await play_one(client, match["id"], players, rng)
        if action["type"] == "set_piece":
            version = response.json()["version"]
            then = (await client.get(f"/api/v1/matches/{match['id']}/at/{version}")).json()
            assert then["hidden"] == [] and then["log"][-1]["action"] == {"type": "hidden"}
            hidden_then = version
            break
    assert hidden_then is not None, "a setter chose a piece"
    await client.post(
        f"/api/v1/matches/{match['id']}/actions",
        json={"action": {"type": "resign"}, "version": (await view(client, match["id"]))["version"]},
        headers=players[0]["headers"],
    )
    after = (await client.get(f"/api/v1/matches/{match['id']}/at/{hidden_then}")).json()
    assert after["match_status"] == "finished" and after["status"] == "active"
    assert after["log"][-1]["action"]["type"] == "set_piece"
    assert after["hidden"] and after["hidden"][0]["chosen"]


def lines_of(response) -> list[dict]:
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/x-ndjson"
    assert response.text.endswith("\n")
    return [json.loads(line) for line in response.text.splitlines()]


async def test_a_players_whole_history_as_ndjson_newest_first(client, monkeypatch):
    monkeypatch.setattr(records, "PAGE", 2)  # the server runs in this process: stream in pages of two
    host = await new_player(client, "Archivist")
    made = []
    for ruleset in ("kelly", "simeone", "kelly", "eote", "courtier"):
        created = await client.post(
            "/api/v1/matches", json={"ruleset": ruleset, "seat": 0}, headers=host["headers"]
        )
        made.append(created.json()["id"])
    every = lines_of(await client.get("/api/v1/matches", params={"player": host["id"]}, headers=NDJSON))
    assert [m["id"] for m in every] == made[::-1]
    listed = (await client.get("/api/v1/matches", params={"player": host["id"], "limit": 100})).json()
    assert every == listed["matches"]
    kelly = lines_of(
        await client.get("/api/v1/matches", params={"player": host["id"], "ruleset": "kelly"}, headers=NDJSON)
    )
    assert [m["id"] for m in kelly] == [made[2], made[0]]
    bad = await client.get("/api/v1/matches", params={"status": "over"}, headers=NDJSON)
    assert bad.status_code == 422 and "status" in bad.json()["detail"]


async def test_a_matchs_log_as_ndjson(client, monkeypatch):
    monkeypatch.setattr(records, "PAGE", 3)
    match, players = await start_match(client)
    rng = random.Random(11)
    for _ in range(8):
        await play_one(client, match["id"], players, rng)
    as_json = (await client.get(f"/api/v1/matches/{match['id']}/events")).json()["events"]
    streamed = lines_of(await client.get(f"/api/v1/matches/{match['id']}/events", headers=NDJSON))
    assert streamed == as_json and len(streamed) == (await view(client, match["id"]))["version"]
    later = lines_of(
        await client.get(f"/api/v1/matches/{match['id']}/events", params={"after": 4}, headers=NDJSON)
    )
    assert later == as_json[4:]
    missing = await client.get("/api/v1/matches/nope/events", headers=NDJSON)
    assert missing.status_code == 404


async def test_one_export_at_a_time_per_address(client, live_server):
    gate = live_server.server.config.app.state.export_gate
    gate.enter("127.0.0.1")  # an export from this address is streaming
    try:
        refused = await client.get("/api/v1/matches", headers=NDJSON)
        assert refused.status_code == 429 and refused.headers["retry-after"] == "60"
        assert "one export at a time" in refused.json()["detail"]
        assert (await client.get("/api/v1/matches")).status_code == 200, "pages of JSON are not exports"
    finally:
        gate.leave("127.0.0.1")
    assert (await client.get("/api/v1/matches", headers=NDJSON)).status_code == 200
    # The stream's end gives the slot back just after its last bytes reach the client.
    for _ in range(50):
        if gate.open["127.0.0.1"] == 0:
            break
        await asyncio.sleep(0.05)
    assert gate.open["127.0.0.1"] == 0, "a finished export gives its slot back"


async def test_the_replay_page_opens_at_the_version_asked_within_the_match_else_the_latest(client):
    match, _ = await start_match(client)
    page = await client.get(f"/matches/{match['id']}/replay", params={"v": "2"})
    assert page.status_code == 200 and 'data-start="2"' in page.text
    assert f'data-latest="{match["version"]}"' in page.text and "verify-dice" not in page.text
    beyond = await client.get(f"/matches/{match['id']}/replay", params={"v": "99999999999"})
    assert f'data-start="{match["version"]}"' in beyond.text
    for unasked in ("", "?v=x"):
        opened = await client.get(f"/matches/{match['id']}/replay{unasked}")
        assert f'data-start="{match["version"]}"' in opened.text
    assert (await client.get("/matches/nope/replay")).status_code == 404


async def test_a_gm_table_with_an_undo_replays_every_version(client):
    table = await Table.open(client)
    await table.control("gm_start")
    seen = {}
    await table.control("gm_pause")
    paused = await table.view()
    seen[paused["version"]] = paused
    await table.control("gm_resume")
    rng = random.Random(2)
    for _ in range(4):
        await table.play(rng)
        shown = await table.view()
        seen[shown["version"]] = shown
    _, _, played = await table.play(rng)
    await table.control("gm_undo", version=played["version"])
    await table.play(rng)
    latest = await table.view()
    seen[latest["version"]] = latest
    for version, shown in seen.items():
        then = (await client.get(f"/api/v1/matches/{table.id}/at/{version}")).json()
        assert spectator_part(then) == spectator_part(shown), f"version {version}"
    undone = (await client.get(f"/api/v1/matches/{table.id}/at/{played['version']}")).json()
    assert undone["log"][-1]["version"] == played["version"], "the undone action is still in the history"
