"""The board-game layer: every board ruleset shows its pieces in one board view, each
piece once, on its space or off the board with why, and a choice that interrupts a
turn (a push, a capture) as the same ``pending`` value."""

from __future__ import annotations

import pytest

from app.rules import registry
from app.rules.board_game import BoardGame, BoardView
from tests.rules.helpers import play_randomly

BOARD_RULESETS = sorted(r for r, ruleset in registry().items() if isinstance(ruleset, BoardGame))
OPTIONS = {"dalsiandon": [{}, {"teams": "random"}], "simeone": [{}], "courtier": [{"first": "random"}]}


@pytest.mark.parametrize("ruleset_id", BOARD_RULESETS)
def test_the_board_view_shows_every_piece_once_on_its_space_or_off_the_board(ruleset_id):
    ruleset = registry()[ruleset_id]
    statuses, choices = set(), set()
    for options in OPTIONS.get(ruleset_id, [{}]):
        for game in range(3):
            _, _, states = play_randomly(ruleset, 300 + game, options)
            for state in states:
                board = BoardView.model_validate(ruleset.view(state, None)["board"])
                shown = [p.id for p in board.pieces] + [p.id for p in board.off_board]
                assert len(shown) == len(set(shown)), "a piece is shown once"
                assert set(state.pieces) <= set(shown)
                for piece in board.pieces:
                    assert state.pieces[piece.id].at == piece.at
                for piece in board.off_board:
                    assert piece.id not in state.pieces or state.pieces[piece.id].at is None
                    statuses.add(piece.status)
                if board.pending is not None:
                    assert ruleset.to_act(state) == [board.pending.chooser]
                    choices.add(board.pending.kind)
    expected = {
        "kelly": ({"lost"}, {"push"}),
        "kelly-d20": ({"lost"}, {"push"}),
        "dalsiandon": ({"lost", "to place"}, {"push"}),
        "simeone": ({"defeated", "to place"}, {"push"}),
        "orbit-chess": ({"inactive", "inactive until next turn"}, set()),
        "courtier": ({"captured"}, {"capture"}),
    }[ruleset_id]
    assert (statuses, choices) == expected


def facts_of(ruleset_id: str, options: dict, seed: int = 1, steps: int = 30):
    """(state, its board facts by key) along a random game."""
    ruleset = registry()[ruleset_id]
    _, _, states = play_randomly(ruleset, seed, options)
    for state in states[:steps]:
        yield state, {f.key: f for f in BoardView.model_validate(ruleset.view(state, None)["board"]).facts}


def test_the_facts_beside_the_board_are_the_rules_own_numbers_in_words():
    for state, facts in facts_of("kelly-d20", {}):
        hold = facts["centre-hold"]
        assert hold.progress == state.centre_hold and hold.of == 3
        assert hold.seats == [f"{h}/3" for h in state.centre_hold]
        assert facts["turn"].text == str(state.turn_number)
    for state, facts in facts_of("simeone", {"points_to_win": 12, "center_point": "end_of_round"}):
        assert (
            facts["scores"].seats == [str(s) for s in state.scores] and facts["scores"].text == "(12 to win)"
        )
        assert ("phase" in facts) == (state.phase == "setup")
        assert ("activation" in facts) == (state.active is not None)
        if state.active:
            assert facts["activation"].action == "end_activation"
        assert facts["core"].minor
    for state, facts in facts_of("dalsiandon", {"rays_of_death": True, "king_of_the_center": True}):
        assert facts["safe-zone"].swatch == "safe" and facts["must-involve"].swatch == "must"
        assert len(facts["cycle"].seats) == 2
        if state.combat_ray is not None:
            assert facts["combat-ray"].swatch == "ray"
    for state, facts in facts_of("orbit-chess", {}):
        assert ("last-move" in facts) == (state.last_move is not None)
        if "last-move" in facts:
            assert facts["last-move"].text == state.last_move


@pytest.mark.parametrize("ruleset_id", BOARD_RULESETS)
def test_how_a_game_ended_is_what_its_last_position_shows(ruleset_id):
    """The end of a game is decided in one place, ``game_end``, from the state alone:
    asked again of the final position it gives the same result, and of every earlier
    position (as the turn it shows starts) no result at all."""
    ruleset = registry()[ruleset_id]
    for options in OPTIONS.get(ruleset_id, [{}]):
        for game in range(12):
            _, _, states = play_randomly(ruleset, 400 + game, options)
            final = states[-1]
            assert ruleset.game_end(final, turn_starts=True) == final.result
            for state in states[:-1]:
                waiting = ruleset.chooser(state) is not None
                assert ruleset.game_end(state, turn_starts=not waiting) is None
