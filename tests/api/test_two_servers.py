"""Two servers on one database: a server never decides on a version another server
passed: the version guard answers from the database."""

from __future__ import annotations

import httpx
import pytest

from app.config import Settings
from tests.api.helpers import start_match, view
from tests.conftest import LiveServer

pytestmark = pytest.mark.both_databases  # two processes share the database


async def first_move(client, match_id, player):
    """The player's first listed move, and the version it was listed at."""
    mine = await view(client, match_id, player)
    return next(a for a in mine["legal_actions"] if a["type"] == "move"), mine["version"]


async def test_a_server_whose_copy_is_stale_answers_from_the_database(database_url):
    one = LiveServer(Settings(database_url=database_url)).start()
    two = LiveServer(Settings(database_url=database_url)).start()
    try:
        async with (
            httpx.AsyncClient(base_url=one.url) as on_one,
            httpx.AsyncClient(base_url=two.url) as on_two,
        ):
            match, players = await start_match(on_one)
            url = f"/api/v1/matches/{match['id']}/actions"
            seat = match["to_act"][0]
            # Server one plays an action: its copy of the match is now at that version.
            move, version = await first_move(on_one, match["id"], players[seat])
            assert (
                await on_one.post(
                    url, json={"action": move, "version": version}, headers=players[seat]["headers"]
                )
            ).status_code == 200
            # Server two plays the next one: server one's copy is now stale.
            mine = await view(on_two, match["id"], players[seat])
            move, other = [a for a in mine["legal_actions"] if a["type"] == "move"][:2]
            version = mine["version"]
            assert (
                await on_two.post(
                    url, json={"action": move, "version": version}, headers=players[seat]["headers"]
                )
            ).status_code == 200
            # At the stale version, the very same action is the one already applied...
            again = await on_one.post(
                url, json={"action": move, "version": version}, headers=players[seat]["headers"]
            )
            assert again.status_code == 200 and again.json()["version"] == version + 1, "applied once"
            # ...and any other is refused as stale, not judged on server one's old copy.
            refused = await on_one.post(
                url, json={"action": other, "version": version}, headers=players[seat]["headers"]
            )
            assert refused.status_code == 409 and refused.json()["version"] == version + 1
            # And server one plays on from the database's version.
            current = await view(on_one, match["id"])
            mover = players[current["to_act"][0]]
            move, version = await first_move(on_one, match["id"], mover)
            played = await on_one.post(
                url, json={"action": move, "version": version}, headers=mover["headers"]
            )
            assert played.status_code == 200
            assert (await view(on_two, match["id"]))["version"] == version + 1
    finally:
        one.stop()
        two.stop()
