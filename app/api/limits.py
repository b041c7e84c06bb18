"""Rate limits per client: token buckets keyed by the client's IP address.

Each limit (``rate_limit_*`` in ``app/config.py``) is N per minute: a bucket holds
N tokens and refills evenly over a minute; a request takes one, and with none left
it is a 429 whose ``Retry-After`` says when the next token comes.

The buckets live in this process's memory: with several server processes each has
its own, so a client may get up to N per process, and a restart forgets them. The
client's address is what the server sees; behind a reverse proxy, run uvicorn with
``--proxy-headers --forwarded-allow-ips=<proxy>`` so that it is the real client's.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import Depends, Request
from starlette.requests import HTTPConnection

from app.api.deps import CurrentPlayer, OptionalPlayer
from app.config import Settings

LIMITS = ("players", "matches", "actions", "websockets", "exports")


class RateLimited(Exception):
    def __init__(self, what: str, retry_after: int) -> None:
        super().__init__(f"too many {what} from this address: retry in {retry_after} s")
        self.message = str(self)
        self.retry_after = retry_after


@dataclass
class Bucket:
    tokens: float
    at: float


class RateLimiter:
    """One token bucket per (limit, client), refilled lazily when next used."""

    MAX_CLIENTS = 10_000
    """Past this many buckets, the full ones (idle clients) are forgotten."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = {name: getattr(settings, f"rate_limit_{name}") for name in LIMITS}
        self.clock = clock
        self.buckets: dict[tuple[str, str], Bucket] = {}

    def take(self, limit: str, client: str) -> None:
        """Spend one token of ``client``'s ``limit``; raise :class:`RateLimited` if none is left."""
        capacity = self.per_minute[limit]
        if capacity <= 0:
            return
        rate = capacity / 60  # tokens per second
        now = self.clock()
        bucket = self.buckets.get((limit, client))
        if bucket is None:
            if len(self.buckets) >= self.MAX_CLIENTS:
                self._forget_idle(now)
            bucket = self.buckets[(limit, client)] = Bucket(capacity, now)
        bucket.tokens = min(capacity, bucket.tokens + (now - bucket.at) * rate)
        bucket.at = now
        if bucket.tokens < 1:
            raise RateLimited(limit, max(1, math.ceil((1 - bucket.tokens) / rate)))
        bucket.tokens -= 1

    def _forget_idle(self, now: float) -> None:
        for key, bucket in list(self.buckets.items()):
            capacity = self.per_minute[key[0]]
            if bucket.tokens + (now - bucket.at) * capacity / 60 >= capacity:
                del self.buckets[key]


def client_address(connection: HTTPConnection) -> str:
    """The address a request or websocket comes from: the key of its buckets."""
    client = connection.client
    return client.host if client else "unknown"


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
