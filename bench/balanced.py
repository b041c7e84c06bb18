"""Moves/s, latency and CPU per action through nginx with 1, 2 and 3 server processes.

A benchmark, not a test. Each run starts everything afresh: an empty PostgreSQL
database (``BENCH_POSTGRES_ADMIN``, default the server on 127.0.0.1:5432), a private
Redis on a spare port as the broker and the rate limits' store, N ``dejarik serve``
processes and Debian's nginx in front of them with the shipped
``deploy/dejarik-proxy.conf`` (round-robin, no sticky sessions; ``bench/cluster.py``,
the very setup of ``tests/realtime/test_behind_nginx.py``). Then ``--matches`` pairs of
players play ``kelly`` through nginx: each player watches its match on a websocket
(which nginx gives to any process) and, whenever its view shows it legal actions at a
new version, POSTs a random one to ``/api/v1/matches/{id}/actions`` (which nginx gives to
any process, usually another). A finished match is followed by a new one.

Layouts (``--layouts``):

- ``direct``: one process, no nginx: the balancer's cost is the difference.
- ``ports``: every process on 127.0.0.1, a port each: one host.
- ``hosts``: separate hosts simulated: each process on its own loopback address
  (127.0.0.2, 127.0.0.3, ...), all on the same port as on hosts of their own; nginx on
  127.0.0.1 reaches them by address, and they reach PostgreSQL (127.0.0.1:5432) and
  Redis (127.0.0.20) over TCP, by address, as another host would.

Measured over ``--window`` seconds after ``--warmup``:

- moves/s: actions answered 200 in the window;
- action latency: a POST sent to its answer (p50/p99);
- update latency: a POST sent to the *opponent's* websocket receiving that version,
  which crosses processes whenever the two landed on different ones;
- CPU per action, from /proc: the server processes', nginx's, and both together;
  PostgreSQL, Redis, this client and everything else in percent of one core;
- gaps: an update whose entries do not follow the version its viewer had (should be 0).

The configurations run in turns, the order reversed each turn, so a busy moment of a
shared machine falls on all of them::

    .venv/bin/python bench/balanced.py --turns 2 --matches 50 --warmup 3 --window 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from cluster import NGINX, free_port, start_nginx, start_redis, start_serve, stop, until_healthy
from load import (  # bench/, beside this script
    cpu_seconds,
    fresh_postgres,
    machine_busy_seconds,
    percentile,
    post,
    postgres_pids,
    process_tree,
)
from websockets.asyncio.client import ClientConnection, connect

from app.db import make_engine
from app.migrate import upgrade
from app.rules.base import COMMON_ACTION_TYPES as COMMON

DATABASE = "dejarik_balanced"
REDIS_HOST = {"hosts": "127.0.0.20"}


@dataclass
class Stats:
    start: float = float("inf")
    end: float = float("inf")
    moves: int = 0
    actions: list[float] = field(default_factory=list)
    updates: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    gaps: int = 0
    ready: int = 0

    def measuring(self, t: float) -> bool:
        return self.start <= t < self.end

    def error(self, key: str) -> None:
        self.errors[key] = self.errors.get(key, 0) + 1


async def seat_player(
    ws: ClientConnection,
    http: httpx.AsyncClient,
    match_id: str,
    sent: dict[int, tuple[int, float]],
    seat: int,
    headers: dict[str, str],
    rng: random.Random,
    stats: Stats,
) -> None:
    """Watch the match on ``ws``; act by REST whenever the view shows this seat's turn."""
    acted_at, last = -1, -1
    perf = time.perf_counter
    async for raw in ws:
        now = perf()
        message = json.loads(raw)
        kind = message["type"]
        if kind not in ("snapshot", "update"):
            continue
        version = message["version"]
        if kind == "update":
            versions = [e["version"] for e in message.get("entries", [])]
            if last >= 0 and versions != list(range(last + 1, version + 1)):
                stats.gaps += 1
            mine = sent.get(version - 1)
            if mine is not None and mine[0] != seat:
                del sent[version - 1]
                if stats.measuring(now):
                    stats.updates.append(now - mine[1])
        last = version
        if message["status"] == "finished":
            return
        if version <= acted_at:
            continue
        choices = [a for a in message["legal_actions"] if a["type"] not in COMMON]
        if not choices:
            continue
        acted_at = version
        began = perf()
        sent[version] = (seat, began)
        try:
            response = await http.post(
                f"/api/v1/matches/{match_id}/actions",
                json={"action": rng.choice(choices), "version": version},
                headers=headers,
            )
        except httpx.TransportError as error:
            stats.error(type(error).__name__)
            acted_at = -1
            await ws.send(json.dumps({"type": "sync"}))
            continue
        done = perf()
        if response.status_code == 200:
            if stats.measuring(done):
                stats.moves += 1
                stats.actions.append(done - began)
        else:
            stats.error(f"HTTP {response.status_code}")
            acted_at = -1
            await ws.send(json.dumps({"type": "sync"}))


async def pair(index: int, http: httpx.AsyncClient, ws_url: str, seed: int, stats: Stats) -> None:
    """Two players who play one match after another until cancelled."""
    rngs = [random.Random(seed * 1_000_003 + index * 2 + s) for s in (0, 1)]
    players = [await post(http, "/api/v1/players", {"name": f"bot {index}.{s}"}) for s in (0, 1)]
    headers = [{"Authorization": f"Bearer {p['token']}"} for p in players]
    first = True
    while True:
        match = await post(http, "/api/v1/matches", {"ruleset": "kelly", "seat": 0}, headers[0])
        await post(http, f"/api/v1/matches/{match['id']}/join", {"seat": 1}, headers[1])
        sockets = [
            await connect(
                f"{ws_url}/ws/matches/{match['id']}?token={p['token']}", compression=None, max_size=None
            )
            for p in players
        ]
        if first:
            stats.ready += 1
            first = False
        sent: dict[int, tuple[int, float]] = {}
        try:
            await asyncio.gather(
                *(
                    seat_player(ws, http, match["id"], sent, s, headers[s], rngs[s], stats)
                    for s, ws in enumerate(sockets)
                )
            )
        finally:
            for ws in sockets:
                await ws.close()


async def migrate(url: str) -> None:
    engine = make_engine(url)
    try:
        await upgrade(engine)
    finally:
        await engine.dispose()


def addresses(layout: str, n: int) -> list[tuple[str, int]]:
    if layout == "hosts":
        hosts = [f"127.0.0.{i + 2}" for i in range(n)]
        port = free_port(hosts[0])
        return [(h, port) for h in hosts]
    return [("127.0.0.1", free_port()) for _ in range(n)]


async def run_one(args: argparse.Namespace, layout: str, n: int, work: Path) -> dict[str, Any]:
    url = await fresh_postgres(DATABASE)
    await migrate(url)  # once: every `serve` migrates again and finds nothing to do
    redis_host = REDIS_HOST.get(layout, "127.0.0.1")
    redis = start_redis(free_port(redis_host), redis_host)
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "BROKER_URL": f"redis://{redis_host}:{redis.args[2]}/0",
        "TRUSTED_PROXIES": '["127.0.0.1"]',
        "DB_POOL_SIZE": str(args.pool),
        **{f"RATE_LIMIT_{kind}": "1000000" for kind in ("PLAYERS", "MATCHES", "ACTIONS", "WEBSOCKETS")},
    }
    places = addresses(layout, n)
    run_dir = work / f"{layout}-{n}"
    run_dir.mkdir(parents=True)
    processes = [start_serve(env, h, p, run_dir / f"serve-{h}-{p}.log") for h, p in places]
    balancer = None
    stats = Stats()
    tasks: list[asyncio.Task[None]] = []
    try:
        await asyncio.gather(
            *(until_healthy(f"http://{h}:{p}", pr, 60) for (h, p), pr in zip(places, processes, strict=True))
        )
        if layout == "direct":
            host = f"{places[0][0]}:{places[0][1]}"
        else:
            port = free_port()
            balancer = start_nginx(NGINX, run_dir, port, [f"{h}:{p}" for h, p in places])
            host = f"127.0.0.1:{port}"
            await until_healthy(f"http://{host}", balancer, 10)
        # Idle connections closed after 2 s, before uvicorn's 5 s (direct) can close one
        # under a request being sent on it.
        limits = httpx.Limits(
            max_connections=args.matches + 5, max_keepalive_connections=args.matches + 5, keepalive_expiry=2
        )
        async with httpx.AsyncClient(base_url=f"http://{host}", timeout=30, limits=limits) as http:
            tasks = [
                asyncio.create_task(pair(i, http, f"ws://{host}", args.seed, stats))
                for i in range(args.matches)
            ]
            deadline = time.monotonic() + 60
            while stats.ready < args.matches:
                failed = [t for t in tasks if t.done() and t.exception()]
                if failed:
                    raise failed[0].exception()  # type: ignore[misc]
                if time.monotonic() > deadline:
                    raise RuntimeError(f"only {stats.ready} of {args.matches} pairs set up in 60 s")
                await asyncio.sleep(0.05)
            await asyncio.sleep(args.warmup)
            server_pids = [p for pr in processes for p in process_tree(pr.pid)]
            nginx_pids = process_tree(balancer.pid) if balancer else []
            db_pids = postgres_pids()

            def sample() -> tuple[float, ...]:
                usage = resource.getrusage(resource.RUSAGE_SELF)
                return (
                    cpu_seconds(server_pids),
                    cpu_seconds(nginx_pids),
                    cpu_seconds(db_pids),
                    cpu_seconds([redis.pid]),
                    usage.ru_utime + usage.ru_stime,
                    machine_busy_seconds(),
                )

            before, load0, t0 = sample(), os.getloadavg()[0], time.perf_counter()
            stats.start, stats.end = t0, t0 + args.window
            await asyncio.sleep(args.window)
            elapsed = time.perf_counter() - t0
            servers, nginx, db, broker, client, busy = (b - a for a, b in zip(before, sample(), strict=True))
            load1 = os.getloadavg()[0]
            failed = [t for t in tasks if t.done() and not t.cancelled() and t.exception()]
            if failed:
                raise failed[0].exception()  # type: ignore[misc]
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        stop(balancer, processes, redis)
    moves = max(stats.moves, 1)
    actions, updates = sorted(stats.actions), sorted(stats.updates)
    return {
        "layout": layout,
        "processes": n,
        "moves_per_s": stats.moves / elapsed,
        "action_p50_ms": percentile(actions, 50) * 1000,
        "action_p99_ms": percentile(actions, 99) * 1000,
        "update_p50_ms": percentile(updates, 50) * 1000,
        "update_p99_ms": percentile(updates, 99) * 1000,
        "servers_ms_per_move": 1000 * servers / moves,
        "nginx_ms_per_move": 1000 * nginx / moves,
        "both_ms_per_move": 1000 * (servers + nginx) / moves,
        "servers_pct": 100 * servers / elapsed,
        "nginx_pct": 100 * nginx / elapsed,
        "postgres_pct": 100 * db / elapsed,
        "redis_pct": 100 * broker / elapsed,
        "client_pct": 100 * client / elapsed,
        "other_pct": 100 * (busy - servers - nginx - db - broker - client) / elapsed,
        "load_average": [round(load0, 2), round(load1, 2)],
        "gaps": stats.gaps,
        "errors": stats.errors,
    }


HEADER = (
    f"{'turn':>4} {'layout':<7} {'N':>2} {'moves/s':>8} {'act p50':>8} {'act p99':>8} {'upd p50':>8}"
    f" {'upd p99':>8} {'srv ms':>7} {'nginx ms':>8} {'both ms':>7} {'srv':>5} {'nginx':>5} {'pg':>4}"
    f" {'redis':>5} {'client':>6} {'other':>5} {'gaps':>4} {'errs':>4}  load"
)


def line(turn: int, r: dict[str, Any]) -> str:
    return (
        f"{turn:>4} {r['layout']:<7} {r['processes']:>2} {r['moves_per_s']:>8.0f}"
        f" {r['action_p50_ms']:>8.1f} {r['action_p99_ms']:>8.1f} {r['update_p50_ms']:>8.1f}"
        f" {r['update_p99_ms']:>8.1f} {r['servers_ms_per_move']:>7.2f} {r['nginx_ms_per_move']:>8.2f}"
        f" {r['both_ms_per_move']:>7.2f} {r['servers_pct']:>4.0f}% {r['nginx_pct']:>4.0f}%"
        f" {r['postgres_pct']:>3.0f}% {r['redis_pct']:>4.0f}% {r['client_pct']:>5.0f}%"
        f" {r['other_pct']:>4.0f}% {r['gaps']:>4} {sum(r['errors'].values()):>4}"
        f"  {r['load_average'][0]:.1f}-{r['load_average'][1]:.1f}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument(
        "--layouts", nargs="+", choices=["direct", "ports", "hosts"], default=["direct", "ports", "hosts"]
    )
    parser.add_argument("--matches", type=int, default=50, help="matches played at once")
    parser.add_argument("--turns", type=int, default=2, help="rounds of every configuration")
    parser.add_argument("--warmup", type=float, default=3)
    parser.add_argument("--window", type=float, default=10)
    parser.add_argument("--pool", type=int, default=10, help="DB_POOL_SIZE of each process (compose's)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    if NGINX is None:
        raise SystemExit("nginx is not installed (make nginx)")
    try:
        import uvloop

        runner = uvloop.run
    except ImportError:
        runner = asyncio.run

    configs = [
        (layout, n) for layout in args.layouts for n in ([1] if layout == "direct" else args.processes)
    ]
    print(
        f"{args.matches} matches, REST actions through nginx, websocket viewers; warm-up {args.warmup:g} s,"
        f" window {args.window:g} s, {os.cpu_count()} cores, DB_POOL_SIZE={args.pool}",
        flush=True,
    )
    print(
        "act: POST -> its answer; upd: POST -> the opponent's websocket update (ms). "
        "ms: CPU per move of the server processes, nginx, both. "
        "%: of one core during the window. load: 1-minute load average at the window's start-end",
        flush=True,
    )
    print(HEADER, flush=True)
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="dejarik-balanced-") as work:
        try:
            for turn in range(1, args.turns + 1):
                order = configs if turn % 2 else configs[::-1]
                for layout, n in order:
                    r = runner(run_one(args, layout, n, Path(work) / f"turn{turn}"))
                    r["turn"] = turn
                    results.append(r)
                    print(line(turn, r), flush=True)
                    for message, count in r["errors"].items():
                        print(f"    {count} x {message}", flush=True)
        finally:
            if args.json:
                Path(args.json).write_text(json.dumps(results, indent=2))
    if args.turns > 1:
        print("\nmedian over the turns", flush=True)
        print(HEADER, flush=True)
        for layout, n in configs:
            runs = [r for r in results if (r["layout"], r["processes"]) == (layout, n)]
            merged = {
                k: (statistics.median(r[k] for r in runs) if isinstance(v, float | int) else v)
                for k, v in runs[0].items()
            }
            merged["processes"] = n
            merged["errors"] = {"all": sum(sum(r["errors"].values()) for r in runs)}
            merged["gaps"] = sum(r["gaps"] for r in runs)
            merged["load_average"] = [
                min(r["load_average"][0] for r in runs),
                max(r["load_average"][1] for r in runs),
            ]
            print(line(0, merged), flush=True)


if __name__ == "__main__":
    main()
