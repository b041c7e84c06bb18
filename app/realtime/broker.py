"""How "match M reached version V" reaches every server process (ARCHITECTURE §5).

Messages are tiny (``{"match", "version"}``); each process builds its own viewers'
messages from the database. A *say* is the other kind: a message for a match's viewers
that is not a version of the match (a chat line, news of a rematch). It carries the
message itself and the players who may not see it (``{"match", "say", "hidden_from"}``),
and each process hands it to its own viewers. Both carry ``at``, when they were published
(seconds since the epoch), for the lag metric; a message without it (from a process of
an older version) is delivered all the same. ``BROKER_URL`` picks the engine:

- ``memory://``: one process (the embedded default);
- ``postgresql://…``: PostgreSQL LISTEN/NOTIFY;
- ``redis://…``: Redis pub/sub.

The shared brokers survive a restart of PostgreSQL or Redis: the listening side
reconnects with backoff (0.1 s doubling to 5 s) and subscribes again, then calls
``on_reconnect`` so that the process resyncs its viewers from their versions
(whatever was published meanwhile never reached them). Publishing is best effort
and never raises: after a commit, a broker that is down must not turn the action
into an error; this process's own viewers get the update directly, the other
processes' viewers catch up at the resync.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)

CHANNEL = "dejarik_match_updates"
OnMessage = Callable[[str, int], Awaitable[None]]
OnSay = Callable[[str, dict[str, Any], frozenset[str]], Awaitable[None]]
OnReconnect = Callable[[], Awaitable[None]]
OnLag = Callable[[float], None]
FIRST_BACKOFF_S = 0.1
MAX_BACKOFF_S = 5.0
KEEPALIVE_S = 5.0
"""How often an idle listening connection is checked (a dropped one is usually noticed at once)."""


class Broker:
    """Delivers every published ``(match_id, version)`` to ``on_message``, and every say
    to ``on_say``, in every process."""

    kind = "memory"

    def __init__(self) -> None:
        self.on_message: OnMessage | None = None
        self.on_say: OnSay | None = None
        """Called with each say (set it before ``start``)."""
        self.on_reconnect: OnReconnect | None = None
        """Called after the listening side reconnected: set it before ``start``."""
        self.on_lag: OnLag | None = None
        """Called with each received message's ``at`` (its publish time), for the metrics."""
        self.connected = True
        self.reconnects = 0
        self.last_error: str | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    async def start(self, on_message: OnMessage) -> None:
        self.on_message = on_message

    async def publish(self, match_id: str, version: int) -> None:
        """Tell every process; never raises (see the module's docstring)."""
        await self._send_or_keep(json.dumps({"match": match_id, "version": version, "at": time.time()}))

    async def say(self, match_id: str, message: dict[str, Any], hidden_from: frozenset[str]) -> None:
        """Hand ``message`` to every process's viewers of ``match_id``, except the players
        in ``hidden_from``; never raises."""
        payload = {"match": match_id, "say": message, "hidden_from": sorted(hidden_from), "at": time.time()}
        await self._send_or_keep(json.dumps(payload))

    async def _send_or_keep(self, payload: str) -> None:
        """Send ``payload`` to every process; if the broker cannot, deliver it here only."""
        try:
            await self._send(payload)
        except Exception as error:
            self.last_error = f"publish: {type(error).__name__}: {error}"[:200]
            log.warning("could not publish %s (delivering here only): %s", payload[:80], error)
            self._deliver_raw(payload)

    async def _send(self, payload: str) -> None:
        raise NotImplementedError

    def status(self) -> dict[str, Any]:
        """For ``/healthz`` and ``/readyz``."""
        return {
            "kind": self.kind,
            "connected": self.connected,
            "reconnects": self.reconnects,
            "last_error": self.last_error,
        }

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task

    def _spawn(self, coroutine: Awaitable[Any]) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)  # type: ignore[arg-type]
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _deliver(self, match_id: str, version: int) -> None:
        if self.on_message is not None:
            self._spawn(self._call(self.on_message, match_id, version))

    def _deliver_raw(self, payload: str | bytes) -> None:
        try:
            message = json.loads(payload)
            if self.on_lag is not None and isinstance(message, dict) and isinstance(message.get("at"), float):
                self.on_lag(message["at"])
            if "say" not in message:
                self._deliver(str(message["match"]), int(message["version"]))
            elif self.on_say is not None:
                said, hidden = dict(message["say"]), frozenset(map(str, message["hidden_from"]))
                self._spawn(self._call(self.on_say, str(message["match"]), said, hidden))
        except (ValueError, KeyError, TypeError):
            log.warning("ignoring a malformed broker message: %r", payload)

    @staticmethod
    async def _call(callback: Callable[..., Awaitable[None]], *args: Any) -> None:
        try:
            await callback(*args)
        except Exception:  # e.g. the database is away: the outage watch resyncs later
            log.exception("a broker callback failed")

    def _failed(self, error: BaseException) -> None:
        self.connected = False
        self.last_error = f"{type(error).__name__}: {error}"[:200]

    def _reconnected(self) -> None:
        self.connected = True
        self.reconnects += 1
        log.warning("broker %s reconnected", self.kind)
        if self.on_reconnect is not None:
            self._spawn(self._call(self.on_reconnect))

    async def _backoff(self, delay: float) -> float:
        await asyncio.sleep(delay)
        return min(delay * 2, MAX_BACKOFF_S)


class MemoryBroker(Broker):
    async def _send(self, payload: str) -> None:
        self._deliver_raw(payload)


class PostgresBroker(Broker):
    """LISTEN/NOTIFY on one channel; one connection listens, another notifies."""

    kind = "postgresql"

    def __init__(self, url: str) -> None:
        super().__init__()
        self.dsn = url.replace("postgresql+asyncpg://", "postgresql://")
        self._listener: Any = None
        self._notifier: Any = None
        self._lost = asyncio.Event()
        self._lock = asyncio.Lock()

    async def start(self, on_message: OnMessage) -> None:
        await super().start(on_message)
        await self._listen()  # the first connection must work: a wrong URL fails the start
        self._spawn(self._supervise())

    async def _listen(self) -> None:
        import asyncpg

        connection = await asyncpg.connect(self.dsn, timeout=10)
        self._lost.clear()
        connection.add_termination_listener(lambda _connection: self._lost.set())
        await connection.add_listener(CHANNEL, lambda *args: self._deliver_raw(args[-1]))
        self._listener = connection

    async def _supervise(self) -> None:
        """Keep the listening connection alive: notice its loss, reconnect, resync."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._lost.wait(), KEEPALIVE_S)
            if not self._lost.is_set():
                try:
                    await asyncio.wait_for(self._listener.execute("SELECT 1"), KEEPALIVE_S)
                    continue
                except Exception as error:
                    self._failed(error)
            else:
                self._failed(ConnectionError("the listening connection was closed"))
            with contextlib.suppress(Exception):
                self._listener.terminate()
            delay = FIRST_BACKOFF_S
            while True:
                try:
                    await self._listen()
                    break
                except Exception as error:
                    self._failed(error)
                    delay = await self._backoff(delay)
            self._reconnected()

    async def _send(self, payload: str) -> None:
        import asyncpg

        async with self._lock:  # one asyncpg connection runs one statement at a time
            for attempt in (1, 2):  # a dropped connection is replaced once, at once
                try:
                    if self._notifier is None or self._notifier.is_closed():
                        self._notifier = await asyncpg.connect(self.dsn, timeout=5)
                    await self._notifier.execute("SELECT pg_notify($1, $2)", CHANNEL, payload)
                    return
                except Exception:
                    if self._notifier is not None:
                        self._notifier.terminate()
                    self._notifier = None
                    if attempt == 2:
                        raise

    async def stop(self) -> None:
        await super().stop()
        for connection in (self._listener, self._notifier):
            if connection is not None:
                with contextlib.suppress(Exception):
                    await connection.close(timeout=2)


class RedisBroker(Broker):
    kind = "redis"

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url
        self._client: Any = None

    async def start(self, on_message: OnMessage) -> None:
        import redis.asyncio as redis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        await super().start(on_message)
        # No silent retries inside redis-py: the reader must see a lost connection
        # to resubscribe and resync, and a publish must not hold up an ack.
        self._client = redis.from_url(self.url, retry=Retry(NoBackoff(), 0), socket_connect_timeout=2)
        pubsub = self._client.pubsub()
        await pubsub.subscribe(CHANNEL)  # the first connection must work
        self._spawn(self._read(pubsub))

    async def _read(self, pubsub: Any) -> None:
        """Read until the connection fails; then subscribe again (with backoff) and resync."""
        delay = FIRST_BACKOFF_S
        while True:
            try:
                async for message in pubsub.listen():
                    delay = FIRST_BACKOFF_S
                    if message.get("type") == "message":
                        self._deliver_raw(message["data"])
            except asyncio.CancelledError:
                raise
            except Exception as error:
                self._failed(error)
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            while True:
                delay = await self._backoff(delay)
                try:
                    pubsub = self._client.pubsub()
                    await pubsub.subscribe(CHANNEL)
                    break
                except Exception as error:
                    self._failed(error)
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()
            self._reconnected()

    async def _send(self, payload: str) -> None:
        try:
            await self._client.publish(CHANNEL, payload)
        except Exception:  # a connection of the pool that Redis dropped: once more, on a fresh one
            await self._client.publish(CHANNEL, payload)

    async def stop(self) -> None:
        await super().stop()
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
