"""The rate limiter (``app/api/limits.py``, limits' sliding window counter) on its memory
storage and a clock the test moves: N a minute per client and limit, the N+1th refused
with when to come back, let through once that time has come and then evenly, and a
flood of new addresses that cannot free a client of its limit; where the counts live,
and Redis away (let through, with a warning). No server: ``tests/api/test_rate_limits.py``
checks the 429s through a live one, ``test_limits_across_processes.py`` through three."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import limits.aio.storage.memory
import pytest
from starlette.requests import HTTPConnection, Request

from app.api.limits import RateLimited, RateLimiter, client_address, export_limit, storage_uri
from app.config import Settings
from tests.conftest import free_port

CLIENT = "203.0.113.7"
START = 1000 * 60 + 0.5
"""Half a second into a minute: the memory storage's windows are the clock's minutes."""


class Clock:
    """Seconds, as ``time.time`` gives them, moved on by the test."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    """The memory storage's clock (limits reads ``time.time`` there)."""
    clock = Clock()
    monkeypatch.setattr(limits.aio.storage.memory, "time", SimpleNamespace(time=clock))
    return clock


def limiter(**per_minute: int) -> RateLimiter:
    """A limiter in this process's memory with ``rate_limit_<name>`` set from ``per_minute``."""
    settings = Settings(
        rate_limit_storage="memory://", **{f"rate_limit_{k}": v for k, v in per_minute.items()}
    )
    return RateLimiter(settings)


async def spend(limits: RateLimiter, times: int, limit: str = "matches", client: str = CLIENT) -> None:
    for _ in range(times):
        await limits.take(limit, client)


async def refusal(limits: RateLimiter, limit: str = "matches", client: str = CLIENT) -> RateLimited:
    with pytest.raises(RateLimited) as refused:
        await limits.take(limit, client)
    return refused.value


async def test_the_request_past_the_limit_is_refused_with_when_to_come_back(clock):
    limits = limiter(matches=3)
    await spend(limits, 3)
    refused = await refusal(limits)
    assert refused.retry_after == 60, "3 spent at once: one comes back when this minute is over"
    assert refused.message == "too many matches from this address: retry in 60 s"


async def test_the_refused_request_is_let_through_once_retry_after_has_passed_then_evenly(clock):
    limits = limiter(matches=3)
    await spend(limits, 3)
    wait = (await refusal(limits)).retry_after
    clock.now += wait - 1
    assert (await refusal(limits)).retry_after == 1, "a second early: still refused, one second to go"
    clock.now += 1
    await limits.take("matches", CLIENT)
    for _ in range(2):  # the last minute's count weighs less and less: one every 20 s
        assert (await refusal(limits)).retry_after == 20, "3 a minute: one every 20 s"
        clock.now += 20
        await limits.take("matches", CLIENT)


async def test_refused_requests_spend_nothing(clock):
    limits = limiter(matches=3)
    await spend(limits, 3)
    for _ in range(50):
        assert (await refusal(limits)).retry_after == 60, "hammering does not push the wait further"
    clock.now += 60
    await limits.take("matches", CLIENT)


async def test_an_idle_client_gets_its_limit_back_and_no_more(clock):
    limits = limiter(matches=3)
    await spend(limits, 3)
    clock.now += 3600  # an hour idle does not save up 180 requests
    await spend(limits, 3)
    await refusal(limits)


async def test_a_new_client_gets_the_whole_limit_at_once(clock):
    limits = limiter(players=600)
    clock.now += 59.4  # near the minute's end
    await spend(limits, 600, "players")
    refused = await refusal(limits, "players")
    assert refused.retry_after == 1, "never 0: a client told to retry at once would spin"


async def test_each_limit_and_each_client_has_its_own_count(clock):
    limits = limiter(players=2, matches=2, actions=2)
    await spend(limits, 2, "matches")
    await refusal(limits, "matches")
    await spend(limits, 2, "players")  # creating players is not creating matches
    await spend(limits, 2, "actions")
    await spend(limits, 2, "matches", client="198.51.100.1")  # another address
    await refusal(limits, "matches")


async def test_a_limit_of_zero_is_no_limit_and_leaves_the_others_on(clock):
    limits = limiter(exports=0, actions=1)
    await spend(limits, 10_000, "exports")
    await spend(limits, 1, "actions")
    await refusal(limits, "actions")


async def test_a_flood_of_new_addresses_does_not_free_a_limited_client(clock):
    limits = limiter(matches=2)
    await spend(limits, 2)  # CLIENT: none left
    clock.now += 30
    for n in range(5000):  # far more addresses than the old buckets kept
        await limits.take("matches", f"10.{n // 250}.{n % 250}.1")
    assert (await refusal(limits)).retry_after == 30, "still limited, until the minute is over"


async def test_a_socket_s_allowance_is_its_own_and_counted_in_this_process(clock):
    limits = limiter()
    syncs, others = limits.allowance(5, 10), limits.allowance(5, 10)
    assert syncs is not None and others is not None
    assert [await syncs.take() for _ in range(6)] == [0, 0, 0, 0, 0, 10], "5 in 10 s, then wait"
    assert await others.take() == 0, "another socket's allowance is whole"
    assert limits.allowance(0, 10) is None, "0: no limit"


def test_the_counts_live_in_the_storage_setting_else_the_broker_s_redis_else_memory():
    redis = "redis://cache.internal:6379/2"
    assert storage_uri(Settings(broker_url="memory://")) == "memory://"
    assert storage_uri(Settings(broker_url="postgresql://db/dejarik")) == "memory://"
    assert storage_uri(Settings(broker_url=redis)) == redis
    assert storage_uri(Settings(broker_url=redis, rate_limit_storage="memory://")) == "memory://"
    assert storage_uri(Settings(rate_limit_storage="redis://other:6379/3")) == "redis://other:6379/3"
    with pytest.raises(ValueError, match="RATE_LIMIT_STORAGE"):
        storage_uri(Settings(rate_limit_storage="postgresql://db/dejarik"))


async def test_with_redis_away_requests_are_let_through_and_a_warning_logged(caplog):
    """Fail open: a limit is a defence against floods, not a reason to refuse everyone."""
    limits = RateLimiter(
        Settings(rate_limit_storage=f"redis://127.0.0.1:{free_port()}/0", rate_limit_players=1)
    )
    with caplog.at_level(logging.WARNING, logger="app.api.limits"):
        await spend(limits, 5, "players")
    warnings = [r for r in caplog.records if "rate limits not counted" in r.getMessage()]
    assert len(warnings) == 1, "once, then Redis is left alone for a few seconds"
    await limits.close()


def test_the_client_address_is_the_key_and_unknown_without_one():
    def connection(client: tuple[str, int] | None) -> HTTPConnection:
        return HTTPConnection({"type": "http", "client": client, "headers": []})

    assert client_address(connection((CLIENT, 5555))) == CLIENT
    assert client_address(connection((CLIENT, 6666))) == CLIENT, "not the port: one count per host"
    assert client_address(connection(None)) == "unknown"


def test_l5_an_ipv6_client_is_keyed_by_its_64():
    """One host is commonly given a whole /64: 2^64 addresses must not be 2^64 counts (L5)."""

    def key(host: str) -> str:
        return client_address(HTTPConnection({"type": "http", "client": (host, 1), "headers": []}))

    assert key("2001:db8:1:2:3:4:5:6") == key("2001:db8:1:2::9") == "2001:db8:1:2::/64"
    assert key("2001:db8:1:3::9") == "2001:db8:1:3::/64"
    assert key("::ffff:203.0.113.7") == CLIENT, "an IPv4 client on a dual-stack socket"
    assert key("testclient") == "testclient", "not an address: kept as it is"


async def test_only_ndjson_reads_spend_the_exports_limit(clock):
    limits = limiter(exports=1)
    app = SimpleNamespace(state=SimpleNamespace(limiter=limits))

    async def read(accept: str) -> None:
        headers = [(b"accept", accept.encode())]
        await export_limit(Request({"type": "http", "app": app, "client": (CLIENT, 1), "headers": headers}))

    for _ in range(5):
        await read("application/json")
    await read("application/json, application/x-ndjson;q=0.9")
    with pytest.raises(RateLimited, match="exports"):
        await read("application/x-ndjson")
