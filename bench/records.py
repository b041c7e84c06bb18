"""Records benchmark: ``/at/{version}`` and the NDJSON exports on a long match.

A benchmark, not a test: it starts ``dejarik serve`` (bench/load.py's ``Server``)
on a fresh database, plays one ``kelly`` match of ``--actions`` actions through
REST (random legal moves, attacks only when nothing else is legal, no turn limit,
so the match lasts), and
creates ``--matches`` more matches for the listing. Then, each ``--repeat`` times,
it times:

- ``GET /api/v1/matches/{id}/at/{v}`` for versions across the match (with and
  without the log), each a replay from the start of the log;
- ``GET /api/v1/matches/{id}/events`` as NDJSON (every entry, streamed) and as JSON;
- ``GET /api/v1/matches?player=…`` as NDJSON (every summary, streamed).

It prints the first (cold) time of each, then the median of the others (warm:
``/at`` goes on from the checkpoints the first replay kept)::

    .venv/bin/python bench/records.py --database sqlite postgresql --actions 1000 --matches 500

Then, in this process, the CPU time (``time.process_time``, so less at the mercy of
a busy machine than the wall-clock figures above) of rebuilding the state at each
of those versions from the same log: a full replay that looks every action up
among the legal ones (how ``replay`` checks a log), a full replay without that
look-up (``checked=False``), and from the nearest checkpoint (what ``/at`` does
once one is kept).

``--baseline DIR`` runs the same against the server of another checkout (e.g. a
``git worktree`` of an older commit), on a match of the same length, for a side-by-side.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import ROOT, Server, database_url

from app.rules.base import COMMON_ACTION_TYPES

NDJSON = {"Accept": "application/x-ndjson"}


async def register(http: httpx.AsyncClient, name: str) -> dict:
    player = (await http.post("/api/v1/players", json={"name": name})).json()
    player["headers"] = {"Authorization": f"Bearer {player['token']}"}
    return player


async def long_match(http: httpx.AsyncClient, actions: int, seed: int) -> tuple[str, dict, int]:
    """A kelly match of ``actions`` actions (it may end sooner if a side is wiped out)."""
    blue, red = await register(http, "Bench Blue"), await register(http, "Bench Red")
    created = await http.post(
        "/api/v1/matches",
        json={"ruleset": "kelly", "options": {"turns_without_kill": 0}, "seat": 0},
        headers=blue["headers"],
    )
    match_id = created.json()["id"]
    await http.post(f"/api/v1/matches/{match_id}/join", headers=red["headers"])
    rng, players = random.Random(seed), [blue, red]
    for _ in range(actions):
        shown = (await http.get(f"/api/v1/matches/{match_id}")).json()
        if shown["status"] == "finished":
            break
        seat = shown["to_act"][0]
        mine = (await http.get(f"/api/v1/matches/{match_id}", headers=players[seat]["headers"])).json()
        legal = [a for a in mine["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES]
        calm = [a for a in legal if a["type"] != "attack"]
        action = rng.choice(calm or legal)  # attacks only when nothing else is legal: the match lasts
        sent = await http.post(
            f"/api/v1/matches/{match_id}/actions",
            json={"action": action, "version": mine["version"]},
            headers=players[seat]["headers"],
        )
        sent.raise_for_status()
    final = (await http.get(f"/api/v1/matches/{match_id}")).json()
    return match_id, blue, final["version"]


async def timed(http: httpx.AsyncClient, url: str, **kwargs) -> tuple[float, int]:
    """Seconds for the whole answer, and its size in bytes."""
    start = time.perf_counter()
    size = 0
    async with http.stream("GET", url, **kwargs) as answer:
        answer.raise_for_status()
        async for chunk in answer.aiter_bytes():
            size += len(chunk)
    return time.perf_counter() - start, size


def cells(times: list[float]) -> str:
    ms = [t * 1000 for t in times]
    return f"{ms[0]:.1f} | {statistics.median(ms[1:] or ms):.1f}"


async def run(database: str, args: argparse.Namespace, work: Path, root: Path) -> None:
    db_url = await database_url(database, work, f"records-{root.name}")
    server = Server(db_url, 1, None, work / f"server-{database}-{root.name}.log", root=root)
    try:
        await server.ready()
        async with httpx.AsyncClient(base_url=server.url, timeout=120) as http:
            start = time.perf_counter()
            match_id, host, version = await long_match(http, args.actions, args.seed)
            for _ in range(args.matches):
                await http.post(
                    "/api/v1/matches", json={"ruleset": "kelly", "seat": 0}, headers=host["headers"]
                )
            built = time.perf_counter() - start
            print(f"\n{database}, server from {root}: match at version {version}; built in {built:.0f} s")
            print("| request | first ms | median of the rest ms | KB |\n|---|---|---|---|")
            for v in sorted({1, version // 4, version // 2, 3 * version // 4, version}):
                for log in (False, True):
                    url = f"/api/v1/matches/{match_id}/at/{v}?log={str(log).lower()}"
                    results = [await timed(http, url) for _ in range(args.repeat)]
                    name = f"`/at/{v}`" + (" with the log" if log else "")
                    print(f"| {name} | {cells([t for t, _ in results])} | {results[0][1] / 1024:.0f} |")
            exports = [
                (f"`/events` NDJSON ({version} entries)", f"/api/v1/matches/{match_id}/events", NDJSON),
                (f"`/events` JSON ({version} entries)", f"/api/v1/matches/{match_id}/events", {}),
                (
                    f"`/matches?player=` NDJSON ({args.matches + 1} summaries)",
                    f"/api/v1/matches?player={host['id']}",
                    NDJSON,
                ),
            ]
            for name, url, headers in exports:
                results = [await timed(http, url, headers=headers) for _ in range(args.repeat)]
                print(f"| {name} | {cells([t for t, _ in results])} | {results[0][1] / 1024:.0f} |")
        if root == ROOT:
            await replay_cpu(db_url, match_id, version, args.repeat)
    finally:
        server.stop()


async def replay_cpu(url: str, match_id: str, version: int, repeat: int) -> None:
    """CPU ms to rebuild the state at versions across the match, three ways."""
    from app.db import make_engine
    from app.rules import get_ruleset
    from app.rules.log import replay
    from app.services import records
    from app.services.store import store_for

    engine = make_engine(url)
    try:
        store = store_for(engine)
        match = await store.load(match_id)
        entries = await records.read_log(store, match)
    finally:
        await store.close()
        await engine.dispose()
    kelly = get_ruleset("kelly")

    def cpu_ms(rebuild) -> float:
        times = []
        for _ in range(repeat):
            start = time.process_time()
            rebuild()
            times.append((time.process_time() - start) * 1000)
        return statistics.median(times)

    print("\n| state after | full replay, checked ms | full replay ms | from a checkpoint ms |")
    print("|---|---|---|---|")
    seeds = match.dice_seeds
    for v in sorted({1, version // 4, version // 2, 3 * version // 4, version}):
        kept = [e for e in entries if e.version <= v]
        checked = cpu_ms(lambda kept=kept: replay(kelly, match.options, match.seed, kept, player_seeds=seeds))
        trusted = cpu_ms(
            lambda kept=kept: replay(
                kelly, match.options, match.seed, kept, player_seeds=seeds, checked=False
            )
        )
        records.state_at(match, match.options, kept, v)  # keeps the checkpoints up to v
        warm = cpu_ms(lambda kept=kept, v=v: records.state_at(match, match.options, kept, v))
        print(f"| v{v} | {checked:.1f} | {trusted:.1f} | {warm:.1f} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database", nargs="+", default=["sqlite"], choices=["sqlite", "postgresql"])
    parser.add_argument("--actions", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=500, help="more matches for the listing export")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--baseline", type=Path, help="another checkout whose server to measure too")
    args = parser.parse_args(argv)
    roots = [ROOT] + ([args.baseline.resolve()] if args.baseline else [])
    with tempfile.TemporaryDirectory(prefix="dejarik-records-") as work:
        for database in args.database:
            for root in roots:
                asyncio.run(run(database, args, Path(work), root))


if __name__ == "__main__":
    main()
