"""The Edge-of-the-Empire narrative dice against RULINGS §9."""

from __future__ import annotations

import doctest
from collections import Counter

import pytest

from app.rules import narrative_dice as nd
from app.rules.dice import Dice, die_face, verify_roll
from app.rules.narrative_dice import Pool, net, opposition_pool, roll_pool, skill_pool, symbols

# RULINGS §9, copied as written there: face 1 first.
RULINGS_FACES = {
    "boost": (6, "–, –, S, SA, AA, A"),
    "setback": (6, "–, –, F, F, T, T"),
    "ability": (8, "–, S, S, SS, A, A, SA, AA"),
    "difficulty": (8, "–, F, FF, T, T, T, TT, FT"),
    "proficiency": (12, "–, S, S, SS, SS, A, SA, SA, SA, AA, AA, Tr"),
    "challenge": (12, "–, F, F, FF, FF, T, T, FT, FT, TT, TT, De"),
}
LETTERS = {"S": "success", "F": "failure", "A": "advantage", "T": "threat"}


def _read(face: str) -> list[str]:
    if face == "–":
        return []
    if face in ("Tr", "De"):
        return ["triumph" if face == "Tr" else "despair"]
    return [LETTERS[c] for c in face]


@pytest.mark.parametrize("kind", sorted(RULINGS_FACES))
def test_every_face_shows_the_symbols_of_rulings_9(kind):
    sides, written = RULINGS_FACES[kind]
    faces = written.split(", ")
    assert nd.SIDES[kind] == sides == len(faces)
    for number, face in enumerate(faces, start=1):
        assert symbols(kind, number) == _read(face), f"{kind} face {number}"


def test_face_distributions():
    def dist(kind):
        return Counter(s for face in range(1, nd.SIDES[kind] + 1) for s in symbols(kind, face))

    assert dist("boost") == {"success": 2, "advantage": 4}
    assert dist("setback") == {"failure": 2, "threat": 2}
    assert dist("ability") == {"success": 5, "advantage": 5}
    assert dist("difficulty") == {"failure": 4, "threat": 6}
    assert dist("proficiency") == {"success": 9, "advantage": 8, "triumph": 1}
    assert dist("challenge") == {"failure": 8, "threat": 8, "despair": 1}
    blanks = {kind: sum(1 for f in range(1, nd.SIDES[kind] + 1) if not symbols(kind, f)) for kind in nd.KINDS}
    assert blanks == {
        "boost": 2,
        "setback": 2,
        "ability": 1,
        "difficulty": 1,
        "proficiency": 1,
        "challenge": 1,
    }


def test_net_results_cancel_but_keep_triumph_and_despair():
    assert net([["triumph"], ["despair"]]) == {"success": 0, "advantage": 0, "triumph": 1, "despair": 1}
    assert net([["success", "success"], ["failure"], ["threat", "threat"], ["advantage"]]) == {
        "success": 1,
        "advantage": -1,
        "triumph": 0,
        "despair": 0,
    }
    assert net([["failure", "threat"], ["despair"]])["success"] == -2


def test_skill_pool_is_max_dice_with_min_upgraded():
    assert skill_pool(4, 2) == Pool(ability=2, proficiency=2)
    assert skill_pool(2, 4) == Pool(ability=2, proficiency=2)
    assert skill_pool(3, 0) == Pool(ability=3)
    assert skill_pool(3, 3) == Pool(proficiency=3)
    assert opposition_pool(1, 3) == Pool(difficulty=2, challenge=1)


def test_upgrading_converts_then_adds_a_die():
    assert Pool(ability=1).upgrade_ability(1) == Pool(proficiency=1)
    # none left to upgrade: add an ability die; a further upgrade converts it
    assert Pool(proficiency=1).upgrade_ability(1) == Pool(ability=1, proficiency=1)
    assert Pool(proficiency=1).upgrade_ability(2) == Pool(proficiency=2)
    assert Pool(difficulty=2).upgrade_difficulty(3) == Pool(difficulty=1, challenge=2)
    assert Pool().upgrade_difficulty(1) == Pool(difficulty=1)
    assert Pool(ability=2, difficulty=2).upgrade_ability(1) == Pool(ability=1, proficiency=1, difficulty=2)
    assert Pool(ability=1, proficiency=3).describe() == "1 ability + 3 proficiency"


def test_a_roll_draws_each_die_from_the_seed_and_is_verifiable():
    seed = b"narrative"
    pool = Pool(ability=2, proficiency=1, boost=1, difficulty=1, challenge=2, setback=1)
    roll = roll_pool(Dice(seed), pool, "test", seat=0)
    assert roll["type"] == "roll" and roll["purpose"] == "test" and roll["seat"] == 0
    assert [d["kind"] for d in roll["dice"]] == pool.kinds()
    assert [d["sides"] for d in roll["dice"]] == [8, 8, 12, 6, 8, 12, 12, 6]
    assert [d["n"] for d in roll["dice"]] == list(range(8))
    for d in roll["dice"]:
        assert d["face"] == die_face(seed, d["n"], d["sides"])
        assert d["symbols"] == symbols(d["kind"], d["face"])
    assert verify_roll(seed, roll)
    assert roll["net"] == net(d["symbols"] for d in roll["dice"])
    assert roll["pool"] == pool.counts()
    assert "total" not in roll and "bonus" not in roll, "the net symbols say the result, not a sum of faces"


def test_many_rolls_follow_the_face_distribution():
    dice = Dice(b"many")
    seen = Counter()
    for _ in range(1200):
        roll = roll_pool(dice, Pool(ability=1), "sample")
        seen[roll["dice"][0]["face"]] += 1
    assert set(seen) == set(range(1, 9))
    assert all(100 < n < 200 for n in seen.values())


def test_doctests():
    from app.rules import eote

    for module in (nd, eote):
        assert doctest.testmod(module).failed == 0
