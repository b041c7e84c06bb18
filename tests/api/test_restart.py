"""Stopping and restarting the server keeps every match, its version and its state."""

from __future__ import annotations

import random

import httpx
import pytest

from app.config import Settings
from tests.api.helpers import play_one, start_match, view
from tests.conftest import LiveServer

pytestmark = pytest.mark.both_databases  # what a database keeps across a restart


async def test_a_restart_keeps_matches_versions_and_state(database_url):
    before = LiveServer(Settings(database_url=database_url)).start()
    try:
        async with httpx.AsyncClient(base_url=before.url) as client:
            match, players = await start_match(client)
            rng = random.Random(5)
            for _ in range(6):
                await play_one(client, match["id"], players, rng)
            seen = await view(client, match["id"], players[0])
    finally:
        before.stop()

    after = LiveServer(Settings(database_url=database_url)).start()
    try:
        async with httpx.AsyncClient(base_url=after.url) as client:
            again = await view(client, match["id"], players[0])
            assert again["version"] == seen["version"] == match["version"] + 6
            assert again["state"] == seen["state"] and again["legal_actions"] == seen["legal_actions"]
            await play_one(client, match["id"], players, rng)  # and play goes on
            assert (await view(client, match["id"]))["version"] == seen["version"] + 1
    finally:
        after.stop()
