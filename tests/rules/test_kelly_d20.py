"""`kelly-d20`: DalsianDon's alternative rules of seed 003, as RULINGS §4 reads them."""

from __future__ import annotations

import pytest

from app.rules import get_ruleset
from app.rules.base import BaseOptions, IllegalAction
from app.rules.creatures import KELLY_CREATURES, KELLY_D20_DICE, secondary_die
from app.rules.dice import Dice
from app.rules.kelly import Piece
from app.rules.kelly_d20 import KellyD20State
from tests.rules.helpers import play_randomly
from tests.rules.scripted import ScriptedDice

d20 = get_ruleset("kelly-d20")


def position(pieces: dict[str, tuple[int, str]], turn: int = 0, **extra) -> KellyD20State:
    return KellyD20State(
        options=BaseOptions(),
        pieces={k: Piece(id=k, kind=k, owner=o, at=s) for k, (o, s) in pieces.items()},
        turn=turn,
        **extra,
    )


def rolls(events: list[dict]) -> list[tuple[str, list[int], int, int]]:
    return [
        (e["purpose"], [d["sides"] for d in e["dice"]], e["bonus"], e["total"])
        for e in events
        if e["type"] == "roll"
    ]


# --- the dice -------------------------------------------------------------------------

SEED_TABLE = {
    # Seed 003: "Mantellian Savrip ATT 6 +d6 DEF 6 +d6", and so on for all eight.
    "savrip": ((6, 6), (6, 6)),
    "strider": ((2, 10), (7, 4)),
    "monnok": ((6, 6), (5, 6)),
    "ngok": ((3, 8), (8, 4)),
    "ghhhk": ((4, 8), (3, 8)),
    "klorslug": ((7, 4), (3, 8)),
    "houjix": ((4, 8), (4, 8)),
    "molator": ((8, 4), (2, 10)),
}


@pytest.mark.parametrize("kind", sorted(SEED_TABLE))
def test_the_seed_table_of_ratings_and_secondary_dice(kind):
    (att, att_die), (dfn, def_die) = SEED_TABLE[kind]
    creature = KELLY_CREATURES[kind]
    assert (creature.attack, creature.defense) == (att, dfn)
    assert KELLY_D20_DICE[kind] == (att_die, def_die)
    # The table is the same as seed 004's rule "secondary die by rating".
    assert (secondary_die(att), secondary_die(dfn)) == (att_die, def_die)


def test_an_attack_rolls_rating_plus_d20_plus_the_secondary_die():
    state = position({"molator": (0, "B1"), "strider": (1, "B2")})
    # Molator attack 8 + d20 + d4; Strider defense 7 + d20 + d4.
    dice = ScriptedDice([10, 2, 5, 1])
    _, events = d20.apply(state, 0, {"type": "attack", "piece": "molator", "target": "strider"}, dice)
    assert rolls(events) == [("attack", [20, 4], 8, 20), ("defense", [20, 4], 7, 13)]


@pytest.mark.parametrize(
    ("faces", "result"),
    [
        # Molator 8 + 10 + 2 = 20 against Strider 7 + d20 + d4.
        ([10, 2, 5, 1], "kill"),  # 20 - 13 = 7
        ([10, 2, 6, 1], "push"),  # 20 - 14 = 6
        ([10, 2, 11, 2], "counter-push"),  # a tie, 20 - 20
        ([10, 2, 16, 3], "counter-push"),  # 20 - 26 = -6
        ([10, 2, 16, 4], "counter-kill"),  # 20 - 27 = -7
    ],
)
def test_the_outcome_table_boundaries(faces, result):
    state = position({"molator": (0, "B1"), "strider": (1, "B2"), "ngok": (1, "A7")})
    after, events = d20.apply(
        state, 0, {"type": "attack", "piece": "molator", "target": "strider"}, ScriptedDice(faces)
    )
    assert next(e for e in events if e["type"] == "combat")["result"] == result
    if result == "kill":
        assert after.pieces["strider"].at is None
    elif result == "counter-kill":
        assert after.pieces["molator"].at is None
    elif result == "push":
        assert after.push.chooser == 0 and after.push.piece == "strider"
    else:
        assert after.push.chooser == 1 and after.push.piece == "molator"


@pytest.mark.parametrize(
    ("kind", "pool"),
    [
        ("strider", (7, (20, 4))),  # defense 7 is higher: 7 + d20 + d4
        ("molator", (8, (20, 4))),  # attack 8: 8 + d20 + d4
        ("ngok", (8, (20, 4))),
        ("ghhhk", (4, (20, 8))),
        ("savrip", (6, (20, 6))),
        ("houjix", (4, (20, 8))),
    ],
)
def test_to_the_death_uses_the_higher_rating_with_its_own_die(kind, pool):
    got = d20.to_the_death_pool(position({}), Piece(id=kind, kind=kind, owner=0, at="C"))
    assert (got.bonus, got.sides) == pool


def test_to_the_death_is_fought_with_those_pools():
    # Blue has only the Molator; when it kills the Houjix, each side has one piece left.
    state = position({"molator": (0, "B1"), "houjix": (1, "B2"), "strider": (1, "A7")})
    # The kill: 8 + 20 + 4 = 32 against 4 + 1 + 1 = 6. Then To-The-Death: the Molator
    # rolls 8 + 1 + 1 = 10, the Strider 7 + 20 + 4 = 31: a counter-kill.
    dice = ScriptedDice([20, 4, 1, 1, 1, 1, 20, 4])
    after, events = d20.apply(state, 0, {"type": "attack", "piece": "molator", "target": "houjix"}, dice)
    fight = [r for r in rolls(events) if r[0] == "to the death"]
    assert fight == [("to the death", [20, 4], 8, 10), ("to the death", [20, 4], 7, 31)]
    assert after.pieces["molator"].at is None and after.pieces["strider"].at == "C"
    assert after.result.winner == 1 and "To-The-Death" in after.result.reason


# --- holding the core -----------------------------------------------------------------


def shuffle_turn(state, seat, piece, there, back):
    """Two moves of ``piece`` out and back: a turn that attacks nobody."""
    state, _ = d20.apply(state, seat, {"type": "move", "piece": piece, "to": there}, Dice(b"x"))
    state, events = d20.apply(state, seat, {"type": "move", "piece": piece, "to": back}, Dice(b"x"))
    return state, events


def test_three_own_turns_ending_on_the_core_win():
    state = position({"houjix": (0, "C"), "ngok": (0, "A1"), "strider": (1, "A7"), "molator": (1, "A9")})
    for turn in range(1, 3):
        state, _ = shuffle_turn(state, 0, "ngok", "A2", "A1")
        assert d20.view(state, None)["centre_hold"] == [turn, 0]
        state, _ = shuffle_turn(state, 1, "molator", "A11", "A9")
        assert state.result is None
    state, events = shuffle_turn(state, 0, "ngok", "A2", "A1")
    assert state.result.winner == 0 and "core" in state.result.reason
    assert {"type": "centre_hold", "seat": 0, "turns": 3} in events
    view = d20.view(state, 1)
    assert view["centre_hold"] == [3, 0] and view["centre_hold_to_win"] == 3


def test_an_attack_on_any_of_the_holders_pieces_breaks_the_hold():
    state = position(
        {
            "houjix": (0, "C"),
            "ngok": (0, "A1"),
            "savrip": (0, "A4"),
            "strider": (1, "A7"),
            "molator": (1, "A5"),
        }
    )
    state, _ = shuffle_turn(state, 0, "ngok", "A2", "A1")
    state, _ = shuffle_turn(state, 1, "strider", "A8", "A7")
    state, _ = shuffle_turn(state, 0, "ngok", "A2", "A1")
    assert state.centre_hold == [2, 0]
    # Red's Molator attacks the Savrip (not the piece on the core): the hold is broken.
    # Molator 8 + 1 + 1 = 10 against Savrip 6 + 1 + 1 = 8: a push.
    state, events = d20.apply(
        state, 1, {"type": "attack", "piece": "molator", "target": "savrip"}, ScriptedDice([1, 1, 1, 1])
    )
    assert {"type": "centre_hold", "seat": 0, "turns": 0, "broken_by": "molator"} in events
    assert state.centre_hold == [0, 0]
    state, _ = d20.apply(state, 1, {"type": "push", "piece": "savrip", "to": "B4"}, Dice(b"x"))
    state, _ = d20.apply(state, 1, {"type": "move", "piece": "strider", "to": "A8"}, Dice(b"x"))
    for turn in (1, 2):
        state, _ = shuffle_turn(state, 0, "ngok", "A2", "A1")
        assert state.centre_hold[0] == turn and state.result is None
        state, _ = shuffle_turn(state, 1, "strider", "A7", "A8")
    state, _ = shuffle_turn(state, 0, "ngok", "A2", "A1")
    assert state.result.winner == 0


def test_leaving_the_core_starts_the_count_again_and_own_attacks_do_not_break_it():
    state = position({"houjix": (0, "C"), "ngok": (0, "A1"), "strider": (1, "A7"), "molator": (1, "B12")})
    state, _ = shuffle_turn(state, 0, "ngok", "A2", "A1")
    assert state.centre_hold == [1, 0]
    # Red's own turn: no attack on Blue.
    state, _ = shuffle_turn(state, 1, "strider", "A8", "A7")
    # Blue's Houjix attacks the Molator on B12: Blue's own attack does not break Blue's hold.
    # Houjix 4 + 10 + 8 = 22 against Molator 2 + 1 + 1 = 4: a kill.
    state, _ = d20.apply(
        state, 0, {"type": "attack", "piece": "houjix", "target": "molator"}, ScriptedDice([10, 8, 1, 1])
    )
    assert state.centre_hold == [1, 0]
    # The Houjix steps off the core and ends the turn off it: the count is reset.
    state, _ = d20.apply(state, 0, {"type": "move", "piece": "houjix", "to": "B1"}, Dice(b"x"))
    assert state.centre_hold == [0, 0]


def test_kelly_d20_refuses_unknown_options_naming_them():
    with pytest.raises(ValueError, match="rays_of_death"):
        d20.options({"rays_of_death": True})
    with pytest.raises(IllegalAction):
        d20.apply(position({"molator": (0, "B1"), "strider": (1, "B2")}), 1, {"type": "move"}, Dice(b"x"))


def test_seeded_games_play_to_a_finish_and_some_are_won_on_the_core():
    reasons = []
    for game in range(40):
        _, _, states = play_randomly(d20, 1000 + game)
        assert d20.outcome(states[-1]) is not None
        reasons.append(d20.outcome(states[-1]).reason)
    assert any("destroyed" in r or "To-The-Death" in r for r in reasons)
