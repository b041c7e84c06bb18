"""The match endpoints of API.md, played through REST only."""

from __future__ import annotations

import asyncio
import hashlib
import random
from datetime import datetime, timedelta

import pytest

from app.rules import get_ruleset
from app.rules.dice import verify_roll
from app.rules.log import Entry, replayed
from tests.api.helpers import play_one, play_to_the_end, start_match, view
from tests.conftest import new_player


async def test_a_match_waits_for_its_seats_then_starts(client):
    host = await new_player(client, "Han")
    created = await client.post(
        "/api/v1/matches", json={"ruleset": "kelly", "seat": 1}, headers=host["headers"]
    )
    assert created.status_code == 201
    match = created.json()
    assert match["status"] == "waiting" and match["version"] == 0
    assert [s["player"] for s in match["seats"]] == [None, {"id": host["id"], "name": "Han"}]
    assert match["legal_actions"] == [] and match["result"] is None
    assert len(match["seed_sha256"]) == 64 and match["seed"] is None

    guest = await new_player(client, "Leia")
    joined = await client.post(f"/api/v1/matches/{match['id']}/join", json={}, headers=guest["headers"])
    assert joined.status_code == 200
    started = joined.json()
    assert started["status"] == "active" and started["seats"][0]["player"]["name"] == "Leia"
    assert started["version"] == 2, "version 1: Leia sat down; version 2: the start"
    assert len(started["to_act"]) == 1


async def test_each_caller_sees_only_their_own_legal_actions(client):
    match, players = await start_match(client)
    seat = match["to_act"][0]
    mine = await view(client, match["id"], players[seat])
    theirs = await view(client, match["id"], players[1 - seat])
    spectator = await view(client, match["id"])
    assert {a["type"] for a in mine["legal_actions"]} >= {"move", "resign"}
    assert {a["type"] for a in theirs["legal_actions"]} == {"offer_draw", "resign"}, "no moves out of turn"
    assert spectator["legal_actions"] == [] and spectator["you"]["seat"] is None
    assert mine["state"]["pieces"] == spectator["state"]["pieces"]


async def test_two_players_play_kelly_to_a_finish_and_every_roll_checks_out(client):
    match, players = await start_match(client)
    finished = await play_to_the_end(client, match["id"], players)
    assert finished["status"] == "finished" and finished["to_act"] == []
    assert finished["result"]["reason"]
    # The seed is revealed at the end and matches the commitment shown from the start.
    seed = bytes.fromhex(finished["seed"])
    assert hashlib.sha256(seed).hexdigest() == match["seed_sha256"] == finished["seed_sha256"]
    log = (await client.get(f"/api/v1/matches/{match['id']}/events")).json()["events"]
    assert [e["version"] for e in log] == list(range(1, finished["version"] + 1))
    rolls = [event for entry in log for event in entry["events"] if event["type"] == "roll"]
    player_seeds = finished["dice"]["player_seeds"]
    assert finished["dice"]["scheme"] == "hmac-sha256-v2" and all(player_seeds)
    assert rolls and all(verify_roll(seed, roll, player_seeds) for roll in rolls)
    # Replaying the log from the seed gives exactly the state the server shows.
    kelly = get_ruleset("kelly")
    entries = [Entry.from_json(e) for e in log]
    final = None
    for entry, state, events in replayed(
        kelly, finished["options"], finished["seed"], entries, None, player_seeds
    ):
        # As served, every event carries its words (``text``, computed for the viewer).
        assert all(isinstance(e.get("text"), str) and e["text"] for e in entry.events)
        assert events == [{k: v for k, v in e.items() if k != "text"} for e in entry.events]
        final = state
    assert kelly.view(final, None) == finished["state"]


async def test_events_after_a_version(client):
    match, players = await start_match(client)
    rng = random.Random(3)
    for _ in range(3):
        await play_one(client, match["id"], players, rng)
    later = (await client.get(f"/api/v1/matches/{match['id']}/events", params={"after": 3})).json()["events"]
    assert [e["version"] for e in later] == [4, 5]
    assert all({"version", "seat", "action", "events", "at"} <= set(e) for e in later)


async def test_the_same_action_sent_twice_is_applied_once(client):
    match, players = await start_match(client)
    seat = match["to_act"][0]
    mine = await view(client, match["id"], players[seat])
    move = next(a for a in mine["legal_actions"] if a["type"] == "move")
    body = {"action": move, "version": mine["version"]}
    first = await client.post(
        f"/api/v1/matches/{match['id']}/actions", json=body, headers=players[seat]["headers"]
    )
    again = await client.post(
        f"/api/v1/matches/{match['id']}/actions", json=body, headers=players[seat]["headers"]
    )
    assert first.status_code == again.status_code == 200
    assert first.json() == again.json()
    assert (await view(client, match["id"]))["version"] == mine["version"] + 1


@pytest.mark.both_databases  # each database's locking
async def test_two_concurrent_writers_cannot_both_win(client):
    match, players = await start_match(client)
    seat = match["to_act"][0]
    mine = await view(client, match["id"], players[seat])
    moves = [a for a in mine["legal_actions"] if a["type"] == "move"][:2]
    url = f"/api/v1/matches/{match['id']}/actions"
    responses = await asyncio.gather(
        *(
            client.post(url, json={"action": m, "version": mine["version"]}, headers=players[seat]["headers"])
            for m in moves
        )
    )
    assert sorted(r.status_code for r in responses) == [200, 409]
    loser = next(r for r in responses if r.status_code == 409)
    assert loser.json()["version"] == mine["version"] + 1
    log = (
        await client.get(f"/api/v1/matches/{match['id']}/events", params={"after": mine["version"]})
    ).json()
    assert len(log["events"]) == 1


async def test_history_pages_newest_first_with_filters(client):
    me = await new_player(client, "Lando")
    other = await new_player(client, "Bossk")
    ids = []
    for _ in range(5):
        created = await client.post("/api/v1/matches", json={"ruleset": "kelly"}, headers=me["headers"])
        ids.append(created.json()["id"])
    await client.post("/api/v1/matches", json={"ruleset": "kelly"}, headers=other["headers"])
    await client.post(f"/api/v1/matches/{ids[0]}/join", headers=other["headers"])

    seen, cursor = [], None
    while True:
        params = {"player": me["id"], "limit": 2, **({"cursor": cursor} if cursor else {})}
        page = (await client.get("/api/v1/matches", params=params)).json()
        seen += [m["id"] for m in page["matches"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == ids[::-1], "newest first, every match of the player, once"
    active = (await client.get("/api/v1/matches", params={"player": me["id"], "status": "active"})).json()
    assert [m["id"] for m in active["matches"]] == [ids[0]]
    unknown = await client.get("/api/v1/matches", params={"ruleset": "no-such"})
    assert unknown.status_code == 422 and "ruleset" in unknown.json()["detail"]
    assert "kelly" in unknown.json()["detail"], "the message lists the rulesets there are"
    nobody = await client.get("/api/v1/matches", params={"player": "no-such-player"})
    assert nobody.status_code == 404 and "no player with id 'no-such-player'" in nobody.json()["detail"]


@pytest.mark.both_databases  # each database's locking and pool
async def test_twenty_pairs_start_matches_at_once(client):
    """Each request's session gives its connection back once the caller is known,
    so many requests at once never leave the store without a connection."""

    async def pair(i: int) -> int:
        host, guest = await new_player(client, f"Host {i}"), await new_player(client, f"Guest {i}")
        created = await client.post("/api/v1/matches", json={"ruleset": "kelly"}, headers=host["headers"])
        assert created.status_code == 201, created.text
        joined = await client.post(f"/api/v1/matches/{created.json()['id']}/join", headers=guest["headers"])
        assert joined.status_code == 200, joined.text
        return joined.json()["version"]

    assert all(v >= 2 for v in await asyncio.gather(*(pair(i) for i in range(20))))


@pytest.mark.both_databases  # SQLite stores no offset
async def test_every_timestamp_carries_its_utc_offset_on_both_databases(client):
    """Read back from the database as written: a match's times, a summary's, a log entry's."""
    match, players = await start_match(client)
    await play_one(client, match["id"], players, random.Random(3))
    shown = await view(client, match["id"])
    summary = (await client.get("/api/v1/matches", params={"player": players[0]["id"]})).json()["matches"][0]
    log = (await client.get(f"/api/v1/matches/{match['id']}/events")).json()["events"]
    stamps = [match["created_at"], shown["created_at"], shown["updated_at"]]
    stamps += [summary["created_at"], summary["updated_at"], *(entry["at"] for entry in log)]
    for stamp in stamps:
        assert datetime.fromisoformat(stamp).utcoffset() == timedelta(0), stamp


async def test_an_action_names_its_type_as_the_schema_says(client):
    """Every legal action has a string ``type``: the schema of an action sent requires one
    (Schemathesis generates from it: tests/api/test_schemathesis.py), and an action
    without one is refused, 422 saying so."""
    schemas = (await client.get("/openapi.json")).json()["components"]["schemas"]
    action = schemas["SendAction"]["properties"]["action"]
    assert action["required"] == ["type"] and action["properties"]["type"]["type"] == "string"
    match, players = await start_match(client)
    seat = match["to_act"][0]
    mine = await view(client, match["id"], players[seat])
    assert mine["legal_actions"] and all(isinstance(a["type"], str) for a in mine["legal_actions"])
    for untyped in ({}, {"type": 1}, {"kind": "move"}):
        body = {"action": untyped, "version": mine["version"]}
        refused = await client.post(
            f"/api/v1/matches/{match['id']}/actions", json=body, headers=players[seat]["headers"]
        )
        assert refused.status_code == 422 and '"type"' in refused.json()["detail"], refused.text
    assert (await view(client, match["id"]))["version"] == mine["version"]
