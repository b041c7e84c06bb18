"""``GET /metrics`` (app/metrics.py): each figure moves with what it counts, on a server of
this module's own (no other test's actions or sockets), and a route is labelled by its
template, never by the ids in its path."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Iterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from websockets.asyncio.client import connect

from app.config import Settings
from app.metrics import Metrics
from tests.api.helpers import play_one, start_match
from tests.conftest import LiveServer, free_port, new_player
from tests.realtime.helpers import receive, socket_url

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[LiveServer]:
    """Webhooks to 127.0.0.1 allowed: an unreachable one leaves its notice owed."""
    database = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('metrics') / 'dejarik.db'}"
    live = LiveServer(Settings(database_url=database, bot_delay_ms=0, webhook_allow_private=True)).start()
    yield live
    live.stop()


async def scrape(http: httpx.AsyncClient) -> Samples:
    response = await http.get("/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain"), response.headers
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


async def until(http: httpx.AsyncClient, holds: Callable[[Samples], bool], within: float = 5) -> Samples:
    """The first scrape for which ``holds`` is true (the figures that move after an answer)."""
    deadline = time.monotonic() + within
    while True:
        samples = await scrape(http)
        if holds(samples) or time.monotonic() > deadline:
            assert holds(samples), {k: v for k, v in samples.items() if k[0].startswith("dejarik_")}
            return samples
        await asyncio.sleep(0.05)


async def test_each_action_applied_is_counted_and_timed_by_its_ruleset(server):
    plays = 4
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        match, players = await start_match(http)
        before = await scrape(http)
        rng = random.Random(7)
        for _ in range(plays):
            await play_one(http, match["id"], players, rng)
        after = await scrape(http)
    for name in ("dejarik_actions_total", "dejarik_action_seconds_count"):
        assert value(after, name, ruleset="kelly") - value(before, name, ruleset="kelly") == plays, name
    slowest = value(after, "dejarik_action_seconds_bucket", ruleset="kelly", le="+Inf")
    assert slowest == value(after, "dejarik_action_seconds_count", ruleset="kelly")
    assert value(after, "dejarik_action_seconds_sum", ruleset="kelly") > 0


async def test_an_open_websocket_is_counted_and_so_are_its_updates_and_the_broker_lag(server):
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        match, players = await start_match(http)
        before = await until(http, lambda s: value(s, "dejarik_websockets") == 0)
        async with connect(socket_url(server, match["id"], players[0])) as socket:
            await receive(socket, "snapshot")
            assert value(await scrape(http), "dejarik_websockets") == 1
            await play_one(http, match["id"], players, random.Random(1))
            await receive(socket, "update")
            sent = "dejarik_updates_sent_total"
            after = await until(http, lambda s: value(s, sent) > value(before, sent))
        lag = "dejarik_broker_lag_seconds_count"
        assert value(after, lag) > value(before, lag)
        await until(http, lambda s: value(s, "dejarik_websockets") == 0)


async def test_an_undelivered_notice_shows_in_the_outbox_figures(server):
    """A webhook to a closed port: the delivery fails and waits for its retry, owed."""
    hook = {"webhook_url": f"http://127.0.0.1:{free_port()}/hook", "email": None}
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        players = [await new_player(http, name) for name in ("Aurra", "Cad")]
        for player in players:
            response = await http.put(
                "/api/v1/players/me/notifications", json=hook, headers=player["headers"]
            )
            assert response.status_code == 200, response.text
        created = await http.post(
            "/api/v1/matches", json={"ruleset": "kelly", "seat": 0}, headers=players[0]["headers"]
        )
        joined = await http.post(
            f"/api/v1/matches/{created.json()['id']}/join", headers=players[1]["headers"]
        )
        assert joined.status_code == 200, joined.text
        samples = await scrape(http)
    assert value(samples, "dejarik_outbox_pending") >= 1
    assert value(samples, "dejarik_outbox_oldest_seconds") >= 0


async def test_requests_are_counted_by_route_template_not_by_path(server):
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        match, _ = await start_match(http)
        before = await scrape(http)
        for _ in range(2):
            assert (await http.get(f"/api/v1/matches/{match['id']}")).status_code == 200
        assert (await http.get(f"/no/such/page/{match['id']}")).status_code == 404
        after = await scrape(http)
        schema = (await http.get("/openapi.json")).json()
    route = {"route": "/api/v1/matches/{match_id}", "method": "GET", "status": "200"}
    counted = "dejarik_http_requests_total"
    assert value(after, counted, **route) - value(before, counted, **route) == 2
    unmatched = {"route": "unmatched", "method": "GET", "status": "404"}
    assert value(after, counted, **unmatched) - value(before, counted, **unmatched) == 1
    assert not any(match["id"] in value for _, labels in after for _, value in labels)
    assert "/metrics" not in schema["paths"]  # the scraper's, not the API's (nor Schemathesis's)


@pytest.mark.both_databases
async def test_the_database_pools_in_use_are_reported(client, live_server):
    match, players = await start_match(client)
    await play_one(client, match["id"], players, random.Random(2))
    samples = await scrape(client)
    pools = {dict(labels)["pool"] for name, labels in samples if name == "dejarik_db_pool_in_use"}
    postgres = live_server.settings.database_url.startswith("postgresql")
    assert pools == ({"sqlalchemy", "asyncpg"} if postgres else {"sqlalchemy"})
    assert all(v >= 0 for (name, _), v in samples.items() if name == "dejarik_db_pool_in_use")


def test_bot_decisions_are_counted_by_bot_with_their_search_time():
    metrics = Metrics()
    metrics.bot_decided("kelly-master", 0.4)
    metrics.bot_decided("kelly-master", 1.2)
    metrics.bot_decided("kelly-easy", 0.01)
    sample = metrics.registry.get_sample_value
    assert sample("dejarik_bot_decisions_total", {"bot": "kelly-master"}) == 2
    assert sample("dejarik_bot_decisions_total", {"bot": "kelly-easy"}) == 1
    assert sample("dejarik_bot_search_seconds_count") == 3
    assert sample("dejarik_bot_search_seconds_sum") == pytest.approx(1.61)
    assert Metrics().registry.get_sample_value("dejarik_bot_search_seconds_count") == 0  # a registry each
