"""A restarted server resumes every bot whose turn it is (the runner's scan)."""

from __future__ import annotations

import httpx
import pytest

from app.config import Settings
from tests.bots.helpers import wait_for
from tests.conftest import LiveServer, new_player

pytestmark = pytest.mark.both_databases  # what a database keeps across a restart


async def test_a_restart_resumes_the_bot_whose_turn_it_is(database_url):
    # The first server holds the bot's move back for a minute and is stopped meanwhile.
    before = LiveServer(Settings(database_url=database_url, bot_delay_ms=60_000)).start()
    try:
        async with httpx.AsyncClient(base_url=before.url, timeout=30) as client:
            human = await new_player(client, "Poe")
            created = await client.post(
                "/api/v1/matches",
                json={"ruleset": "orbit-chess", "seat": 1, "bots": [{"seat": 0, "bot": "orbit-chess-club"}]},
                headers=human["headers"],
            )
            assert created.status_code == 201, created.text
            match = created.json()
            assert match["to_act"] == [0]  # White, the bot, moves first
    finally:
        before.stop()

    after = LiveServer(Settings(database_url=database_url, bot_delay_ms=0, bot_scan_s=0.5)).start()
    try:
        async with httpx.AsyncClient(base_url=after.url, timeout=30) as client:
            moved = await wait_for(client, match["id"], lambda v: v["to_act"] == [1], human)
            assert moved["version"] == match["version"] + 1
            log = (await client.get(f"/api/v1/matches/{match['id']}/events")).json()["events"]
            assert log[-1]["seat"] == 0 and log[-1]["action"]["type"] == "move"
    finally:
        after.stop()
