"""Shared fixtures: a real server (uvicorn, real sockets) on a real database.

Which database a test runs on (``tests/README.md`` says why):

- ``database_url`` is SQLite by default: most tests check input, words, pages, clocks or
  rules, which are the same on every database.
- A test or module marked ``both_databases`` runs on SQLite and on PostgreSQL: the store
  contract, two servers and the broker, outages, restarts, notifications, timestamps,
  migrations. Schemathesis and the PostgreSQL-only tests pick their databases themselves.

PostgreSQL comes from ``TEST_POSTGRES_URL`` (default: the local server, trust auth).
When it cannot be reached the PostgreSQL half is skipped, except under ``CI=true``,
where a missing PostgreSQL is a failure.

Under pytest-xdist every worker is a process of its own, with its own servers, SQLite
files and PostgreSQL databases (each named afresh).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
import uvicorn

from app.cli import server_options
from app.config import Settings
from app.main import create_app
from app.models import utcnow

POSTGRES_ADMIN = os.environ.get("TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")

# Every server the tests start, in this process or as ``dejarik serve`` (which inherits the
# environment), opens at most 2 × 4 PostgreSQL connections, not the default 2 × 20: the
# workers' servers share one PostgreSQL and its 100 connections, and three servers at the
# default (tests/bots/test_claims.py) could take them all. A test may still set its own.
os.environ.setdefault("DB_POOL_SIZE", "4")
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _admin(sql: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(POSTGRES_ADMIN, timeout=5)
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


def run_apart(coroutine: Any) -> Any:
    """``asyncio.run`` in a thread of its own: callable where a loop already runs
    (after the browser tests, Playwright's)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def postgres_database() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for this test session; dropped afterwards."""
    name = f"dejarik_test_{uuid.uuid4().hex[:10]}"
    try:
        run_apart(_admin(f'CREATE DATABASE "{name}"'))
    except Exception as error:
        message = f"PostgreSQL is not reachable at {POSTGRES_ADMIN}: {error}"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    base = POSTGRES_ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://")
    yield f"{base}/{name}"
    run_apart(_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def reachable_redis(url: str) -> str:
    """``url`` if a Redis answers there; else the test is skipped (failed under ``CI``)."""
    import redis

    try:
        redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as error:
        if IN_CI:
            pytest.fail(f"Redis is not reachable at {url}: {error}")
        pytest.skip(f"Redis is not reachable at {url}")
    return url


async def serving(url: str, process: Any, within_s: float = 60) -> None:
    """Wait until the ``dejarik serve`` subprocess ``process`` answers ``/healthz`` at ``url``."""
    deadline = time.monotonic() + within_s
    async with httpx.AsyncClient(base_url=url) as http:
        while time.monotonic() < deadline:
            assert process.poll() is None, "the server exited"
            try:
                if (await http.get("/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise AssertionError("the server did not start")


DATABASES = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Give ``database_url`` its databases: SQLite, or both for ``both_databases``."""
    if "database_url" in metafunc.fixturenames:
        both = metafunc.definition.get_closest_marker("both_databases") is not None
        kinds = DATABASES if both else DATABASES[:1]
        metafunc.parametrize("database_url", kinds, indirect=True, scope="session")


@pytest.fixture(scope="session")
def database_url(request, tmp_path_factory) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('db') / 'dejarik.db'}"
    else:
        yield from postgres_database()


class LiveServer:
    """uvicorn serving the app in a background thread, on a free loopback port."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            create_app(settings),
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            **server_options(settings),  # as `dejarik serve` runs
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="session")
def live_server(database_url: str) -> Iterator[LiveServer]:
    server = LiveServer(Settings(database_url=database_url, bot_delay_ms=0, bot_think_ms=300)).start()
    yield server
    server.stop()


IDLE_CONNECTIONS = httpx.Limits(keepalive_expiry=2)
"""Idle connections are dropped by the tests' clients after 2 s, before uvicorn drops them
(its keep-alive is 5 s): a request sent on a connection the server is closing at that
moment fails with "Server disconnected without sending a response"."""


@pytest.fixture
async def client(live_server: LiveServer):
    async with httpx.AsyncClient(base_url=live_server.url, timeout=30, limits=IDLE_CONNECTIONS) as http:
        yield http


async def new_player(client: httpx.AsyncClient, name: str) -> dict[str, str]:
    """Register a player; returns ``{"id", "name", "token", "headers"}``."""
    response = await client.post("/api/v1/players", json={"name": name})
    assert response.status_code == 201, response.text
    player = response.json()
    player["headers"] = {"Authorization": f"Bearer {player['token']}"}
    return player


class SkewedClock:
    """The real time, moved on by ``skew``."""

    def __init__(self) -> None:
        self.skew = timedelta()

    def __call__(self) -> datetime:
        return utcnow() + self.skew


@pytest.fixture
def server_clock(live_server):
    """The live server's clock, to move on (``server_clock.skew``) instead of waiting."""
    app = live_server.server.config.app
    clock = app.state.now = SkewedClock()
    yield clock
    app.state.now = utcnow


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The browser tests last: sync Playwright leaves an event loop running in the main
    thread, and asynchronous tests after it could not start theirs. Within each part, the
    tests marked ``runs_long`` first: the workers share out the short ones after them,
    instead of one worker running a long test alone at the end."""

    def order(item: pytest.Item) -> tuple[bool, bool]:
        return "tests/browser/" in item.nodeid, item.get_closest_marker("runs_long") is None

    items.sort(key=order)


# Where the suite's CPU goes: ``TEST_CPU_LOG=folder`` writes, for each test, the CPU its
# process and every process below it (servers, Chromium) used while it ran, and its wall
# time, to a file per worker (docs/performance.md reads them with bench/suite_cpu.py).
CPU_LOG = os.environ.get("TEST_CPU_LOG")
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_of_this_process_tree() -> float:
    """CPU seconds (user + system) of this process and every process below it, from /proc."""
    children: dict[int, list[int]] = {}
    cpu: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                raw = open(f"/proc/{entry}/stat").read()  # noqa: SIM115 (a /proc read, closed at once)
            except OSError:
                continue
            fields = raw.rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
            cpu[int(entry)] = (int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])) / TICKS
    total, stack = 0.0, [os.getpid()]
    while stack:
        pid = stack.pop()
        total += cpu.get(pid, 0.0)
        stack.extend(children.get(pid, []))
    return total


if CPU_LOG:

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
        cpu, wall = cpu_of_this_process_tree(), time.monotonic()
        try:
            return (yield)
        finally:
            spent, took = cpu_of_this_process_tree() - cpu, time.monotonic() - wall
            worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
            with open(os.path.join(CPU_LOG, f"{worker}.tsv"), "a") as log:
                log.write(f"{item.nodeid}\t{spent:.2f}\t{took:.2f}\n")
