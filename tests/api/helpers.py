"""Small clients that play through the public API only, as a REST bot would."""

from __future__ import annotations

import hashlib
import random
from typing import Any

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
    action = rng.choice([a for a in mine["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES])
    response = await client.post(
        f"/api/v1/matches/{match_id}/actions",
        json={"action": action, "version": mine["version"]},
        headers=players[seat]["headers"],
    )
    assert response.status_code == 200, response.text
    return seat, action, response


async def play_to_the_end(client: httpx.AsyncClient, match_id: str, players: list[dict], seed: int = 1):
    rng = random.Random(seed)
    for _ in range(5000):
        if (await view(client, match_id))["status"] == "finished":
            return await view(client, match_id)
        await play_one(client, match_id, players, rng)
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
