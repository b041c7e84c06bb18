"""The rate limiter (``app/api/limits.py``) on a clock the test moves: N a minute per
client and limit, the N+1th refused with when to come back, let through once that
time has come, and a flood of new addresses that cannot free a client of its limit.
No server; ``tests/api/test_rate_limits.py`` checks the 429s through a live one."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from starlette.requests import HTTPConnection, Request

from app.api.limits import RateLimited, RateLimiter, client_address, export_limit
from app.config import Settings

CLIENT = "203.0.113.7"


class Clock:
    """Seconds, as ``time.monotonic`` gives them, moved on by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def limiter(clock: Clock, **per_minute: int) -> RateLimiter:
    """A limiter with ``rate_limit_<name>`` set from ``per_minute``."""
    return RateLimiter(Settings(**{f"rate_limit_{k}": v for k, v in per_minute.items()}), clock=clock)


def spend(limits: RateLimiter, times: int, limit: str = "matches", client: str = CLIENT) -> None:
    for _ in range(times):
        limits.take(limit, client)


def refusal(limits: RateLimiter, limit: str = "matches", client: str = CLIENT) -> RateLimited:
    with pytest.raises(RateLimited) as refused:
        limits.take(limit, client)
    return refused.value


def test_the_request_past_the_limit_is_refused_with_when_to_come_back():
    clock = Clock()
    limits = limiter(clock, matches=3)
    spend(limits, 3)
    refused = refusal(limits)
    assert refused.retry_after == 20, "3 a minute: one token every 20 s"
    assert refused.message == "too many matches from this address: retry in 20 s"


def test_the_refused_request_is_let_through_once_retry_after_has_passed():
    clock = Clock()
    limits = limiter(clock, matches=3)
    spend(limits, 3)
    wait = refusal(limits).retry_after
    clock.now += wait - 1
    assert refusal(limits).retry_after == 1, "a second early: still refused, one second to go"
    clock.now += 1
    limits.take("matches", CLIENT)
    assert refusal(limits).retry_after == 20, "and that token is spent"


def test_refused_requests_spend_nothing():
    clock = Clock()
    limits = limiter(clock, matches=3)
    spend(limits, 3)
    for _ in range(50):
        assert refusal(limits).retry_after == 20, "hammering does not push the wait further"
    clock.now += 20
    limits.take("matches", CLIENT)


def test_an_idle_client_gets_its_limit_back_and_no_more():
    clock = Clock()
    limits = limiter(clock, matches=3)
    spend(limits, 3)
    clock.now += 3600  # an hour idle does not save up 180 requests
    spend(limits, 3)
    assert refusal(limits).retry_after == 20


def test_a_new_client_gets_the_whole_limit_at_once():
    clock = Clock()
    limits = limiter(clock, players=600)
    spend(limits, 600, "players")
    refused = refusal(limits, "players")
    assert refused.retry_after == 1, "never 0: a client told to retry at once would spin"


def test_each_limit_and_each_client_has_its_own_bucket():
    clock = Clock()
    limits = limiter(clock, players=2, matches=2, actions=2)
    spend(limits, 2, "matches")
    refusal(limits, "matches")
    spend(limits, 2, "players")  # creating players is not creating matches
    spend(limits, 2, "actions")
    spend(limits, 2, "matches", client="198.51.100.1")  # another address
    refusal(limits, "matches")


def test_a_limit_of_zero_is_no_limit_and_leaves_the_others_on():
    clock = Clock()
    limits = limiter(clock, exports=0, actions=1)
    spend(limits, 10_000, "exports")
    spend(limits, 1, "actions")
    refusal(limits, "actions")


def test_a_flood_of_new_addresses_forgets_idle_clients_but_not_a_limited_one():
    clock = Clock()
    limits = limiter(clock, matches=2)
    limits.MAX_CLIENTS = 3
    spend(limits, 2)  # CLIENT: no token left
    spend(limits, 1, client="198.51.100.1")  # one left, full again in 30 s
    spend(limits, 1, client="198.51.100.2")
    clock.now += 30
    for n in range(3, 50):  # far more addresses than buckets are kept
        spend(limits, 1, client=f"198.51.100.{n}")
    kept = {client for _, client in limits.buckets}
    assert "198.51.100.1" not in kept and "198.51.100.2" not in kept, "full again: forgotten"
    spend(limits, 1)  # the one token 30 s brought back...
    assert refusal(limits).retry_after == 30, "...and no more: its bucket was kept"


def test_the_client_address_is_the_key_and_unknown_without_one():
    def connection(client: tuple[str, int] | None) -> HTTPConnection:
        return HTTPConnection({"type": "http", "client": client, "headers": []})

    assert client_address(connection((CLIENT, 5555))) == CLIENT
    assert client_address(connection((CLIENT, 6666))) == CLIENT, "not the port: one bucket per host"
    assert client_address(connection(None)) == "unknown"


def test_an_ipv6_client_is_keyed_by_its_64():
    """One host is commonly given a whole /64: 2^64 addresses must not be 2^64 buckets (L5)."""

    def key(host: str) -> str:
        return client_address(HTTPConnection({"type": "http", "client": (host, 1), "headers": []}))

    assert key("2001:db8:1:2:3:4:5:6") == key("2001:db8:1:2::9") == "2001:db8:1:2::/64"
    assert key("2001:db8:1:3::9") == "2001:db8:1:3::/64"
    assert key("::ffff:203.0.113.7") == CLIENT, "an IPv4 client on a dual-stack socket"
    assert key("testclient") == "testclient", "not an address: kept as it is"


def test_only_ndjson_reads_spend_the_exports_limit():
    clock = Clock()
    limits = limiter(clock, exports=1)
    app = SimpleNamespace(state=SimpleNamespace(limiter=limits))

    def read(accept: str) -> None:
        headers = [(b"accept", accept.encode())]
        export_limit(Request({"type": "http", "app": app, "client": (CLIENT, 1), "headers": headers}))

    for _ in range(5):
        read("application/json")
    read("application/json, application/x-ndjson;q=0.9")
    with pytest.raises(RateLimited, match="exports"):
        read("application/x-ndjson")
