"""Real websockets: reading frames, a socket's address, watching a match, acting through an outage."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
from websockets.asyncio.client import connect

from app.rules.base import COMMON_ACTION_TYPES
from tests.api.helpers import view
from tests.conftest import LiveServer


class Viewer:
    """A spectator's socket on one server, every message it gets collected."""

    def __init__(self, server: LiveServer, match_id: str) -> None:
        self.url = f"{server.ws_url}/ws/matches/{match_id}"
        self.messages: list[dict] = []

    async def __aenter__(self) -> Viewer:
        self.socket = await connect(self.url)
        self.task = asyncio.create_task(self._read())
        await self.until(lambda m: m["type"] == "snapshot")
        return self

    async def __aexit__(self, *_exc) -> None:
        self.task.cancel()
        await self.socket.close()

    async def _read(self) -> None:
        async for raw in self.socket:
            self.messages.append(json.loads(raw))

    async def until(self, seen, timeout: float = 20) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = next((m for m in self.messages if seen(m)), None)
            if found is not None:
                return found
            await asyncio.sleep(0.02)
        raise AssertionError(f"{self.url} never got it; last messages: {self.messages[-3:]}")

    async def has_version(self, version: int) -> None:
        await self.until(lambda m: m["type"] in ("update", "snapshot") and m["version"] >= version)

    def entries(self) -> set[int]:
        """The versions of every log entry pushed to this viewer (an update may carry
        several, when two land together; a snapshot's ``missed`` after a resync)."""
        return {
            e["version"]
            for m in self.messages
            for e in m.get("entries", []) + m.get("missed", [])
            if m["type"] in ("update", "snapshot")
        }


async def wait_health(server: LiveServer, status: int, timeout: float = 20) -> dict:
    async with httpx.AsyncClient(base_url=server.url) as client:
        deadline = time.monotonic() + timeout
        while True:
            response = await client.get("/healthz")
            if response.status_code == status:
                return response.json()
            assert time.monotonic() < deadline, f"/healthz stayed {response.status_code}: {response.text}"
            await asyncio.sleep(0.05)


async def act_allowing_retries(client, match_id, players, rng) -> int:
    """Play one move. A connection the database dropped fails its request once with
    a 503 and ``Retry-After`` (each pool of the server may cost one), never a 500."""
    statuses: list[int] = []

    async def step(response: httpx.Response) -> bool:
        statuses.append(response.status_code)
        if response.status_code == 503:
            assert response.headers["retry-after"], response.text
            return False
        assert response.status_code == 200, (statuses, response.text)
        return True

    for _ in range(6):
        current = await client.get(f"/api/v1/matches/{match_id}")
        if not await step(current):
            continue
        seat = current.json()["to_act"][0]
        mine = await client.get(f"/api/v1/matches/{match_id}", headers=players[seat]["headers"])
        if not await step(mine):
            continue
        action = rng.choice([a for a in mine.json()["legal_actions"] if a["type"] == "move"])
        response = await client.post(
            f"/api/v1/matches/{match_id}/actions",
            json={"action": action, "version": mine.json()["version"]},
            headers=players[seat]["headers"],
        )
        if await step(response):
            assert statuses.count(503) <= 3, statuses
            return response.json()["version"]
    raise AssertionError(f"no retry worked: {statuses}")


async def receive(socket, kind: str | None = None, timeout: float = 10) -> dict:
    """The next frame (of type ``kind``, skipping others)."""
    while True:
        frame = json.loads(await asyncio.wait_for(socket.recv(), timeout))
        if kind is None or frame["type"] == kind:
            return frame


def socket_url(live_server, match_id: str, player: dict | None = None, **params) -> str:
    query = {**({"token": player["token"]} if player else {}), **params}
    return f"{live_server.ws_url}/ws/matches/{match_id}" + (
        "?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else ""
    )


async def until_attack(client, match, players):
    """Play moves until the player to act has an attack; returns (seat, the attack)."""
    for _ in range(400):
        current = await view(client, match["id"])
        seat = current["to_act"][0]
        mine = await view(client, match["id"], players[seat])
        attacks = [a for a in mine["legal_actions"] if a["type"] == "attack"]
        if attacks:
            return seat, attacks[0], mine["version"]
        game = [a for a in mine["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES]
        # Head for the enemy: prefer moves into the core and the inner ring.
        game.sort(key=lambda a: (a.get("to", "A")[0] != "C", a.get("to", "A")[0] != "B"))
        response = await client.post(
            f"/api/v1/matches/{match['id']}/actions",
            json={"action": game[0], "version": mine["version"]},
            headers=players[seat]["headers"],
        )
        assert response.status_code == 200
    raise AssertionError("no attack came up")
