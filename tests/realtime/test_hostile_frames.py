"""A fuzz of hostile websocket frames and handshakes: every frame is answered (an error,
an ack, a pong or a snapshot), no frame closes a socket, and a hostile handshake is a
clean refusal, never a 5xx."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.api.helpers import start_match, view
from tests.api.hostile import hostile_json, serve, splice, unlimited_settings
from tests.realtime.helpers import receive

FRAMES = 8500
"""With the 1,500 requests of tests/api/test_hostile_input.py: 10,000 hostile inputs."""

REPLIES = {"error", "ack", "pong", "snapshot"}


@pytest.fixture(scope="module")
def fuzz_server(database_url):
    yield from serve(unlimited_settings(database_url))


async def reply_to(socket, frame: str | bytes) -> dict:
    """Send ``frame``; the server's answer to it (updates and status messages skipped)."""
    await socket.send(frame)
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), 10))
        if message["type"] in REPLIES:
            return message


async def test_the_cases_of_the_issue_are_answered_and_the_socket_kept(fuzz_server):
    import httpx

    async with httpx.AsyncClient(base_url=fuzz_server.url) as client:
        match, players = await start_match(client)
    url = f"{fuzz_server.ws_url}/ws/matches/{match['id']}?token={players[0]['token']}"
    async with connect(url, max_size=None) as socket:
        await receive(socket, "snapshot")
        nested = '{"type": "action", "id": 1, "action": ' + "[" * 2000 + "]" * 2000 + ', "version": 1}'
        cases = [
            (nested, 422, "nested deeper"),
            ("[" * 4000 + "]" * 4000, 422, "nested deeper"),
            ('{"type": "sync", "id": 2, "since": -2147483649}', 422, "since"),
            ('{"type": "sync", "id": 3, "since": 9223372036854775808}', 422, "since"),
            ('{"type": "action", "id": "\\ud800", "action": {}, "version": 1}', 422, "frame.id"),
            (
                '{"type": "action", "id": 4, "action": {"type": "\\ud800"}, "version": 1}',
                422,
                "frame.action.type",
            ),
            ('{"type": "action", "id": 5, "action": {"type": "move"}, "version": NaN}', 422, "frame.version"),
            ('{"type": "action", "id": 6, "action": {"type": "mo\\u0000ve"}, "version": 1}', 422, "NUL"),
            ('{"type": "action", "id": 7, "action": {}, "version": 2147483648}', 422, "version"),
        ]
        for frame, code, words in cases:
            answer = await reply_to(socket, frame)
            assert answer["type"] == "error" and answer["code"] == code, (frame[:60], answer)
            assert words in answer["message"], (frame[:60], answer)
        assert (await reply_to(socket, '{"type": "action", "id": 9, "action": {"type": "\\ud800"}}'))[
            "id"
        ] == 9
        assert (await reply_to(socket, '{"type": "ping", "id": "still open"}'))["id"] == "still open"
    for bad in ("abc%00def", f"{match['id']}%00"):
        async with connect(f"{fuzz_server.ws_url}/ws/matches/{bad}") as refused:
            answer = json.loads(await refused.recv())
            assert answer["type"] == "error" and answer["code"] == 404 and "NUL" in answer["message"]
    for since in ("-2147483649", "9223372036854775808", "NaN"):
        async with connect(f"{fuzz_server.ws_url}/ws/matches/{match['id']}?since={since}") as refused:
            answer = json.loads(await refused.recv())
            assert answer["type"] == "error" and answer["code"] == 422 and "since" in answer["message"]


async def test_thousands_of_hostile_frames_are_each_answered_and_no_socket_closes(fuzz_server):
    import httpx

    rng = random.Random(15)
    async with httpx.AsyncClient(base_url=fuzz_server.url) as client:
        match, players = await start_match(client)
        base = f"{fuzz_server.ws_url}/ws/matches/{match['id']}"
        urls = [f"{base}?token={players[0]['token']}", f"{base}?token={players[1]['token']}", base]
        sockets = [await connect(url, max_size=None) for url in urls]
        try:
            for socket in sockets:
                await receive(socket, "snapshot")

            def frame() -> str | bytes:
                kind = rng.randrange(6)
                if kind == 0:
                    return rng.choice([hostile_json(rng), "", "not json", b"\xff\xfe\x00", b"[1]"])
                if kind == 1:
                    return splice({"type": "sync", "id": rng.randrange(100), "since": 0}, rng)
                if kind == 2:
                    return splice({"type": "ping", "id": "p"}, rng)
                body = {
                    "type": "action",
                    "id": f"c{rng.randrange(1000)}",
                    "action": {"type": "move", "from": 1, "to": 2},
                    "version": match["version"],
                }
                return splice(body, rng)

            async def hammer(socket, count: int) -> None:
                for _ in range(count):
                    sent = frame()
                    answer = await reply_to(socket, sent)
                    assert answer["type"] in REPLIES, (sent[:80], answer)
                    if answer["type"] == "error":
                        assert answer["code"] < 500 and answer["message"], (sent[:80], answer)

            await asyncio.gather(*(hammer(socket, FRAMES // len(sockets) + 1) for socket in sockets))
            for socket in sockets:
                assert (await reply_to(socket, '{"type": "ping", "id": "end"}'))["id"] == "end", "still open"
            assert (await view(client, match["id"]))["version"] == match["version"], (
                "no hostile action applied"
            )
        finally:
            for socket in sockets:
                await socket.close()


@pytest.mark.parametrize("path", ["%00", "a%00", "%ED%A0%80", "x" * 300, "%FF"])
async def test_hostile_match_ids_at_the_handshake_are_refused_cleanly(fuzz_server, path):
    try:
        async with connect(f"{fuzz_server.ws_url}/ws/matches/{path}?since=-99999999999") as socket:
            answer = json.loads(await socket.recv())
            assert answer["type"] == "error" and answer["code"] in (404, 422), answer
    except InvalidStatus as refused:  # refused before the upgrade: fine, if not a 5xx
        assert refused.response.status_code < 500
