"""How "match M reached version V" reaches every server process (ARCHITECTURE §5).

Messages are tiny (``{"match", "version"}``); each process builds its own viewers'
messages from the database. ``BROKER_URL`` picks the engine:

- ``memory://``: one process (the embedded default);
- ``postgresql://…``: PostgreSQL LISTEN/NOTIFY;
- ``redis://…``: Redis pub/sub.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

CHANNEL = "dejarik_match_updates"
OnMessage = Callable[[str, int], Awaitable[None]]


class Broker:
    """Delivers every published ``(match_id, version)`` to ``on_message`` in every process."""

    def __init__(self) -> None:
        self.on_message: OnMessage | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self, on_message: OnMessage) -> None:
        self.on_message = on_message

    async def publish(self, match_id: str, version: int) -> None:
        raise NotImplementedError

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    def _deliver(self, match_id: str, version: int) -> None:
        if self.on_message is None:
            return
        task = asyncio.get_running_loop().create_task(self.on_message(match_id, version))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _deliver_raw(self, payload: str | bytes) -> None:
        try:
            message = json.loads(payload)
            self._deliver(str(message["match"]), int(message["version"]))
        except (ValueError, KeyError, TypeError):
            log.warning("ignoring a malformed broker message: %r", payload)


class MemoryBroker(Broker):
    async def publish(self, match_id: str, version: int) -> None:
        self._deliver(match_id, version)


def _payload(match_id: str, version: int) -> str:
    return json.dumps({"match": match_id, "version": version})


class PostgresBroker(Broker):
    """LISTEN/NOTIFY on one channel; one connection listens, another notifies."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self.dsn = url.replace("postgresql+asyncpg://", "postgresql://")
        self._listener = None
        self._notifier = None
        self._lock = asyncio.Lock()

    async def start(self, on_message: OnMessage) -> None:
        import asyncpg

        await super().start(on_message)
        self._listener = await asyncpg.connect(self.dsn)
        await self._listener.add_listener(CHANNEL, lambda *args: self._deliver_raw(args[-1]))
        self._notifier = await asyncpg.connect(self.dsn)

    async def publish(self, match_id: str, version: int) -> None:
        async with self._lock:  # one asyncpg connection runs one statement at a time
            await self._notifier.execute("SELECT pg_notify($1, $2)", CHANNEL, _payload(match_id, version))

    async def stop(self) -> None:
        await super().stop()
        for connection in (self._listener, self._notifier):
            if connection is not None:
                with contextlib.suppress(Exception):
                    await connection.close()


class RedisBroker(Broker):
    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url
        self._client = None
        self._reader: asyncio.Task[None] | None = None

    async def start(self, on_message: OnMessage) -> None:
        import redis.asyncio as redis

        await super().start(on_message)
        self._client = redis.from_url(self.url)
        pubsub = self._client.pubsub()
        await pubsub.subscribe(CHANNEL)
        self._reader = asyncio.get_running_loop().create_task(self._read(pubsub))

    async def _read(self, pubsub) -> None:  # type: ignore[no-untyped-def]
        async for message in pubsub.listen():
            if message.get("type") == "message":
                self._deliver_raw(message["data"])

    async def publish(self, match_id: str, version: int) -> None:
        await self._client.publish(CHANNEL, _payload(match_id, version))

    async def stop(self) -> None:
        await super().stop()
        if self._reader is not None:
            self._reader.cancel()
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.aclose()


def make_broker(url: str) -> Broker:
    if url.startswith("memory"):
        return MemoryBroker()
    if url.startswith("postgres"):
        return PostgresBroker(url)
    if url.startswith("redis"):
        return RedisBroker(url)
    raise ValueError(f"BROKER_URL {url!r}: use memory://, postgresql://… or redis://…")
