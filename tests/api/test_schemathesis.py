"""Schemathesis (property-based tests generated from /openapi.json) against a real
server on each database, run as its documentation shows: every operation, every check,
its default data generation (NUL characters included), as a signed-in player, and not
one failure, nor a warning that operations were only ever tried without a player. The
edge cases of the coverage phase run on PostgreSQL (``PHASES``), fuzzing on both.
A failure prints Schemathesis's report, with a curl to reproduce it."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import httpx
import pytest

from app.api.limits import LIMITS
from app.config import Settings
from tests.conftest import LiveServer, postgres_database

SCHEMATHESIS = "4.32.5"
"""The version pinned in pyproject.toml: its checks and its generation are the contract's judge."""
EXAMPLES_PER_OPERATION = 20
"""Generated cases an operation in the fuzzing phase, on each database: enough to find what
the issues found, with the coverage phase's edge cases."""
SEEDS = {"postgresql": "20261123", "sqlite": "20261127"}
"""The same cases on every run, so that a failure is the code's, reproducibly; a seed per
database, so that the two runs fuzz with different cases (40 an operation between them)."""
PHASES = {"postgresql": "examples,coverage,fuzzing,stateful", "sqlite": "examples,fuzzing,stateful"}
"""The coverage phase (each parameter's edge values: NUL characters, integers past int32
and int64, empty and huge strings) is the same cases whatever the seed, and half of
Schemathesis's time: it runs on PostgreSQL, whose bounded integers and NUL-free text refuse
everything SQLite does and more. Fuzzing and the stateful phase (links between operations)
run on both."""
SIGN_OUT = "sign_me_out_api_v1_players_me_sign_out_post"
"""Revokes the token it is sent: tried last, with a token of its own (the main run's
player would be signed out in the middle, and every later case tried without one)."""

HOOKS = Path(__file__).with_name("schemathesis_hooks.py")

CONFIG = f"""
hooks = "{HOOKS}"

[warnings]
# Every answer of an operation a 401 or a 403: it was never tried as a player.
fail-on = ["missing_auth", "unused_openapi_auth", "unsupported_regex", "unmatched_filter"]

# Schema-valid requests that shared/API.md answers 422 for what only the server's state
# decides, which no JSON Schema sees: an action that is not legal in the match's position
# ("422 the action is not legal"), a bot of another ruleset than the match's ("422 bot
# unknown or not for this ruleset": the schema gives the bot ids per ruleset, but the
# match is not in the body), a webhook or push endpoint whose host does not resolve, or
# is private, a push key that is not a point on P-256. The
# hooks' check refused_by_the_state_not_the_schema fails any other 422 of theirs.
[[operations]]
include-operation-id = [
    "send_action",
    "add_bot_api_v1_matches__match_id__bots_post",
    "enter_league_bot",
    "set_my_notifications_api_v1_players_me_notifications_put",
    "subscribe_api_v1_players_me_push_subscriptions_post",
]
checks.positive_data_acceptance.expected-statuses = [
    "2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx",
]
"""
"""Schemathesis's own configuration file (``schemathesis.toml``)."""


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
    limits_off = {f"rate_limit_{kind}": 0 for kind in LIMITS}
    # The bots Schemathesis seats play at once and think briefly: the machine is the tests'.
    bots = {"bot_delay_ms": 0, "bot_think_ms": 100}
    server = LiveServer(Settings(database_url=url, **limits_off, **bots)).start()
    yield server
    server.stop()
    next(databases, None)  # drops the PostgreSQL database


def new_token(server: LiveServer, name: str) -> str:
    player = httpx.post(f"{server.url}/api/v1/players", json={"name": name}, timeout=30)
    assert player.status_code == 201, player.text
    return player.json()["token"]


def schemathesis(server: LiveServer, folder: Path, token: str, seed: str, *arguments: str) -> str:
    """``schemathesis run`` against ``server`` as the player of ``token``; its report."""
    config = folder / "schemathesis.toml"
    config.write_text(CONFIG)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "schemathesis.cli",
            "--config-file",
            str(config),
            "run",
            f"{server.url}/openapi.json",
            "--checks",
            "all",
            "--header",
            f"Authorization: Bearer {token}",
            "--seed",
            seed,
            *arguments,
        ],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=folder,  # its crash cache (.schemathesis/) stays out of the worktree
    )
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-20_000:]
    # fail-on above makes them fail the run; said here too, in case a version words them anew.
    assert "Authentication failed" not in report and "only 401/403" not in report, report[-20_000:]
    return report


def operation_counts(report: str) -> tuple[int, int, int]:
    """Operations selected, in all, and tested."""
    selected = re.search(r"Selected: (\d+)/(\d+)", report)
    done = re.search(r"Tested: (\d+)", report)
    assert selected and done, report[-5_000:]
    return int(selected[1]), int(selected[2]), int(done[1])


@pytest.mark.runs_long
def test_schemathesis_finds_nothing(fresh_server, tmp_path):
    assert version("schemathesis") == SCHEMATHESIS, "the version pyproject.toml pins"
    database = fresh_server.settings.database_url.split(":")[0].split("+")[0]
    report = schemathesis(
        fresh_server,
        tmp_path,
        new_token(fresh_server, "Schemathesis"),
        SEEDS[database],
        "--max-examples",
        str(EXAMPLES_PER_OPERATION),
        "--phases",
        PHASES[database],
        "--exclude-operation-id",
        SIGN_OUT,
    )
    selected, total, done = operation_counts(report)
    assert (selected, done) == (total - 1, total - 1), "every operation but sign-out, each tested"

    # Sign-out, with a token of its own: the first case signs it out, the rest are 401s.
    report = schemathesis(
        fresh_server,
        tmp_path,
        new_token(fresh_server, "Signing out"),
        SEEDS[database],
        "--max-examples",
        "5",
        "--include-operation-id",
        SIGN_OUT,
        "--phases",
        "examples,coverage,fuzzing",  # no links lead from it: no stateful phase
    )
    assert operation_counts(report) == (1, total, 1), "and sign-out"
