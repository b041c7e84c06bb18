"""Each bot decision is made by one process (app/bots/claims.py), issue 30's numbers: three
servers on one PostgreSQL and one Redis play 20 bot matches (bot against bot, bot against a
human) and compute every decision once, the decisions their ``/metrics`` count summing to
the bot moves made; of three ``dejarik serve`` processes, the one killed mid-thought hands
its decision to another within 10 s. PostgreSQL only: several processes on one SQLite file
are not a deployment (tests/README.md)."""

from __future__ import annotations

import asyncio
import contextlib
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
from app.rules.base import COMMON_ACTION_TYPES
from tests.api.helpers import view
from tests.bots.helpers import wait_for
from tests.conftest import (
    LiveServer,
    free_port,
    new_player,
    postgres_database,
    reachable_redis,
    serving,
)

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture
def pg_url():
    yield from postgres_database()


def redis_url() -> str:
    return reachable_redis(REDIS_URL)


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


SERVERS = 3
BOTS_ONLY = 6
"""Bot against bot, to the end: six quiet turns draw (``turns_without_kill``), so each bot
moves about three times unless a king falls first. A match stopped from outside (a pause)
could cut a computed decision off before its move; a finished one owes nothing."""
AGAINST_HUMAN = 6
HUMAN_MOVES = 3
"""The human's moves in each match against a bot, made whenever it is the human's turn."""


@pytest.mark.runs_long
async def test_three_servers_compute_every_bot_decision_once(pg_url):
    settings = Settings(
        database_url=pg_url,
        broker_url=redis_url(),
        bot_delay_ms=0,
        bot_scan_s=0.2,  # every server looks at every match all the time: they compete for each decision
        bot_matches_per_player=0,
    )
    servers = [LiveServer(settings).start() for _ in range(SERVERS)]
    try:
        async with contextlib.AsyncExitStack() as stack:
            clients = [
                await stack.enter_async_context(httpx.AsyncClient(base_url=server.url, timeout=30))
                for server in servers
            ]
            gm, human = await new_player(clients[0], "Dealer"), await new_player(clients[1], "Poe")

            async def bots_only(i: int) -> str:
                bots = [{"seat": 0, "bot": "courtier-club"}, {"seat": 1, "bot": "courtier-beginner"}]
                options = {"first": "random", "turns_without_kill": 6}
                body = {"ruleset": "courtier", "seat": None, "bots": bots, "options": options}
                match = await create(clients[i % SERVERS], gm, body)
                await gm_start(clients[(i + 1) % SERVERS], match["id"], gm)
                finished = lambda v: v["status"] == "finished"  # noqa: E731
                await wait_for(clients[(i + 2) % SERVERS], match["id"], finished, limit_s=60, every_s=0.3)
                return match["id"]

            async def against_human(i: int) -> str:
                ruleset, level = (("orbit-chess", "kelly")[i % 2], ("beginner", "club")[i // 2 % 2])
                body = {"ruleset": ruleset, "seat": 1, "bots": [{"seat": 0, "bot": f"{ruleset}-{level}"}]}
                match_id = (await create(clients[i % SERVERS], human, body))["id"]
                mine = lambda v: v["to_act"] == [1]  # noqa: E731
                # The bot opens; the human moves through each server in turn whenever it is
                # the human's turn, and the bot answers (the last wait: its last answer).
                for turn in range(HUMAN_MOVES + 1):
                    client = clients[(i + turn) % SERVERS]
                    current = await wait_for(client, match_id, mine, human, limit_s=60, every_s=0.2)
                    if turn == HUMAN_MOVES:
                        break
                    move = next(a for a in current["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES)
                    body = {"action": move, "version": current["version"]}
                    url = f"/api/v1/matches/{match_id}/actions"
                    assert (await client.post(url, json=body, headers=human["headers"])).status_code == 200
                return match_id

            played = await asyncio.gather(
                *(bots_only(i) for i in range(BOTS_ONLY)), *(against_human(i) for i in range(AGAINST_HUMAN))
            )
            bots_only_ids, against = played[:BOTS_ONLY], played[BOTS_ONLY:]
            moves = {m: await bot_moves(clients[0], m, {0, 1}) for m in bots_only_ids}
            moves |= {m: await bot_moves(clients[0], m, {0}) for m in against}
            for m in bots_only_ids:
                seats = [await bot_moves(clients[0], m, {seat}) for seat in (0, 1)]
                assert min(seats) >= 1, ("both bots moved", m, seats)
            # The bot opened and answered (a kelly turn may take the human two moves).
            assert all(moves[m] >= 2 for m in against), [(m, moves[m]) for m in against]

            # Every match now waits for the human or is over: no bot owes a decision, and
            # every move is in the log. Its claim is settled by the process that made it
            # just after the move is written and published, so the last few may still be
            # open: wait for them (the limit only bounds a failure), then count.
            for _ in range(100):
                rows = await claims(pg_url)
                if all(row["outcome"] for row in rows):
                    break
                await asyncio.sleep(0.1)
            assert Counter(row["match_id"] for row in rows) == moves, "one claim a decision"
            assert {(row["claims"], row["outcome"]) for row in rows} == {(1, "moved")}, "claimed once, moved"
            computed = [decisions_counted(server) for server in servers]
            by = Counter(row["decided_by"] for row in rows)
            assert sum(computed) == sum(moves.values()), ("each decision computed once", computed, moves)
            assert sorted(by.values()) == sorted(computed) and all(computed), (by, computed)
    finally:
        for server in servers:
            server.stop()


def decisions_counted(server: LiveServer) -> int:
    return decisions_counted_at(server.url)


def decisions_counted_at(url: str) -> int:
    """The bot decisions a server's ``/metrics`` says it computed, over every bot."""
    text = httpx.get(f"{url}/metrics", timeout=10).text
    return int(
        sum(
            float(line.split()[-1])
            for line in text.splitlines()
            if line.startswith("dejarik_bot_decisions_total{")
        )
    )


def serve(database_url: str, port: int, think_ms: int) -> subprocess.Popen:
    """``dejarik serve`` in a session (process group) of its own, its search workers with it."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "PORT": str(port),
        "BOT_THINK_MS": str(think_ms),
        "BOT_LEASE_S": "2",
        "BOT_SCAN_S": "0.5",
        "BOT_DELAY_MS": "0",
        "PRESENCE_BEAT_S": "60",
    }
    dejarik = Path(sys.executable).with_name("dejarik")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    return subprocess.Popen([str(dejarik), "serve"], env=env, start_new_session=True, **quiet)


def pid_of(holder: str) -> int:
    """The process id in a claim's holder (``host:pid:random``, app/bots/claims.py)."""
    return int(holder.rsplit(":", 2)[1])


def kill(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)  # the server and its search workers
    process.wait()


@pytest.mark.runs_long
async def test_a_server_killed_mid_thought_hands_the_decision_over(pg_url):
    """Three ``dejarik serve`` processes: the one thinking for the master is killed, and one
    of the other two plays the move within 10 s."""
    ports = [free_port() for _ in range(SERVERS)]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    # The first thinks for a minute (it is killed long before); the others, started once it
    # holds the decision so that it is the one to take it, think briefly once they take over.
    first = serve(pg_url, ports[0], think_ms=60_000)
    processes = [first]
    try:
        await serving(urls[0], first)
        async with httpx.AsyncClient(base_url=urls[0], timeout=30) as client:
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
        assert pid_of(held[0]["claimed_by"]) == first.pid, dict(held[0])
        others = [serve(pg_url, port, think_ms=300) for port in ports[1:]]
        processes += others
        await asyncio.gather(*(serving(url, process) for url, process in zip(urls[1:], others, strict=True)))
        kill(first)  # mid-thought
        killed = time.monotonic()
        async with httpx.AsyncClient(base_url=urls[1], timeout=30) as client:
            moved = await wait_for(client, match["id"], lambda v: v["to_act"] == [1], human, limit_s=15)
        assert time.monotonic() - killed < 10, "the bot played within 10 s of the kill"
        assert moved["version"] == match["version"] + 1
        (row,) = await claims(pg_url, match["id"])
        assert row["claims"] == 2 and row["outcome"] == "moved", dict(row)
        assert pid_of(row["decided_by"]) in {process.pid for process in others}, "decided by another"
        computed = [decisions_counted_at(url) for url in urls[1:]]
        assert sorted(computed) == [0, 1], ("the decision computed once", computed)
    finally:
        for process in processes:
            kill(process)
