"""Rate limits per client, counted by the ``limits`` library where every process sees them.

Each limit (``rate_limit_*`` in ``app/config.py``) is N per minute per client address
(the chat also N per minute per player); the N+1th is a 429 whose ``Retry-After`` says
when the count lets one through again.

Where the counts live (``rate_limit_storage``): ``redis://…`` is one count for every
server process (the broker's Redis by default when ``BROKER_URL`` is one), ``memory://``
each process its own. If Redis cannot be reached, requests are let through (fail open)
and a warning is logged; Redis is asked again a few seconds later.

The strategy is limits' *sliding window counter*, the closest to the token bucket this
replaced (N held, refilled evenly over the minute): after a burst of N the previous
minute's count is weighted down linearly, so the allowance comes back evenly, one every
60/N s, as a bucket refills, and a steady client is let through evenly at N a minute.
The *moving window* would give a burst's N back all at once a minute later, and keeps
one entry per request (a list of up to 60 000 per address for the actions) where the
counter keeps two numbers. It differs from the bucket after a burst: the first request
is let through again when the minute the burst fell in is over, not 60/N s later.

The client's address is the socket's peer, or, from a proxy listed in
``TRUSTED_PROXIES``, the ``X-Forwarded-For`` that proxy sets (``app/cli.py`` tells uvicorn
whom to believe); an IPv6 client is keyed by its /64, which one host is commonly given whole.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import time
import uuid
from dataclasses import dataclass
from typing import Any

from fastapi import Depends, Request
from limits import RateLimitItem, RateLimitItemPerMinute, RateLimitItemPerSecond
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter, SlidingWindowCounterRateLimiter
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from starlette.requests import HTTPConnection

from app.api.deps import CurrentPlayer, OptionalPlayer
from app.config import Settings

log = logging.getLogger(__name__)

LIMITS = ("players", "matches", "actions", "websockets", "exports", "passkeys", "chat")
CHAT_PLAYER = "chat_player"
"""A limit keyed by a player's id, not an address: ``chat_messages_per_minute``."""
WEBHOOK_TEST = "webhook_test"
"""Another, keyed by a player's id: ``webhook_tests_per_minute``."""
EXACT = frozenset({CHAT_PLAYER, WEBHOOK_TEST})
"""Limits counted in a *moving window*, exact over any minute: the sliding window counter
rounds the previous minute's weighted count down, so a burst across the minute's turn
could pass one more than N (21 of 40 chat posts at once, limit 20). The moving window
keeps one entry a request, which is cheap at a player's 20 messages."""
KEY_PREFIX = "dejarik-limits"
"""Every key the limits write to Redis starts with this (beside the broker's keys)."""
REDIS_SCHEMES = ("redis://", "rediss://")
REDIS_TIMEOUT_S = 1.0
"""How long a request waits on Redis before it is let through unlimited."""
RETRY_REDIS_S = 5.0
"""After Redis failed, requests are let through without asking it for this long."""


class RateLimited(Exception):
    def __init__(self, what: str, retry_after: int) -> None:
        super().__init__(f"too many {what} from this address: retry in {retry_after} s")
        self.message = str(self)
        self.retry_after = retry_after


def storage_uri(settings: Settings) -> str:
    """``rate_limit_storage``, or when empty the broker's Redis, else ``memory://``."""
    uri = settings.rate_limit_storage or (
        settings.broker_url if settings.broker_url.startswith(REDIS_SCHEMES) else "memory://"
    )
    if uri != "memory://" and not uri.startswith(REDIS_SCHEMES):
        raise ValueError(f"RATE_LIMIT_STORAGE must be memory:// or redis://…, not {uri!r}")
    return uri


def make_storage(uri: str, key_prefix: str = KEY_PREFIX) -> Storage:
    if uri == "memory://":
        return MemoryStorage()
    return RedisStorage(
        uri,
        implementation="redispy",
        key_prefix=key_prefix,
        wrap_exceptions=True,
        socket_connect_timeout=REDIS_TIMEOUT_S,
        socket_timeout=REDIS_TIMEOUT_S,
        retry=Retry(NoBackoff(), 1),  # once, at once: a pooled connection Redis dropped on restart
    )


def retry_after(item: RateLimitItem, window: tuple[int, float, int, float]) -> int:
    """Whole seconds until the sliding window counter lets one more through, at least 1.

    ``window`` is the storage's (previous count, its weight's seconds left, current
    count, seconds until the current window ends plus one window). A request passes when
    ``floor(previous * left / span) + current + 1 <= amount``."""
    previous, previous_left, current, current_left = window
    amount, span = item.amount, item.get_expiry()
    to_shift = max(0.0, current_left - span)  # until the current window becomes the previous
    if current >= amount:
        wait = math.inf
    elif previous:
        wait = max(0.0, previous_left - (amount - current) * span / previous)
    else:
        wait = 0.0
    if wait >= to_shift:  # not before the window shifts: then ``current`` is weighted down
        wait = to_shift + (span * (1 - amount / current) if current > amount else 0.0)
    return max(1, math.floor(wait) + 1)  # never 0: a client told to retry at once would spin


class RateLimiter:
    """The app's limits: ``take`` spends one of a client's, counted in ``rate_limit_storage``;
    :meth:`allowance` makes one counted in this process only (a websocket's own)."""

    def __init__(self, settings: Settings, *, key_prefix: str = KEY_PREFIX) -> None:
        per_minute = {name: getattr(settings, f"rate_limit_{name}") for name in LIMITS}
        per_minute[CHAT_PLAYER] = settings.chat_messages_per_minute
        per_minute[WEBHOOK_TEST] = settings.webhook_tests_per_minute
        self.items = {name: RateLimitItemPerMinute(n) if n > 0 else None for name, n in per_minute.items()}
        self.uri = storage_uri(settings)
        self.storage = make_storage(self.uri, key_prefix)
        self.shared = SlidingWindowCounterRateLimiter(self.storage)
        self.exact = MovingWindowRateLimiter(self.storage)
        self.local = SlidingWindowCounterRateLimiter(MemoryStorage())
        self.down_until = 0.0

    async def take(self, limit: str, client: str) -> None:
        """Spend one of ``client``'s ``limit``; raise :class:`RateLimited` if none is left."""
        item = self.items[limit]
        if item is None or time.monotonic() < self.down_until:
            return
        try:
            wait = await spend(self.exact if limit in EXACT else self.shared, item, limit, client)
        except Exception as error:  # Redis away: let the request through rather than fail it
            self.down_until = time.monotonic() + RETRY_REDIS_S
            log.warning(
                "rate limits not counted for %g s: %s unreachable (%s)", RETRY_REDIS_S, self.uri, error
            )
            return
        if wait:
            raise RateLimited(limit, wait)

    def allowance(self, amount: int, seconds: int) -> Allowance | None:
        """``amount`` per ``seconds`` for one holder, in this process's memory; ``None`` for 0."""
        if amount <= 0:
            return None
        return Allowance(self, RateLimitItemPerSecond(amount, seconds), uuid.uuid4().hex)

    async def close(self) -> None:
        client = getattr(getattr(self.storage, "bridge", None), "storage", None)
        if client is not None:
            await client.aclose()


@dataclass
class Allowance:
    """One holder's own limit (a websocket's syncs): :meth:`take` is 0, or the seconds to wait."""

    limiter: RateLimiter
    item: RateLimitItem
    key: str

    async def take(self) -> int:
        return await spend(self.limiter.local, self.item, "allowance", self.key)


async def spend(
    strategy: SlidingWindowCounterRateLimiter | MovingWindowRateLimiter, item: RateLimitItem, *key: str
) -> int:
    """One hit: 0, or (refused, nothing spent) the seconds until one is let through."""
    if await strategy.hit(item, *key):
        return 0
    if isinstance(strategy, MovingWindowRateLimiter):  # the oldest hit in the window leaves it
        stats = await strategy.get_window_stats(item, *key)
        return max(1, math.ceil(stats.reset_time - time.time()))
    return retry_after(item, await strategy.storage.get_sliding_window(item.key_for(*key), item.get_expiry()))  # type: ignore[attr-defined]


def client_address(connection: HTTPConnection) -> str:
    """The address a request or websocket comes from, the key of its limits: an IPv4
    address, or an IPv6 address's /64 (one host's usual share, 2^64 addresses)."""
    client = connection.client
    if not client:
        return "unknown"
    try:
        address = ipaddress.ip_address(client.host)
        if isinstance(address, ipaddress.IPv6Address):
            if address.ipv4_mapped is not None:
                return str(address.ipv4_mapped)
            return str(ipaddress.IPv6Network((address.packed, 64), strict=False))
    except ValueError:  # not an address (a test client's name, a Unix socket)
        return client.host
    return str(address)


def rate_limit(limit: str, *, signed_in: bool = False) -> Any:
    """A route dependency that spends one of ``limit`` for the caller.

    ``signed_in``: the route needs a player, who is known first: a request without a
    valid token is a 401 whatever the limit, and spends nothing (it does nothing either)."""
    assert limit in LIMITS, limit

    if signed_in:

        async def spend_signed_in(request: Request, _player: CurrentPlayer) -> None:
            await request.app.state.limiter.take(limit, client_address(request))

        return Depends(spend_signed_in)

    async def spend_one(request: Request) -> None:
        await request.app.state.limiter.take(limit, client_address(request))

    return Depends(spend_one)


async def export_limit(request: Request) -> None:
    """Exports are the NDJSON answers (``Accept: application/x-ndjson``) of the
    listings and logs: each may stream a whole history, so they have a limit of their own."""
    if "application/x-ndjson" in request.headers.get("accept", ""):
        await request.app.state.limiter.take("exports", client_address(request))


async def viewer_export_limit(request: Request, _viewer: OptionalPlayer) -> None:
    """:func:`export_limit` of a route that takes a token: a token that is not valid is
    a 401 before any 429."""
    await export_limit(request)
