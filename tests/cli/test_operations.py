"""``dejarik backup``, ``restore`` and ``check``, as an operator runs them, on both
databases: a backup taken while matches are played restores into an empty database,
where every match reads as it did; ``check`` finds a stored state its log does not give."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import create_async_engine

from app.config import Settings
from app.models import Match
from tests.api.helpers import play_one, play_to_the_end, start_match
from tests.conftest import LiveServer, postgres_database

pytestmark = pytest.mark.both_databases


def dejarik(database_url: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DATABASE_URL": database_url}
    command = [sys.executable, "-m", "app.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)


def empty_database(kind: str, folder: Path) -> Iterator[str]:
    if kind == "sqlite":
        yield f"sqlite+aiosqlite:///{folder / 'restored.db'}"
    else:
        yield from postgres_database()


@pytest.fixture
def server(database_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    """A server on a database of its own (the session's holds other tests' matches)."""
    if database_url.startswith("sqlite"):
        own = iter([f"sqlite+aiosqlite:///{tmp_path / 'dejarik.db'}"])
    else:
        own = postgres_database()
    live = LiveServer(Settings(database_url=next(own), bot_delay_ms=0)).start()
    yield live
    live.stop()
    next(own, None)


async def events(http: httpx.AsyncClient, match_id: str) -> list[dict]:
    return (await http.get(f"/api/v1/matches/{match_id}/events")).json()["events"]


@pytest.mark.runs_long
async def test_a_backup_under_load_restores_into_an_empty_database(server, tmp_path, database_url):
    kind = "sqlite" if database_url.startswith("sqlite") else "postgresql"
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        finished, players = await start_match(http, "kelly", {"turns_without_kill": 12})
        await play_to_the_end(http, finished["id"], players)
        busy, busy_players = await start_match(http, "simeone")
        rng = random.Random(3)

        async def keep_playing() -> None:
            for _ in range(40):
                await play_one(http, busy["id"], busy_players, rng)

        load = asyncio.create_task(keep_playing())
        await asyncio.sleep(0.2)
        backup = tmp_path / "dejarik.backup"
        made = await asyncio.to_thread(dejarik, server.settings.database_url, "backup", str(backup))
        assert made.returncode == 0, made.stderr
        await load
        original = {m: await events(http, m) for m in (finished["id"], busy["id"])}
        finished_view = (await http.get(f"/api/v1/matches/{finished['id']}")).json()

    target = empty_database(kind, tmp_path)
    restored_url = next(target)
    try:
        done = dejarik(restored_url, "restore", str(backup))
        assert done.returncode == 0, done.stderr
        again = dejarik(restored_url, "restore", str(backup))
        assert again.returncode == 2 and "restore into an empty one" in again.stderr
        checked = dejarik(restored_url, "check")
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "checked 2 matches" in checked.stdout

        restored = LiveServer(Settings(database_url=restored_url, bot_delay_ms=0)).start()
        try:
            async with httpx.AsyncClient(base_url=restored.url, timeout=30) as http:
                assert (await http.get(f"/api/v1/matches/{finished['id']}")).json() == finished_view
                assert await events(http, finished["id"]) == original[finished["id"]]
                # The busy match as it was when the backup was taken: a beginning of its log.
                log = await events(http, busy["id"])
                assert log and log == original[busy["id"]][: len(log)]
        finally:
            restored.stop()
    finally:
        next(target, None)


async def test_check_finds_a_stored_state_its_log_does_not_give(server):
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        sound, players = await start_match(http, "kelly")
        broken, _ = await start_match(http, "kelly")
        await play_one(http, sound["id"], players, random.Random(1))
    clean = dejarik(server.settings.database_url, "check")
    assert clean.returncode == 0, clean.stdout + clean.stderr

    # A piece moved in the stored state behind the log's back.
    engine = create_async_engine(server.settings.database_url)
    async with engine.begin() as connection:
        state = (await connection.execute(select(Match.state).where(Match.id == broken["id"]))).scalar_one()
        piece = next(p for p in state["pieces"].values() if p["at"])
        piece["at"] = "C" if piece["at"] != "C" else "A1"
        await connection.execute(update(Match).where(Match.id == broken["id"]).values(state=state))
    await engine.dispose()
    found = dejarik(server.settings.database_url, "check")
    assert found.returncode == 1, found.stdout + found.stderr
    assert f"{broken['id']}: the stored state differs from the log's in pieces" in found.stdout
    assert sound["id"] not in found.stdout
