"""``dejarik verify <match url>`` against a live server: every die of a finished
match of every dice ruleset recomputed, for both dice schemes, and a lying server caught."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from app.verify import check_dice
from tests.api.helpers import play_to_the_end, start_match
from tests.conftest import new_player

DICE_RULESETS = ("kelly", "kelly-d20", "dalsiandon", "simeone", "eote")


async def run_verify(url: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "app.cli", "verify", url]
    return await asyncio.to_thread(subprocess.run, command, capture_output=True, text=True, timeout=120)


def dice_in(log: list[dict]) -> int:
    return sum(len(e["dice"]) for entry in log for e in entry["events"] if e["type"] == "roll")


@pytest.mark.parametrize("ruleset", DICE_RULESETS)
async def test_every_die_of_a_finished_match_checks_out(client, live_server, ruleset):
    match, players = await start_match(client, ruleset, {"turns_without_kill": 12})
    finished = await play_to_the_end(client, match["id"], players)
    assert finished["dice"]["scheme"] == "hmac-sha256-v2"
    log = (await client.get(f"/api/v1/matches/{match['id']}/events")).json()["events"]
    done = await run_verify(f"{live_server.url}/matches/{match['id']}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"checked {dice_in(log)} dice" in done.stdout and dice_in(log) > 0
    assert "hmac-sha256-v2" in done.stdout and "every one matches" in done.stdout


@pytest.mark.runs_long
async def test_a_match_made_before_player_seeds_still_verifies(client, live_server):
    blue, red = await new_player(client, "Old"), await new_player(client, "Timer")
    created = await client.post(
        "/api/v1/matches",
        json={"ruleset": "kelly", "seat": 0, "options": {"turns_without_kill": 12}},
        headers=blue["headers"],
    )
    match_id = created.json()["id"]
    # What migration 0006 leaves of a match made before it: scheme v1, no seats' seeds.
    engine = create_async_engine(live_server.settings.database_url)
    async with engine.begin() as connection:
        await connection.execute(
            text("UPDATE matches SET dice_scheme = 'hmac-sha256-v1' WHERE id = :id"), {"id": match_id}
        )
        await connection.execute(
            text("UPDATE seats SET seed = NULL WHERE match_seq = (SELECT seq FROM matches WHERE id = :id)"),
            {"id": match_id},
        )
    await engine.dispose()
    await client.post(f"/api/v1/matches/{match_id}/join", headers=red["headers"])
    finished = await play_to_the_end(client, match_id, [blue, red])
    assert finished["dice"]["scheme"] == "hmac-sha256-v1" and finished["dice"]["player_seeds"] == []
    done = await run_verify(f"{live_server.url}/api/v1/matches/{match_id}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "hmac-sha256-v1" in done.stdout and "every one matches" in done.stdout


class LyingServer:
    """Serves a finished match with one die's face changed."""

    def __init__(self, match: dict, log: list[dict]) -> None:
        routes = {f"/api/v1/matches/{match['id']}": match}

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = self.path.split("?")[0]
                after = int(self.path.partition("after=")[2] or 0)
                body = routes.get(path) or {"events": log[after:]}
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


async def test_a_changed_die_is_a_mismatch_and_a_running_match_cannot_be_checked(client, live_server):
    match, players = await start_match(client, "kelly-d20", {"turns_without_kill": 12})
    running = await run_verify(f"{live_server.url}/matches/{match['id']}")
    assert running.returncode == 2 and "not finished" in running.stderr
    finished = await play_to_the_end(client, match["id"], players)
    log = (await client.get(f"/api/v1/matches/{match['id']}/events")).json()["events"]
    assert check_dice(finished, log).ok
    roll = next(e for entry in reversed(log) for e in entry["events"] if e["type"] == "roll" and e["dice"])
    die = roll["dice"][0]
    die["face"] = die["face"] % die["sides"] + 1  # another face
    roll["total"] = roll.get("bonus", 0) + sum(d["face"] for d in roll["dice"])  # a consistent lie
    liar = LyingServer(finished, log)
    try:
        caught = await run_verify(f"{liar.url}/matches/{match['id']}")
    finally:
        liar.server.shutdown()
    assert caught.returncode == 1, caught.stdout + caught.stderr
    assert f"die {die['n']}: shows {die['face']}" in caught.stdout
