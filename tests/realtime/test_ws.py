"""WS /ws/matches/{id}: snapshots, live updates with dice, actions, errors, resuming."""

from __future__ import annotations

import json

from websockets.asyncio.client import connect

from app.rules.base import COMMON_ACTION_TYPES
from tests.api.helpers import start_match, view
from tests.realtime.helpers import receive, socket_url, until_attack


async def test_both_players_and_a_spectator_see_an_attack_and_its_dice_live(client, live_server):
    match, players = await start_match(client)
    seat, attack, version = await until_attack(client, match, players)
    async with (
        connect(socket_url(live_server, match["id"], players[seat])) as attacker,
        connect(socket_url(live_server, match["id"], players[1 - seat])) as defender,
        connect(socket_url(live_server, match["id"])) as spectator,
    ):
        snapshots = [await receive(s, "snapshot") for s in (attacker, defender, spectator)]
        assert [s["version"] for s in snapshots] == [version] * 3
        assert attack in snapshots[0]["legal_actions"] and snapshots[2]["legal_actions"] == []
        await attacker.send(json.dumps({"type": "action", "action": attack, "version": version, "id": "a1"}))
        ack = await receive(attacker, "ack")
        assert ack == {"type": "ack", "id": "a1", "version": version + 1}
        for socket in (attacker, defender, spectator):
            update = await receive(socket, "update")
            assert update["version"] == version + 1
            rolls = [e for e in update["events"] if e["type"] == "roll"]
            assert [r["purpose"] for r in rolls[:2]] == ["attack", "defense"]
            assert all({"sides", "face", "n"} <= set(d) for r in rolls for d in r["dice"])
            assert any(e["type"] == "combat" for e in update["events"])
        assert update["legal_actions"] == [], "the spectator never gets actions"


async def test_socket_errors_say_what_is_wrong_and_change_nothing(client, live_server):
    match, players = await start_match(client)
    seat = match["to_act"][0]
    async with connect(socket_url(live_server, match["id"], players[seat]), max_size=None) as socket:
        snapshot = await receive(socket, "snapshot")
        move = next(a for a in snapshot["legal_actions"] if a["type"] == "move")
        cases = [
            ("{oops", 400, "JSON"),
            ("[1]", 400, "object"),
            (json.dumps({"type": "dance"}), 400, "type"),
            (json.dumps({"type": "action", "action": move, "version": "2", "id": 1}), 422, "integer"),
            (json.dumps({"type": "action", "action": move, "version": 0, "id": 2}), 409, "not current"),
            (
                json.dumps(
                    {"type": "action", "action": {**move, "to": "Q"}, "version": snapshot["version"], "id": 3}
                ),
                422,
                "possible",
            ),
            (json.dumps({"type": "action", "action": {"pad": "x" * 70_000}, "version": 1}), 413, "64 KB"),
        ]
        for frame, code, words in cases:
            await socket.send(frame)
            error = await receive(socket, "error")
            assert error["code"] == code and words in error["message"], (frame[:40], error)
        stale = json.loads(cases[4][0])
        await socket.send(json.dumps(stale))
        assert (await receive(socket, "error"))["version"] == snapshot["version"], (
            "a 409 carries the current version"
        )
    assert (await view(client, match["id"]))["version"] == snapshot["version"]


async def test_spectators_cannot_act_and_strangers_are_refused(client, live_server):
    match, _ = await start_match(client)
    async with connect(socket_url(live_server, match["id"])) as spectator:
        await receive(spectator, "snapshot")
        await spectator.send(
            json.dumps({"type": "action", "action": {"type": "resign"}, "version": match["version"]})
        )
        assert (await receive(spectator, "error"))["code"] == 401
    async with connect(socket_url(live_server, match["id"], {"token": "forged"})) as forged:
        assert (await receive(forged, "error"))["code"] == 401
    async with connect(socket_url(live_server, "no-such-match")) as lost:
        assert (await receive(lost, "error"))["code"] == 404
    assert (await view(client, match["id"]))["status"] == "active"


async def test_a_reconnecting_client_catches_up_from_its_last_version(client, live_server):
    match, players = await start_match(client)
    seat = match["to_act"][0]
    async with connect(socket_url(live_server, match["id"], players[seat])) as socket:
        seen = (await receive(socket, "snapshot"))["version"]
    # While it is away, its opponent... its own side plays on through REST.
    mine = await view(client, match["id"], players[seat])
    move = next(a for a in mine["legal_actions"] if a["type"] == "move")
    await client.post(
        f"/api/v1/matches/{match['id']}/actions",
        json={"action": move, "version": mine["version"]},
        headers=players[seat]["headers"],
    )
    async with connect(socket_url(live_server, match["id"], players[seat], since=seen)) as socket:
        snapshot = await receive(socket, "snapshot")
        assert snapshot["version"] == seen + 1
        assert [e["version"] for e in snapshot["missed"]] == [seen + 1]
        assert snapshot["missed"][0]["action"]["to"] == move["to"]
        await socket.send(json.dumps({"type": "sync"}))
        assert (await receive(socket, "snapshot"))["version"] == seen + 1
        await socket.send(json.dumps({"type": "ping", "id": "p"}))
        assert await receive(socket, "pong") == {"type": "pong", "id": "p"}


async def test_joining_is_pushed_to_the_host_who_is_waiting(client, live_server):
    from tests.conftest import new_player

    host, guest = await new_player(client, "Han"), await new_player(client, "Leia")
    created = (
        await client.post("/api/v1/matches", json={"ruleset": "kelly"}, headers=host["headers"])
    ).json()
    async with connect(socket_url(live_server, created["id"], host)) as socket:
        assert (await receive(socket, "snapshot"))["status"] == "waiting"
        await client.post(f"/api/v1/matches/{created['id']}/join", headers=guest["headers"])
        update = await receive(socket, "update")
        assert update["status"] == "active" and update["seats"][1]["player"]["name"] == "Leia"
        assert [e["action"]["type"] for e in update["entries"]] == ["join", "start"]
        assert any(e["type"] == "deal" for e in update["events"])


async def test_a_signed_in_browser_can_still_watch_as_a_spectator(client, live_server):
    match, players = await start_match(client)
    seat = match["to_act"][0]
    url = socket_url(live_server, match["id"], spectator=1)
    async with connect(
        url, additional_headers={"Cookie": f"dejarik_token={players[seat]['token']}"}
    ) as socket:
        snapshot = await receive(socket, "snapshot")
        assert snapshot["you"]["seat"] is None and snapshot["legal_actions"] == []
    async with connect(
        socket_url(live_server, match["id"]),
        # A browser sends its page's Origin with the cookie (app/api/origin.py).
        additional_headers={"Cookie": f"dejarik_token={players[seat]['token']}", "Origin": live_server.url},
    ) as socket:
        assert (await receive(socket, "snapshot"))["you"]["seat"] == seat, "the cookie alone signs in"


async def test_two_players_play_kelly_to_a_finish_over_websockets_alone(client, live_server):
    import random

    match, players = await start_match(client)
    rng = random.Random(11)
    async with (
        connect(socket_url(live_server, match["id"], players[0])) as blue,
        connect(socket_url(live_server, match["id"], players[1])) as red,
    ):
        sockets = [blue, red]
        latest = [await receive(s, "snapshot") for s in sockets]
        for turn in range(5000):
            if latest[0]["status"] == "finished":
                break
            seat = latest[0]["to_act"][0]
            mine = latest[seat]
            action = rng.choice([a for a in mine["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES])
            await sockets[seat].send(
                json.dumps({"type": "action", "action": action, "version": mine["version"], "id": turn})
            )
            # The actor gets its ack before the update; both get the update.
            assert (await receive(sockets[seat], "ack"))["version"] == mine["version"] + 1
            latest = [await receive(s, "update") for s in sockets]
            assert latest[0]["version"] == latest[1]["version"] == mine["version"] + 1
        assert latest[0]["status"] == "finished" and latest[0]["result"]["reason"]
        assert latest[0]["seed"], "the seed is revealed at the end"


async def test_m5_syncs_past_the_limit_get_an_error_frame_and_the_socket_stays_open(client, live_server):
    """The audit's M5: a socket sending ``sync`` in a loop had a snapshot for every one.
    Now a socket has ``WS_SYNCS_PER_10S`` (5) of them; past it, a 429 without a snapshot."""
    match, _players = await start_match(client)
    async with connect(socket_url(live_server, match["id"])) as socket:
        await receive(socket, "snapshot")
        for n in range(12):  # all at once, as the flood did
            await socket.send(json.dumps({"type": "sync", "id": n, "since": -1}))
        replies = [await receive(socket) for _ in range(12)]
        snapshots = [r for r in replies if r["type"] == "snapshot"]
        refused = [r for r in replies if r["type"] == "error"]
        assert len(snapshots) + len(refused) == 12 and 5 <= len(snapshots) < 12, replies
        for refusal in refused:
            assert refusal["code"] == 429 and refusal["retry_after"] >= 1, refusal
            assert "too many syncs on this socket (at most 5 in 10 s)" in refusal["message"]
        assert refused[0]["id"] == replies.index(refused[0]), "the refused frame's id is echoed"
        await socket.send(json.dumps({"type": "ping", "id": "still"}))
        assert await receive(socket, "pong") == {"type": "pong", "id": "still"}


async def test_m5_a_repeated_sync_at_an_unchanged_version_is_answered_without_reading(
    client, live_server, monkeypatch
):
    """A sync from ``since=-1`` reads the log once; the same again, and one from the version
    already sent, are answered from the snapshot the server holds (M5)."""
    match, _players = await start_match(client)
    store = live_server.server.config.app.state.store
    reads: list[int | None] = []
    load = store.load_with_entries

    async def counted(match_id: str, after: int | None, *args, **kwargs):
        if match_id == match["id"]:
            reads.append(after)
        return await load(match_id, after, *args, **kwargs)

    monkeypatch.setattr(store, "load_with_entries", counted)
    async with connect(socket_url(live_server, match["id"])) as socket:
        snapshot = await receive(socket, "snapshot")
        version = snapshot["version"]
        await socket.send(json.dumps({"type": "sync", "since": -1}))
        whole = await receive(socket, "snapshot")
        assert [e["version"] for e in whole["missed"]] == list(range(1, version + 1))
        assert reads.count(-1) == 1
        await socket.send(json.dumps({"type": "sync", "since": -1}))
        assert await receive(socket, "snapshot") == whole
        await socket.send(json.dumps({"type": "sync", "since": version}))
        assert (await receive(socket, "snapshot"))["version"] == version
        assert reads.count(-1) == 1 and version not in reads, reads
