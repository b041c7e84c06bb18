"""Web Push (issue 33): a real push service on 127.0.0.1 (``tests/api/receivers.py``)
checks the VAPID signature against the key the server publishes and decrypts every
push with the subscription's own keys. The server allows it with ``PUSH_ALLOW_PRIVATE``."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import func, insert, select
from websockets.asyncio.client import connect

from app.config import Settings
from app.db import make_engine
from app.models import MatchWatcher, Outbox, PushSubscription, VapidKey, utcnow
from tests.api.helpers import play_one, start_match, view
from tests.api.receivers import PushService, arrives
from tests.conftest import LiveServer, new_player

PUSH_WITHIN_S = 15.0  # a bound on waiting, not a speed: at a load of 18 one took over 5 s
OUTBOX, SUBSCRIPTIONS, WATCHERS = Outbox.__table__, PushSubscription.__table__, MatchWatcher.__table__


@pytest.fixture(scope="module")
def push_database(tmp_path_factory) -> str:
    return f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('push') / 'dejarik.db'}"


@pytest.fixture(scope="module")
def pushing_server(push_database) -> Iterator[LiveServer]:
    """A server that may push to 127.0.0.1, and retries and polls quickly."""
    settings = Settings(
        database_url=push_database, push_allow_private=True, notify_retry_s=0.2, notify_poll_s=0.2
    )
    server = LiveServer(settings).start()
    yield server
    server.stop()


@pytest.fixture
async def service(pushing_server) -> Iterator[PushService]:
    push_service = PushService()
    async with httpx.AsyncClient(base_url=pushing_server.url) as http:
        push_service.public_key = (await http.get("/api/v1/push/key")).json()["public_key"]
    yield push_service
    push_service.close()


@pytest.fixture
async def http(pushing_server):
    async with httpx.AsyncClient(base_url=pushing_server.url, timeout=30) as client:
        yield client


async def subscribe(http: httpx.AsyncClient, player: dict, subscription: dict) -> httpx.Response:
    return await http.post(
        "/api/v1/players/me/push-subscriptions", json=subscription, headers=player["headers"]
    )


async def subscribed(http: httpx.AsyncClient, player: dict, service: PushService) -> dict:
    """A new subscription of ``player`` at ``service``, with the id the server gave it."""
    subscription = service.subscription()
    response = await subscribe(http, player, subscription)
    assert response.status_code == 201, response.text
    return {**subscription, "id": response.json()["id"]}


async def rows(database_url: str, query):
    engine = make_engine(database_url, pool_size=1)
    try:
        async with engine.connect() as connection:
            return list(await connection.execute(query))
    finally:
        await engine.dispose()


async def until_row(database_url: str, query, check, within: float = PUSH_WITHIN_S):
    deadline = time.monotonic() + within
    while True:
        found = await rows(database_url, query)
        if check(found):
            return found
        assert time.monotonic() < deadline, found
        await asyncio.sleep(0.1)


async def owe_push(database_url: str, player_id: str, version: int) -> None:
    """A "match finished" push owed to the player now, as a finished match writes it."""
    engine = make_engine(database_url, pool_size=1)
    async with engine.begin() as connection:
        now = utcnow()
        await connection.execute(
            insert(OUTBOX).values(
                player_id=player_id,
                channel="push",
                event="match_finished",
                match_id="m" * 10,
                ruleset="kelly",
                version=version,
                text="Your Kelly match is over.",
                created_at=now,
                next_at=now,
                attempts=0,
            )
        )
    await engine.dispose()


async def test_the_opponents_move_pushes_once_to_a_player_away(http, service, pushing_server):
    match, players = await start_match(http)
    endpoints = [await subscribed(http, p, service) for p in players]
    rng = random.Random(3)
    current = await view(http, match["id"])
    while True:  # until the next move hands the turn over to the other seat
        before = current["to_act"]
        await play_one(http, match["id"], players, rng)
        current = await view(http, match["id"])
        if current["to_act"] != before:
            break
    waiting = current["to_act"][0]
    endpoint = endpoints[waiting]["endpoint"]

    def this_turn() -> list[dict]:
        return [p for p in service.to(endpoint) if p["match"]["version"] == current["version"]]

    await arrives(lambda: this_turn(), PUSH_WITHIN_S)
    await asyncio.sleep(0.5)  # nothing more comes
    (pushed,) = this_turn()
    assert pushed["event"] == "your_turn" and pushed["title"] == "Your turn"
    assert pushed["body"].startswith("Your turn") and pushed["url"].endswith(f"/matches/{match['id']}")
    assert pushed["match"]["id"] == match["id"]
    assert service.refused == []


async def test_no_your_turn_while_the_player_has_the_match_open(http, service, pushing_server):
    match, players = await start_match(http)
    for player in players:
        await subscribed(http, player, service)
    rng = random.Random(5)
    current = await view(http, match["id"])
    seat_away = 1 - current["to_act"][0]
    url = f"{pushing_server.ws_url}/ws/matches/{match['id']}?token={players[seat_away]['token']}"
    async with connect(url) as socket:
        await socket.recv()  # the snapshot: the server holds the socket now
        while True:
            before = current["to_act"]
            await play_one(http, match["id"], players, rng)
            current = await view(http, match["id"])
            if current["to_act"] != before and current["to_act"] == [seat_away]:
                break
        version = current["version"]
        query = select(OUTBOX.c.outcome).where(
            OUTBOX.c.match_id == match["id"],
            OUTBOX.c.channel == "push",
            OUTBOX.c.version == version,
            OUTBOX.c.player_id == players[seat_away]["id"],
        )
        (row,) = await until_row(pushing_server.settings.database_url, query, lambda r: r and r[0].outcome)
    assert row.outcome == "watching"
    assert not [
        p
        for p in service.received
        if p[1]["match"]["version"] == version and p[1]["match"]["id"] == match["id"]
    ]


async def test_a_league_s_new_round_is_pushed_to_each_player(http, service):
    """Starting a league pairs its first round: each player's phone hears of their league
    match (one notification a match: the round's news and "your turn" share its tag)."""
    host, friend = await new_player(http, "Hera"), await new_player(http, "Kanan")
    endpoints = {p["id"]: (await subscribed(http, p, service))["endpoint"] for p in (host, friend)}
    body = {
        "name": "Ghost Cup",
        "ruleset": "kelly",
        "options": {},
        "format": "swiss",
        "rounds": 1,
        "rated": False,
    }
    league = (await http.post("/api/v1/leagues", json=body, headers=host["headers"])).json()
    assert (
        await http.post(f"/api/v1/leagues/{league['id']}/join", headers=friend["headers"])
    ).status_code == 200
    started = await http.post(f"/api/v1/leagues/{league['id']}/start", headers=host["headers"])
    assert started.status_code == 200, started.text
    (pairing,) = started.json()["rounds"][0]["pairings"]

    def news(player: dict) -> list[dict]:
        return [p for p in service.to(endpoints[player["id"]]) if p["event"] == "league_round"]

    for player, other in ((host, friend), (friend, host)):
        await arrives(lambda player=player: news(player), PUSH_WITHIN_S)
        (pushed,) = news(player)
        assert pushed["title"] == "A new league round"
        assert f"Ghost Cup: your league match against {other['name']}" in pushed["body"]
        assert (
            pushed["url"].endswith(f"/matches/{pairing['match']}")
            and pushed["match"]["id"] == pairing["match"]
        )
    assert service.refused == []


async def test_a_gone_endpoint_is_forgotten(http, service, pushing_server, push_database):
    player = await new_player(http, "Leia")
    gone = await subscribed(http, player, service)
    kept = await subscribed(http, player, service)
    service.gone.add(gone["endpoint"].removeprefix(service.url))
    await owe_push(push_database, player["id"], 1)
    http_query = select(SUBSCRIPTIONS.c.id).where(SUBSCRIPTIONS.c.player_id == player["id"])
    await until_row(push_database, http_query, lambda r: [row.id for row in r] == [kept["id"]])
    await arrives(lambda: service.to(kept["endpoint"]))
    assert service.to(kept["endpoint"])[0]["event"] == "match_finished"


async def test_nothing_is_lost_while_the_push_service_is_down(http, service, push_database):
    player = await new_player(http, "Lando")
    subscription = await subscribed(http, player, service)
    service.down()
    await owe_push(push_database, player["id"], 7)
    failed_twice = select(OUTBOX.c.attempts).where(OUTBOX.c.player_id == player["id"])
    await until_row(push_database, failed_twice, lambda r: r and r[0].attempts >= 2)
    service.up()
    await arrives(lambda: service.to(subscription["endpoint"]), PUSH_WITHIN_S)
    await asyncio.sleep(0.5)
    assert [p["match"]["version"] for p in service.to(subscription["endpoint"])] == [7]


@pytest.mark.both_databases
async def test_every_server_on_a_database_signs_with_one_key(database_url):
    servers = [LiveServer(Settings(database_url=database_url)).start() for _ in range(2)]
    try:
        async with httpx.AsyncClient() as http:
            keys = await asyncio.gather(*(http.get(f"{s.url}/api/v1/push/key") for s in servers))
            again = await http.get(f"{servers[0].url}/api/v1/push/key")
    finally:
        for server in servers:
            server.stop()
    published = {response.json()["public_key"] for response in [*keys, again]}
    assert len(published) == 1, published
    (key,) = published
    assert len(key) == 87 and key.startswith("B")  # 65 bytes: an uncompressed P-256 point
    (count,) = await rows(database_url, select(func.count()).select_from(VapidKey.__table__))
    assert count[0] == 1


async def test_subscriptions_are_checked_kept_to_five_and_deleted(http, service, push_database):
    player, other = await new_player(http, "Rey"), await new_player(http, "Finn")
    good = service.subscription()
    keys = good["keys"]
    for body, words in [
        ({**good, "endpoint": "ftp://127.0.0.1/x"}, "A push endpoint is an https:// address"),
        ({**good, "keys": {**keys, "p256dh": keys["p256dh"][:40]}}, "keys.p256dh is not a P-256 public key"),
        ({**good, "keys": {**keys, "p256dh": "B" + "A" * 86}}, "keys.p256dh is not a P-256 public key"),
        ({**good, "keys": {**keys, "auth": "AAAA"}}, "keys.auth is not a push auth secret: 16 bytes"),
        ({**good, "keys": {**keys, "auth": "not base64!!"}}, "keys.auth is not a push auth secret"),
    ]:
        response = await subscribe(http, player, body)
        assert response.status_code == 422 and words in response.json()["detail"], response.text
    missing = await subscribe(http, player, {"endpoint": good["endpoint"]})
    assert missing.status_code == 422 and "keys" in missing.text
    ids = [(await subscribed(http, player, service))["id"] for _ in range(6)]
    mine = select(SUBSCRIPTIONS.c.id).where(SUBSCRIPTIONS.c.player_id == player["id"])
    assert sorted(row.id for row in await rows(push_database, mine)) == sorted(ids[1:])  # the oldest went
    path = "/api/v1/players/me/push-subscriptions/"
    assert (await http.delete(path + ids[0], headers=player["headers"])).status_code == 404
    assert (await http.delete(path + ids[1], headers=other["headers"])).status_code == 404
    assert (await http.delete(path + ids[1], headers=player["headers"])).status_code == 204
    assert (await http.delete(path + ids[1], headers=player["headers"])).status_code == 404
    assert (await http.delete(path + ids[2])).status_code == 401


async def test_a_loopback_endpoint_is_refused_by_default(client):
    player = await new_player(client, "Poe")
    keys = PushService()  # its browser keys only: the endpoints are others
    for endpoint, words in [
        ("https://127.0.0.1/push/1", "private, loopback or reserved address"),
        ("http://push.example.org/1", "A push endpoint is an https:// address"),
    ]:
        body = {**keys.subscription(), "endpoint": endpoint}
        response = await subscribe(client, player, body)
        assert response.status_code == 422 and words in response.json()["detail"], response.text
    keys.close()


BEAT_S = 1.5
"""The presence beat of the two servers below: a player counts as watching for two beats
(and a second) after the last record, here 4 s."""


async def play_until_it_is(http: httpx.AsyncClient, match: dict, players: list[dict], seat: int, rng) -> int:
    """Random moves until the turn passes to ``seat`` (from the other seat); its version."""
    current = await view(http, match["id"])
    while True:
        before = current["to_act"]
        await play_one(http, match["id"], players, rng)
        current = await view(http, match["id"])
        assert current["status"] == "active", current["status"]
        if current["to_act"] != before and current["to_act"] == [seat]:
            return current["version"]


@pytest.mark.both_databases
async def test_no_your_turn_while_the_match_is_open_on_another_server(database_url):
    """Two processes behind a load balancer: the player has the match open by websocket on
    server A while the opponent plays through server B. Only B's notifier delivers (A's
    polls once an hour and nothing is committed on A to wake it), and B holds none of the
    player's sockets: it learns from the database (``match_watchers``) that the player is
    watching, and pushes no "your turn". Once the socket is closed and the record is older
    than two beats, the next turn is pushed."""
    common = {"database_url": database_url, "push_allow_private": True, "presence_beat_s": BEAT_S}
    watched_on = LiveServer(Settings(**common, notify_poll_s=3600)).start()
    played_on = LiveServer(Settings(**common, notify_poll_s=0.2, notify_retry_s=0.2)).start()
    service = PushService()
    try:
        async with (
            httpx.AsyncClient(base_url=watched_on.url, timeout=30) as on_a,
            httpx.AsyncClient(base_url=played_on.url, timeout=30) as on_b,
        ):
            service.public_key = (await on_a.get("/api/v1/push/key")).json()["public_key"]
            match, players = await start_match(on_b)
            endpoints = [(await subscribed(on_b, player, service))["endpoint"] for player in players]
            rng = random.Random(11)
            seat = 1 - (await view(on_b, match["id"]))["to_act"][0]  # waits for the other's turn
            player = players[seat]

            def pushed(version: int) -> list[dict]:
                return [p for p in service.to(endpoints[seat]) if p["match"]["version"] == version]

            def outcome(version: int):
                return select(OUTBOX.c.outcome).where(
                    OUTBOX.c.match_id == match["id"],
                    OUTBOX.c.channel == "push",
                    OUTBOX.c.version == version,
                    OUTBOX.c.player_id == player["id"],
                )

            url = f"{watched_on.ws_url}/ws/matches/{match['id']}?token={player['token']}"
            async with connect(url) as socket:
                await socket.recv()  # the snapshot: server A holds the socket, and has said so
                mine = WATCHERS.c.player_id == player["id"], WATCHERS.c.match_id == match["id"]
                assert await rows(database_url, select(WATCHERS.c.seen_at).where(*mine)), "recorded at once"
                version = await play_until_it_is(on_b, match, players, seat, rng)
                settled = await until_row(database_url, outcome(version), lambda r: r and r[0].outcome)
                assert settled[0].outcome == "watching"
                await asyncio.sleep(2 * BEAT_S + 2)  # past the window: A's beats keep the record fresh
                later = await play_until_it_is(on_b, match, players, seat, rng)
                settled = await until_row(database_url, outcome(later), lambda r: r and r[0].outcome)
                assert settled[0].outcome == "watching"

            # The player left: A beats no more for them, and the record lapses once its last beat
            # (which A, busy, may write a moment after the socket closed) is past the presence
            # window, two beats and a second (app/realtime/presence.py).
            def lapsed(found) -> bool:
                return all(row.seen_at < utcnow() - timedelta(seconds=2 * BEAT_S + 1.5) for row in found)

            await until_row(database_url, select(WATCHERS.c.seen_at).where(*mine), lapsed, within=30)
            after = await play_until_it_is(on_b, match, players, seat, rng)
            await arrives(lambda: pushed(after), PUSH_WITHIN_S)
            assert pushed(after)[0]["event"] == "your_turn"
            assert not pushed(version) and not pushed(later)
            assert service.refused == []
    finally:
        service.close()
        watched_on.stop()
        played_on.stop()
