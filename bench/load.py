"""Load benchmark: N concurrent `kelly` matches played by websocket bots.

A benchmark, not a test: it starts ``dejarik serve`` as a separate process on a
fresh database, then runs N matches at once. Each match has two websocket
clients that play a random legal game action (never resign or draw offers; the
bot's choice comes from a seeded ``random.Random``, the dice from the server) as
soon as the server shows it their legal actions; when a match ends the pair
creates a new one through the REST API. After ``--warmup`` seconds it measures
for ``--window`` seconds:

- moves/s: actions acknowledged by the server during the window;
- latency: from a client sending an action to the *opponent* receiving the
  update for the version that action produced (p50/p95/p99);
- CPU of the server (its process tree) and of this client process, in percent
  of one core, so that a saturated client would show.

Every action is committed to the database before the server acknowledges it or
sends an update (that is how the match service works)::

    .venv/bin/python bench/load.py --matches 1 10 100 --database sqlite postgresql \\
        --warmup 3 --window 20

``--profile DIR`` records the server with py-spy during the window (a flame graph
and collapsed stacks); ``--workers`` and ``--broker`` run several server processes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from app.rules.base import COMMON_ACTION_TYPES as COMMON

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
POSTGRES_ADMIN = os.environ.get("BENCH_POSTGRES_ADMIN", "postgresql://postgres@127.0.0.1:5432/postgres")
POSTGRES_DB = "dejarik_bench"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


# --- the server -------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def fresh_postgres(name: str = POSTGRES_DB) -> str:
    """The URL of an empty PostgreSQL database ``name`` (dropped first if it exists)."""
    import asyncpg

    admin = await asyncpg.connect(POSTGRES_ADMIN)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    base = POSTGRES_ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://")
    return f"{base}/{name}"


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (uvicorn workers)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry.name))
    tree, todo = [], [pid]
    while todo:
        p = todo.pop()
        tree.append(p)
        todo += children.get(p, [])
    return tree


def machine_busy_seconds() -> float:
    """CPU time spent by every process on the machine (all cores), from /proc/stat."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(f) for f in fields[:8])
    return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS


def postgres_pids() -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if (entry / "comm").read_text().strip() == "postgres":
                    pids.append(int(entry.name))
    return pids


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / CLOCK_TICKS


class Server:
    def __init__(
        self, database_url: str, workers: int, broker: str | None, log: Path, root: Path = ROOT
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        env = {**os.environ, "DATABASE_URL": database_url, "HOST": "127.0.0.1", "PORT": str(self.port)}
        # One client address plays every seat here: per-address rate limits off.
        env.update({f"RATE_LIMIT_{kind}": "0" for kind in ("PLAYERS", "MATCHES", "ACTIONS", "WEBSOCKETS")})
        if broker:
            env["BROKER_URL"] = broker
        command = [str(VENV_BIN / "dejarik"), "serve", "--workers", str(workers)]
        if root != ROOT:
            # Another checkout's code (a baseline) with this virtualenv: set aside the
            # editable install's import hook, which points at this checkout.
            env["PYTHONPATH"] = str(root)
            boot = (
                "import sys; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f)];"
                "from app.cli import main; main(sys.argv[1:])"
            )
            command = [str(VENV_BIN / "python"), "-c", boot, *command[1:]]
        self.log = log.open("w")
        self.process = subprocess.Popen(command, env=env, cwd=root, stdout=self.log, stderr=subprocess.STDOUT)

    async def ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        async with httpx.AsyncClient(base_url=self.url) as http:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(
                        f"the server exited with {self.process.returncode}; see {self.log.name}"
                    )
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get("/healthz")).status_code == 200:
                        return
                await asyncio.sleep(0.1)
        raise RuntimeError("the server did not become ready")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


# --- the bots ---------------------------------------------------------------------------


@dataclass
class Stats:
    # Nothing counts until the window is set: the warm-up's moves are not measured.
    start: float = float("inf")
    end: float = float("inf")
    moves: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    matches_finished: int = 0
    ready: int = 0
    """Pairs that have set up their first match and are playing."""

    def measuring(self, t: float) -> bool:
        return self.start <= t < self.end


class MatchPlay:
    """One match as both bots see it: who sent what version when."""

    def __init__(self, match_id: str) -> None:
        self.match_id = match_id
        self.sent: dict[int, tuple[int, float]] = {}  # version sent at -> (seat, time)
        self.finished = asyncio.Event()


async def bot(ws: ClientConnection, play: MatchPlay, seat: int, rng: random.Random, stats: Stats) -> None:
    """Play ``seat``: whenever the server shows us legal actions at a new version, pick one."""
    acted_at = -1
    perf = time.perf_counter
    loads, dumps = json.loads, json.dumps
    async for raw in ws:
        now = perf()
        message = loads(raw)
        kind = message["type"]
        if kind == "ack":
            if stats.measuring(now):
                stats.moves += 1
            continue
        if kind == "error":
            key = f"{message.get('code')}: {message.get('message')}"
            stats.errors[key] = stats.errors.get(key, 0) + 1
            acted_at = -1  # let the next update (or a resync) drive us again
            if message.get("code") != 429:  # a refused sync answered by a sync would loop
                await ws.send(dumps({"type": "sync"}))
            continue
        if kind not in ("snapshot", "update"):
            continue
        version = message["version"]
        if kind == "update":
            sent = play.sent.get(version - 1)
            if sent is not None and sent[0] != seat:
                del play.sent[version - 1]
                if stats.measuring(now):
                    stats.latencies.append(now - sent[1])
        if message["status"] == "finished":
            play.finished.set()
            return
        if version <= acted_at:
            continue
        choices = [a for a in message["legal_actions"] if a["type"] not in COMMON]
        if not choices:
            continue
        action = rng.choice(choices)
        acted_at = version
        play.sent[version] = (seat, perf())
        await ws.send(dumps({"type": "action", "action": action, "version": version, "id": str(version)}))


async def pair(index: int, http: httpx.AsyncClient, ws_url: str, seed: int, stats: Stats) -> None:
    """Two players who play one match after another, as fast as the server answers."""
    await play_matches(index, http, ws_url, seed, stats, bot)


async def play_matches(
    index: int, http: httpx.AsyncClient, ws_url: str, seed: int, stats: Stats, player: Any
) -> None:
    """Two players who play one match after another until cancelled; ``player(ws,
    play, seat, rng, stats)`` plays one seat of one match."""
    rngs = [random.Random(seed * 1_000_003 + index * 2 + s) for s in (0, 1)]
    players = [await post(http, "/api/v1/players", {"name": f"bot {index}.{s}"}) for s in (0, 1)]
    headers = [{"Authorization": f"Bearer {p['token']}"} for p in players]
    first = True
    while True:
        match = await post(http, "/api/v1/matches", {"ruleset": "kelly", "seat": 0}, headers[0])
        await post(http, f"/api/v1/matches/{match['id']}/join", {"seat": 1}, headers[1])
        play = MatchPlay(match["id"])
        sockets = [
            await connect(
                f"{ws_url}/ws/matches/{match['id']}?token={p['token']}", compression=None, max_size=None
            )
            for p in players
        ]
        if first:
            stats.ready += 1
            first = False
        try:
            await asyncio.gather(*(player(ws, play, s, rngs[s], stats) for s, ws in enumerate(sockets)))
        finally:
            for ws in sockets:
                await ws.close()
        stats.matches_finished += 1


async def post(
    http: httpx.AsyncClient, path: str, body: dict[str, Any], headers: dict[str, str] | None = None
) -> dict[str, Any]:
    """POST with a few retries: setting up 100 pairs at once can hit a busy server."""
    for attempt in range(5):
        try:
            response = await http.post(path, json=body, headers=headers)
            response.raise_for_status()
            return response.json()
        except httpx.TransportError:
            if attempt == 4:
                raise
            await asyncio.sleep(0.2 * (attempt + 1))
    raise AssertionError("unreachable")


def percentile(sorted_values: list[float], p: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, round(p / 100 * (len(sorted_values) - 1))))
    return sorted_values[k]


async def run_one(args: argparse.Namespace, database: str, n: int, work: Path) -> dict[str, Any]:
    url = await database_url(database, work, f"bench-{n}")
    broker = args.broker
    if broker is None and args.workers > 1:
        broker = POSTGRES_ADMIN.rsplit("/", 1)[0] + f"/{POSTGRES_DB}" if database == "postgresql" else None
    server = Server(url, args.workers, broker, work / f"server-{database}-{n}.log", Path(args.server_root))
    try:
        await server.ready()
        stats = Stats()
        limits = httpx.Limits(max_connections=min(n, 50) + 5)
        async with httpx.AsyncClient(base_url=server.url, timeout=60, limits=limits) as http:
            tasks = [asyncio.create_task(pair(i, http, server.ws_url, args.seed, stats)) for i in range(n)]
            deadline = time.monotonic() + 120
            while stats.ready < n:  # every pair is playing before the warm-up starts
                failed = [t for t in tasks if t.done() and t.exception()]
                if failed:
                    raise failed[0].exception()  # type: ignore[misc]
                if time.monotonic() > deadline:
                    raise RuntimeError(f"only {stats.ready} of {n} pairs set up their match in 120 s")
                await asyncio.sleep(0.05)
            await asyncio.sleep(args.warmup)
            failed = [t for t in tasks if t.done() and t.exception()]
            if failed:
                raise failed[0].exception()  # type: ignore[misc]
            pids = process_tree(server.process.pid)
            profiler = None
            if args.profile:
                out = Path(args.profile) / f"profile-{database}-{n}"
                profiler = subprocess.Popen(
                    [
                        str(VENV_BIN / "py-spy"),
                        "record",
                        "--pid",
                        str(server.process.pid),
                        "--subprocesses",
                        "--duration",
                        str(int(args.window)),
                        "--format",
                        "raw",
                        "-o",
                        f"{out}.txt",
                        "--nonblocking",
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            db_pids = postgres_pids()
            server_cpu0, db_cpu0, busy0, client0, t0 = (
                cpu_seconds(pids),
                cpu_seconds(db_pids),
                machine_busy_seconds(),
                resource.getrusage(resource.RUSAGE_SELF),
                time.perf_counter(),
            )
            stats.start = t0
            stats.end = t0 + args.window
            await asyncio.sleep(args.window)
            elapsed = time.perf_counter() - t0
            server_cpu = cpu_seconds(pids) - server_cpu0
            db_cpu = cpu_seconds(db_pids) - db_cpu0
            client1 = resource.getrusage(resource.RUSAGE_SELF)
            client_cpu = (client1.ru_utime + client1.ru_stime) - (client0.ru_utime + client0.ru_stime)
            other_cpu = machine_busy_seconds() - busy0 - server_cpu - db_cpu - client_cpu
            failed = [t for t in tasks if t.done() and not t.cancelled() and t.exception()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if profiler is not None:
                profiler.wait()
            if failed:
                raise failed[0].exception()  # type: ignore[misc]
    finally:
        server.stop()
    latencies = sorted(stats.latencies)
    return {
        "database": database,
        "matches": n,
        "workers": args.workers,
        "moves_per_s": stats.moves / elapsed,
        "p50_ms": percentile(latencies, 50) * 1000,
        "p95_ms": percentile(latencies, 95) * 1000,
        "p99_ms": percentile(latencies, 99) * 1000,
        "samples": len(latencies),
        "server_cpu_pct": 100 * server_cpu / elapsed,
        "server_cpu_ms_per_move": 1000 * server_cpu / max(stats.moves, 1),
        "client_cpu_pct": 100 * client_cpu / elapsed,
        "postgres_cpu_pct": 100 * db_cpu / elapsed,
        "other_cpu_pct": 100 * other_cpu / elapsed,
        "matches_finished": stats.matches_finished,
        "errors": stats.errors,
    }


# --- a crowd of spectators ---------------------------------------------------------------


def rss_bytes(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError, ValueError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
    return total


VERSION_IN = re.compile(rb'"version":(\d+)')


def version_of(raw: str | bytes) -> int:
    """The match version of an update or snapshot frame, without decoding it all
    (the views of every seat put ``"version"`` before the state)."""
    data = raw.encode() if isinstance(raw, str) else raw
    found = VERSION_IN.search(data)
    return int(found.group(1)) if found else -1


async def spectator(url: str, arrivals: dict[int, list[float]], ready: asyncio.Event) -> None:
    async with connect(url, compression=None, max_size=None, ping_interval=None) as ws:
        await ws.recv()  # the snapshot
        ready.set()
        async for raw in ws:
            arrivals.setdefault(version_of(raw), []).append(time.perf_counter())


async def run_crowd(args: argparse.Namespace, database: str, n: int, work: Path) -> dict[str, Any]:
    """One match watched by ``n`` anonymous spectators: the connect rate, server
    memory per idle spectator, and the time from an action to the last spectator's update."""
    url = await database_url(database, work, f"crowd-{n}")
    server = Server(url, 1, None, work / f"server-crowd-{database}-{n}.log", Path(args.server_root))
    tasks: list[asyncio.Task[None]] = []
    try:
        await server.ready()
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
            players = [await post(http, "/api/v1/players", {"name": f"player {s}"}) for s in (0, 1)]
            headers = [{"Authorization": f"Bearer {p['token']}"} for p in players]
            match = await post(http, "/api/v1/matches", {"ruleset": "kelly", "seat": 0}, headers[0])
            await post(http, f"/api/v1/matches/{match['id']}/join", {"seat": 1}, headers[1])
            pids = process_tree(server.process.pid)
            await asyncio.sleep(1)
            memory_before = rss_bytes(pids)
            arrivals: dict[int, list[float]] = {}
            watch = f"{server.ws_url}/ws/matches/{match['id']}"
            started = time.perf_counter()
            for batch in range(0, n, args.connect_batch):  # a few hundred handshakes in flight at once
                events = [asyncio.Event() for _ in range(min(args.connect_batch, n - batch))]
                tasks += [asyncio.create_task(spectator(watch, arrivals, e)) for e in events]
                await asyncio.wait_for(asyncio.gather(*(e.wait() for e in events)), 120)
            connect_s = time.perf_counter() - started
            await asyncio.sleep(2)
            memory_after = rss_bytes(pids)
            rng = random.Random(args.seed)
            spreads = []
            for _ in range(args.actions):
                current = (await http.get(f"/api/v1/matches/{match['id']}", headers=headers[0])).json()
                if current["status"] != "active":
                    break
                seat = current["to_act"][0]
                mine = (await http.get(f"/api/v1/matches/{match['id']}", headers=headers[seat])).json()
                choices = [a for a in mine["legal_actions"] if a["type"] not in COMMON]
                sent = time.perf_counter()
                body = {"action": rng.choice(choices), "version": mine["version"]}
                await post(http, f"/api/v1/matches/{match['id']}/actions", body, headers[seat])
                version = mine["version"] + 1
                deadline = time.monotonic() + 30
                while len(arrivals.get(version, ())) < n and time.monotonic() < deadline:
                    await asyncio.sleep(0.005)
                got = arrivals.get(version, [])
                if len(got) < n:
                    raise RuntimeError(f"only {len(got)} of {n} spectators got version {version}")
                spreads.append(max(got) - sent)
                await asyncio.sleep(0.2)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        server.stop()
    spreads.sort()
    return {
        "database": database,
        "spectators": n,
        "connects_per_s": n / connect_s,
        "kb_per_spectator": (memory_after - memory_before) / n / 1024,
        "to_last_p50_s": percentile(spreads, 50),
        "to_last_max_s": spreads[-1] if spreads else float("nan"),
        "actions": len(spreads),
    }


# --- an open-loop load ------------------------------------------------------------------


async def scheduled_player(
    ws: ClientConnection, play: MatchPlay, seat: int, rng: random.Random, stats: Stats, ready: ReadyQueue
) -> None:
    """Like :func:`bot`, but a move is sent only when the schedule hands out a turn.

    Times count from the turn's *scheduled* tick, not from when this client got round
    to sending (no coordinated omission): a move counts when its tick falls in the
    window, and its latency runs from that tick to the opponent's update."""
    acted_at = -1
    scheduled: dict[str, float] = {}  # action id -> its tick
    async for raw in ws:
        now = time.perf_counter()
        message = json.loads(raw)
        kind = message["type"]
        if kind == "ack":
            tick = scheduled.pop(message.get("id"), None)
            if tick is not None and stats.measuring(tick):
                stats.moves += 1
            continue
        if kind == "error":
            key = f"{message.get('code')}: {message.get('message')}"
            stats.errors[key] = stats.errors.get(key, 0) + 1
            acted_at = -1
            if message.get("code") != 429:  # a refused sync answered by a sync would loop
                await ws.send(json.dumps({"type": "sync"}))
            continue
        if kind not in ("snapshot", "update"):
            continue
        version = message["version"]
        if kind == "update":
            sent = play.sent.pop(version - 1, None)
            if sent is not None and sent[0] != seat and stats.measuring(sent[1]):
                stats.latencies.append(now - sent[1])
        if message["status"] == "finished":
            play.finished.set()
            return
        choices = [a for a in message["legal_actions"] if a["type"] not in COMMON]
        if version <= acted_at or not choices:
            continue
        acted_at = version
        tick = await ready.turn()  # the open loop: wait for the schedule, not for the server
        ready.lag.append(time.perf_counter() - tick)
        play.sent[version] = (seat, tick)
        scheduled[str(version)] = tick
        action = rng.choice(choices)
        await ws.send(
            json.dumps({"type": "action", "action": action, "version": version, "id": str(version)})
        )


class ReadyQueue:
    """Hands out turns at a fixed total rate, to players in the order they became ready;
    a turn is its scheduled tick time. A tick with nobody ready is lost (counted): the
    offered load is then lower. ``lag`` collects how late each turn was used: when it
    grows, the client (not the server) is what falls behind."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.waiting: asyncio.Queue[asyncio.Future[float]] = asyncio.Queue()
        self.idle_ticks = 0
        self.lag: list[float] = []

    async def turn(self) -> float:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        await self.waiting.put(future)
        return await future

    async def run(self) -> None:
        interval, next_tick = 1 / self.rate, time.perf_counter()
        while True:
            if self.waiting.empty():
                self.idle_ticks += 1
            else:
                self.waiting.get_nowait().set_result(next_tick)
            next_tick += interval
            await asyncio.sleep(max(0, next_tick - time.perf_counter()))


async def scheduled_pair(
    index: int, http: httpx.AsyncClient, ws_url: str, seed: int, stats: Stats, ready: ReadyQueue
) -> None:
    """Two players whose moves wait for the schedule's turns."""

    async def player(
        ws: ClientConnection, play: MatchPlay, seat: int, rng: random.Random, stats: Stats
    ) -> None:
        await scheduled_player(ws, play, seat, rng, stats, ready)

    await play_matches(index, http, ws_url, seed, stats, player)


async def run_rate(args: argparse.Namespace, database: str, n: int, work: Path) -> dict[str, Any]:
    """``n`` matches whose moves arrive at ``--rate`` a second in all: latency under a
    load the server does not set the pace of."""
    url = await database_url(database, work, f"rate-{n}")
    server = Server(url, 1, None, work / f"server-rate-{database}-{n}.log", Path(args.server_root))
    stats, ready = Stats(), ReadyQueue(args.rate)
    tasks: list[asyncio.Task[None]] = []
    try:
        await server.ready()
        limits = httpx.Limits(max_connections=55)
        async with httpx.AsyncClient(base_url=server.url, timeout=120, limits=limits) as http:
            for i in range(n):
                tasks.append(
                    asyncio.create_task(scheduled_pair(i, http, server.ws_url, args.seed, stats, ready))
                )
                if i % 50 == 49:
                    await asyncio.sleep(0.2)  # set up in waves, not 3,000 requests at once
            deadline = time.monotonic() + 300
            while stats.ready < n:
                failed = [t for t in tasks if t.done() and t.exception()]
                if failed:
                    raise failed[0].exception()  # type: ignore[misc]
                if time.monotonic() > deadline:
                    raise RuntimeError(f"only {stats.ready} of {n} pairs set up their match in 300 s")
                await asyncio.sleep(0.1)
            schedule = asyncio.create_task(ready.run())
            tasks.append(schedule)
            await asyncio.sleep(args.warmup)
            pids = process_tree(server.process.pid)
            cpu0, t0, idle0 = cpu_seconds(pids), time.perf_counter(), ready.idle_ticks
            stats.start, stats.end = t0, t0 + args.window
            ready.lag.clear()
            await asyncio.sleep(args.window)
            elapsed = time.perf_counter() - t0
            server_cpu = cpu_seconds(pids) - cpu0
            idle = ready.idle_ticks - idle0
            await asyncio.sleep(2)  # the answers to the window's last ticks
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        server.stop()
    latencies = sorted(stats.latencies)
    return {
        "database": database,
        "matches": n,
        "offered_per_s": args.rate,
        "moves_per_s": stats.moves / elapsed,
        "idle_ticks": idle,
        "client_lag_p99_ms": percentile(sorted(ready.lag), 99) * 1000,
        "p50_ms": percentile(latencies, 50) * 1000,
        "p99_ms": percentile(latencies, 99) * 1000,
        "server_cpu_ms_per_move": 1000 * server_cpu / max(stats.moves, 1),
        "server_cpu_pct": 100 * server_cpu / elapsed,
        "errors": stats.errors,
    }


async def database_url(database: str, work: Path, name: str) -> str:
    if database == "postgresql":
        return await fresh_postgres()
    path = work / f"{name}.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return f"sqlite+aiosqlite:///{path}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument(
        "--database", nargs="+", choices=["sqlite", "postgresql"], default=["sqlite", "postgresql"]
    )
    parser.add_argument("--warmup", type=float, default=3)
    parser.add_argument("--window", type=float, default=20)
    parser.add_argument("--workers", type=int, default=1, help="server processes (default 1)")
    parser.add_argument(
        "--broker", help="BROKER_URL for the server (default: memory, or PostgreSQL with --workers)"
    )
    parser.add_argument(
        "--server-root", default=str(ROOT), help="serve the code of this checkout (default: this one)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seeds the bots' choices")
    parser.add_argument("--profile", metavar="DIR", help="record the server with py-spy into DIR")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument(
        "--spectators", type=int, nargs="+", metavar="N", help="instead: one match watched by N spectators"
    )
    parser.add_argument("--actions", type=int, default=10, help="with --spectators: actions timed")
    parser.add_argument(
        "--connect-batch", type=int, default=250, help="with --spectators: handshakes at once"
    )
    parser.add_argument(
        "--rate", type=float, metavar="R", help="instead: an open loop of R moves/s in all over --matches"
    )
    args = parser.parse_args(argv)
    if args.profile:
        Path(args.profile).mkdir(parents=True, exist_ok=True)

    try:
        import uvloop

        runner = uvloop.run
    except ImportError:
        runner = asyncio.run

    work = Path(tempfile.mkdtemp(prefix="dejarik-bench-"))
    if args.spectators or args.rate:
        try:
            run_other(args, runner, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return
    results = []
    header = (
        f"{'database':<11} {'matches':>7} {'moves/s':>9} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}"
        f" {'ms/move':>7} {'server':>7} {'client':>7} {'pg':>5} {'other':>6} {'errors':>6}"
    )
    print(
        f"warm-up {args.warmup:g} s, window {args.window:g} s, {os.cpu_count()} cores, "
        f"{args.workers} server process(es)",
        flush=True,
    )
    print(
        "ms/move: server CPU time per move. CPU columns: percent of one core during the window,"
        " for the server process(es), this client, every postgres process, and everything else"
        " on the machine",
        flush=True,
    )
    print(header, flush=True)
    try:
        for database in args.database:
            for n in args.matches:
                r = runner(run_one(args, database, n, work))
                results.append(r)
                print(
                    f"{database:<11} {n:>7} {r['moves_per_s']:>9.0f} {r['p50_ms']:>8.1f} {r['p95_ms']:>8.1f}"
                    f" {r['p99_ms']:>8.1f} {r['server_cpu_ms_per_move']:>7.2f}"
                    f" {r['server_cpu_pct']:>6.0f}% {r['client_cpu_pct']:>6.0f}%"
                    f" {r['postgres_cpu_pct']:>4.0f}% {r['other_cpu_pct']:>5.0f}%"
                    f" {sum(r['errors'].values()):>6}",
                    flush=True,
                )
                for message, count in r["errors"].items():
                    print(f"    {count} x {message}", flush=True)
    finally:
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=2))
        shutil.rmtree(work, ignore_errors=True)


def run_other(args: argparse.Namespace, runner: Any, work: Path) -> None:
    """``--spectators`` and ``--rate``: print one line per run."""
    results = []
    for database in args.database:
        for n in args.spectators or args.matches:
            if args.spectators:
                r = runner(run_crowd(args, database, n, work))
                print(
                    f"{database:<11} spectators {n:>6}  connects/s {r['connects_per_s']:>6.0f}"
                    f"  KB/spectator {r['kb_per_spectator']:>5.1f}  action->last update p50"
                    f" {r['to_last_p50_s']:.3f} s, max {r['to_last_max_s']:.3f} s ({r['actions']} actions)",
                    flush=True,
                )
            else:
                r = runner(run_rate(args, database, n, work))
                print(
                    f"{database:<11} matches {n:>5}  offered {args.rate:g}/s"
                    f"  moves/s {r['moves_per_s']:>6.0f}"
                    f"  p50 {r['p50_ms']:.1f} ms  p99 {r['p99_ms']:.1f} ms  ms/move"
                    f" {r['server_cpu_ms_per_move']:.2f}  server {r['server_cpu_pct']:.0f}%"
                    f"  idle ticks {r['idle_ticks']}  client lag p99 {r['client_lag_p99_ms']:.1f} ms"
                    f"  errors {sum(r['errors'].values())}",
                    flush=True,
                )
            results.append(r)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
