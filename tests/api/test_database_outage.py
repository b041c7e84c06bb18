"""A database connection that PostgreSQL drops (a restart) costs one clear 503, not a
500, and loses nothing; the next request works."""

from __future__ import annotations

import httpx
import pytest

from app.config import Settings
from tests.api.helpers import drop_server_connections, start_match, view
from tests.conftest import LiveServer, postgres_database


@pytest.fixture
def postgres_server():
    """A server of its own on a PostgreSQL database of its own (SQLite has no
    connection to drop)."""
    databases = postgres_database()
    url = next(databases)
    server = LiveServer(Settings(database_url=url)).start()
    yield server
    server.stop()
    next(databases, None)


async def test_dropped_connections_cost_one_retry_and_nothing_else(postgres_server):
    async with httpx.AsyncClient(base_url=postgres_server.url) as client:
        await play_through_an_outage(client, postgres_server.settings.database_url)


async def play_through_an_outage(client, database_url):
    match, players = await start_match(client)
    seat = match["to_act"][0]
    mine = await view(client, match["id"], players[seat])
    move = next(a for a in mine["legal_actions"] if a["type"] == "move")
    assert await drop_server_connections(database_url) > 0
    url = f"/api/v1/matches/{match['id']}/actions"
    body = {"action": move, "version": mine["version"]}
    statuses = []
    # The first may meet a dead connection: 503, then a retry works. Or a background task
    # (the notifier's poll, the bots' scan) met it first and the pool has replaced it.
    for _ in range(3):
        response = await client.post(url, json=body, headers=players[seat]["headers"])
        statuses.append(response.status_code)
        if response.status_code == 200:
            break
        assert response.status_code == 503 and "retry" in response.json()["detail"]
    assert statuses in ([503, 200], [200]), "at most one clear refusal, then the retry works"
    assert (await view(client, match["id"]))["version"] == mine["version"] + 1, "applied exactly once"
