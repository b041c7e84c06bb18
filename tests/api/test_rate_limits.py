"""Rate limits per client address: past each limit a 429 with ``Retry-After`` that
says when to come back, and nothing done; the counts refill with time."""

from __future__ import annotations

import json
from types import SimpleNamespace

import httpx
import limits.aio.storage.memory
import pytest
from websockets.asyncio.client import connect

from app.api.limits import RateLimited, RateLimiter
from app.config import Settings
from tests.api.helpers import clear_of_the_minute_s_turn, start_match, view
from tests.api.hostile import serve
from tests.conftest import new_player

LIMITS = {"players": 4, "matches": 2, "actions": 3, "websockets": 2, "exports": 2}


@pytest.fixture
def limited_server(database_url):
    yield from serve(Settings(database_url=database_url, **{f"rate_limit_{k}": v for k, v in LIMITS.items()}))


def assert_limited(response: httpx.Response, what: str) -> None:
    assert response.status_code == 429, response.text
    assert int(response.headers["retry-after"]) >= 1
    assert what in response.json()["detail"] and "retry in" in response.json()["detail"]


async def test_every_limit_answers_429_with_retry_after(limited_server):
    await clear_of_the_minute_s_turn()
    async with httpx.AsyncClient(base_url=limited_server.url) as client:
        # Players: 2 in start_match, 1 more, then 1 through the name form; the next is refused.
        match, players = await start_match(client)  # spends 2 players and 1 match
        await new_player(client, "Lando")
        assert (await client.post("/name", data={"name": "Lobot"})).status_code == 303
        assert_limited(await client.post("/api/v1/players", json={"name": "Bossk"}), "players")
        assert_limited(await client.post("/name", data={"name": "Bossk"}), "players")

        auth = players[0]["headers"]
        assert (
            await client.post("/api/v1/matches", json={"ruleset": "kelly"}, headers=auth)
        ).status_code == 201
        before = (await client.get("/api/v1/matches", params={"player": players[0]["id"]})).json()["matches"]
        assert_limited(
            await client.post("/api/v1/matches", json={"ruleset": "kelly"}, headers=auth), "matches"
        )
        after = (await client.get("/api/v1/matches", params={"player": players[0]["id"]})).json()["matches"]
        assert len(after) == len(before), "the refused match was not created"

        url = f"/api/v1/matches/{match['id']}/actions"
        for _ in range(LIMITS["actions"]):  # stale versions: refused, but each counts
            assert (
                await client.post(url, json={"action": {}, "version": 0}, headers=auth)
            ).status_code == 409
        seat = match["to_act"][0]
        mine = await view(client, match["id"], players[seat])
        move = next(a for a in mine["legal_actions"] if a["type"] == "move")
        body = {"action": move, "version": mine["version"]}
        assert_limited(await client.post(url, json=body, headers=players[seat]["headers"]), "actions")
        assert (await view(client, match["id"]))["version"] == mine["version"], "not applied"

        ndjson = {"accept": "application/x-ndjson"}
        events = f"/api/v1/matches/{match['id']}/events"
        for _ in range(LIMITS["exports"]):
            assert (await client.get(events, headers=ndjson)).status_code == 200
        assert_limited(await client.get(events, headers=ndjson), "exports")
        assert_limited(await client.get("/api/v1/matches", headers=ndjson), "exports")
        assert (await client.get(events)).status_code == 200, "a plain JSON read is no export"


async def test_a_request_without_a_player_is_a_401_before_any_429(limited_server):
    """Who asks comes first: a request that needs a player and has no valid token is a
    401, past the limit too, and spends nothing (Schemathesis's ignored_auth check sends
    such requests by the hundred: tests/api/test_schemathesis.py)."""
    nobody: list[dict[str, str]] = [{}, {"Authorization": "Bearer not-a-token"}]
    async with httpx.AsyncClient(base_url=limited_server.url) as client:
        match, players = await start_match(client)  # spends 1 of the 2 matches
        url = f"/api/v1/matches/{match['id']}"

        async def create(headers: dict[str, str]) -> httpx.Response:
            return await client.post("/api/v1/matches", json={"ruleset": "kelly"}, headers=headers)

        async def act(headers: dict[str, str]) -> httpx.Response:
            body = {"action": {"type": "x"}, "version": 0}
            return await client.post(f"{url}/actions", json=body, headers=headers)

        for _ in range(3):  # more than any limit has left
            for headers in nobody:
                accept = await client.post(f"{url}/rematch/accept", headers=headers)
                statuses = [r.status_code for r in (await create(headers), await act(headers), accept)]
                assert statuses == [401, 401, 401], (headers, statuses)
            ndjson = {"accept": "application/x-ndjson", **nobody[1]}
            export = await client.get(f"{url}/events", headers=ndjson)
            assert export.status_code == 401, export.text
        # Nothing was spent: the limits are all there for the player...
        auth = players[0]["headers"]
        assert (await create(auth)).status_code == 201
        for _ in range(LIMITS["actions"]):
            assert (await act(auth)).status_code == 409, "a stale version"
        assert_limited(await create(auth), "matches")
        assert_limited(await act(auth), "actions")
        # ...and past them, whoever has no valid token is still told to sign in.
        for headers in nobody:
            for refused in (await create(headers), await act(headers)):
                assert refused.status_code == 401 and "token" in refused.json()["detail"], refused.text


async def test_websocket_connections_past_the_limit_are_refused(limited_server):
    async with httpx.AsyncClient(base_url=limited_server.url) as client:
        match, players = await start_match(client)
    url = f"{limited_server.ws_url}/ws/matches/{match['id']}?token={players[0]['token']}"
    async with connect(url) as first, connect(url) as second:
        for socket in (first, second):
            assert json.loads(await socket.recv())["type"] == "snapshot"
        async with connect(url) as third:
            refusal = json.loads(await third.recv())
            assert refusal["type"] == "error" and refusal["code"] == 429 and refusal["retry_after"] >= 1
        answers = []  # the actions limit holds over the websocket too
        for n in range(LIMITS["actions"] + 1):
            await first.send(json.dumps({"type": "action", "id": n, "action": {}, "version": 0}))
            while (answer := json.loads(await first.recv()))["type"] != "error":
                pass
            answers.append(answer["code"])
        assert answers == [409] * LIMITS["actions"] + [429], answers
        await first.send(json.dumps({"type": "ping", "id": "open"}))
        assert json.loads(await first.recv())["type"] == "pong", "a limited socket stays open"


async def test_counts_refill_evenly_and_are_per_client(monkeypatch):
    """The sliding window counter (``app/api/limits.py``), on a clock the test moves:
    after a burst, the minute's count weighs less and less, one a second at 60 a minute."""
    now = [60_000.5]  # half a second into a minute: the memory storage's windows are minutes
    monkeypatch.setattr(limits.aio.storage.memory, "time", SimpleNamespace(time=lambda: now[0]))
    limiter = RateLimiter(Settings(rate_limit_storage="memory://", rate_limit_players=60))
    for _ in range(60):
        await limiter.take("players", "10.0.0.1")
    with pytest.raises(RateLimited) as refused:
        await limiter.take("players", "10.0.0.1")
    assert refused.value.retry_after == 60, "a burst: the next when the minute is over"
    await limiter.take("players", "10.0.0.2")  # another client has its own count
    now[0] += 60
    await limiter.take("players", "10.0.0.1")
    with pytest.raises(RateLimited) as refused:
        await limiter.take("players", "10.0.0.1")
    assert refused.value.retry_after == 1, "then one a second at 60 a minute"
    now[0] += 5
    for _ in range(5):  # five seconds bring back five
        await limiter.take("players", "10.0.0.1")
    with pytest.raises(RateLimited):
        await limiter.take("players", "10.0.0.1")
    off = RateLimiter(Settings(rate_limit_storage="memory://", rate_limit_players=0))
    for _ in range(1000):
        await off.take("players", "10.0.0.1")


@pytest.fixture
def behind_nginx(database_url):
    """A server whose reverse proxy is on the same host: ``TRUSTED_PROXIES=["127.0.0.1"]``."""
    yield from serve(Settings(database_url=database_url, rate_limit_players=2, trusted_proxies=["127.0.0.1"]))


async def test_l5_x_forwarded_for_from_an_untrusted_peer_does_not_choose_the_bucket(limited_server):
    """The audit's L5: from loopback, each new ``X-Forwarded-For`` used to open a new bucket.
    With no trusted proxy (the default) the header is ignored: the bucket is the peer's."""
    async with httpx.AsyncClient(base_url=limited_server.url) as client:
        for n in range(LIMITS["players"]):
            headers = {"X-Forwarded-For": f"198.51.100.{n}"}
            assert (
                await client.post("/api/v1/players", json={"name": "Bib"}, headers=headers)
            ).status_code == 201
        for n in range(5):
            headers = {"X-Forwarded-For": f"203.0.113.{n}"}
            assert_limited(
                await client.post("/api/v1/players", json={"name": "Bib"}, headers=headers), "players"
            )


async def test_l5_a_trusted_proxy_s_x_forwarded_for_is_the_client(behind_nginx):
    async with httpx.AsyncClient(base_url=behind_nginx.url) as client:

        async def create(client_address: str) -> httpx.Response:
            return await client.post(
                "/api/v1/players", json={"name": "Bib"}, headers={"X-Forwarded-For": client_address}
            )

        for _ in range(2):
            assert (await create("198.51.100.7")).status_code == 201
        assert_limited(await create("198.51.100.7"), "players")
        assert (await create("203.0.113.9")).status_code == 201, "another client behind the proxy"
        # IPv6 clients are counted by /64: another address of the same network is no way out.
        for _ in range(2):
            assert (await create("2001:db8:1:2::1")).status_code == 201
        assert_limited(await create("2001:db8:1:2:ffff::9"), "players")
        assert (await create("2001:db8:1:3::1")).status_code == 201, "another /64"
