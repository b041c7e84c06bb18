"""The board-game layer: every board ruleset shows its pieces in one board view, each
piece once, on its space or off the board with why, and a choice that interrupts a
turn (a push, a capture) as the same ``pending`` value."""

from __future__ import annotations

import pytest

from app.rules import registry
from app.rules.board_game import BoardGame, BoardView
from tests.rules.test_conformance import play_randomly

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
