"""A dice verifier written from docs/dice.md alone (not from app/rules/dice.py), run
on a finished match of every ruleset that rolls dice, its set-up included."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import pytest

from tests.api.helpers import play_to_the_end, start_match

DICE_RULESETS = {
    "kelly": {},
    "kelly-d20": {},
    "dalsiandon": {"teams": "random"},
    "simeone": {},
    "courtier": {"first": "random"},
    "eote": {},
}


def face(seed_hex: str, n: int, sides: int, player_seeds: list[str] | None) -> int:
    message = str(n) if player_seeds is None else f"{n}:{':'.join(player_seeds)}"
    digest = hmac.new(bytes.fromhex(seed_hex), message.encode("ascii"), hashlib.sha256).digest()
    return 1 + int.from_bytes(digest, "big") % sides


def fisher_yates(items: list[Any], dice: list[dict[str, int]]) -> list[Any]:
    out = list(items)
    for i, die in zip(range(len(out) - 1, 0, -1), dice, strict=True):
        assert die["sides"] == i + 1
        j = die["face"] - 1
        out[i], out[j] = out[j], out[i]
    return out


def verify(view: dict[str, Any], log: list[dict[str, Any]]) -> int:
    """Check every die of a finished match as docs/dice.md says; returns how many."""
    dice = view["dice"]
    seed = dice["seed"]
    assert seed == view["seed"] and dice["commitment"] == view["seed_sha256"]
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == dice["commitment"]
    player_seeds = None if dice["scheme"] == "hmac-sha256-v1" else dice["player_seeds"]
    assert dice["scheme"] == "hmac-sha256-v2" and all(player_seeds), "every match made now mixes seat seeds"
    numbers = []
    for entry in log:
        for event in entry["events"]:
            if event["type"] != "roll":
                continue
            for die in event["dice"]:
                assert face(seed, die["n"], die["sides"], player_seeds) == die["face"], (
                    entry["version"],
                    die,
                )
                numbers.append(die["n"])
            if "total" in event:
                assert event["total"] == event["bonus"] + sum(d["face"] for d in event["dice"])
            if "shuffled" in event:
                assert len(fisher_yates(event["shuffled"], event["dice"])) == len(event["shuffled"])
        assert entry["dice_from"] == len(numbers) - sum(
            len(e["dice"]) for e in entry["events"] if e["type"] == "roll"
        ), "dice_from counts the dice before the entry"
    assert numbers == list(range(len(numbers))), "every die from 0 to the last, once each, in order"
    return len(numbers)


@pytest.mark.parametrize("ruleset", sorted(DICE_RULESETS))
async def test_every_die_of_a_finished_match_checks_out_from_the_docs_alone(client, ruleset):
    match, players = await start_match(client, ruleset, {"turns_without_kill": 12, **DICE_RULESETS[ruleset]})
    assert match["seed"] is None, "the seed stays secret while the match runs"
    finished = await play_to_the_end(client, match["id"], players)
    log = (await client.get(f"/api/v1/matches/{match['id']}/events")).json()["events"]
    start = next(entry for entry in log if entry["action"]["type"] == "start")
    checked, at_setup = verify(finished, log), sum(len(e.get("dice", [])) for e in start["events"])
    if ruleset == "courtier":  # its one die is the coin for the first player
        assert checked == at_setup == 1
    elif ruleset == "simeone":  # its first die is the first round's initiative
        assert checked > at_setup == 0
    else:  # the set-up's dice, then the match's own (when random play attacked at all)
        assert checked >= at_setup > 0


async def test_the_kelly_deal_is_redone_from_its_shuffles(client):
    match, _ = await start_match(client, "kelly")
    start = next(
        entry
        for entry in (await client.get(f"/api/v1/matches/{match['id']}/events")).json()["events"]
        if entry["action"]["type"] == "start"
    )
    creatures, *homes = [e for e in start["events"] if e["type"] == "roll"][:3]
    deal = next(e for e in start["events"] if e["type"] == "deal")
    kinds = fisher_yates(creatures["shuffled"], creatures["dice"])
    for home in homes:
        seat = home["seat"]
        spaces = fisher_yates(home["shuffled"], home["dice"])
        for kind, space in zip(kinds[4 * seat : 4 * seat + 4], spaces, strict=True):
            assert deal["pieces"][kind] == {"owner": seat, "at": space}
    assert [d["n"] for r in (creatures, *homes) for d in r["dice"]] == list(range(13))
