"""Any number of server processes: an action on one reaches viewers on another
through the broker (PostgreSQL LISTEN/NOTIFY or Redis pub/sub), each exactly once;
so do chat lines and news of a rematch."""

from __future__ import annotations

import asyncio
import json
import os
import random

import httpx
import pytest
from websockets.asyncio.client import connect

from app.config import Settings
from tests.api.helpers import finish_by_resigning, new_player, play_one, say, start_match, view
from tests.conftest import IN_CI, POSTGRES_ADMIN, LiveServer, _admin, reachable_redis
from tests.realtime.helpers import receive, socket_url

pytestmark = pytest.mark.both_databases  # the broker beside each database

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


async def broker_url(kind: str, database_url: str) -> str:
    if kind == "postgresql":
        if database_url.startswith("postgresql"):
            return database_url.replace("postgresql+asyncpg://", "postgresql://")
        # An embedded SQLite database can still fan out through a PostgreSQL server.
        try:
            await _admin("SELECT 1")
        except Exception as error:
            if IN_CI:
                pytest.fail(f"PostgreSQL is not reachable at {POSTGRES_ADMIN}: {error}")
            pytest.skip(f"PostgreSQL is not reachable at {POSTGRES_ADMIN}")
        return POSTGRES_ADMIN
    return reachable_redis(REDIS_URL)


@pytest.mark.parametrize("broker", ["postgresql", "redis"])
async def test_an_action_on_one_server_reaches_a_viewer_on_another(database_url, broker):
    url = await broker_url(broker, database_url)
    first = LiveServer(Settings(database_url=database_url, broker_url=url)).start()
    second = LiveServer(Settings(database_url=database_url, broker_url=url)).start()
    try:
        async with httpx.AsyncClient(base_url=first.url) as on_first:
            match, players = await start_match(on_first)
            seat = match["to_act"][0]
            async with connect(socket_url(second, match["id"], players[1 - seat])) as watcher:
                await receive(watcher, "snapshot")
                mine = await view(on_first, match["id"], players[seat])
                move = next(a for a in mine["legal_actions"] if a["type"] == "move")
                async with connect(socket_url(first, match["id"], players[seat])) as actor:
                    await receive(actor, "snapshot")
                    await actor.send(
                        json.dumps({"type": "action", "action": move, "version": mine["version"]})
                    )
                    assert (await receive(actor, "ack"))["version"] == mine["version"] + 1
                    update = await receive(watcher, "update")
                    assert update["version"] == mine["version"] + 1
                    assert update["events"][0]["type"] == "move" and update["events"][0]["to"] == move["to"]
    finally:
        first.stop()
        second.stop()


async def spectate(server: LiveServer, match_id: str, versions: list[int], until: int) -> None:
    """Watch as an anonymous spectator, noting each update's version, until ``until``."""
    async with connect(f"{server.ws_url}/ws/matches/{match_id}") as ws:
        snapshot = json.loads(await ws.recv())
        assert snapshot["type"] == "snapshot"
        versions.append(snapshot["version"])
        while versions[-1] < until:
            update = json.loads(await asyncio.wait_for(ws.recv(), 30))
            assert update["type"] == "update"
            assert [e["version"] for e in update["entries"]] == list(
                range(versions[-1] + 1, update["version"] + 1)
            ), "an update carries exactly the entries after the last version its viewer saw"
            versions.append(update["version"])


async def test_a_crowd_on_two_servers_gets_every_update_once_in_order(database_url):
    url = await broker_url("postgresql", database_url)
    servers = [LiveServer(Settings(database_url=database_url, broker_url=url)).start() for _ in range(2)]
    try:
        async with (
            httpx.AsyncClient(base_url=servers[0].url) as on_first,
            httpx.AsyncClient(base_url=servers[1].url) as on_second,
        ):
            match, players = await start_match(on_first)
            start, moves = match["version"], 12
            crowd: list[list[int]] = [[] for _ in range(40)]
            watching = [
                asyncio.create_task(spectate(servers[i % 2], match["id"], versions, start + moves))
                for i, versions in enumerate(crowd)
            ]
            while not all(crowd):  # everyone has their snapshot
                await asyncio.sleep(0.05)
            rng = random.Random(5)
            for turn in range(moves):  # the players alternate between the two servers
                await play_one(on_second if turn % 2 else on_first, match["id"], players, rng)
            await asyncio.wait_for(asyncio.gather(*watching), 60)
        for versions in crowd:
            assert versions[-1] == start + moves
            assert versions == sorted(set(versions)), "no update twice, none out of order"
    finally:
        for server in servers:
            server.stop()


@pytest.mark.parametrize("broker", ["postgresql", "redis"])
async def test_chat_and_rematch_news_reach_viewers_on_another_server(database_url, broker):
    """What is said on one server is heard on every server, by exactly those who may read it."""
    url = await broker_url(broker, database_url)
    first = LiveServer(Settings(database_url=database_url, broker_url=url)).start()
    second = LiveServer(Settings(database_url=database_url, broker_url=url)).start()
    try:
        async with httpx.AsyncClient(base_url=first.url) as on_first:
            match, (blue, red) = await start_match(on_first)
            watcher = await new_player(on_first, "Watcher")
            async with (
                connect(socket_url(second, match["id"], red)) as red_socket,
                connect(socket_url(second, match["id"], spectator=1)) as anonymous_socket,
            ):
                for socket in (red_socket, anonymous_socket):
                    await receive(socket, "snapshot")
                posted = (await say(on_first, match["id"], blue, "Your move")).json()
                for socket in (red_socket, anonymous_socket):
                    assert await receive(socket, "chat") == {"type": "chat", **posted}

                aside = (
                    await say(on_first, match["id"], watcher, "Red is losing", channel="spectators")
                ).json()
                assert await receive(anonymous_socket, "chat") == {"type": "chat", **aside}
                # Red, seated, never hears the spectators: its next chat frame is the players' one.
                after = (await say(on_first, match["id"], blue, "Back soon")).json()
                assert (await receive(red_socket, "chat"))["id"] == after["id"]

                await finish_by_resigning(on_first, match, [blue, red])
                offered = await on_first.post(
                    f"/api/v1/matches/{match['id']}/rematch", headers=blue["headers"]
                )
                assert offered.status_code == 200, offered.text
                news = await receive(red_socket, "rematch")
                assert news["match"] == match["id"] and news["rematch"]["status"] == "offered"
    finally:
        first.stop()
        second.stop()
