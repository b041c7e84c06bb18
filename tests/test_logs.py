"""``LOG_FORMAT=json`` (app/logs.py): ``dejarik serve`` writes one JSON object a line, a
line for each request (its route's template) and for each action (its match id), and
still no credential (app/access_log.py). In a process of its own: logging is per process,
and the tests' other servers keep the text format."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

from tests.api.helpers import play_one, start_match
from tests.conftest import free_port
from tests.realtime.helpers import receive

SECRET = "s3cretS3cretS3cret"


async def test_json_logs_have_a_line_per_request_and_per_action_and_no_secret(tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'dejarik.db'}",
        "PORT": str(port),
        "LOG_FORMAT": "json",
        "PRESENCE_BEAT_S": "60",
    }
    log_file = tmp_path / "server.log"
    with log_file.open("wb") as output:
        server = subprocess.Popen(
            [str(Path(sys.executable).with_name("dejarik")), "serve"],
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            deadline = time.monotonic() + 60
            while True:
                assert server.poll() is None, log_file.read_text()
                try:
                    if (await http.get("/healthz")).status_code == 200:
                        break
                except httpx.TransportError:
                    assert time.monotonic() < deadline, "the server did not start"
                    await asyncio.sleep(0.1)
            match, players = await start_match(http)
            token = players[0]["token"]
            async with connect(f"ws://127.0.0.1:{port}/ws/matches/{match['id']}?token={token}") as socket:
                await receive(socket, "snapshot")
            seat, action, _ = await play_one(http, match["id"], players, random.Random(5))
            await http.get(f"/link/{SECRET}")
            await http.get(f"/api/v1/matches/{match['id']}?token={SECRET}")
    finally:
        server.terminate()
        server.wait(timeout=30)
    text = log_file.read_text()
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]  # every line is JSON
    assert token not in text and SECRET not in text, text
    handshake = f'"WebSocket /ws/matches/{match["id"]}?token=…"'
    assert any(handshake in line["message"] for line in lines), text
    (acted,) = [line for line in lines if line.get("event") == "action"]
    assert acted["match_id"] == match["id"] and acted["ruleset"] == "kelly"
    assert acted["seat"] == seat and acted["action"] == action["type"]
    assert acted["version"] == match["version"] + 1
    requests = {
        (line["method"], line["route"], line["status"]): line
        for line in lines
        if line.get("event") == "request"
    }
    posted = requests["POST", "/api/v1/matches/{match_id}/actions", 200]
    assert posted["client"] == "127.0.0.1" and posted["duration_ms"] >= 0
    assert requests["GET", "/link/{secret}", 410]["path"] == "/link/…"
    assert {"time", "level", "logger", "message"} <= set(posted)
