"""CPU time of one action on PostgreSQL, in-process: the whole ``MatchService.act``
(read, guard, apply, one write) and the parts of its read, and the rendering of the
two seats' updates each action causes (the hub's frames), with no websocket. Where
``bench/load.py`` measures the server as players see it, this says
which part of an action's CPU is the database driver's and which is ours::

    .venv/bin/python bench/action_parts.py --actions 2000

CPU is ``time.process_time`` of this process (the client side of every query,
PostgreSQL's own work not included). A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

from load import fresh_postgres  # bench/load.py, beside this script

from app.db import make_engine, make_sessionmaker
from app.migrate import upgrade
from app.realtime.hub import Frames, Viewer
from app.rules import get_ruleset
from app.rules.base import COMMON_ACTION_TYPES
from app.services import views
from app.services.matches import MatchService
from app.services.players import create_player
from app.services.store import RECORD_QUERY, Committed, PostgresStore, records_from, store_for

DATABASE = "dejarik_action_parts"


async def cpu_per_call(label: str, call: Callable[[], Awaitable[Any]], n: int) -> None:
    start = time.process_time()
    for _ in range(n):
        await call()
    print(f"{label:<44} {1e6 * (time.process_time() - start) / n:6.0f} µs")


async def main(actions: int) -> None:
    engine = make_engine(await fresh_postgres(DATABASE), 5)
    await upgrade(engine)
    async with make_sessionmaker(engine)() as session:
        players = [(await create_player(session, name))[0] for name in ("Blue", "Red")]
        await session.commit()
    store = store_for(engine)
    assert isinstance(store, PostgresStore)
    committed: list[Committed] = []

    async def keep(match_id: str, version: int, change: Committed | None = None) -> None:
        committed.append(change)  # type: ignore[arg-type]  (the service always hands its change)

    service = MatchService(store, keep)
    rng = random.Random(1)

    # Whole actions: random legal kelly actions, match after match.
    acted, cpu = 0, 0.0
    while acted < actions:
        match = await service.create(players[0], "kelly", {}, 0)
        match = await service.join(match.id, players[1], 1)
        while match.status == "active" and acted < actions:
            ruleset = get_ruleset(match.ruleset)
            state = views.loaded_state(views.with_state(match))
            seat = ruleset.to_act(state)[0]
            legal = [a for a in ruleset.legal_actions(state, seat) if a["type"] not in COMMON_ACTION_TYPES]
            start = time.process_time()
            await service.act(match.id, players[seat], rng.choice(legal), match.version)
            cpu += time.process_time() - start
            acted += 1
            match = await store.load(match.id)
    print(f"{'MatchService.act (read, decide, write)':<44} {1e6 * cpu / acted:6.0f} µs  ({acted} actions)")

    # What the hub does with each of those actions: both seats' updates, rendered and encoded.
    viewers = [Viewer(None, match.id, player) for player in players]  # type: ignore[arg-type]
    start = time.process_time()
    for change in committed[-actions:]:
        frames = Frames(change.after, change.entries)
        for viewer in viewers:
            viewer.version = change.before
            frames.update(viewer)
    rendered = len(committed[-actions:])
    label = "both seats' updates rendered (hub Frames)"
    print(f"{label:<44} {1e6 * (time.process_time() - start) / rendered:6.0f} µs")

    # The parts of its read, on the last match.
    sql = str(RECORD_QUERY.compile(dialect=engine.dialect))
    pool = await store._driver_pool()
    async with pool.acquire() as connection:
        rows = await connection.fetch(sql, match.id)
        await cpu_per_call("store.load (the whole read)", lambda: store.load(match.id), actions)
        await cpu_per_call(
            "  the record query on a held connection", lambda: connection.fetch(sql, match.id), actions
        )
        await cpu_per_call("  'SELECT 1' on a held connection", lambda: connection.fetch("SELECT 1"), actions)

        async def nothing() -> None:
            records_from(rows)

        await cpu_per_call("  rows to a record (records_from)", nothing, actions)
        record = records_from(rows)[0]

        async def parse() -> None:
            views.with_state(record)

        await cpu_per_call("  the state parsed (with_state)", parse, actions)

    async def acquire() -> None:
        async with pool.acquire():
            pass

    await cpu_per_call("  a pool connection taken and given back", acquire, actions)
    await engine.dispose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--actions", type=int, default=2000)
    asyncio.run(main(parser.parse_args().actions))
