"""While the database is away: reads and actions answer 503 with ``Retry-After``, open
websockets are told (``{"type": "status", "database": "unavailable"}``) and kept, new
ones are refused with a 503; when it is back the sockets are told and resynced.

PostgreSQL only: the test shuts its own database to connections (SQLite is a file
in the server's process and cannot go away like this)."""

from __future__ import annotations

import json
import random

import asyncpg
import httpx
import pytest
from websockets.asyncio.client import connect

from app.config import Settings
from tests.api.helpers import start_match, view
from tests.api.hostile import serve
from tests.conftest import POSTGRES_ADMIN, postgres_database
from tests.realtime.helpers import Viewer, act_allowing_retries, wait_health


@pytest.fixture
def postgres_server():
    databases = postgres_database()
    url = next(databases)
    yield from serve(Settings(database_url=url))
    next(databases, None)


async def set_database_open(database_url: str, open_: bool) -> None:
    """Refuse (or allow again) every connection to the test's database, and drop the
    ones it has: to the server, the database is gone."""
    name = database_url.rsplit("/", 1)[1]
    admin = await asyncpg.connect(POSTGRES_ADMIN)
    try:
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {str(open_).lower()}')
        if not open_:
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", name
            )
    finally:
        await admin.close()


async def test_an_outage_is_a_503_to_retry_and_open_sockets_wait_it_out(postgres_server):
    server, url = postgres_server, postgres_server.settings.database_url
    rng = random.Random(7)
    async with httpx.AsyncClient(base_url=server.url) as client:
        match, players = await start_match(client)
        seat = match["to_act"][0]
        mine = await view(client, match["id"], players[seat])
        move = next(a for a in mine["legal_actions"] if a["type"] == "move")
        socket_url = f"{server.ws_url}/ws/matches/{match['id']}?token={players[1 - seat]['token']}"
        async with Viewer(server, match["id"]) as spectator, connect(socket_url) as player_socket:
            assert json.loads(await player_socket.recv())["type"] == "snapshot"
            await set_database_open(url, False)
            try:
                for _ in range(2):  # the first may meet a dropped connection: a 503 too
                    read = await client.get(f"/api/v1/matches/{match['id']}")
                    assert read.status_code == 503 and read.headers["retry-after"] == "1", read.text
                    acted = await client.post(
                        f"/api/v1/matches/{match['id']}/actions",
                        json={"action": move, "version": mine["version"]},
                        headers=players[seat]["headers"],
                    )
                    assert acted.status_code == 503 and "retry" in acted.json()["detail"], acted.text
                    assert acted.headers["retry-after"] == "1"
                await spectator.until(lambda m: m == {"type": "status", "database": "unavailable"})
                health = await client.get("/healthz")
                assert health.status_code == 503 and "database" in health.json()["detail"]
                # A new player's socket cannot be signed in: a 503 to retry. (An anonymous
                # one may be served the server's in-memory copy of the match.)
                async with connect(f"{socket_url}&since=0") as late:
                    refusal = json.loads(await late.recv())
                    assert (
                        refusal["type"] == "error" and refusal["code"] == 503 and refusal["retry_after"] == 1
                    )
                # The open sockets are kept: a sync is answered (from the server's copy
                # of the match, or with a 503 to retry).
                await player_socket.send(json.dumps({"type": "sync", "since": 0}))
                answers = [json.loads(await player_socket.recv()) for _ in range(2)]
                assert {"type": "status", "database": "unavailable"} in answers
                assert any(a["type"] == "snapshot" or a.get("code") == 503 for a in answers), answers
            finally:
                await set_database_open(url, True)
            await spectator.until(lambda m: m == {"type": "status", "database": "available"})
            await wait_health(server, 200)
            version = await act_allowing_retries(client, match["id"], players, rng)
            assert version == mine["version"] + 1, "nothing was applied during the outage"
            await spectator.has_version(version)
            await player_socket.send(json.dumps({"type": "ping", "id": "after"}))
            while (answer := json.loads(await player_socket.recv()))["type"] != "pong":
                pass
            assert answer["id"] == "after", "the socket lived through the outage"
