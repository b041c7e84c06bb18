"""`eote` (RULINGS §9, seed 000): the seed's own examples and the rulings on top.

Faces used below (1-based, RULINGS §9): ability 1 –, 2 S, 4 SS, 5 A, 7 SA, 8 AA;
difficulty 1 –, 2 F, 3 FF, 4 T, 7 TT, 8 FT; proficiency 12 Tr; challenge 12 De.
"""

from __future__ import annotations

import json
import random

import pytest
from pydantic import ValidationError

from app.rules import registry
from app.rules.base import COMMON_ACTION_TYPES, IllegalAction
from app.rules.dice import Dice, verify_roll
from app.rules.eote import Eote, EoteState, attack_pool, defence_pool, limit
from app.rules.log import Entry, replay
from app.rules.narrative_dice import Pool, symbols

R = Eote()


class Scripted(Dice):
    """Dice that show the given faces in order (and fail the test if one is left over)."""

    def __init__(self, faces) -> None:
        super().__init__(b"scripted")
        self.faces = list(faces)

    def die(self, sides: int) -> dict[str, int]:
        assert self.faces, f"an unexpected d{sides} was rolled"
        face = self.faces.pop(0)
        assert 1 <= face <= sides
        rolled = {"sides": sides, "face": face, "n": self.count}
        self.count += 1
        return rolled


def start(options=None, first=0) -> EoteState:
    state, events = R.new_game(R.options(options), Scripted([first + 1]))
    assert events[1] == {"type": "first_attacker", "seat": first}
    return state


def act(state, seat, action, *faces):
    dice = Scripted(faces)
    state, events = R.apply(state, seat, action, dice)
    assert not dice.faces, "every scripted face is used"
    return state, events


def set_pieces(state, counts):
    """Both characters set ``counts[seat]`` pieces, in the order the round asks."""
    while state.step == "setting":
        seat = R.to_act(state)[0]
        for _ in range(counts[seat]):
            state, _ = act(state, seat, {"type": "set_piece"})
        state, _ = act(state, seat, {"type": "done_setting"})
    return state


def play_round_to_roll(state, counts, faces, defence="secondary", attack="secondary"):
    """Set, announce, and roll with the given faces; returns the state and the roll's events."""
    state = set_pieces(state, counts)
    defender = 1 - state.attacker
    state, _ = act(state, defender, {"type": "defence", "mode": defence})
    return act(state, state.attacker, {"type": "attack", "mode": attack}, *faces)


def spend(state, effect, pay):
    return act(state, R.to_act(state)[0], {"type": "spend", "effect": effect, "pay": pay})


def spend_options(state):
    return {
        (a["effect"], a["pay"]) for a in R.legal_actions(state, R.to_act(state)[0]) if a["type"] == "spend"
    }


# --- the seed's pool examples -----------------------------------------------------------


def test_seed_primary_attack_example():
    # INTELLECT 4, 2 ranks in Dejarik Attack, sets one piece: 2 ability + 2 proficiency
    # upgraded once, i.e. 1 ability and 3 proficiency.
    assert attack_pool("primary", 4, 2, 2, 0) == Pool(ability=2, proficiency=2)
    assert attack_pool("primary", 4, 2, 2, 1) == Pool(ability=1, proficiency=3)


def test_seed_secondary_attack_example():
    # WILL 2, sets 3 pieces: 3 ability dice upgraded twice: 1 ability, 2 proficiency.
    # Intellect and ranks play no part.
    assert attack_pool("secondary", 6, 2, 5, 3) == Pool(ability=1, proficiency=2)
    assert attack_pool("secondary", 1, 3, 0, 0) == Pool(ability=3)


def test_seed_primary_defence_example():
    # CUNNING 1, 3 ranks in Dejarik Defence, sets 2: 2 difficulty + 1 challenge
    # upgraded twice, i.e. 3 challenge.
    assert defence_pool("primary", 1, 2, 3, 0) == Pool(difficulty=2, challenge=1)
    assert defence_pool("primary", 1, 2, 3, 2) == Pool(challenge=3)


def test_secondary_defence_rule():
    # max(PRESENCE, pieces set) difficulty dice upgraded min(...) times; ranks do not apply.
    assert defence_pool("secondary", 5, 2, 5, 3) == Pool(difficulty=1, challenge=2)
    assert defence_pool("secondary", 1, 4, 0, 1) == Pool(difficulty=3, challenge=1)


def test_the_seed_examples_as_played_at_the_table():
    options = {
        "sheets": [
            {"intellect": 4, "dejarik_attack": 2, "willpower": 2},
            {"cunning": 1, "dejarik_defence": 3},
        ]
    }
    state = start(options)
    state = set_pieces(state, {0: 1, 1: 2})
    labels = {a["mode"]: a["label"] for a in R.legal_actions(state, 1) if a["type"] == "defence"}
    assert labels["primary"].endswith("3 challenge")
    assert R.view(state, 0)["pool_preview"]["primary"] == Pool(challenge=3).counts()
    state, _ = act(state, 1, {"type": "defence", "mode": "primary"})
    assert R.view(state, 1)["pool_preview"]["primary"] == Pool(ability=1, proficiency=3, challenge=3).counts()
    assert R.round_pool(state, "primary") == Pool(ability=1, proficiency=3, challenge=3)
    assert R.round_pool(state, "secondary") == Pool(ability=1, proficiency=1, challenge=3)


# --- options ----------------------------------------------------------------------------


def test_sheets_default_and_out_of_range_values_are_refused_naming_the_field():
    options = R.options(None)
    assert [s.intellect for s in options.sheets] == [2, 2]
    assert options.sheets[0].strain_threshold == 12
    assert options.initial_ranks_check is False
    for bad, field in (
        ({"sheets": [{"intellect": 7}, {}]}, "sheets.0.intellect"),
        ({"sheets": [{}, {"presence": 0}]}, "sheets.1.presence"),
        ({"sheets": [{}, {"dejarik_defence": 6}]}, "sheets.1.dejarik_defence"),
        ({"sheets": [{"knowledge_core_worlds": -1}, {}]}, "sheets.0.knowledge_core_worlds"),
        ({"sheets": [{"charm": 3}, {}]}, "sheets.0.charm"),
        ({"sheets": [{}]}, "sheets"),
    ):
        with pytest.raises(ValidationError) as refused:
            R.options(bad)
        assert field in str(refused.value)


def test_options_schema_shows_the_sheet_fields():
    full = R.options_schema.model_json_schema()
    assert full["properties"]["sheets"]["default"][1]["strain_threshold"] == 12
    schema = json.dumps(full)
    for field in (
        "intellect",
        "cunning",
        "willpower",
        "presence",
        "dejarik_attack",
        "dejarik_defence",
        "knowledge_core_worlds",
        "strain_threshold",
        "initial_ranks_check",
    ):
        assert field in schema


# --- setting ---------------------------------------------------------------------------


def test_first_attacker_is_random_and_the_defender_sets_first():
    for first in (0, 1):
        state = start(first=first)
        assert state.attacker == first and state.round == 1
        assert R.to_act(state) == [1 - first]
        assert state.setting_order == [1 - first, first]


def test_setting_is_hidden_until_confirmed():
    state = start()
    for _ in range(2):
        state, events = act(state, 1, {"type": "set_piece"})
        assert events == [{"type": "setting", "seat": 1}]
    secret = {"seat": 1, "chosen": 2}
    assert R.secrets(state, 0) == [secret] and R.secrets(state, None) == [secret]
    assert R.secrets(state, 1) == []
    own, other = json.dumps(R.view(state, 1)), json.dumps(R.view(state, 0))
    assert json.dumps(secret) in own
    assert json.dumps(secret) not in other and json.dumps(secret) not in json.dumps(R.view(state, None))
    assert R.view(state, 0)["characters"][1]["piles"] == {"active": 4, "inactive": 0, "set": 0}
    state, _ = act(state, 1, {"type": "unset_piece"})
    state, events = act(state, 1, {"type": "done_setting"})
    assert events == [{"type": "set_revealed", "seat": 1, "count": 1}]
    assert R.view(state, 0)["characters"][1]["piles"] == {"active": 3, "inactive": 0, "set": 1}
    assert R.to_act(state) == [0]
    assert R.secrets(state, 1) == [{"seat": 0, "chosen": 0}]


def test_cannot_set_more_than_the_active_pile():
    state = start()
    for _ in range(4):
        state, _ = act(state, 1, {"type": "set_piece"})
    assert [a["type"] for a in R.game_actions(state, 1)] == ["unset_piece", "done_setting"]
    with pytest.raises(IllegalAction):
        act(state, 1, {"type": "set_piece"})


# --- resolving a round --------------------------------------------------------------------


def test_net_successes_kill_defender_set_pieces_only():
    state = start()
    # 2 ability (SS, SS) against 3 difficulty (defender set 1 with presence 2 → 2 dice, 1 upgraded)
    state, events = play_round_to_roll(state, {0: 0, 1: 1}, [4, 4, 1, 1])
    roll = next(e for e in events if e["type"] == "roll")
    assert roll["pool"] == Pool(ability=2, difficulty=1, challenge=1).counts()
    assert roll["net"]["success"] == 4
    result = next(e for e in events if e["type"] == "round_result")
    assert (result["loser"], result["lost"], result["pile"]) == (1, 1, "set")
    assert state.sides[1].pieces() == 3


def test_net_failures_kill_attacker_set_pieces():
    state = start()
    # attacker sets 2 (willpower 2 → 2 proficiency), defender 0 (2 difficulty): FF + FT
    state, events = play_round_to_roll(state, {0: 2, 1: 0}, [1, 1, 3, 8])
    result = next(e for e in events if e["type"] == "round_result")
    assert result["net"]["success"] == -3
    assert (result["loser"], result["lost"], result["pile"]) == (0, 2, "set")
    assert state.sides[0].pieces() == 2


def test_no_pieces_set_loses_one_unset_piece_from_the_inactive_pile_first():
    state = start()
    # round 1: both set one, nothing happens; the set pieces go to the inactive piles
    state, _ = play_round_to_roll(state, {0: 1, 1: 1}, [1, 1, 1, 1])
    assert [(s.active, s.inactive, s.set) for s in state.sides] == [(3, 1, 0), (3, 1, 0)]
    # round 2: seat 1 attacks, nobody sets, 2 net successes: seat 0 loses one unset piece
    state, events = play_round_to_roll(state, {0: 0, 1: 0}, [4, 1, 1, 1])
    result = next(e for e in events if e["type"] == "round_result")
    assert (result["loser"], result["lost"], result["pile"]) == (0, 1, "inactive")
    assert (state.sides[0].active, state.sides[0].inactive) == (3, 0)
    # round 3: again: now from the active pile
    state, events = play_round_to_roll(state, {0: 0, 1: 0}, [1, 1, 3, 1])
    result = next(e for e in events if e["type"] == "round_result")
    assert (result["loser"], result["lost"], result["pile"]) == (0, 1, "active")
    assert (state.sides[0].active, state.sides[0].inactive) == (2, 0)


def test_no_net_success_or_failure_loses_nothing():
    state = start()
    state, events = play_round_to_roll(state, {0: 1, 1: 1}, [2, 1, 2, 1])
    result = next(e for e in events if e["type"] == "round_result")
    assert result["loser"] is None and result["lost"] == 0
    assert [s.pieces() for s in state.sides] == [4, 4]


def test_end_of_round_pile_moves_and_refill():
    state = start()
    state, events = play_round_to_roll(state, {0: 2, 1: 1}, [1, 1, 1, 1])
    end = next(e for e in events if e["type"] == "round_end")
    assert end["piles"] == [{"active": 2, "inactive": 2, "set": 0}, {"active": 3, "inactive": 1, "set": 0}]
    assert state.round == 2 and state.attacker == 1
    # round 2: both set all their active pieces; no loss: both active piles empty → refill
    state, events = play_round_to_roll(state, {0: 2, 1: 3}, [1] * 5)
    assert [e["type"] for e in events][-3:] == ["round_end", "refill", "round"]
    assert [(s.active, s.inactive, s.set) for s in state.sides] == [(4, 0, 0), (4, 0, 0)]


def test_only_one_empty_active_pile_does_not_refill_and_that_seat_sets_nothing():
    state = start()
    state, events = play_round_to_roll(state, {0: 4, 1: 0}, [1] * 6)
    assert "refill" not in [e["type"] for e in events]
    assert (state.sides[0].active, state.sides[0].inactive) == (0, 4)
    # round 2: seat 0 defends and must set first, but has no active piece: skipped
    assert R.to_act(state) == [1]
    assert {"type": "set_revealed", "seat": 0, "count": 0, "reason": "no active piece"} in events


def test_losing_every_piece_ends_the_match():
    state = start()
    state = state.model_copy(deep=True)
    state.sides[1].active = 1
    state, events = play_round_to_roll(state, {0: 0, 1: 1}, [4, 1, 1, 1])
    assert R.outcome(state).winner == 0
    assert events[-1]["type"] == "end"


def test_a_round_with_a_piece_lost_resets_the_quiet_round_count():
    state = start({"turns_without_kill": 3})
    state, _ = play_round_to_roll(state, {0: 0, 1: 0}, [1, 1, 1, 1])
    state, _ = play_round_to_roll(state, {0: 0, 1: 0}, [1, 1, 1, 1])
    assert state.quiet_turns == 2
    state, _ = play_round_to_roll(state, {0: 0, 1: 0}, [4, 1, 1, 1])
    assert state.quiet_turns == 0 and R.outcome(state) is None
    for _ in range(2):
        state, _ = play_round_to_roll(state, {0: 0, 1: 0}, [1, 1, 1, 1])
    assert R.outcome(state) is None
    state, _ = play_round_to_roll(state, {0: 0, 1: 0}, [1, 1, 1, 1])
    assert R.outcome(state).winner is None


# --- spending advantages and threats -------------------------------------------------------


def test_limit_rule_with_two_advantages():
    state = start()
    state.sides[0].strain = 3
    state, _ = play_round_to_roll(state, {0: 0, 1: 0}, [8, 1, 1, 1])  # AA
    assert state.step == "spend" and R.to_act(state) == [0]
    assert limit(2) == 1
    assert spend_options(state) == {
        ("defender_setback", "advantage"),
        ("recover_strain", "advantage"),
        ("attacker_boost", "advantage"),
    }
    state, _ = spend(state, "defender_setback", "advantage")
    # the same "1 advantage" effect once only; a different one is still open
    assert spend_options(state) == {("recover_strain", "advantage")}
    with pytest.raises(IllegalAction):
        spend(state, "defender_setback", "advantage")
    state, _ = spend(state, "recover_strain", "advantage")
    assert state.sides[0].strain == 2
    assert state.round == 2  # nothing left: the round ended
    assert R.round_pool(state, "secondary").setback == 1


def test_limit_rule_with_three_advantages():
    state = start()
    state.sides[0].strain = 3
    state, _ = play_round_to_roll(state, {0: 0, 1: 0}, [8, 5, 1, 1])  # AA + A
    assert limit(3) == 2
    state, _ = spend(state, "defender_setback", "advantage")
    state, _ = spend(state, "defender_setback", "advantage")
    assert ("defender_setback", "advantage") not in spend_options(state)
    assert spend_options(state) == {("recover_strain", "advantage")}
    state, _ = spend(state, "recover_strain", "advantage")
    assert state.round == 2 and R.round_pool(state, "secondary").setback == 2


def test_grouping_three_advantages_as_one_and_two_and_the_boost_in_two_rounds():
    state = start()
    state, _ = play_round_to_roll(state, {0: 0, 1: 0}, [8, 5, 1, 1])
    assert ("defender_sets_first", "advantage") in spend_options(state)
    state, _ = spend(state, "attacker_boost", "advantage")
    assert spend_options(state) == {("defender_setback", "advantage")}
    state, _ = spend(state, "defender_setback", "advantage")
    pending = R.view(state, None)["pending_effects"]
    assert {(e["kind"], e["seat"], e["round"]) for e in pending} == {("boost", 0, 3), ("setback", 1, 2)}
    state, _ = play_round_to_roll(state, {0: 0, 1: 0}, [1, 1, 1, 1, 1])  # round 2: seat 1 with a setback
    assert R.round_pool(state, "secondary") == Pool(ability=2, boost=1, difficulty=2)
    assert [e["kind"] for e in R.view(state, None)["pending_effects"]] == ["boost"]
    state, events = play_round_to_roll(state, {0: 0, 1: 0}, [1, 1, 1, 1, 1])
    roll = next(e for e in events if e["type"] == "roll")
    assert roll["pool"]["boost"] == 1 and R.view(state, None)["pending_effects"] == []


def test_three_advantages_make_the_next_attacker_set_first():
    state = start()
    state, _ = play_round_to_roll(state, {0: 0, 1: 0}, [8, 5, 1, 1])
    state, _ = spend(state, "defender_sets_first", "advantage")
    assert state.round == 2 and state.attacker == 1
    assert state.setting_order == [1, 0] and R.to_act(state) == [1]
    # and the round after, the defender sets first again
    state, _ = play_round_to_roll(state, {0: 0, 1: 0}, [1, 1, 1, 1])
    assert state.setting_order == [1, 0] and state.attacker == 0


def test_spending_is_a_step_with_done():
    state = start()
    state.sides[0].strain = 1
    state, _ = play_round_to_roll(state, {0: 0, 1: 0}, [8, 1, 1, 1])
    assert {"type": "done", "label": "Done spending"} in R.legal_actions(state, 0)
    state, _ = act(state, 0, {"type": "done"})
    assert state.round == 2 and state.sides[0].strain == 1


def test_three_threats_let_the_defender_add_or_remove_a_set_piece_next_round():
    state = start()
    state, _ = play_round_to_roll(state, {0: 0, 1: 0}, [1, 1, 7, 4])  # TT + T
    assert R.to_act(state) == [1] and state.spending.currency == "threat"
    assert ("adjust_set_piece", "threat") in spend_options(state)
    state, _ = spend(state, "adjust_set_piece", "threat")
    assert state.round == 2 and state.attacker == 1
    assert [e["text"] for e in R.view(state, None)["pending_effects"]] == [
        "Dark may add or remove 1 of the opponent's set pieces after setting"
    ]
    state = set_pieces(state, {0: 1, 1: 0})
    assert state.step == "adjust" and R.to_act(state) == [1]
    changes = [a["change"] for a in R.legal_actions(state, 1) if a["type"] == "adjust_set"]
    assert changes == ["add", "remove", "none"]
    added, _ = act(state, 1, {"type": "adjust_set", "change": "add"})
    assert (added.sides[0].active, added.sides[0].set) == (2, 2) and added.step == "defence"
    removed, _ = act(state, 1, {"type": "adjust_set", "change": "remove"})
    assert (removed.sides[0].active, removed.sides[0].set) == (4, 0)
    # the defence pool follows the adjusted set
    assert R._defence_pool(added, "secondary") == Pool(challenge=2)


def test_six_threats_give_two_adjustments():
    state = start({"sheets": [{}, {"presence": 3}]})
    state, _ = play_round_to_roll(state, {0: 0, 1: 0}, [1, 1, 7, 7, 7])  # 6 threats
    state, _ = spend(state, "adjust_set_piece", "threat")
    state, _ = spend(state, "adjust_set_piece", "threat")
    state = set_pieces(state, {0: 0, 1: 0})
    state, _ = act(state, 1, {"type": "adjust_set", "change": "add"})
    assert state.step == "adjust"
    state, _ = act(state, 1, {"type": "adjust_set", "change": "add"})
    assert state.step == "defence" and state.sides[0].set == 2


def test_one_and_two_threats_boost_the_defender_and_set_back_the_attacker():
    state = start()
    state, _ = play_round_to_roll(state, {0: 0, 1: 0}, [1, 1, 7, 4])
    state, _ = spend(state, "defender_boost", "threat")
    state, _ = spend(state, "attacker_setback", "threat")
    state, events = play_round_to_roll(state, {0: 0, 1: 0}, [1, 1, 1, 1, 1])
    assert next(e for e in events if e["type"] == "roll")["pool"]["boost"] == 1
    assert R.round_pool(state, "secondary").setback == 1


def test_strain_beyond_the_threshold_concedes():
    state = start({"sheets": [{"strain_threshold": 1}, {}]})
    state, _ = play_round_to_roll(state, {0: 0, 1: 0}, [1, 1, 7, 4])  # 3 threats: limit 2
    state, events = spend(state, "attacker_strain", "threat")
    assert state.sides[0].strain == 1 and R.outcome(state) is None  # at the threshold: fine
    assert R.view(state, 1)["strain"] == [1, 0]
    state, events = spend(state, "attacker_strain", "threat")
    assert state.sides[0].strain == 2
    assert R.outcome(state).winner == 1 and "strain" in R.outcome(state).reason
    assert events[-1]["type"] == "end"


def test_triumph_upgrades_the_next_defence_or_pays_for_an_advantage_effect():
    state = start({"sheets": [{"dejarik_attack": 2}, {}]})
    # primary attack: 2 proficiency; Tr + blank against 2 blank difficulty
    state, events = play_round_to_roll(state, {0: 0, 1: 1}, [12, 1, 1, 1], attack="primary")
    roll = next(e for e in events if e["type"] == "roll")
    assert roll["dice"][0]["symbols"] == ["triumph"]
    assert roll["net"] == {"success": 1, "advantage": 0, "triumph": 1, "despair": 0}
    assert state.sides[1].set == 0 and state.sides[1].pieces() == 3
    options = spend_options(state)
    assert ("upgrade_next_defence", "triumph") in options and ("attacker_boost", "triumph") in options
    assert ("upgrade_next_defence", "advantage") not in options
    state, _ = spend(state, "upgrade_next_defence", "triumph")
    assert state.round == 2
    labels = [
        a["label"] for a in R.legal_actions(set_pieces(state, {0: 0, 1: 0}), 0) if a["type"] == "defence"
    ]
    assert labels[1] == "Secondary defence: 1 difficulty + 1 challenge"


def test_despair_is_the_defenders_to_spend():
    state = start({"sheets": [{}, {"cunning": 1, "dejarik_defence": 1}]})
    # primary defence: 1 challenge; the attacker's 2 ability show S, S; the challenge De
    state, events = play_round_to_roll(state, {0: 0, 1: 0}, [2, 2, 12], defence="primary")
    assert next(e for e in events if e["type"] == "round_result")["net"]["success"] == 1
    assert R.to_act(state) == [1]
    assert ("upgrade_next_attack", "despair") in spend_options(state)
    assert ("adjust_set_piece", "despair") in spend_options(state)
    state, _ = spend(state, "upgrade_next_attack", "despair")
    assert R.round_pool(state, "secondary") == Pool(ability=1, proficiency=1, difficulty=2)


# --- the initial ranks check -----------------------------------------------------------------


def test_initial_ranks_check_success_grants_ranks_to_split():
    state = start({"initial_ranks_check": True, "sheets": [{"dejarik_attack": 5}, {"intellect": 3}]})
    assert state.step == "ranks" and R.to_act(state) == [0]
    assert state.sides[0].attack_ranks == 0  # the check replaces the sheet's ranks
    assert [a["difficulty"] for a in R.legal_actions(state, 0) if a["type"] == "choose_difficulty"] == [
        1,
        2,
        3,
        4,
        5,
    ]
    # Hard (3): 2 ability (INT 2, no Knowledge ranks) + 3 difficulty: SS, S vs F, -, -
    state, events = act(state, 0, {"type": "choose_difficulty", "difficulty": 3}, 4, 2, 2, 1, 1)
    roll = events[0]
    assert roll["purpose"] == "initial ranks check" and roll["pool"] == Pool(ability=2, difficulty=3).counts()
    splits = [(a["attack"], a["defence"]) for a in R.legal_actions(state, 0) if a["type"] == "split_ranks"]
    assert splits == [(0, 3), (1, 2), (2, 1), (3, 0)]
    state, _ = act(state, 0, {"type": "split_ranks", "attack": 2, "defence": 1})
    assert (state.sides[0].attack_ranks, state.sides[0].defence_ranks) == (2, 1)
    assert R.to_act(state) == [1]
    # seat 1 fails an Easy check with no triumph and fewer than 3 advantages: no ranks, no re-roll
    state, events = act(state, 1, {"type": "choose_difficulty", "difficulty": 1}, 5, 1, 1, 2)
    assert (state.sides[1].attack_ranks, state.sides[1].defence_ranks) == (0, 0)
    assert state.step == "setting" and state.round == 1


def test_initial_ranks_check_reroll_upgrades_the_difficulty_each_time():
    state = start({"initial_ranks_check": True})
    # Average (2): AA, A vs -, -: no success, 3 advantages → a re-roll may be granted
    state, events = act(state, 0, {"type": "choose_difficulty", "difficulty": 2}, 8, 5, 1, 1)
    assert events[-1] == {"type": "reroll_offered", "seat": 0}
    assert {a["type"] for a in R.game_actions(state, 0)} == {"reroll", "decline_reroll"}
    # first re-roll: difficulty upgraded once: 1 difficulty + 1 challenge; AA, A vs -, - again
    state, events = act(state, 0, {"type": "reroll"}, 8, 5, 1, 1)
    roll = next(e for e in events if e["type"] == "roll")
    assert roll["pool"] == Pool(ability=2, difficulty=1, challenge=1).counts()
    # second re-roll: upgraded twice: 2 challenge; S, - vs F, F: failure, no re-roll offered
    state, events = act(state, 0, {"type": "reroll"}, 2, 1, 2, 2)
    roll = next(e for e in events if e["type"] == "roll")
    assert roll["pool"] == Pool(ability=2, challenge=2).counts()
    assert events[-1] == {"type": "ranks_check", "seat": 1}
    assert (state.sides[0].attack_ranks, state.sides[0].defence_ranks) == (0, 0)


def test_initial_ranks_check_reroll_on_a_triumph_and_declining_it():
    state = start({"initial_ranks_check": True, "sheets": [{"intellect": 1, "knowledge_core_worlds": 1}, {}]})
    # 1 proficiency vs 5 difficulty: Tr (a success) vs FF, FF, F, -, - → failure with a triumph
    state, events = act(state, 0, {"type": "choose_difficulty", "difficulty": 5}, 12, 3, 3, 2, 1, 1)
    assert events[0]["net"] == {"success": -4, "advantage": 0, "triumph": 1, "despair": 0}
    assert state.ranks.step == "reroll"
    state, events = act(state, 0, {"type": "decline_reroll"})
    assert events[0]["reason"] == "re-roll declined" and R.to_act(state) == [1]


def test_success_after_a_reroll_grants_the_chosen_difficulty():
    state = start({"initial_ranks_check": True})
    state, _ = act(state, 0, {"type": "choose_difficulty", "difficulty": 2}, 8, 5, 1, 1)
    state, _ = act(state, 0, {"type": "reroll"}, 4, 4, 1, 1)
    assert [a["attack"] for a in R.game_actions(state, 0)] == [0, 1, 2]


def start_hosted(options=None, first=0) -> EoteState:
    """A match a game master hosts (``Ruleset.start`` with ``gm``)."""
    state, _ = R.start(R.options(options), Scripted([first + 1]), gm=True)
    return state


def test_with_no_gm_the_player_takes_the_reroll_themselves():
    state = start({"initial_ranks_check": True})
    state, _ = act(state, 0, {"type": "choose_difficulty", "difficulty": 2}, 8, 5, 1, 1)
    assert [a["type"] for a in R.game_actions(state, 0)] == ["reroll", "decline_reroll"]
    assert R.gm_actions(state) == [] and R.view(state, 0)["gm_decision"] is None


def test_in_a_gm_hosted_match_the_gm_grants_the_reroll_the_player_asks_for():
    """RULINGS §9: "In a GM-hosted match the GM decides to grant or refuse it": Average
    (2), AA, A vs -, - fails with 3 advantages; the player asks; the GM grants; the
    re-roll is upgraded once (1 difficulty + 1 challenge) and passes."""
    state = start_hosted({"initial_ranks_check": True, "sheets": [{"name": "Han"}, {}]})
    state, events = act(state, 0, {"type": "choose_difficulty", "difficulty": 2}, 8, 5, 1, 1)
    assert events[-1] == {"type": "reroll_offered", "seat": 0}
    assert [a["type"] for a in R.game_actions(state, 0)] == ["ask_reroll", "decline_reroll"]
    with pytest.raises(IllegalAction):
        R.apply(state, 0, {"type": "reroll"}, Scripted([]))  # not the player's to take alone
    state, events = act(state, 0, {"type": "ask_reroll"})  # no die is rolled yet
    assert events == [
        {"type": "reroll_asked", "seat": 0, "text": "Han (Light) asked the game master for a re-roll"}
    ]
    assert R.to_act(state) == [] and R.game_actions(state, 0) == [] and R.game_actions(state, 1) == []
    assert R.view(state, 1)["gm_decision"] == (
        "Han (Light) asked for a re-roll: waiting for the game master to grant or refuse it"
    )
    grant, refuse = R.gm_actions(state)
    assert (
        grant["type"] == "gm_grant_reroll" and grant["seat"] == 0 and grant["label"].startswith("Grant Han")
    )
    assert refuse["type"] == "gm_refuse_reroll" and refuse["label"].startswith("Refuse Han")
    dice = Scripted([4, 4, 1, 1])  # SS, SS vs -, -: a pass
    state, events = R.apply_gm(state, R.find_gm(state, {"type": "gm_grant_reroll", "seat": 0}), dice)
    assert not dice.faces
    assert (
        events[0]["type"] == "reroll_granted"
        and events[0]["text"] == "The game master granted Han (Light) a re-roll"
    )
    assert events[1] == {"type": "reroll", "seat": 0, "rerolls": 1}
    assert events[2]["pool"] == Pool(ability=2, difficulty=1, challenge=1).counts()
    assert R.to_act(state) == [0] and [a["attack"] for a in R.game_actions(state, 0)] == [0, 1, 2]
    assert R.gm_actions(state) == [] and R.view(state, 0)["gm_decision"] is None


def test_in_a_gm_hosted_match_a_refused_reroll_leaves_the_roll_standing():
    state = start_hosted({"initial_ranks_check": True})
    state, _ = act(state, 0, {"type": "choose_difficulty", "difficulty": 2}, 8, 5, 1, 1)
    state, _ = act(state, 0, {"type": "ask_reroll"})
    state, events = R.apply_gm(state, R.find_gm(state, {"type": "gm_refuse_reroll", "seat": 0}), Scripted([]))
    assert events[0] == {
        "type": "reroll_refused",
        "seat": 0,
        "text": "The game master refused Light a re-roll",
    }
    assert events[1] == {"type": "ranks", "seat": 0, "attack": 0, "defence": 0, "reason": "re-roll refused"}
    assert state.ranks.seat == 1 and state.ranks.rerolls == 0 and R.to_act(state) == [1]
    assert (state.sides[0].attack_ranks, state.sides[0].defence_ranks) == (0, 0)
    with pytest.raises(IllegalAction):  # decided once: nothing left for the GM
        R.find_gm(state, {"type": "gm_grant_reroll", "seat": 0})


def test_a_gm_hosted_player_may_still_decline_without_asking():
    state = start_hosted({"initial_ranks_check": True})
    state, _ = act(state, 0, {"type": "choose_difficulty", "difficulty": 2}, 8, 5, 1, 1)
    state, events = act(state, 0, {"type": "decline_reroll"})
    assert events[0]["reason"] == "re-roll declined" and R.to_act(state) == [1] and R.gm_actions(state) == []


def test_the_gm_has_nothing_to_decide_before_a_reroll_is_asked_for():
    state = start_hosted({"initial_ranks_check": True})
    assert R.gm_actions(state) == []
    with pytest.raises(IllegalAction):
        R.find_gm(state, {"type": "gm_grant_reroll", "seat": 0})
    state, _ = act(state, 0, {"type": "choose_difficulty", "difficulty": 2}, 8, 5, 1, 1)
    assert R.gm_actions(state) == []  # offered, not yet asked


def test_a_gms_decision_replays_from_the_log_and_an_undo_takes_it_back():
    options = {"initial_ranks_check": True}
    seed = next(s for s in range(500) if _qualifies(s, options))
    dice = Dice(seed.to_bytes(32, "big"))
    entries = [Entry(1, None, {"type": "start", "gm": True}, dice_from=0)]
    state, _ = R.start(R.options(options), dice, gm=True)
    for version, (seat, action) in enumerate(
        [(0, {"type": "choose_difficulty", "difficulty": 5}), (0, {"type": "ask_reroll"})], start=2
    ):
        entries.append(Entry(version, seat, action, dice_from=dice.count))
        state, _ = R.apply(state, seat, action, dice)
    entries.append(Entry(4, None, {"type": "gm_grant_reroll", "seat": 0}, dice_from=dice.count))
    state, events = R.apply_gm(state, R.find_gm(state, entries[-1].action), dice)
    assert events[1]["type"] == "reroll" and events[2]["type"] == "roll"
    seed_hex = seed.to_bytes(32, "big").hex()
    assert R.dump_state(replay(R, options, seed_hex, entries)) == R.dump_state(state)
    undone = replay(R, options, seed_hex, [*entries, Entry(5, None, {"type": "gm_undo", "version": 4})])
    assert undone.ranks.step == "asked" and undone.ranks.rerolls == 0
    assert [a["type"] for a in R.gm_actions(undone)] == ["gm_grant_reroll", "gm_refuse_reroll"]


def _qualifies(seed: int, options) -> bool:
    """Whether seat 0's Formidable (5) check with the dice of ``seed`` offers a re-roll."""
    dice = Dice(seed.to_bytes(32, "big"))
    state, _ = R.start(R.options(options), dice, gm=True)
    state, _ = R.apply(state, 0, {"type": "choose_difficulty", "difficulty": 5}, dice)
    return state.ranks.seat == 0 and state.ranks.step == "reroll"


# --- the whole game --------------------------------------------------------------------------


def _random_game(seed, options, gm=False):
    rng = random.Random(seed)
    dice = Dice(seed.to_bytes(32, "big"))
    state, events = R.start(R.options(options), dice, gm)
    log, all_events = [], list(events)
    for _ in range(5000):
        if R.outcome(state) is not None:
            break
        if not R.to_act(state):  # a GM-hosted match waits for the GM's decision
            decision = rng.choice(R.gm_actions(state))
            state, events = R.apply_gm(state, decision, dice)
            log.append((None, decision, events))
            all_events += events
            continue
        seat = rng.choice(R.to_act(state))
        legal = R.legal_actions(state, seat)
        assert len(legal) < 300
        for secret in R.secrets(state, 1 - seat):
            assert json.dumps(secret) not in json.dumps(R.view(state, 1 - seat))
        action = rng.choice([a for a in legal if a["type"] not in COMMON_ACTION_TYPES])
        state, events = R.apply(state, seat, action, dice)
        log.append((seat, action, events))
        all_events += events
    return state, log, all_events


@pytest.mark.parametrize("gm", [False, True], ids=["no GM", "GM-hosted"])
@pytest.mark.parametrize("seed", range(25))
def test_random_play_with_options_on_reaches_an_end_and_replays(seed, gm):
    options = {
        "initial_ranks_check": True,
        "turns_without_kill": 40,
        "sheets": [
            {
                "intellect": 1 + seed % 6,
                "cunning": 3,
                "knowledge_core_worlds": seed % 4,
                "strain_threshold": 2,
            },
            {"willpower": 4, "presence": 1 + seed % 3, "dejarik_attack": 2, "strain_threshold": 3},
        ],
    }
    state, log, events = _random_game(seed, options, gm)
    assert R.outcome(state) is not None
    seed_bytes = seed.to_bytes(32, "big")
    for roll in (e for e in events if e["type"] == "roll"):
        assert verify_roll(seed_bytes, roll)
        for d in roll.get("dice", []):
            if "kind" in d:
                assert d["symbols"] == symbols(d["kind"], d["face"])
    dice = Dice(seed_bytes)
    again, _ = R.start(R.options(options), dice, gm)
    for seat, action, expected in log:
        if seat is None:
            again, got = R.apply_gm(again, R.find_gm(again, action), dice)
        else:
            again, got = R.apply(again, seat, action, dice)
        assert got == expected
    assert R.dump_state(again) == R.dump_state(state)


def test_random_play_ends_in_every_way():
    reasons = set()
    for seed in range(60):
        options = {"sheets": [{"strain_threshold": 1}, {"strain_threshold": 1}], "turns_without_kill": 2}
        state, _, _ = _random_game(seed, options)
        reason = R.outcome(state).reason
        reasons.add(
            "strain" if "strain" in reason else "draw" if R.outcome(state).winner is None else "pieces"
        )
    assert reasons == {"strain", "draw", "pieces"}


def test_registered_with_its_view_kind():
    assert isinstance(registry()["eote"], Eote)
    assert R.view_kind == "eote"
    view = R.view(start(), None)
    assert view["kind"] == "eote" and view["step"] == "setting"
    for key in ("characters", "pending_effects", "strain", "pool", "last_roll", "net", "setting"):
        assert key in view
