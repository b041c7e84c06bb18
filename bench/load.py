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


async def fresh_postgres() -> str:
    import asyncpg

    admin = await asyncpg.connect(POSTGRES_ADMIN)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{POSTGRES_DB}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{POSTGRES_DB}"')
    finally:
        await admin.close()
    base = POSTGRES_ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://")
    return f"{base}/{POSTGRES_DB}"


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
    start: float = 0.0
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
    """Two players who play one match after another until cancelled."""
    rngs = [random.Random(seed * 1_000_003 + index * 2 + s) for s in (0, 1)]
    players = [await post(http, "/api/v1/players", {"name": f"bot {index}.{s}"}) for s in (0, 1)]
    first = True
    while True:
        headers = [{"Authorization": f"Bearer {p['token']}"} for p in players]
        match = await post(http, "/api/v1/matches", {"ruleset": "kelly", "seat": 0}, headers[0])
        match_id = match["id"]
        await post(http, f"/api/v1/matches/{match_id}/join", {"seat": 1}, headers[1])
        play = MatchPlay(match_id)
        sockets = [
            await connect(
                f"{ws_url}/ws/matches/{match_id}?token={p['token']}", compression=None, max_size=None
            )
            for p in players
        ]
        if first:
            stats.ready += 1
            first = False
        try:
            await asyncio.gather(*(bot(ws, play, s, rngs[s], stats) for s, ws in enumerate(sockets)))
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
    if database == "sqlite":
        path = work / f"bench-{n}.db"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        url = f"sqlite+aiosqlite:///{path}"
    else:
        url = await fresh_postgres()
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
    args = parser.parse_args(argv)
    if args.profile:
        Path(args.profile).mkdir(parents=True, exist_ok=True)

    try:
        import uvloop

        runner = uvloop.run
    except ImportError:
        runner = asyncio.run

    work = Path(tempfile.mkdtemp(prefix="dejarik-bench-"))
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


if __name__ == "__main__":
    main()
