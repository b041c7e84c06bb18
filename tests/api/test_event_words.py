"""Every event a viewer is shown in a log entry carries its words (``text``), written
by the server for that viewer (app/services/views.py): the REST log and its NDJSON,
the records of a past version, the websocket's updates. The stored log keeps the
events without them."""

from __future__ import annotations

import json
import random

import pytest
from sqlalchemy.ext.asyncio import create_async_engine
from websockets.asyncio.client import connect

from app.services.store import store_for
from tests.api.helpers import Table, play_one, start_match, view
from tests.realtime.helpers import receive, socket_url, until_attack


def texts(entries: list[dict]) -> list[str]:
    return [event["text"] for entry in entries for event in entry["events"]]


async def log(client, match_id: str, player: dict | None = None, after: int = 0) -> list[dict]:
    headers = player["headers"] if player else {}
    response = await client.get(f"/api/v1/matches/{match_id}/events?after={after}", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()["events"]


async def test_the_log_words_every_event_with_seats_players_and_pieces(client):
    match, players = await start_match(client)
    seat, attack, _ = await until_attack(client, match, players)
    response = await client.post(
        f"/api/v1/matches/{match['id']}/actions",
        json={"action": attack, "version": (await view(client, match["id"]))["version"]},
        headers=players[seat]["headers"],
    )
    assert response.status_code == 200
    entries = await log(client, match["id"])
    assert all(isinstance(t, str) and t for t in texts(entries)), "every event has its words"
    # The action's own reply says what happened in the same words as the log, and a
    # retry of it (the same action at the same version) says it again.
    assert response.json()["events"] == entries[-1]["events"]
    retried = await client.post(
        f"/api/v1/matches/{match['id']}/actions",
        json={"action": attack, "version": entries[-1]["version"] - 1},
        headers=players[seat]["headers"],
    )
    assert retried.status_code == 200 and retried.json()["events"] == entries[-1]["events"]
    start = next(e for e in entries if e["action"]["type"] == "start")
    first = next(e for e in start["events"] if e["type"] == "first_player")
    names = {0: "Blue (Chewie)", 1: "Red (R2-D2)"}
    assert first["text"] == f"{names[first['seat']]} goes first"
    shown = (await view(client, match["id"]))["state"]
    pieces = {p["id"]: p for p in shown["pieces"]} | {p["id"]: p for p in shown.get("lost", [])}

    def owned(piece: str) -> str:
        return f"{['Blue', 'Red'][pieces[piece]['owner']]} {shown['legend'][pieces[piece]['kind']]['name']}"

    last = entries[-1]["events"]
    attacked = next(e for e in last if e["type"] == "attack")
    assert attacked["text"] == f"{owned(attack['piece'])} attacked {owned(attack['target'])}"
    roll = next(e for e in last if e["type"] == "roll")
    assert roll["text"].startswith(f"{['Blue', 'Red'][roll['seat']]} rolled attack for ")
    # The NDJSON log says the same words.
    ndjson = await client.get(
        f"/api/v1/matches/{match['id']}/events", headers={"Accept": "application/x-ndjson"}
    )
    assert [json.loads(line) for line in ndjson.text.splitlines()] == entries
    # The records of a past version word its log as a spectator saw it then.
    at = (await client.get(f"/api/v1/matches/{match['id']}/at/{start['version']}")).json()
    assert texts(at["log"]) == texts([e for e in entries if e["version"] <= start["version"]])


@pytest.mark.both_databases  # JSON as each database keeps it
async def test_the_stored_log_keeps_the_events_as_the_rules_returned_them(client, database_url):
    match, players = await start_match(client)
    _, _, applied = await play_one(client, match["id"], players, random.Random(3))
    served = (await log(client, match["id"]))[-1]
    assert served["events"] == applied.json()["events"]
    engine = create_async_engine(database_url)
    try:
        store = store_for(engine)
        record = await store.load(match["id"])
        stored = (await store.entries(record, record.version - 1))[0].events
    finally:
        await engine.dispose()
    assert [{k: v for k, v in e.items() if k != "text"} for e in served["events"]] == stored
    assert "text" not in json.dumps(stored), "the stored events are the rules' own"


async def test_an_undo_is_worded_by_what_it_undid_even_on_a_later_page(client):
    table = await Table.open(client)
    await table.control("gm_start")
    _, _, applied = await table.play()
    undo = await table.control("gm_undo")
    assert undo.status_code == 200
    whole = await log(client, table.id)
    undone = whole[-2]
    lines = [e["text"] for e in undone["events"] if " rolled " not in e["text"]]
    words = whole[-1]["events"][0]["text"]
    assert words.startswith(f"The game master undid #{applied['version']}, ")
    assert words.endswith(f": {lines[0]}") or f": {lines[0]}. Its dice stay in the log" in words
    # The GM's own reply to the undo says it in the same words as the log.
    assert undo.json()["events"][0]["text"] == words
    # A page of the log after the undone entry says the same.
    later = await log(client, table.id, after=applied["version"])
    assert later[0]["events"][0]["text"] == words
    paused = await table.control("gm_pause")
    assert paused.status_code == 200
    assert (await log(client, table.id))[-1]["events"][0]["text"] == "The game master paused the match"


async def test_a_hidden_setting_stays_hidden_in_the_words_of_its_undo(client):
    table = await Table.open(client, "eote")
    await table.control("gm_start")
    seat, _, _ = await table.play(kind="set_piece")
    assert (await table.control("gm_undo")).status_code == 200
    other = (await log(client, table.id, table.players[1 - seat]))[-1]["events"][0]["text"]
    own = (await log(client, table.id, table.players[seat]))[-1]["events"][0]["text"]
    assert "set piece" in own.lower()
    assert "set piece" not in other.lower() and "hidden" in other.lower(), other
    # Named by whose step it was, not by the placeholder the log shows for it (issue 31).
    assert other.endswith("'s last hidden step") and "choosing" not in other and "#" not in other, other


async def test_websocket_updates_carry_the_words_for_each_viewer(client, live_server):
    match, players = await start_match(client)
    current = await view(client, match["id"])
    seat = current["to_act"][0]
    async with (
        connect(socket_url(live_server, match["id"], players[seat])) as player,
        connect(socket_url(live_server, match["id"])) as spectator,
    ):
        await receive(player, "snapshot")
        await receive(spectator, "snapshot")
        await play_one(client, match["id"], players, random.Random(5))
        updates = [await receive(s, "update") for s in (player, spectator)]
    served = (await log(client, match["id"]))[-1]
    for update in updates:
        assert [e["text"] for e in update["events"]] == [e["text"] for e in served["events"]]
        assert update["entries"][-1]["events"] == update["events"]
