"""Exact attack odds: convolution of the dice with fractions (app/rules/odds.py)."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

import pytest

from app.rules import get_ruleset
from app.rules.base import BaseOptions
from app.rules.creatures import KELLY_CREATURES, KELLY_D20_DICE, secondary_die
from app.rules.dice import Dice
from app.rules.kelly import KellyState, Piece
from app.rules.odds import (
    KELLY_WORDS,
    RESULTS,
    Pool,
    attack_odds,
    classify,
    death_push,
    distribution,
    odds_for,
)

F = Fraction


def kelly_pools():
    for a, d in product(KELLY_CREATURES.values(), repeat=2):
        yield Pool(0, (6,) * a.attack), Pool(0, (6,) * d.defense)


def d20_pools():
    for a, d in product(KELLY_CREATURES, repeat=2):
        yield (
            Pool(KELLY_CREATURES[a].attack, (20, KELLY_D20_DICE[a][0])),
            Pool(KELLY_CREATURES[d].defense, (20, KELLY_D20_DICE[d][1])),
        )


def dalsiandon_pools(main: tuple[int, ...]):
    for a, d in product(KELLY_CREATURES.values(), repeat=2):
        yield (
            Pool(a.attack, (*main, secondary_die(a.attack))),
            Pool(d.defense, (*main, secondary_die(d.defense))),
        )


ALL_POOLS = [*kelly_pools(), *d20_pools(), *dalsiandon_pools((10, 10)), *dalsiandon_pools((20,))]


def test_the_four_results_sum_to_exactly_one_for_every_pairing():
    assert len(ALL_POOLS) == 4 * 64
    for attack, defense in ALL_POOLS:
        odds = attack_odds(attack, defense)
        assert tuple(odds) == RESULTS
        assert sum(odds.values()) == 1
        assert all(isinstance(p, Fraction) and 0 <= p <= 1 for p in odds.values())


def test_a_distribution_is_exact():
    assert distribution(Pool(0, (6,))) == {face: F(1, 6) for face in range(1, 7)}
    two_d6 = distribution(Pool(2, (6, 6)))
    assert two_d6[2 + 7] == F(6, 36) and two_d6[2 + 2] == F(1, 36) and two_d6[2 + 12] == F(1, 36)
    assert sum(two_d6.values()) == 1


# --- values worked out by hand ------------------------------------------------------


def test_one_d6_against_one_d6():
    # Differences run -5..5: never a kill nor a counter-kill. The attacker's die is higher
    # in 15 of 36 throws (push); a tie or lower is a counter-push (21 of 36).
    assert attack_odds(Pool(0, (6,)), Pool(0, (6,))) == {
        "kill": 0,
        "push": F(15, 36),
        "counter-push": F(21, 36),
        "counter-kill": 0,
    }


def test_a_rating_of_seven_more_kills_whenever_the_die_is_not_lower():
    # 7 + d6 against d6: a kill when the attack die >= the defense die (21 of 36),
    # otherwise the difference is 1..6: a push.
    assert attack_odds(Pool(7, (6,)), Pool(0, (6,))) == {
        "kill": F(7, 12),
        "push": F(5, 12),
        "counter-push": 0,
        "counter-kill": 0,
    }


def test_d20_against_d20():
    # a - d >= 7 happens in 13 + 12 + ... + 1 = 91 of 400 throws; 1..6 in 19 + ... + 14 = 99;
    # -6..0 in 20 + 99 = 119; <= -7 again 91.
    assert attack_odds(Pool(0, (20,)), Pool(0, (20,))) == {
        "kill": F(91, 400),
        "push": F(99, 400),
        "counter-push": F(119, 400),
        "counter-kill": F(91, 400),
    }
    # Seven points ahead, a kill is any throw where the attack die is not lower: 210 of 400.
    assert attack_odds(Pool(7, (20,)), Pool(0, (20,)))["kill"] == F(21, 40)


def test_two_coins_against_one():
    # 5 + two coins against one coin, 8 throws. The coins sum to 2, 3, 3, 4; less the
    # defender's 1 or 2 that is 1, 2, 2, 3 or 0, 1, 1, 2; plus 5: 6, 7, 7, 8 and 5, 6, 6, 7.
    # Four throws reach 7 (kill), the other four are 5 or 6 (push).
    odds = attack_odds(Pool(5, (2, 2)), Pool(0, (2,)))
    assert odds == {"kill": F(4, 8), "push": F(4, 8), "counter-push": 0, "counter-kill": 0}


def test_the_entry_shows_each_outcome_with_its_float_exact_fraction_and_words():
    entry = odds_for(attack_odds(Pool(0, (20,)), Pool(0, (20,))), KELLY_WORDS, "Molator", "Ng'ok")
    assert entry == {
        "outcomes": [
            {"key": "kill", "probability": 0.2275, "exact": "91/400", "text": "Ng'ok is killed"},
            {"key": "push", "probability": 0.2475, "exact": "99/400", "text": "Ng'ok is pushed"},
            {
                "key": "counter-push",
                "probability": 0.2975,
                "exact": "119/400",
                "text": "Molator is pushed back",
            },
            {"key": "counter-kill", "probability": 0.2275, "exact": "91/400", "text": "Molator is killed"},
        ]
    }


def test_a_death_push_adds_the_push_to_the_kill():
    chances = death_push({"kill": F(1, 4), "push": F(1, 2), "counter-push": F(1, 8), "counter-kill": F(1, 8)})
    assert chances == {"kill": F(3, 4), "counter-push": F(1, 8), "counter-kill": F(1, 8)}


def test_the_order_of_the_dice_does_not_matter():
    assert attack_odds(Pool(3, (20, 4)), Pool(2, (10, 6))) == attack_odds(Pool(3, (4, 20)), Pool(2, (6, 10)))


# --- the odds in legal_actions ------------------------------------------------------


@pytest.mark.parametrize("ruleset_id", ["kelly", "kelly-d20", "dalsiandon"])
def test_every_attack_in_legal_actions_carries_its_exact_odds(ruleset_id):
    ruleset = get_ruleset(ruleset_id)
    pieces = {
        "molator": Piece(id="molator", kind="molator", owner=0, at="B1"),
        "strider": Piece(id="strider", kind="strider", owner=1, at="B2"),
        "ngok": Piece(id="ngok", kind="ngok", owner=1, at="C"),
    }
    state = ruleset.state_type(options=ruleset.options(None), pieces=pieces, turn=0)
    attacks = [a for a in ruleset.legal_actions(state, 0) if a["type"] == "attack"]
    assert {a["target"] for a in attacks} == {"strider", "ngok"}
    for action in attacks:
        pools = ruleset.attack_pools(state, pieces["molator"], pieces[action["target"]])
        exact = attack_odds(*pools)
        outcomes = action["odds"]["outcomes"]
        assert [o["key"] for o in outcomes] == list(RESULTS)
        assert {o["key"]: o["exact"] for o in outcomes} == {r: str(p) for r, p in exact.items()}
        assert sum(F(o["exact"]) for o in outcomes) == 1
        assert all(math.isclose(o["probability"], float(exact[o["key"]]), abs_tol=5e-5) for o in outcomes)
        target = "Kintan Strider" if action["target"] == "strider" else "Ng'ok"
        assert [o["text"] for o in outcomes] == [
            f"{target} is killed",
            f"{target} is pushed",
            "Molator is pushed back",
            "Molator is killed",
        ]
    # The odds are for the player's information: the action matches without them.
    bare = {k: v for k, v in attacks[0].items() if k != "odds"}
    _, events = ruleset.apply(state, 0, bare, Dice(b"odds"))
    assert any(e["type"] == "combat" for e in events)


def test_kelly_molator_against_strider_in_legal_actions():
    # 8d6 against 7d6 in kelly: a sanity check against a direct (slow) convolution.
    kelly = get_ruleset("kelly")
    state = KellyState(
        options=BaseOptions(),
        pieces={
            "molator": Piece(id="molator", kind="molator", owner=0, at="B1"),
            "strider": Piece(id="strider", kind="strider", owner=1, at="B2"),
        },
    )
    (attack,) = [a for a in kelly.legal_actions(state, 0) if a["type"] == "attack"]
    ways = dict.fromkeys(RESULTS, 0)
    four = {}
    for faces in product(range(1, 7), repeat=4):
        four[sum(faces)] = four.get(sum(faces), 0) + 1
    eight = {}
    for s1, w1 in four.items():
        for s2, w2 in four.items():
            eight[s1 + s2] = eight.get(s1 + s2, 0) + w1 * w2
    three = {}
    for faces in product(range(1, 7), repeat=3):
        three[sum(faces)] = three.get(sum(faces), 0) + 1
    seven = {}
    for s1, w1 in four.items():
        for s2, w2 in three.items():
            seven[s1 + s2] = seven.get(s1 + s2, 0) + w1 * w2
    for a, wa in eight.items():
        for d, wd in seven.items():
            ways[classify(a - d)] += wa * wd
    assert {o["key"]: o["exact"] for o in attack["odds"]["outcomes"]} == {
        r: str(F(n, 6**15)) for r, n in ways.items()
    }


# --- against the real dice ------------------------------------------------------------


def test_odds_agree_with_a_hundred_thousand_real_rolls():
    # kelly-d20's Molator (8 + d20 + d4) attacks the Strider (7 + d20 + d4).
    attack, defense = Pool(8, (20, 4)), Pool(7, (20, 4))
    odds = attack_odds(attack, defense)
    dice = Dice(b"odds against the real dice")
    n = 100_000
    counts = dict.fromkeys(RESULTS, 0)
    for _ in range(n):
        a = attack.bonus + sum(dice.die(s)["face"] for s in attack.sides)
        d = defense.bonus + sum(dice.die(s)["face"] for s in defense.sides)
        counts[classify(a - d)] += 1
    for result, p in odds.items():
        sigma = math.sqrt(float(p) * (1 - float(p)) / n)
        assert abs(counts[result] / n - float(p)) < 5 * sigma + 1e-9, (result, counts[result] / n, float(p))
