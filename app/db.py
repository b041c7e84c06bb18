"""The database engine and sessions (SQLAlchemy 2, async)."""

from __future__ import annotations

from typing import Any

import orjson
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


def json_text(value: Any) -> str:
    """JSON as text, fast (orjson): states, actions and events in the database and
    every websocket frame go through here."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def make_engine(url: str, pool_size: int = 10) -> AsyncEngine:
    codec = {"json_serializer": json_text, "json_deserializer": orjson.loads}
    if is_sqlite(url):
        engine = create_async_engine(url, connect_args={"timeout": 30}, **codec)

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
            # WAL lets readers run beside the single writer; foreign keys are off by default.
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    # No pre-ping: it would cost a round trip on every checkout (every action). A
    # connection that the database dropped fails its statement, and SQLAlchemy then
    # invalidates the whole pool, so one request sees a restart of PostgreSQL.
    # No overflow: a process opens at most ``pool_size`` connections here and as many in
    # the store's own pool (services/store.py), so ``--workers`` stays countable against
    # PostgreSQL's max_connections (docs: DB_POOL_SIZE).
    return create_async_engine(url, pool_size=pool_size, max_overflow=0, pool_recycle=3600, **codec)


def make_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)
