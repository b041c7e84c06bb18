"""The floor under one move's CPU: what a server on this stack spends on a move before
any of the project's own work.

A benchmark, not a test. ``bench/load.py`` measures the whole server; this one starts
a bare server on the same parts (uvicorn with the same websocket implementation,
Starlette's ``WebSocket``, asyncpg with a pool, orjson) that does only what every move
must do, and nothing the project adds:

- receive the action frame and parse its JSON;
- read the match's row (one query on a pooled connection);
- write the move: the new state (a kelly state's size) and its log entry, in one
  statement, guarded by the version, as ``PostgresStore.append`` does;
- send the mover an ack, and both seats an update the size of a real one (4.5 KB,
  the median of a kelly match's updates), encoded once.

It has no rules, no projection, no rendering, no broker, no clock or notifications.
Its clients play as ``bench/load.py``'s do (two websockets per match, each acting as
soon as the update shows its turn), so the two benchmarks' CPU per move compare::

    .venv/bin/python bench/floor.py --matches 100 --warmup 3 --window 15
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import subprocess
import sys
import time
from typing import Any

import orjson
from load import cpu_seconds, free_port, fresh_postgres, percentile, process_tree  # bench/load.py
from websockets.asyncio.client import ClientConnection, connect

from app.services.store import _json_codec, _nothing_to_reset  # the store's own pool set-up

DATABASE = "dejarik_floor"
PIECES = [{"id": f"p{i}", "kind": "k" * 12, "at": "A1", "owner": i % 2} for i in range(16)]
STATE = json.dumps({"pieces": PIECES})
STATE = STATE + " " * max(0, 2200 - len(STATE))
"""A state as big as a kelly state in the database (about 2.2 KB of JSON)."""
UPDATE_PADDING = "x" * 4400
"""An update's body, as big as the median update of a kelly match (4.5 KB in all)."""

SCHEMA = """
CREATE TABLE matches (seq serial PRIMARY KEY, id text UNIQUE NOT NULL, version int NOT NULL,
                      state json NOT NULL, updated_at timestamptz NOT NULL);
CREATE TABLE match_log (match_seq int NOT NULL, version int NOT NULL, seat int, action json,
                        events json, "at" timestamptz NOT NULL, PRIMARY KEY (match_seq, version));
"""
READ = "SELECT seq, version, state FROM matches WHERE id = $1"
WRITE = """
    WITH written AS (
        UPDATE matches SET version = $1, state = $2::json, updated_at = now()
        WHERE seq = $3 AND version = $4 RETURNING seq
    )
    INSERT INTO match_log (match_seq, version, seat, action, events, "at")
    SELECT seq, $1, $5, $6::json, $7::json, now() FROM written
"""


# --- the bare server --------------------------------------------------------------------


def bare_app(dsn: str) -> Any:
    from starlette.websockets import WebSocket, WebSocketDisconnect

    rooms: dict[str, list[WebSocket]] = {}
    pool: Any = None

    def update(version: int) -> str:
        return f'{{"type":"update","version":{version},"status":"active","body":"{UPDATE_PADDING}"}}'

    async def play(websocket: WebSocket) -> None:
        match_id = websocket.url.path.rsplit("/", 1)[1]
        room = rooms.setdefault(match_id, [])
        await websocket.accept()
        async with pool.acquire() as connection:
            row = await connection.fetchrow(READ, match_id)
        room.append(websocket)
        await websocket.send_text(update(row["version"]).replace('"update"', '"snapshot"', 1))
        try:
            while True:
                message = orjson.loads(await websocket.receive_text())
                async with pool.acquire() as connection:
                    row = await connection.fetchrow(READ, match_id)
                if row["version"] != message["version"]:
                    await websocket.send_text(orjson.dumps({"type": "error", "code": 409}).decode())
                    continue
                version = row["version"] + 1
                async with pool.acquire() as connection:
                    await connection.execute(
                        WRITE,
                        version,
                        STATE,
                        row["seq"],
                        row["version"],
                        version % 2,
                        orjson.dumps(message["action"]).decode(),
                        '[{"type":"move"}]',
                    )
                await websocket.send_text(f'{{"type":"ack","id":"{message["id"]}","version":{version}}}')
                text = update(version)
                await asyncio.gather(*(viewer.send_text(text) for viewer in room))
        except WebSocketDisconnect:
            room.remove(websocket)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        nonlocal pool
        if scope["type"] == "lifespan":
            await receive()
            import asyncpg

            pool = await asyncpg.create_pool(
                dsn, min_size=1, max_size=10, init=_json_codec, reset=_nothing_to_reset
            )
            await send({"type": "lifespan.startup.complete"})
            await receive()
            await pool.close()
            await send({"type": "lifespan.shutdown.complete"})
        elif scope["type"] == "websocket":
            await play(WebSocket(scope, receive, send))

    return app


def serve(port: int, dsn: str) -> None:
    import uvicorn

    uvicorn.run(bare_app(dsn), host="127.0.0.1", port=port, ws="websockets-sansio", log_level="warning")


# --- the clients ------------------------------------------------------------------------


class Window:
    def __init__(self) -> None:
        self.start = self.end = float("inf")
        self.moves = 0
        self.latencies: list[float] = []

    def measuring(self, t: float) -> bool:
        return self.start <= t < self.end


async def seat(ws: ClientConnection, seat_number: int, sent: dict[int, float], window: Window) -> None:
    """Act whenever an update shows this seat's turn (seat = version mod 2)."""
    perf = time.perf_counter
    async for raw in ws:
        now = perf()
        message = orjson.loads(raw)
        if message["type"] == "ack":
            window.moves += window.measuring(now)
            continue
        version = message["version"]
        # The update of the opponent's action (sent at the version before) times it.
        if message["type"] == "update" and version % 2 == seat_number:
            started = sent.pop(version - 1, None)
            if started is not None and window.measuring(now):
                window.latencies.append(now - started)
        if version % 2 == seat_number:
            sent[version] = perf()
            action = {"type": "move", "piece": "p1", "to": "B3"}
            frame = {"type": "action", "action": action, "version": version, "id": str(version)}
            await ws.send(orjson.dumps(frame).decode())


async def run(args: argparse.Namespace) -> None:
    import asyncpg

    url = (await fresh_postgres(DATABASE)).replace("postgresql+asyncpg://", "postgresql://")
    admin = await asyncpg.connect(url)
    await admin.execute(SCHEMA)
    await admin.executemany(
        "INSERT INTO matches (id, version, state, updated_at) VALUES ($1, 0, $2, now())",
        [(f"m{i}", STATE) for i in range(args.matches)],
    )
    await admin.close()
    port = free_port()
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(port), url])
    try:
        for _ in range(100):
            with contextlib.suppress(OSError):
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                break
            await asyncio.sleep(0.1)
        window = Window()
        sockets = []
        tasks = []
        for i in range(args.matches):
            sent: dict[int, float] = {}
            for s in (0, 1):
                ws = await connect(f"ws://127.0.0.1:{port}/m{i}", compression=None, max_size=None)
                sockets.append(ws)
                tasks.append(asyncio.create_task(seat(ws, s, sent, window)))
        await asyncio.sleep(args.warmup)
        pids = process_tree(server.pid)
        cpu, client_cpu = cpu_seconds(pids), time.process_time()
        window.start = time.perf_counter()
        await asyncio.sleep(args.window)
        window.end = time.perf_counter()
        cpu, client_cpu = cpu_seconds(pids) - cpu, time.process_time() - client_cpu
        latencies = sorted(window.latencies)
        rate = window.moves / args.window
        print(
            f"bare server, {args.matches} matches: {rate:.0f} moves/s, "
            f"p50 {1e3 * percentile(latencies, 50):.1f} / p99 {1e3 * percentile(latencies, 99):.1f} ms, "
            f"server {100 * cpu / args.window:.0f} % of a core, "
            f"{1e3 * cpu / max(window.moves, 1):.3f} ms CPU per move "
            f"(client {100 * client_cpu / args.window:.0f} %)"
        )
        for task in tasks:
            task.cancel()
        for ws in sockets:
            with contextlib.suppress(Exception):
                await ws.close()
    finally:
        server.terminate()
        server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--warmup", type=float, default=3)
    parser.add_argument("--window", type=float, default=15)
    parser.add_argument("--serve", nargs=2, metavar=("PORT", "DSN"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(int(args.serve[0]), args.serve[1])
    else:
        asyncio.run(run(args))


if __name__ == "__main__":
    main()
