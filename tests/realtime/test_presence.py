"""Presence: each seat shows whether its player has a websocket open now (on any
server process) and when they were last seen."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from websockets.asyncio.client import connect

from app.config import Settings
from tests.api.helpers import start_match
from tests.conftest import LiveServer
from tests.realtime.helpers import receive, socket_url

pytestmark = pytest.mark.both_databases  # presence is written by every process


async def presence(server: LiveServer, match_id: str) -> list[dict]:
    async with httpx.AsyncClient(base_url=server.url) as http:
        response = await http.get(f"/api/v1/matches/{match_id}/presence")
        assert response.status_code == 200, response.text
        return response.json()["seats"]


async def seat_shows(server: LiveServer, match_id: str, seat: int, connected: bool) -> dict:
    """The seat's presence once it shows ``connected`` (waiting out the beats)."""
    deadline = time.monotonic() + 15
    while (shown := (await presence(server, match_id))[seat])["connected"] != connected:
        assert time.monotonic() < deadline, f"seat {seat} never showed connected={connected}"
        await asyncio.sleep(0.05)
    return shown


async def test_a_seat_is_connected_while_its_socket_is_open_and_last_seen_after(database_url):
    settings = Settings(database_url=database_url, presence_beat_s=0.2)
    here, elsewhere = LiveServer(settings).start(), LiveServer(settings).start()
    try:
        async with httpx.AsyncClient(base_url=here.url) as http:
            match, players = await start_match(http)
        seats = await presence(here, match["id"])
        assert [(s["connected"], s["last_seen"]) for s in seats] == [(False, None), (False, None)]

        async with connect(socket_url(here, match["id"], players[0])) as socket:
            await receive(socket, "snapshot")
            seats = await presence(here, match["id"])  # this process holds the socket
            assert seats[0]["connected"] and seats[0]["player_id"] == players[0]["id"]
            assert not seats[1]["connected"]
            await seat_shows(elsewhere, match["id"], 0, True)  # another process reads it from the database
        gone = await seat_shows(elsewhere, match["id"], 0, False)
        assert gone["last_seen"] is not None
        assert (await presence(here, match["id"]))[1]["last_seen"] is None
    finally:
        here.stop()
        elsewhere.stop()
