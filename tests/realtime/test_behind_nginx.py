"""Three ``dejarik serve`` processes behind Debian's nginx (the project's own
``deploy/dejarik-proxy.conf``), round-robin, no sticky sessions, one PostgreSQL and one
Redis: 30 matches played through the balancer by REST and websocket clients, with chat
and a rematch, while every viewer (spectators and players, on whichever process nginx
gave them) receives every update once and in order. One process is killed with SIGKILL
mid-run: its viewers reconnect through nginx to another, resync from the version they
had (``?since=N``), and every acknowledged action (a REST 200, a websocket ack) is in
the matches' logs.

nginx runs as the test's user from a temporary directory (``-p prefix -c conf``); the
processes are real subprocesses (``python -m app.cli serve``), as an operator runs them.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
import shutil
import signal
import subprocess
import time
from collections import Counter
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from app.db import make_engine
from app.migrate import upgrade
from app.rules.base import COMMON_ACTION_TYPES
from bench.cluster import NGINX, start_nginx, start_redis, start_serve, stop, until_healthy
from tests.conftest import IN_CI, free_port, new_player, postgres_database, run_apart

pytestmark = pytest.mark.runs_long  # the one heavy test: ~15-25 s

PROCESSES, MATCHES, ACTIONS = 3, 30, 3  # ACTIONS before a match's chat line, and again after it
KILL_AFTER = 2 * MATCHES * ACTIONS * 2 // 5  # acknowledged actions before one process is killed


def required(program: str | None, name: str, make_target: str) -> str:
    if program is None:
        message = f"{name} is not installed (make {make_target})"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return program


@pytest.fixture
def database() -> Any:
    yield from postgres_database()


class Lost(Exception):
    """A websocket action whose answer never came (the socket's process died)."""


class Watcher:
    """One websocket through nginx, kept open: reconnected with ``?since=`` its last
    version when its process dies. Notes every entry version, chat line and rematch."""

    def __init__(self, base: str, match_id: str, player: dict | None = None, origin: str | None = None):
        self.base, self.match_id, self.player, self.origin = base, match_id, player, origin
        self.first: int | None = None
        """The version of the first snapshot; every entry after it must arrive once."""
        self.last = -1
        self.entries: list[int] = []
        self.chats: list[str] = []
        self.rematches: list[str] = []
        self.connections = 0
        self.socket: ClientConnection | None = None
        self.ready = asyncio.Event()
        self.pending: dict[int, asyncio.Future] = {}
        self.ids = itertools.count(1)
        self.stopping = False
        self.problems: list[str] = []

    def url(self) -> str:
        query = {"token": self.player["token"]} if self.player else {}
        if self.first is not None:
            query["since"] = str(self.last)
        params = "&".join(f"{k}={v}" for k, v in query.items())
        return f"{self.base}/ws/matches/{self.match_id}" + (f"?{params}" if params else "")

    async def run(self) -> None:
        while not self.stopping:
            try:
                async with connect(self.url(), origin=self.origin, open_timeout=10) as socket:
                    self.socket = socket
                    self.connections += 1
                    async for raw in socket:
                        self.take(json.loads(raw))
            except (ConnectionClosed, InvalidHandshake, InvalidStatus, OSError, TimeoutError):
                pass
            except AssertionError as problem:
                self.problems.append(str(problem))
                self.stopping = True
            self.socket = None
            self.ready.clear()
            for future in self.pending.values():
                if not future.done():
                    future.set_exception(Lost())
            self.pending.clear()
            if not self.stopping:
                await asyncio.sleep(0.05)

    def take(self, frame: dict) -> None:
        kind = frame["type"]
        if kind == "snapshot":
            if self.first is None:
                self.first = frame["version"]
            else:
                self.extend(frame.get("missed", []), frame["version"])
            self.last = frame["version"]
            self.ready.set()
        elif kind == "update":
            self.extend(frame["entries"], frame["version"])
            self.last = frame["version"]
        elif kind == "chat":
            self.chats.append(frame["id"])
        elif kind == "rematch":
            self.rematches.append(frame["rematch"]["status"])
        elif kind in ("ack", "error") and frame.get("id") in self.pending:
            answer = self.pending.pop(frame["id"])
            if not answer.done():  # (not given up on)
                answer.set_result(frame)
        elif kind == "error":
            raise AssertionError(f"{self.match_id}: an error frame {frame}")

    def extend(self, entries: list[dict], version: int) -> None:
        versions = [e["version"] for e in entries]
        assert versions == list(range(self.last + 1, version + 1)), (
            f"{self.match_id}: after {self.last}, a frame at {version} carried {versions}"
        )
        self.entries.extend(versions)

    async def act(self, action: dict, version: int) -> int:
        """Send an action on this socket; its ack's version (Lost: no answer came)."""
        await asyncio.wait_for(self.ready.wait(), 15)  # back from a reconnection first
        if self.socket is None:
            raise Lost()
        frame_id = next(self.ids)
        answer = self.pending[frame_id] = asyncio.get_running_loop().create_future()
        try:
            await self.socket.send(
                json.dumps({"type": "action", "id": frame_id, "action": action, "version": version})
            )
        except ConnectionClosed:
            raise Lost() from None
        reply = await asyncio.wait_for(answer, 10)
        if reply["type"] == "ack":
            return reply["version"]
        assert reply["code"] in (409, 503), reply
        raise Lost()


class Run:
    """The clients' side: matches, their watchers, every acknowledged action."""

    def __init__(self, http: httpx.AsyncClient, victim: subprocess.Popen):
        self.http, self.victim = http, victim
        self.acknowledged: list[tuple[str, int, int, dict]] = []
        """(match, version, seat, action) of every action answered 200 or acked."""
        self.refused = Counter()
        self.killed_at: float | None = None

    async def get(self, match_id: str, player: dict) -> dict | None:
        response = await self.http.get(f"/api/v1/matches/{match_id}", headers=player["headers"])
        if response.status_code in (502, 503, 504):
            self.refused[response.status_code] += 1
            return None
        assert response.status_code == 200, response.text
        return response.json()

    async def play(self, match_id: str, players: list[dict], watchers: list[Watcher], rng: random.Random):
        done = 0
        for _attempt in range(ACTIONS * 10):
            if done == ACTIONS:
                return
            try:
                mine = await self.get(match_id, players[0])
                if mine is None:
                    continue
                if mine["status"] != "active":
                    return
                seat = mine["to_act"][0]
                if seat != 0 and (mine := await self.get(match_id, players[seat])) is None:
                    continue
                action = rng.choice(
                    [a for a in mine["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES]
                )
                if done % 3 == 2:  # every third action on the player's own websocket
                    version = await watchers[seat].act(action, mine["version"])
                else:
                    response = await self.http.post(
                        f"/api/v1/matches/{match_id}/actions",
                        json={"action": action, "version": mine["version"]},
                        headers=players[seat]["headers"],
                    )
                    if response.status_code != 200:
                        # 502: the process died with the request; 409: another copy won.
                        assert response.status_code in (409, 502, 503, 504), response.text
                        self.refused[response.status_code] += 1
                        continue
                    version = response.json()["version"]
            except (Lost, httpx.TransportError, TimeoutError):
                self.refused["lost"] += 1
                continue
            self.acknowledged.append((match_id, version, seat, action))
            done += 1
            if len(self.acknowledged) == KILL_AFTER:
                self.victim.send_signal(signal.SIGKILL)
                self.killed_at = time.monotonic()
        raise AssertionError(f"{match_id}: {done} of {ACTIONS} actions after many tries: {self.refused}")


async def until(check, what: str, watchers: list[Watcher], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        problems = [p for w in watchers for p in w.problems]
        assert not problems, problems[:5]
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


async def test_three_processes_behind_nginx_lose_and_repeat_nothing(database, tmp_path):
    nginx = required(NGINX, "nginx", "nginx")
    required(shutil.which("redis-server"), "redis-server", "redis")
    run_apart(migrate(database))  # once: every `serve` migrates again, then finds nothing to do
    redis = start_redis(free_port())
    ports = [free_port() for _ in range(PROCESSES)]
    env = {
        **os.environ,
        "DATABASE_URL": database,
        "BROKER_URL": f"redis://127.0.0.1:{redis.args[2]}/0",
        "TRUSTED_PROXIES": '["127.0.0.1"]',
        "BOT_DELAY_MS": "0",
        "DB_POOL_SIZE": "4",  # 3 processes × 2 pools × 4, beside the other tests' servers
        "CHAT_MESSAGES_PER_MINUTE": "100000",
        **{
            f"RATE_LIMIT_{kind}": "100000" for kind in ("PLAYERS", "MATCHES", "ACTIONS", "WEBSOCKETS", "CHAT")
        },
    }
    processes = [start_serve(env, "127.0.0.1", port, tmp_path / f"serve-{port}.log") for port in ports]
    port = free_port()
    balancer = start_nginx(nginx, tmp_path, port, [f"127.0.0.1:{p}" for p in ports])
    try:
        await asyncio.gather(
            *(until_healthy(f"http://127.0.0.1:{p}", pr) for p, pr in zip(ports, processes, strict=True))
        )
        await until_healthy(f"http://127.0.0.1:{port}", timeout=10)
        started = time.monotonic()
        report = await play_through(f"127.0.0.1:{port}", processes[1])
        report["wall_s"] = round(time.monotonic() - started, 1)
        handshakes = Counter(  # by the process that answered (the last one nginx tried)
            line.split()[-1]
            for line in (tmp_path / "access.log").read_text().splitlines()
            if line.startswith("GET /ws/") and line.split()[2] == "101"
        )
        print(report, dict(handshakes))
        # Round-robin: the sockets landed on every process; exactly those on the killed
        # one came back, through nginx, to the others.
        assert sorted(handshakes) == sorted(f"127.0.0.1:{p}" for p in ports), handshakes
        assert handshakes[f"127.0.0.1:{ports[1]}"] == report["reconnected"] > 0, handshakes
    finally:
        stop(balancer, processes, redis)


async def migrate(url: str) -> None:
    engine = make_engine(url)
    try:
        await upgrade(engine)
    finally:
        await engine.dispose()


async def play_through(host: str, victim: subprocess.Popen) -> dict[str, Any]:
    base, origin = f"ws://{host}", f"http://{host}"
    limits = httpx.Limits(max_connections=40)
    async with httpx.AsyncClient(base_url=f"http://{host}", timeout=15, limits=limits) as http:
        # nginx's own answers: /metrics stays inside; a body past MAX_BODY_BYTES gets the app's 413.
        assert (await http.get("/metrics")).status_code == 404
        big = await http.post(
            "/api/v1/players", content=b" " * 65 * 1024, headers={"content-type": "application/json"}
        )
        assert big.status_code == 413 and "64 KB" in big.json()["detail"], big.text
        people = await asyncio.gather(*(new_player(http, f"Player {n}") for n in range(20)))
        matches = await asyncio.gather(
            *(open_match(http, people[(2 * n) % 20], people[(2 * n + 1) % 20]) for n in range(MATCHES))
        )
        # Each match: a spectator (a page's Origin: the Host nginx passes on must match it)
        # and both players, each connected through nginx to whichever process it picks.
        watchers = {
            match_id: [Watcher(base, match_id, player) for player in players]
            + [Watcher(base, match_id, origin=origin)]
            for match_id, players in matches
        }
        everyone = [w for group in watchers.values() for w in group]
        readers = [asyncio.create_task(w.run()) for w in everyone]
        await asyncio.wait_for(asyncio.gather(*(w.ready.wait() for w in everyone)), 20)

        run = Run(http, victim)
        said: dict[str, list[str]] = {}

        async def one_match(n: int, match_id: str, players: list[dict]) -> None:
            rng = random.Random(n)
            await run.play(match_id, players, watchers[match_id], rng)
            posted = await http.post(
                f"/api/v1/matches/{match_id}/chat",
                json={"text": f"Good game {n}", "channel": "players"},
                headers=players[n % 2]["headers"],
            )
            if posted.status_code == 201:
                said.setdefault(match_id, []).append(posted.json()["id"])
            else:
                assert posted.status_code in (502, 503, 504), posted.text
            await run.play(match_id, players, watchers[match_id], rng)

        await asyncio.gather(*(one_match(n, m, p) for n, (m, p) in enumerate(matches)))
        assert run.killed_at is not None and victim.wait(5) == -signal.SIGKILL
        await until(lambda: all(w.ready.is_set() for w in everyone), "every viewer is back", everyone)
        reconnected = [w for w in everyone if w.connections > 1]

        # The rematch: the first match ends, its players agree to play again.
        match_id, (blue, red) = matches[0]
        current = await run.get(match_id, red)
        resigned = await http.post(
            f"/api/v1/matches/{match_id}/actions",
            json={"action": {"type": "resign"}, "version": current["version"]},
            headers=red["headers"],
        )
        assert resigned.status_code == 200, resigned.text
        run.acknowledged.append((match_id, resigned.json()["version"], 1, {"type": "resign"}))
        offered = await http.post(f"/api/v1/matches/{match_id}/rematch", headers=blue["headers"])
        assert offered.status_code == 200, offered.text
        accepted = await http.post(f"/api/v1/matches/{match_id}/rematch/accept", headers=red["headers"])
        assert accepted.status_code == 200, accepted.text
        assert accepted.json()["match"]["status"] == "active"
        await until(
            lambda: all(w.rematches[-2:] == ["offered", "accepted"] for w in watchers[match_id]),
            "every viewer of the finished match hears of the rematch",
            everyone,
        )

        # Every viewer catches up with its match's final version, having seen every entry
        # after its first snapshot exactly once, in order (Watcher.extend checks each frame).
        finals = {}
        for match_id, _ in matches:
            finals[match_id] = (await http.get(f"/api/v1/matches/{match_id}")).json()["version"]
        await until(
            lambda: all(w.last == finals[w.match_id] for w in everyone),
            "every viewer is up to date",
            everyone,
        )
        for w in everyone:
            assert w.entries == list(range(w.first + 1, finals[w.match_id] + 1)), w.match_id

        # Nothing acknowledged is lost: each acknowledged action is its version's entry.
        logs = {}
        for match_id, _ in matches:
            response = await http.get(f"/api/v1/matches/{match_id}/events")
            assert response.status_code == 200, response.text
            logs[match_id] = {e["version"]: e for e in response.json()["events"]}
        for match_id, version, seat, action in run.acknowledged:
            entry = logs[match_id][version]
            sent = {key: entry["action"].get(key) for key in action}  # (it may add a label)
            assert (entry["seat"], sent) == (seat, action), (match_id, version, entry)
        assert len({(m, v) for m, v, _, _ in run.acknowledged}) == len(run.acknowledged)

        # Chat: every line answered 201 is kept; no viewer hears one twice, and those
        # whose socket never dropped heard every one.
        for match_id, ids in said.items():
            reader = dict(matches)[match_id][0]
            kept = await http.get(f"/api/v1/matches/{match_id}/chat", headers=reader["headers"])
            assert set(ids) <= {m["id"] for m in kept.json()["messages"]}
            for w in watchers[match_id]:
                assert len(w.chats) == len(set(w.chats))
                if w.connections == 1:
                    assert set(ids) <= set(w.chats), (match_id, w.chats, ids)

        for w in everyone:
            w.stopping = True
            if w.socket is not None:
                await w.socket.close()
        await asyncio.gather(*readers, return_exceptions=True)
        return {
            "acknowledged": len(run.acknowledged),
            "entries_seen": sum(len(w.entries) for w in everyone),
            "viewers": len(everyone),
            "reconnected": len(reconnected),
            "refused": dict(run.refused),
            "chat": sum(len(ids) for ids in said.values()),
        }


async def open_match(http: httpx.AsyncClient, blue: dict, red: dict) -> tuple[str, list[dict]]:
    created = await http.post(
        "/api/v1/matches", json={"ruleset": "kelly", "options": {}, "seat": 0}, headers=blue["headers"]
    )
    assert created.status_code == 201, created.text
    joined = await http.post(f"/api/v1/matches/{created.json()['id']}/join", headers=red["headers"])
    assert joined.status_code == 200, joined.text
    return created.json()["id"], [blue, red]
