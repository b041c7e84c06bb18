"""Rate limits per client: token buckets keyed by the client's IP address.

Each limit (``rate_limit_*`` in ``app/config.py``) is N per minute: a bucket holds
N tokens and refills evenly over a minute; a request takes one, and with none left
it is a 429 whose ``Retry-After`` says when the next token comes.

The buckets live in this process's memory: with several server processes each has
its own, so a client may get up to N per process, and a restart forgets them. The
client's address is the socket's peer, or, from a proxy listed in ``TRUSTED_PROXIES``, the
``X-Forwarded-For`` that proxy sets (``app/cli.py`` tells uvicorn whom to believe); an
IPv6 client is keyed by its /64, which one host is commonly given whole.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import Depends, Request
from starlette.requests import HTTPConnection

from app.api.deps import CurrentPlayer, OptionalPlayer
from app.config import Settings

LIMITS = ("players", "matches", "actions", "websockets", "exports", "passkeys", "chat")
CHAT_PLAYER = "chat_player"
"""The one bucket keyed by a player's id, not an address: ``chat_messages_per_minute``."""


class RateLimited(Exception):
    def __init__(self, what: str, retry_after: int) -> None:
        super().__init__(f"too many {what} from this address: retry in {retry_after} s")
        self.message = str(self)
        self.retry_after = retry_after


@dataclass
class Bucket:
    """A token bucket that holds ``capacity`` tokens and refills evenly at ``rate`` a second."""

    capacity: float
    rate: float
    tokens: float
    at: float

    @classmethod
    def full(cls, capacity: float, per_seconds: float, now: float) -> Bucket:
        return cls(capacity, capacity / per_seconds, capacity, now)

    def refill(self, now: float) -> None:
        self.tokens = min(self.capacity, self.tokens + (now - self.at) * self.rate)
        self.at = now

    def take(self, now: float) -> int:
        """Spend one token: 0, or (with none left, nothing spent) the seconds until the next."""
        self.refill(now)
        if self.tokens < 1:
            return max(1, math.ceil((1 - self.tokens) / self.rate))  # never 0: a client would spin
        self.tokens -= 1
        return 0


class RateLimiter:
    """One token bucket per (limit, client), refilled lazily when next used."""

    MAX_CLIENTS = 10_000
    """Past this many buckets, the full ones (idle clients) are forgotten."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = {name: getattr(settings, f"rate_limit_{name}") for name in LIMITS}
        self.per_minute[CHAT_PLAYER] = settings.chat_messages_per_minute
        self.clock = clock
        self.buckets: dict[tuple[str, str], Bucket] = {}

    def take(self, limit: str, client: str) -> None:
        """Spend one token of ``client``'s ``limit``; raise :class:`RateLimited` if none is left."""
        capacity = self.per_minute[limit]
        if capacity <= 0:
            return
        now = self.clock()
        bucket = self.buckets.get((limit, client))
        if bucket is None:
            if len(self.buckets) >= self.MAX_CLIENTS:
                self._forget_idle(now)
            bucket = self.buckets[(limit, client)] = Bucket.full(capacity, 60, now)
        retry_after = bucket.take(now)
        if retry_after:
            raise RateLimited(limit, retry_after)

    def _forget_idle(self, now: float) -> None:
        for key, bucket in list(self.buckets.items()):
            bucket.refill(now)
            if bucket.tokens >= bucket.capacity:
                del self.buckets[key]


def client_address(connection: HTTPConnection) -> str:
    """The address a request or websocket comes from, the key of its buckets: an IPv4
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
    """A route dependency that spends one token of ``limit`` for the caller.

    ``signed_in``: the route needs a player, who is known first: a request without a
    valid token is a 401 whatever the limit, and spends nothing (it does nothing either)."""
    assert limit in LIMITS, limit

    if signed_in:

        def spend_signed_in(request: Request, _player: CurrentPlayer) -> None:
            request.app.state.limiter.take(limit, client_address(request))

        return Depends(spend_signed_in)

    def spend(request: Request) -> None:
        request.app.state.limiter.take(limit, client_address(request))

    return Depends(spend)


def export_limit(request: Request) -> None:
    """Exports are the NDJSON answers (``Accept: application/x-ndjson``) of the
    listings and logs: each may stream a whole history, so they have a limit of their own."""
    if "application/x-ndjson" in request.headers.get("accept", ""):
        request.app.state.limiter.take("exports", client_address(request))


def viewer_export_limit(request: Request, _viewer: OptionalPlayer) -> None:
    """:func:`export_limit` of a route that takes a token: a token that is not valid is
    a 401 before any 429."""
    export_limit(request)
