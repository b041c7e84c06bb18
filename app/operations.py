"""An operator's commands over the database: ``dejarik backup``, ``restore`` and ``check``.

A backup is the database's own: SQLite's online backup API (consistent while the server
writes) or PostgreSQL's ``pg_dump`` custom format (one snapshot), restored with the same
database's tools into an empty database. ``check`` replays every match's log with its
rules and says where the stored state is not what the log gives.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import make_url

from app.db import make_engine
from app.models import Match, Player
from app.rules import get_ruleset
from app.rules.log import replay
from app.services.store import MatchRecord, Store, store_for

PAGE = 200


class OperationError(Exception):
    """What the operator must hear; the command exits with status 2."""


# --- backup and restore -------------------------------------------------------------


def sqlite_path(database_url: str) -> Path | None:
    """The file of a SQLite ``database_url``; ``None`` for any other database."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite":
        return None
    if not url.database or url.database == ":memory:":
        raise OperationError("an in-memory SQLite database has nothing to back up")
    return Path(url.database)


def libpq_url(database_url: str) -> str:
    """``postgresql+asyncpg://…`` as PostgreSQL's own tools read it (``postgresql://…``)."""
    return make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)


def _tool(name: str) -> str:
    found = shutil.which(name)
    if not found:
        raise OperationError(f"{name} is not installed (Debian: apt-get install postgresql-client)")
    return found


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise OperationError(f"{Path(command[0]).name} failed: {done.stderr.strip() or done.returncode}")


def backup(database_url: str, file: Path) -> None:
    """Write a consistent copy of the database to ``file``, while the server runs."""
    path = sqlite_path(database_url)
    if path is None:
        _run([_tool("pg_dump"), "--format=custom", "--no-owner", f"--file={file}", libpq_url(database_url)])
        return
    if not path.exists():
        raise OperationError(f"no SQLite database at {path}")
    partial = file.with_name(file.name + ".partial")
    source, target = sqlite3.connect(path), sqlite3.connect(partial)
    try:
        with target:
            source.backup(target)  # page by page; writers in between are seen through to the end
    finally:
        source.close()
        target.close()
    partial.replace(file)  # a backup file is whole or absent


async def is_empty(database_url: str) -> bool:
    """No players and no matches (a database just migrated, or not made yet)."""
    engine = make_engine(database_url)
    try:
        async with engine.connect() as connection:
            players = await connection.scalar(select(func.count()).select_from(Player))
            matches = await connection.scalar(select(func.count()).select_from(Match))
            return not players and not matches
    except Exception:  # no tables yet
        return True
    finally:
        await engine.dispose()


async def restore(database_url: str, file: Path) -> None:
    """Load ``file`` (made by :func:`backup` from the same kind of database) into the
    database, which must be empty: a restore never mixes two histories."""
    if not file.is_file():
        raise OperationError(f"no backup at {file}")
    if not await is_empty(database_url):
        raise OperationError("the database already holds players or matches: restore into an empty one")
    path = sqlite_path(database_url)
    if path is None:
        command = [_tool("pg_restore"), "--no-owner", "--clean", "--if-exists", "--single-transaction"]
        _run([*command, f"--dbname={libpq_url(database_url)}", str(file)])
        return
    if file.read_bytes()[:16] != b"SQLite format 3\x00":
        raise OperationError(f"{file} is not a SQLite backup (a PostgreSQL one restores into PostgreSQL)")
    source, target = sqlite3.connect(f"file:{file}?mode=ro", uri=True), sqlite3.connect(path)
    try:
        with target:
            source.backup(target)
    finally:
        source.close()
        target.close()


# --- check ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    match_id: str
    what: str

    def __str__(self) -> str:
        return f"{self.match_id}: {self.what}"


@dataclass
class CheckReport:
    matches: int = 0
    entries: int = 0
    problems: list[Problem] | None = None


def plain(value: Any) -> Any:
    """``value`` as stored JSON reads back (tuples as lists, keys as strings)."""
    return json.loads(json.dumps(value))


async def all_matches(store: Store) -> AsyncIterator[MatchRecord]:
    before: int | None = None
    while page := await store.page(None, None, None, before, PAGE):
        for record in page:
            yield record
        before = page[-1].seq


async def check_match(store: Store, record: MatchRecord) -> tuple[int, list[Problem]]:
    """The entries read, and how ``record`` differs from what its log gives."""
    entries, after = [], 0
    while batch := await store.entries(record, after, record.version):
        entries.extend(batch)
        after = batch[-1].version
    problems = []
    versions = [e.version for e in entries]
    if versions != list(range(1, len(versions) + 1)) or (versions and versions[-1] != record.version):
        problems.append(Problem(record.id, f"the log's versions are not 1..{record.version}"))
    ruleset = get_ruleset(record.ruleset)
    try:
        state = replay(ruleset, record.options, record.seed, entries, player_seeds=record.dice_seeds)
    except Exception as error:  # an action the rules refuse, or a log they cannot read
        problems.append(Problem(record.id, f"replaying the log failed: {type(error).__name__}: {error}"))
        return len(entries), problems
    given = {} if state is None else plain(ruleset.dump_state(state))
    stored = record.state or {}
    if given != stored:
        differ = sorted(k for k in set(given) | set(stored) if given.get(k) != stored.get(k))
        problems.append(Problem(record.id, f"the stored state differs from the log's in {', '.join(differ)}"))
    return len(entries), problems


async def check(database_url: str) -> CheckReport:
    """Replay every match's log (checking every action against the rules) and compare
    the state it gives with the stored one."""
    engine = make_engine(database_url)
    store = store_for(engine)
    report = CheckReport(problems=[])
    try:
        async for record in all_matches(store):
            read, problems = await check_match(store, record)
            report.matches += 1
            report.entries += read
            report.problems.extend(problems)
    finally:
        await store.close()
        await engine.dispose()
    return report
