"""The database engine: how many PostgreSQL connections one server process may open."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest

from app.config import Settings
from app.db import make_engine
from app.services.store import store_for
from tests.conftest import LiveServer, new_player, postgres_database

POSTGRES_MAX_CONNECTIONS = 100
"""PostgreSQL's default ``max_connections``."""


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    yield from postgres_database()


async def test_two_server_processes_at_the_defaults_fit_postgresqls_connections(postgres_url):
    """A process opens at most ``DB_POOL_SIZE`` connections in each of its two pools
    (SQLAlchemy's and the moves' asyncpg pool): a request past them waits for one to
    be given back. So two processes (``--workers 2``) at the default, with the two
    connections of each one's PostgreSQL broker, fit PostgreSQL's default 100
    connections. Before, SQLAlchemy's pool opened as many again on demand, and two busy
    processes failed requests with 503s."""
    default = Settings.model_fields["db_pool_size"].default  # the tests' servers run with fewer
    assert 2 * (2 * default + 2) <= POSTGRES_MAX_CONNECTIONS

    # The bound, shown at a small size: holding the default's many connections here could
    # take the last ones from the other tests sharing this PostgreSQL at that moment.
    size = 3
    engine = make_engine(postgres_url, size)
    store_pool = await store_for(engine)._driver_pool()  # type: ignore[attr-defined]
    held = [await engine.connect() for _ in range(size)]
    try:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(engine.connect(), 0.5)
        assert store_pool.get_max_size() == size
    finally:
        for connection in held:
            await connection.close()
        await engine.dispose()


async def test_a_request_never_holds_two_connections_of_one_pool(postgres_url):
    """A request's session gives its connection back before the match's reads and writes
    take one of their own: with a pool of 2 and many requests at once, none waits for a
    second connection while holding a first (each such request held one, waited 30 s for
    another, and failed). Matches created with a bot, cookie-signed pages and a player's
    match list, at once."""
    server = LiveServer(
        Settings(database_url=postgres_url, db_pool_size=2, bot_delay_ms=0, bot_matches_per_player=0)
    ).start()
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
            host = await new_player(http, "Lando")
            body = {"ruleset": "kelly", "seat": 0, "bots": [{"seat": 1, "bot": "kelly-beginner"}]}
            cookie = {"Cookie": f"dejarik_token={host['token']}"}

            async def create() -> int:
                made = await http.post("/api/v1/matches", json=body, headers=host["headers"])
                return made.status_code

            async def pages() -> list[int]:
                home = await http.get("/", headers=cookie)
                mine = await http.get(f"/players/{host['id']}", headers=cookie)
                listed = await http.get("/api/v1/matches", params={"player": host["id"]})
                return [home.status_code, mine.status_code, listed.status_code]

            answers = await asyncio.wait_for(
                asyncio.gather(*(create() for _ in range(8)), *(pages() for _ in range(8))), timeout=25
            )
        assert answers[:8] == [201] * 8 and all(a == [200, 200, 200] for a in answers[8:]), answers
    finally:
        server.stop()
