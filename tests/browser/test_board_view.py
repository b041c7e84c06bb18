"""Every board ruleset's board view is drawn by one code path: after random play, each
piece of ``state.board`` stands on its space in the SVG and each piece off the board
sits in its owner's tray with the status the server gave it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.rules import registry
from app.rules.board_game import BoardGame
from tests.browser.conftest import join_match, new_match, new_player, rest_view, signed_in
from tests.browser.helpers import random_play

BOARD_RULESETS = sorted(r for r, ruleset in registry().items() if isinstance(ruleset, BoardGame))


def test_every_board_ruleset_is_a_board_game():
    assert set(BOARD_RULESETS) == set(registry()) - {"eote"}


@pytest.mark.parametrize("ruleset", BOARD_RULESETS)
def test_every_piece_on_and_off_the_board_is_drawn(ruleset, web_server, new_context):
    blue, red = new_player(web_server, "Leia"), new_player(web_server, "Chewie")
    match_id = new_match(web_server, blue, ruleset)
    join_match(web_server, red, match_id)
    random_play(web_server, match_id, [blue, red], steps=40, seed=3)

    page = signed_in(new_context(viewport={"width": 1280, "height": 800}), web_server, blue).new_page()
    page.goto(f"{web_server.url}/matches/{match_id}")
    expect(page.locator("#connection")).to_have_text("Live")
    state = rest_view(web_server, match_id, blue)["state"]
    board = state["board"]
    assert board["pieces"], "random play left pieces on the board"
    for piece in board["pieces"]:
        expect(page.locator(f"#board [data-piece='{piece['id']}']")).to_have_count(1)
    for piece in board["off_board"]:
        shown = page.locator(f".tray[data-tray-seat='{piece['owner']}'] [data-tray-piece='{piece['id']}']")
        expect(shown).to_have_attribute("data-status", piece["status"])
        if piece["status"] != "to place":  # and in words under the legend: "Off the board: Red Monnok (lost)"
            owned = f"{state['seat_names'][piece['owner']]} {piece['name']}"
            expect(page.locator("#lost")).to_contain_text(f"{owned} ({piece['status']})")
