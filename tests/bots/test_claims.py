"""Each bot decision is made by one process (app/bots/claims.py): two servers on one
PostgreSQL and one Redis compute every decision once, and a server killed mid-thought
hands its decision over to another within seconds. PostgreSQL only: several processes
on one SQLite file are not a deployment (tests/README.md)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import asyncpg
import httpx
import pytest

from app.config import Settings
from tests.api.helpers import view
from tests.bots.helpers import wait_for
from tests.conftest import IN_CI, LiveServer, free_port, new_player, postgres_database

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture
def pg_url():
    yield from postgres_database()


def redis_url() -> str:
    import redis

    try:
        redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as error:
        if IN_CI:
            pytest.fail(f"Redis is not reachable at {REDIS_URL}: {error}")
        pytest.skip(f"Redis is not reachable at {REDIS_URL}")
    return REDIS_URL


async def claims(database_url: str, match_id: str | None = None) -> list[asyncpg.Record]:
    connection = await asyncpg.connect(database_url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        sql = "SELECT * FROM bot_claims" + (" WHERE match_id = $1" if match_id else "")
        return await connection.fetch(sql, *([match_id] if match_id else []))
    finally:
        await connection.close()


async def create(client, player, body) -> dict:
    created = await client.post("/api/v1/matches", json=body, headers=player["headers"])
    assert created.status_code == 201, created.text
    return created.json()


async def gm_start(client, match_id, gm) -> None:
    current = await view(client, match_id, gm)
    start = next(a for a in current["legal_actions"] if a["type"] == "gm_start")
    body = {"action": start, "version": current["version"]}
    started = await client.post(f"/api/v1/matches/{match_id}/actions", json=body, headers=gm["headers"])
    assert started.status_code == 200, started.text


async def bot_moves(client, match_id, bot_seats) -> int:
    log = (await client.get(f"/api/v1/matches/{match_id}/events")).json()["events"]
    return sum(1 for e in log if e["seat"] in bot_seats and e["action"]["type"] != "join")


async def test_two_servers_compute_every_bot_decision_once(pg_url):
    settings = Settings(
        database_url=pg_url,
        broker_url=redis_url(),
        bot_delay_ms=0,
        bot_scan_s=0.2,  # both servers look at every match all the time: they compete for each decision
        bot_matches_per_player=0,
    )
    servers = [LiveServer(settings).start(), LiveServer(settings).start()]
    try:
        async with (
            httpx.AsyncClient(base_url=servers[0].url, timeout=30) as one,
            httpx.AsyncClient(base_url=servers[1].url, timeout=30) as two,
        ):
            gm, human = await new_player(one, "Dealer"), await new_player(two, "Poe")
            bots_only = []
            for i in range(3):
                bots = [{"seat": 0, "bot": "courtier-club"}, {"seat": 1, "bot": "courtier-beginner"}]
                body = {"ruleset": "courtier", "seat": None, "bots": bots, "options": {"first": "random"}}
                match = await create((one, two)[i % 2], gm, body)
                await gm_start((two, one)[i % 2], match["id"], gm)
                bots_only.append(match["id"])
            against = []
            opponents = (("orbit-chess", "orbit-chess-club"), ("kelly", "kelly-club"))
            for i, (ruleset, bot) in enumerate(opponents):
                body = {"ruleset": ruleset, "seat": 1, "bots": [{"seat": 0, "bot": bot}]}
                against.append((await create((one, two)[i], human, body))["id"])
            # The human answers each bot three times, through either server in turn.
            for turn in range(3):
                for match_id in against:
                    client = (one, two)[turn % 2]
                    mine = await wait_for(client, match_id, lambda v: v["to_act"] == [1], human, limit_s=10)
                    move = next(a for a in mine["legal_actions"] if a["type"] in ("move", "attack"))
                    body = {"action": move, "version": mine["version"]}
                    url = f"/api/v1/matches/{match_id}/actions"
                    assert (await client.post(url, json=body, headers=human["headers"])).status_code == 200
            for match_id in against:  # the bot's answer to the last move
                await wait_for(one, match_id, lambda v: v["to_act"] == [1], human, limit_s=10)
            for match_id in bots_only:
                await wait_for(two, match_id, lambda v: v["status"] == "finished", limit_s=20)

            moves = {m: await bot_moves(one, m, {0, 1}) for m in bots_only}
            moves |= {m: await bot_moves(one, m, {0}) for m in against}
            for _ in range(50):  # a claim is settled just after its move is published
                rows = await claims(pg_url)
                if all(row["outcome"] for row in rows):
                    break
                await asyncio.sleep(0.1)
            assert all(moves[m] >= 2 for m in moves), moves
            assert Counter(row["match_id"] for row in rows) == moves, "one claim a decision"
            assert {(row["claims"], row["outcome"]) for row in rows} == {(1, "moved")}, "claimed once, moved"
            computed = [decisions_counted(server) for server in servers]
            by = Counter(row["decided_by"] for row in rows)
            assert sum(computed) == sum(moves.values()), "each decision computed once, in one process"
            assert sorted(by.values()) == sorted(computed) and all(computed), (by, computed)
    finally:
        for server in servers:
            server.stop()


def decisions_counted(server: LiveServer) -> int:
    """The bot decisions a server's ``/metrics`` says it computed, over every bot."""
    text = httpx.get(f"{server.url}/metrics", timeout=10).text
    return int(
        sum(
            float(line.split()[-1])
            for line in text.splitlines()
            if line.startswith("dejarik_bot_decisions_total{")
        )
    )


def serve(database_url: str, port: int) -> subprocess.Popen:
    """``dejarik serve`` in a session (process group) of its own, its search workers with it."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "PORT": str(port),
        "BOT_THINK_MS": "60000",  # thinks for a minute: it is killed long before
        "BOT_LEASE_S": "2",
        "BOT_DELAY_MS": "0",
        "PRESENCE_BEAT_S": "60",
    }
    dejarik = Path(sys.executable).with_name("dejarik")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    return subprocess.Popen([str(dejarik), "serve"], env=env, start_new_session=True, **quiet)


async def started(url: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    async with httpx.AsyncClient(base_url=url) as http:
        while time.monotonic() < deadline:
            assert process.poll() is None, "the server exited"
            try:
                if (await http.get("/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise AssertionError("the server did not start")


async def test_a_server_killed_mid_thought_hands_the_decision_over(pg_url):
    port = free_port()
    first = serve(pg_url, port)
    second = None
    try:
        await started(f"http://127.0.0.1:{port}", first)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            human = await new_player(client, "Finn")
            body = {"ruleset": "orbit-chess", "seat": 1, "bots": [{"seat": 0, "bot": "orbit-chess-master"}]}
            match = await create(client, human, body)
        for _ in range(100):  # the first server claims the master's first move and thinks
            held = [row for row in await claims(pg_url, match["id"]) if row["lease_until"] is not None]
            if held:
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the first server never claimed the decision")
        second = LiveServer(
            Settings(database_url=pg_url, bot_delay_ms=0, bot_think_ms=300, bot_lease_s=2, bot_scan_s=0.5)
        ).start()
        os.killpg(first.pid, signal.SIGKILL)  # the server and its search worker, mid-thought
        first.wait()
        killed = time.monotonic()
        async with httpx.AsyncClient(base_url=second.url, timeout=30) as client:
            moved = await wait_for(client, match["id"], lambda v: v["to_act"] == [1], human, limit_s=10)
        assert time.monotonic() - killed < 10
        assert moved["version"] == match["version"] + 1
        (row,) = await claims(pg_url, match["id"])
        assert row["claims"] == 2 and row["outcome"] == "moved", dict(row)
        assert row["decided_by"] != held[0]["claimed_by"], "decided by the second server"
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
        if second is not None:
            second.stop()
