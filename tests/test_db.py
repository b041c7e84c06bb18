"""The database engine: how many PostgreSQL connections one server process may open."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from app.config import Settings
from app.db import make_engine
from app.services.store import store_for
from tests.conftest import postgres_database

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
