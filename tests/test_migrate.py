"""Migrating: processes that start together on one empty PostgreSQL database take turns."""

from __future__ import annotations

import asyncio

from sqlalchemy import text

from app.db import make_engine
from app.migrate import upgrade
from tests.conftest import postgres_database


async def test_four_processes_migrating_one_empty_database_at_once_all_succeed():
    """Replicas of a deployment start at the same moment on a new database: each runs the
    migrations at start-up. One migrates; the others wait, then find the schema new."""
    database = postgres_database()
    url = next(database)
    engines = [make_engine(url) for _ in range(4)]
    try:
        # Without turns they deadlock on each other's tables (or fail on them): a bound, not a hang.
        await asyncio.wait_for(asyncio.gather(*(upgrade(engine) for engine in engines)), 60)
        async with engines[0].connect() as connection:
            versions = (await connection.execute(text("SELECT version_num FROM alembic_version"))).all()
            tables = await connection.scalar(
                text("SELECT count(*) FROM information_schema.tables WHERE table_name = 'matches'")
            )
        assert len(versions) == 1 and tables == 1
    finally:
        for engine in engines:
            await engine.dispose()
        next(database, None)
