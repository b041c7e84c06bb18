"""`courtier` (RULINGS §8, seed 003 "Rules of Courtier"): the seed's rules as examples."""

from __future__ import annotations

import json

import pytest

from app.rules import registry
from app.rules.base import IllegalAction
from app.rules.courtier import CourtierState
from app.rules.dice import Dice
from tests.rules.courtier_positions import NO_DICE, RULES, move, position
from tests.rules.helpers import play_randomly


def at(state: CourtierState, space: str) -> str | None:
    """``"b"``/``"r"``/``"B"``/``"R"`` for the piece on ``space``, ``None`` when empty."""
    for p in state.pieces.values():
        if p.at == space:
            code = "b" if p.owner == 0 else "r"
            return code.upper() if p.kind == "king" else code
    return None


def captures(events: list) -> list[str]:
    return sorted(e["at"] for e in events if e["type"] == "capture")


# --- the start ---------------------------------------------------------------------------


def test_the_starting_position_and_blue_moves_first():
    state, events = RULES.new_game(RULES.options(None), NO_DICE)
    assert [at(state, f"A{i}") for i in range(1, 13)] == list("bbBbbbrrRrrr")
    assert state.turn == 0 and events == [{"type": "first_player", "seat": 0}]
    assert RULES.to_act(state) == [0]
    # Six guards and kings on ring A: only the inward steps are free.
    assert sorted(a["to"] for a in RULES.game_actions(state, 0)) == [f"B{i}" for i in range(1, 7)]


def test_a_random_first_player_is_a_shown_roll():
    firsts = set()
    for n in range(8):
        state, events = RULES.new_game(RULES.options({"first": "random"}), Dice(bytes([n])))
        roll = events[0]
        assert roll["type"] == "roll" and roll["purpose"] == "first player" and roll["dice"][0]["sides"] == 2
        assert state.turn == roll["total"] - 1 == events[1]["seat"]
        firsts.add(state.turn)
    assert firsts == {0, 1}


def test_moves_are_one_orthogonal_step_to_an_empty_space():
    state = position("C=b B1=r")
    targets = sorted(a["to"] for a in RULES.game_actions(state, 0) if a["piece"] == "blue-guard-1")
    assert targets == sorted(f"B{i}" for i in range(2, 13))
    with pytest.raises(IllegalAction):
        move(state, "C", "B1")


# --- capturing -----------------------------------------------------------------------------


def test_a_capture_on_a_ring():
    state = position("A1=b A2=r B3=b")
    after, events = move(state, "B3", "A3")
    assert captures(events) == ["A2"] and at(after, "A2") is None and at(after, "A3") == "b"
    assert after.turn == 1


def test_a_capture_on_a_ring_wraps_from_twelve_to_one():
    state = position("A11=b A12=r B1=b")
    _, events = move(state, "B1", "A1")
    assert captures(events) == ["A12"]


def test_a_capture_along_a_ray():
    state = position("C=b B4=r A5=b")
    after, events = move(state, "A5", "A4")
    assert captures(events) == ["B4"] and at(after, "C") == "b"


def test_a_capture_across_the_core():
    # B1 - C - B7 is one straight line through the core.
    state = position("B1=b C=r A7=b")
    after, events = move(state, "A7", "B7")
    assert captures(events) == ["C"] and at(after, "C") is None


def test_a_piece_off_the_line_does_not_capture():
    # B2 and B7 enclose nothing: C is not between them on a straight line.
    state = position("B2=b C=r A7=b")
    _, events = move(state, "A7", "B7")
    assert captures(events) == []


def test_two_enemies_in_a_row_are_not_captured():
    state = position("A1=b A2=r A3=r B4=b")
    after, events = move(state, "B4", "A4")
    assert captures(events) == [] and at(after, "A2") == at(after, "A3") == "r"


def test_only_the_mover_captures():
    # Red moves into A2 between two blue pieces: safe, and blue does not capture it later
    # by standing still.
    state = position("A1=b A3=b B2=r", turn=1)
    after, events = move(state, "B2", "A2")
    assert captures(events) == [] and at(after, "A2") == "r"
    after, events = move(after, "A6", "B6")  # blue's turn: an unrelated move
    assert captures(events) == [] and at(after, "A2") == "r"


def test_moving_between_two_enemies_without_capturing_is_safe():
    state = position("A2=r A4=r B3=b")
    after, events = move(state, "B3", "A3")
    assert captures(events) == [] and at(after, "A3") == "b"


def test_a_double_capture_removes_both_inside_pieces():
    # Seed 003, Diagram 6: b r [b moves in] r — the enclosed red and the mover both go.
    state = position("A1=b A2=r A4=r B3=b")
    after, events = move(state, "B3", "A3")
    assert captures(events) == ["A2", "A3"]
    assert at(after, "A2") is None and at(after, "A3") is None and at(after, "A4") == "r"
    assert any(e["type"] == "double_capture" for e in events)
    assert after.result is None and after.turn == 1


def test_an_enemy_and_a_friend_on_either_side_is_no_double_capture():
    state = position("A1=b A2=r A4=b B3=b")
    after, events = move(state, "B3", "A3")
    assert captures(events) == ["A2"] and at(after, "A3") == "b"


def test_a_double_capture_on_the_crossing_line():
    # The mover on B3 captures along the ring and is enclosed by A3 and C on its ray.
    state = position("B1=b B2=r A3=r C=r B4=b")
    _, events = move(state, "B4", "B3")
    assert captures(events) == ["B2", "B3"]


def test_capturing_the_king_wins():
    state = position("A1=b A2=R B3=b")
    after, events = move(state, "B3", "A3")
    assert after.result.winner == 0 and "king" in after.result.reason
    assert events[-1]["type"] == "end"
    assert RULES.to_act(after) == []


def test_a_double_capture_that_takes_the_king_still_wins():
    state = position("A1=b A2=R A4=r B3=b")
    after, events = move(state, "B3", "A3")
    assert captures(events) == ["A2", "A3"]
    assert after.result.winner == 0


def test_a_king_lost_in_a_double_capture_loses():
    state = position("A1=b A2=r A4=r B3=B")
    after, events = move(state, "B3", "A3")
    assert captures(events) == ["A2", "A3"]
    assert after.result.winner == 1


def test_the_king_captures_like_a_guard():
    state = position("A1=B A2=r B3=b")
    after, events = move(state, "B3", "A3")
    assert captures(events) == ["A2"] and at(after, "A1") == "B"


def test_the_mover_chooses_among_several_captures():
    # Blue moving to B3 encloses B2 (with B1, around the ring) and C (with B9, across
    # the core); it may take only one, and chooses as its own step.
    state = position("B1=b B2=r C=r B9=b A3=b")
    after, events = move(state, "A3", "B3")
    assert captures(events) == [] and after.turn == 0 and after.pending is not None
    assert any(e["type"] == "choose_capture" for e in events)
    choices = RULES.game_actions(after, 0)
    assert sorted(state.pieces[c["piece"]].at for c in choices) == ["B2", "C"]
    assert RULES.game_actions(after, 1) == []
    with pytest.raises(IllegalAction):
        move(after, "A6", "A5")
    chosen = next(c for c in choices if state.pieces[c["piece"]].at == "C")
    done, events = RULES.apply(after, 0, {"type": "capture", "piece": chosen["piece"]}, NO_DICE)
    assert captures(events) == ["C"] and at(done, "B2") == "r" and at(done, "B3") == "b"
    assert done.turn == 1 and done.pending is None


def test_a_choice_between_two_enemies_on_one_line_is_still_a_double_capture():
    # b r [b] r b: either capture leaves the mover enclosed as the move leaves the board.
    state = position("A1=b A2=r A4=r A5=b B3=b")
    after, _ = move(state, "B3", "A3")
    done, events = RULES.apply(after, 0, {"type": "capture", "piece": after.pending.options[1]}, NO_DICE)
    assert captures(events) == ["A3", "A4"] and at(done, "A2") == "r"


def test_a_choice_that_takes_the_king_wins():
    state = position("B1=b B2=r C=R B9=b A3=b")
    after, _ = move(state, "A3", "B3")
    king = {"type": "capture", "piece": "red-king"}
    done, _ = RULES.apply(after, 0, king, NO_DICE)
    assert done.result.winner == 0


# --- ending the game ----------------------------------------------------------------------


def test_threefold_repetition_is_a_draw():
    state = position("A1=b A7=r")
    shuffle = [("A1", "B1"), ("A7", "B7"), ("B1", "A1"), ("B7", "A7")]
    for _ in range(2):
        for frm, to in shuffle:
            assert state.result is None
            state, _ = move(state, frm, to)
    assert state.result is not None and state.result.winner is None
    assert "three times" in state.result.reason


def test_a_capture_starts_the_repetition_count_again():
    state = position("A1=b A7=r")
    state, _ = move(state, "A1", "B1")
    assert state.positions
    state = position("A1=b A2=r B3=b")
    state, _ = move(state, "B3", "A3")
    assert list(state.positions.values()) == [1]


def test_a_player_with_no_legal_move_loses():
    # Red's only piece, its king on A1, is boxed in by A12, A2 and B1.
    state = position("A12=b A2=b C=b A1=R", turn=0)
    after, _ = move(state, "C", "B1")
    assert after.result.winner == 0 and "no legal move" in after.result.reason


def test_turns_without_a_capture_end_the_match_as_a_draw():
    state = position("A1=b A7=r", turns_without_kill=3)
    for frm, to in [("A1", "B1"), ("A7", "B7"), ("B1", "B2")]:
        state, _ = move(state, frm, to)
    assert state.result.winner is None and "3 turns" in state.result.reason


def test_a_capture_resets_the_quiet_turns():
    state = position("A1=b A2=r B3=b", turns_without_kill=3)
    state.quiet_turns = 2
    after, _ = move(state, "B3", "A3")
    assert after.quiet_turns == 0 and after.result is None


# --- the view and whole games ---------------------------------------------------------------


def test_the_view():
    state = position("B1=b B2=r C=r B9=b A3=b")
    after, _ = move(state, "A3", "B3")
    view = RULES.view(after, 1)
    json.dumps(view)
    assert {"id": "blue-king", "kind": "king", "owner": 0, "at": "A6"} in view["pieces"]
    assert view["turn"] == 0 and view["pending_capture"]["piece"] == "blue-guard-3"
    assert view["pending_capture"]["options"] == ["red-guard-1", "red-guard-2"]
    assert set(view["legend"]) == {"king", "guard"}
    done, _ = RULES.apply(after, 0, {"type": "capture", "piece": "red-guard-1"}, NO_DICE)
    assert RULES.view(done, None)["captured"] == [{"id": "red-guard-1", "kind": "guard", "owner": 1}]


@pytest.mark.parametrize(
    "options",
    [{"first": "random"}, {"first": "random", "turns_without_kill": 0}, {"turns_without_kill": 10}],
)
def test_random_play_finishes_under_other_options(options):
    ruleset = registry()["courtier"]
    for game in range(10):
        _, _, states = play_randomly(ruleset, 900 + game, options)
        final = states[-1]
        assert ruleset.outcome(final) is not None
        for state in states:
            kings = [p for p in state.pieces.values() if p.kind == "king" and p.at is not None]
            assert len(kings) == 2 or state is final, "a game ends the moment a king falls"
