"""Schemathesis (property-based tests generated from /openapi.json) against a real
server on each database: every operation, every check, as a signed-in player, and
not one failure. A failure prints Schemathesis's report, with a curl to reproduce it."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

from app.config import Settings
from tests.conftest import LiveServer, postgres_database

EXAMPLES_PER_OPERATION = 40
"""Enough to find what the issue found (about 740 cases in all), within a minute a database."""


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_server(request, tmp_path) -> Iterator[LiveServer]:
    """A server of its own on an empty database: Schemathesis fills it with players and matches."""
    if request.param == "sqlite":
        databases: Iterator[str] = iter([f"sqlite+aiosqlite:///{tmp_path / 'schemathesis.db'}"])
    else:
        databases = postgres_database()
    url = next(databases)
    # One client address sends every case: the per-address rate limits (tested in
    # tests/api/test_rate_limits.py) would answer most of them 429.
    kinds = ("players", "matches", "actions", "websockets", "exports")
    limits_off = {f"rate_limit_{kind}": 0 for kind in kinds}
    server = LiveServer(Settings(database_url=url, **limits_off)).start()
    yield server
    server.stop()
    next(databases, None)  # drops the PostgreSQL database


def test_schemathesis_finds_nothing(fresh_server, tmp_path):
    player = httpx.post(f"{fresh_server.url}/api/v1/players", json={"name": "Schemathesis"}, timeout=30)
    token = player.json()["token"]
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "schemathesis.cli",
            "run",
            f"{fresh_server.url}/openapi.json",
            "--checks",
            "all",
            "--max-examples",
            str(EXAMPLES_PER_OPERATION),
            "--header",
            f"Authorization: Bearer {token}",
            # Text is Unicode: a lone surrogate is no character, and the server refuses
            # one with a 422 naming the field (tests/api/test_hostile_input.py).
            "--generation-codec",
            "utf-8",
            # Nor is NUL stored anywhere: refused with a 422 naming the field, likewise.
            "--generation-allow-x00",
            "false",
            # The same cases on every run, so that a failure is the code's, reproducibly.
            "--seed",
            "20261123",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,  # its crash cache (.schemathesis/) stays out of the worktree
    )
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-20_000:]
    selected = re.search(r"Selected: (\d+)/(\d+)", report)
    assert selected and selected[1] == selected[2], "every operation is selected"
    assert f"Tested: {selected[1]}" in report, "and every one tested"
