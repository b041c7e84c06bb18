"""Small clients that play through the public API only, as a REST bot would."""

from __future__ import annotations

import asyncio
import hashlib
import random
import time
from typing import Any

import asyncpg
import httpx

from app.rules import get_ruleset
from app.rules.base import COMMON_ACTION_TYPES
from app.rules.log import match_dice
from app.services import matches
from tests.conftest import new_player


async def start_match(client: httpx.AsyncClient, ruleset: str = "kelly", options: dict | None = None):
    """Two players, a match between them, started. Returns (match view, [player0, player1])."""
    blue, red = await new_player(client, "Chewie"), await new_player(client, "R2-D2")
    created = await client.post(
        "/api/v1/matches",
        json={"ruleset": ruleset, "options": options or {}, "seat": 0},
        headers=blue["headers"],
    )
    assert created.status_code == 201, created.text
    joined = await client.post(f"/api/v1/matches/{created.json()['id']}/join", headers=red["headers"])
    assert joined.status_code == 200, joined.text
    return joined.json(), [blue, red]


async def view(client: httpx.AsyncClient, match_id: str, player: dict | None = None) -> dict[str, Any]:
    response = await client.get(f"/api/v1/matches/{match_id}", headers=player["headers"] if player else {})
    assert response.status_code == 200, response.text
    return response.json()


async def play_one(client: httpx.AsyncClient, match_id: str, players: list[dict], rng: random.Random):
    """The seat to act plays a random legal game action. Returns (seat, action, response)."""
    current = await view(client, match_id)
    seat = rng.choice(current["to_act"])
    mine = await view(client, match_id, players[seat])
    return seat, *(await act_at_random(client, match_id, players[seat], mine, rng))


async def act_at_random(
    client: httpx.AsyncClient, match_id: str, player: dict, mine: dict, rng: random.Random
) -> tuple[dict, httpx.Response]:
    """``player`` plays a random legal game action of ``mine``, the match as they see it."""
    action = rng.choice([a for a in mine["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES])
    response = await client.post(
        f"/api/v1/matches/{match_id}/actions",
        json={"action": action, "version": mine["version"]},
        headers=player["headers"],
    )
    assert response.status_code == 200, response.text
    return action, response


async def play_to_the_end(client: httpx.AsyncClient, match_id: str, players: list[dict], seed: int = 1):
    """Random legal game actions until the match is finished; the finished match's view.
    The same game as :func:`play_one` in a loop, in half the requests: the first seat's view
    says whose turn it is, and is that seat's own when it is theirs."""
    rng = random.Random(seed)
    for _ in range(5000):
        first = await view(client, match_id, players[0])
        if first["status"] == "finished":
            return await view(client, match_id)
        seat = rng.choice(first["to_act"])
        mine = first if seat == 0 else await view(client, match_id, players[seat])
        await act_at_random(client, match_id, players[seat], mine, rng)
    raise AssertionError("the match did not finish")


PLAYER_SEED = "5eed" * 16
"""Every seat's own dice seed in a match made by :func:`dice_for_a_reroll`."""


def dice_for_a_reroll(monkeypatch: Any, options: dict[str, Any]) -> str:
    """Have the next eote matches deal dice with which seat 0's initial ranks check fails
    with a re-roll offered, whatever difficulty it picks (a bot's pick too).

    The dice stay the match's seeded source, untouched: only the server's secret seed
    (and each seat's own seed, :data:`PLAYER_SEED`) is chosen, as one the rules say
    qualifies. The server runs in this process, so the patch reaches it. Returns the
    server's seed (hex), to check every die against."""
    ruleset = get_ruleset("eote")

    def qualifies(seed: str) -> bool:
        dice = match_dice(seed, 0, [PLAYER_SEED] * 2)
        state, _ = ruleset.start(ruleset.options(options), dice, gm=True)
        for difficulty in range(1, 6):
            check = {"type": "choose_difficulty", "difficulty": difficulty}
            after, _ = ruleset.apply(state, 0, check, match_dice(seed, dice.count, [PLAYER_SEED] * 2))
            if after.ranks is None or after.ranks.seat != 0 or after.ranks.step != "reroll":
                return False
        return True

    seed = next(s for s in (hashlib.sha256(b"%d" % n).hexdigest() for n in range(10_000)) if qualifies(s))
    monkeypatch.setattr(matches, "new_seed", lambda: bytes.fromhex(seed))
    monkeypatch.setattr(matches, "new_player_seed", lambda: PLAYER_SEED)
    return seed


class Table:
    """A GM, two players and a GM-run match between them."""

    def __init__(self, client, match, host, players):
        self.client, self.id, self.host, self.players = client, match["id"], host, players

    @classmethod
    async def open(cls, client, ruleset: str = "kelly", options: dict | None = None):
        host = await new_player(client, "The GM")
        created = await client.post(
            "/api/v1/matches",
            json={"ruleset": ruleset, "options": options or {}, "seat": None},
            headers=host["headers"],
        )
        assert created.status_code == 201
        players = [await new_player(client, "Kyla"), await new_player(client, "Dorn")]
        for seat, player in enumerate(players):
            joined = await client.post(
                f"/api/v1/matches/{created.json()['id']}/join", json={"seat": seat}, headers=player["headers"]
            )
            assert joined.status_code == 200
        return cls(client, created.json(), host, players)

    async def view(self, who=None):
        return await view(self.client, self.id, who)

    async def control(self, kind: str, **fields):
        """The GM's control of this type, sent back verbatim. Returns the response."""
        mine = await self.view(self.host)
        control = next(a for a in mine["legal_actions"] if a["type"] == kind and fields.items() <= a.items())
        return await self.send(self.host, control, mine["version"])

    async def send(self, who, action, version=None):
        version = (await self.view())["version"] if version is None else version
        return await self.client.post(
            f"/api/v1/matches/{self.id}/actions",
            json={"action": action, "version": version},
            headers=who["headers"],
        )

    async def play(self, rng=None, kind=None):
        """The seat to act plays a (random, or the first of ``kind``) game action."""
        current = await self.view()
        seat = current["to_act"][0]
        mine = await self.view(self.players[seat])
        options = [
            a
            for a in mine["legal_actions"]
            if a["type"] not in COMMON_ACTION_TYPES and (kind is None or a["type"] == kind)
        ]
        action = (rng or random.Random(1)).choice(options)
        response = await self.send(self.players[seat], action, mine["version"])
        assert response.status_code == 200, response.text
        return seat, action, response.json()


async def finish_by_resigning(client, match: dict, players: list[dict]) -> dict:
    current = await view(client, match["id"])
    resigned = await client.post(
        f"/api/v1/matches/{match['id']}/actions",
        json={"action": {"type": "resign"}, "version": current["version"]},
        headers=players[1]["headers"],
    )
    assert resigned.status_code == 200, resigned.text
    return await view(client, match["id"])


async def drop_server_connections(database_url: str) -> int:
    dsn = database_url.replace("postgresql+asyncpg://", "postgresql://")
    connection = await asyncpg.connect(dsn)
    try:
        return len(
            await connection.fetch(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        )
    finally:
        await connection.close()


async def say(client, match_id: str, player: dict, text: str, channel: str = "players") -> httpx.Response:
    return await client.post(
        f"/api/v1/matches/{match_id}/chat", json={"text": text, "channel": channel}, headers=player["headers"]
    )


async def clear_of_the_minute_s_turn() -> None:
    """Start a burst at least 8 s before the clock's minute turns: there, the sliding window
    counter weighs the last minute's count down and may let one more through at once
    (app/api/limits.py; tests/api/test_limits.py tests that arithmetic on a clock of its own)."""
    if (into := time.time() % 60) > 52:
        await asyncio.sleep(60.5 - into)
