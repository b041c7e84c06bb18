"""Rate limits counted once for every server process (issue 30): three servers sharing
one Redis (``RATE_LIMIT_STORAGE``) refuse at the same count as one server does.

Each test has a Redis key prefix of its own (``RateLimiter(key_prefix=...)``), on a
database number of these tests' own, so that tests on one Redis, xdist workers
included, never see each other's counts."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
from websockets.asyncio.client import connect

from app.api.limits import RateLimiter
from app.config import Settings
from tests.api.helpers import start_match
from tests.conftest import LiveServer, reachable_redis

REDIS_URL = os.environ.get("TEST_REDIS_LIMITS_URL", "redis://127.0.0.1:6379/11")


@pytest.fixture
def redis_url() -> str:
    return reachable_redis(REDIS_URL)


@contextmanager
def servers(count: int, settings: Settings) -> Iterator[list[LiveServer]]:
    """``count`` servers on one database and one Redis count, under a key prefix of their own."""
    prefix = f"dejarik-test-{uuid.uuid4().hex}"
    started: list[LiveServer] = []
    try:
        for _ in range(count):
            server = LiveServer(settings)
            server.server.config.app.state.limiter = RateLimiter(settings, key_prefix=prefix)
            started.append(server.start())
        yield started
    finally:
        for server in started:
            server.stop()


@pytest.fixture
def three_servers(database_url, redis_url) -> Iterator[list[LiveServer]]:
    settings = Settings(database_url=database_url, rate_limit_storage=redis_url, rate_limit_players=9)
    with servers(3, settings) as started:
        yield started


@pytest.fixture
def one_server(database_url, redis_url) -> Iterator[list[LiveServer]]:
    settings = Settings(database_url=database_url, rate_limit_storage=redis_url, rate_limit_players=9)
    with servers(1, settings) as started:
        yield started


async def creations(servers: list[LiveServer], count: int) -> list[int]:
    """``count`` player creations from one address, round-robin over ``servers``."""
    statuses = []
    async with httpx.AsyncClient(timeout=30) as client:
        for n in range(count):
            url = f"{servers[n % len(servers)].url}/api/v1/players"
            response = await client.post(url, json={"name": f"Bib {n}"})
            if response.status_code == 429:
                assert int(response.headers["retry-after"]) >= 1
                assert "too many players from this address" in response.json()["detail"], response.text
            statuses.append(response.status_code)
    return statuses


async def test_a_limit_is_reached_through_three_servers_at_the_count_of_one(three_servers, one_server):
    """RATE_LIMIT_PLAYERS=9: the 10th creation is refused, through one server or spread
    over three (per process, three would have let 27 through)."""
    assert await creations(one_server, 10) == [201] * 9 + [429]
    spread = await creations(three_servers, 12)
    assert spread == [201] * 9 + [429] * 3, "refused by each server alike"


async def test_websockets_and_actions_count_once_across_servers(database_url, redis_url):
    """A websocket and an action may each land on any process: their limits are one count."""
    settings = Settings(
        database_url=database_url,
        rate_limit_storage=redis_url,
        rate_limit_websockets=2,
        rate_limit_actions=3,
    )
    with servers(3, settings) as (a, b, c):
        async with httpx.AsyncClient(base_url=a.url, timeout=30) as client:
            match, players = await start_match(client)
        path = f"/ws/matches/{match['id']}?token={players[0]['token']}"
        async with connect(a.ws_url + path) as first, connect(b.ws_url + path) as second:
            for socket in (first, second):
                assert json.loads(await socket.recv())["type"] == "snapshot"
            async with connect(c.ws_url + path) as third:
                refusal = json.loads(await third.recv())
                assert refusal["type"] == "error" and refusal["code"] == 429, refusal
            answers = []
            for n, socket in enumerate((first, second, first, second)):  # stale versions: each counts
                await socket.send(json.dumps({"type": "action", "id": n, "action": {}, "version": 0}))
                while (answer := json.loads(await socket.recv()))["type"] != "error":
                    pass
                answers.append(answer["code"])
            assert answers == [409, 409, 409, 429], answers
        async with httpx.AsyncClient(base_url=c.url, timeout=30) as client:
            url = f"/api/v1/matches/{match['id']}/actions"
            body = {"action": {}, "version": 0}
            refused = await client.post(url, json=body, headers=players[0]["headers"])
            assert refused.status_code == 429 and "actions" in refused.json()["detail"], refused.text
