"""The database engine and sessions (SQLAlchemy 2, async)."""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from typing import Any

import orjson
from sqlalchemy import Engine, event
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

_autocommit_engines: weakref.WeakKeyDictionary[Engine, AsyncEngine] = weakref.WeakKeyDictionary()
_sqlite_write_locks: weakref.WeakKeyDictionary[Engine, asyncio.Lock] = weakref.WeakKeyDictionary()


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
    return create_async_engine(url, pool_size=pool_size, max_overflow=pool_size, pool_recycle=3600, **codec)


def make_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


def write_lock(session: AsyncSession) -> contextlib.AbstractAsyncContextManager[Any]:
    """Hold this around a write transaction (its first write to its commit).

    SQLite has one writer at a time, and a writer that finds the database locked
    polls for it with growing sleeps (up to 100 ms each). Taking turns on an
    asyncio lock in this process first means writers here never poll each other.
    PostgreSQL locks rows and needs nothing: a no-op there.
    """
    engine = session.bind.sync_engine if isinstance(session.bind, AsyncEngine) else None
    if engine is None or engine.dialect.name != "sqlite":
        return contextlib.nullcontext()
    lock = _sqlite_write_locks.get(engine)
    if lock is None:
        lock = _sqlite_write_locks[engine] = asyncio.Lock()
    return lock


def autocommit(engine: AsyncEngine) -> AsyncEngine:
    """``engine`` (the same pool) with every statement committed on its own."""
    proxy = _autocommit_engines.get(engine.sync_engine)
    if proxy is None:
        proxy = engine.execution_options(isolation_level="AUTOCOMMIT")
        _autocommit_engines[engine.sync_engine] = proxy
    return proxy
