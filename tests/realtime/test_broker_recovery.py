"""The shared brokers survive their server's restart: two server processes share a
Redis (started here, on a private port) or PostgreSQL LISTEN/NOTIFY; the broker goes
away and comes back; actions meanwhile are committed and answered (never a 500),
``/healthz`` says 503 while the broker is away, and the viewers on both processes
receive every later update."""

from __future__ import annotations

import random
import shutil
import subprocess
import time

import asyncpg
import httpx
import pytest

from app.config import Settings
from tests.api.helpers import drop_server_connections, play_one, start_match, view
from tests.conftest import IN_CI, LiveServer, free_port, postgres_database
from tests.realtime.helpers import Viewer, act_allowing_retries, wait_health

pytestmark = pytest.mark.both_databases  # the broker beside each database


async def play_through_a_broker_outage(one: LiveServer, two: LiveServer, break_broker, mend_broker) -> None:
    rng = random.Random(4)
    async with httpx.AsyncClient(base_url=one.url) as on_one, httpx.AsyncClient(base_url=two.url) as on_two:
        match, players = await start_match(on_one)
        async with Viewer(one, match["id"]) as here, Viewer(two, match["id"]) as there:
            _, _, played = await play_one(on_one, match["id"], players, rng)
            for viewer in (here, there):
                await viewer.has_version(played.json()["version"])

            await break_broker()
            # An action while the broker is away is committed and answered (play_one
            # asserts the 200); viewers of the server that applied it see it at once.
            _, _, played = await play_one(on_one, match["id"], players, rng)
            during = played.json()["version"]
            await here.has_version(during)

            await mend_broker()
            for server in (one, two):
                health = await wait_health(server, 200)
                assert health["broker"] in ("redis", "postgresql")
            # The other server's viewer is resynced: the version it missed reaches it.
            await there.has_version(during)
            assert during in there.entries(), "the resync carries the entry it missed"
            later = []
            for client in (on_two, on_one, on_two):
                _, _, played = await play_one(client, match["id"], players, rng)
                later.append(played.json()["version"])
            for viewer in (here, there):
                await viewer.has_version(later[-1])
                assert set(later) <= viewer.entries(), (later, sorted(viewer.entries()))
            assert (await view(on_two, match["id"]))["version"] == later[-1]


def redis_server(port: int) -> subprocess.Popen:
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while (
        subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True).stdout.strip() != b"PONG"
    ):
        assert time.monotonic() < deadline and process.poll() is None, "redis-server did not start"
        time.sleep(0.05)
    return process


async def test_a_restarted_redis_costs_no_error_and_no_update(database_url):
    if shutil.which("redis-server") is None:
        if IN_CI:
            pytest.fail("redis-server is not installed (make redis)")
        pytest.skip("redis-server is not installed (make redis)")
    port = free_port()
    redis = [redis_server(port)]
    settings = Settings(database_url=database_url, broker_url=f"redis://127.0.0.1:{port}/0")
    one, two = LiveServer(settings).start(), LiveServer(settings).start()

    async def break_broker() -> None:
        redis[0].kill()
        redis[0].wait()
        for server in (one, two):
            body = await wait_health(server, 503)
            assert body["broker"]["connected"] is False and "broker" in body["detail"]

    async def mend_broker() -> None:
        redis[0] = redis_server(port)

    try:
        await play_through_a_broker_outage(one, two, break_broker, mend_broker)
        async with httpx.AsyncClient(base_url=one.url) as client:
            ready = (await client.get("/readyz")).json()
            assert ready["broker"]["reconnects"] >= 1 and ready["database"]["available"] is True
    finally:
        one.stop()
        two.stop()
        redis[0].kill()
        redis[0].wait()


async def drop_listeners(dsn: str) -> int:
    """Terminate the broker's LISTEN connections (the way a PostgreSQL restart would)."""
    connection = await asyncpg.connect(dsn)
    try:
        rows = await connection.fetch(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE 'LISTEN%'"
        )
        return len(rows)
    finally:
        await connection.close()


@pytest.fixture
def postgres_url():
    databases = postgres_database()
    yield next(databases)
    next(databases, None)


async def test_a_dropped_listen_connection_reconnects_and_resyncs(postgres_url):
    dsn = postgres_url.replace("postgresql+asyncpg://", "postgresql://")
    settings = Settings(database_url=postgres_url, broker_url=postgres_url)
    one, two = LiveServer(settings).start(), LiveServer(settings).start()

    async def break_broker() -> None:
        assert await drop_listeners(dsn) == 2, "one listener per server"

    async def mend_broker() -> None:
        pass  # PostgreSQL is still there: the brokers reconnect on their own

    try:
        await play_through_a_broker_outage(one, two, break_broker, mend_broker)
        async with httpx.AsyncClient(base_url=two.url) as client:
            assert (await client.get("/readyz")).json()["broker"]["reconnects"] >= 1
    finally:
        one.stop()
        two.stop()


async def test_every_connection_dropped_at_once_like_a_restart(postgres_url):
    """The pool, the listener and the notifier all dropped: an action may meet a dead
    connection once (a 503 to retry, never a 500), then everything flows again."""
    settings = Settings(database_url=postgres_url, broker_url=postgres_url)
    one, two = LiveServer(settings).start(), LiveServer(settings).start()
    rng = random.Random(5)
    try:
        async with (
            httpx.AsyncClient(base_url=one.url) as on_one,
            httpx.AsyncClient(base_url=two.url) as on_two,
        ):
            match, players = await start_match(on_one)
            async with Viewer(one, match["id"]) as here, Viewer(two, match["id"]) as there:
                assert await drop_server_connections(postgres_url) > 0
                during = await act_allowing_retries(on_one, match["id"], players, rng)
                for server in (one, two):
                    await wait_health(server, 200)
                await there.has_version(during)
                later = [await act_allowing_retries(c, match["id"], players, rng) for c in (on_two, on_one)]
                for viewer in (here, there):
                    await viewer.has_version(later[-1])
                    assert {during, *later} <= viewer.entries()
    finally:
        one.stop()
        two.stop()
