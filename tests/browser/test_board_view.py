"""Every board ruleset's board view is drawn by one code path: after random play, each
piece of ``state.board`` stands on its space in the SVG and each piece off the board
sits in its owner's tray with the status the server gave it. The board marks the last
move or attack (from and to, as lichess does) and says it in words under the board, from
the log, so a reload shows it too."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.rules import registry
from app.rules.board_game import BoardGame
from tests.browser.conftest import join_match, new_match, new_player, rest_act, rest_view, signed_in
from tests.browser.helpers import (
    aggressive_choice,
    contrast_ratio,
    inside_window,
    match_page_ready,
    random_play,
    wait_for_version,
)

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


def last_marks(page) -> dict[str, str]:
    """The spaces the board marks as the last move's or attack's, and how each looks."""
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#board [data-last]')].map(space => {
            const mark = getComputedStyle(space.querySelector('.last-mark'));
            const cell = getComputedStyle(space.querySelector('.cell'));
            return [space.dataset.last, {space: space.dataset.space, shown: mark.display !== 'none',
                                         rim: mark.stroke, cell: cell.fill}];
        }))"""
    )


def test_the_last_move_and_the_last_attack_are_marked_on_the_board(web_server, new_context, artifacts):
    blue, red = new_player(web_server, "Leia"), new_player(web_server, "Chewie")
    match_id = new_match(web_server, blue)
    join_match(web_server, red, match_id)
    players = [blue, red]
    page = signed_in(new_context(viewport={"width": 1366, "height": 768}), web_server, blue).new_page()
    page.goto(f"{web_server.url}/matches/{match_id}")
    match_page_ready(page)
    assert last_marks(page) == {}, "nothing has moved yet"

    # Both sides play over REST (as from their phones) until an attack; the page follows live.
    for _ in range(120):
        seat = rest_view(web_server, match_id)["to_act"][0]
        mine = rest_view(web_server, match_id, players[seat])
        action = aggressive_choice(mine)
        spaces = {p["id"]: p["at"] for p in mine["state"]["pieces"]}
        rest_act(web_server, match_id, players[seat], action, mine["version"])
        wait_for_version(page, mine["version"] + 1)
        if action["type"] == "move":  # where it came from and where it went
            expected = {"from": spaces[action["piece"]], "to": action["to"]}
        elif action["type"] == "attack":  # the attacker's space and its target's, as they stood
            expected = {"from": spaces[action["piece"]], "to": spaces[action["target"]]}
        else:
            continue  # a push marks nothing new: the attack stays marked
        marks = last_marks(page)
        assert {k: m["space"] for k, m in marks.items()} == expected, (action, marks)
        if action["type"] == "attack":
            break
    else:
        raise AssertionError("no attack came within 120 actions")
    # Seen, with a rim that stands out from its space (WCAG 1.4.11: 3:1 for what is not text).
    for mark in marks.values():
        assert mark["shown"] and contrast_ratio(mark["rim"], mark["cell"]) >= 3, mark
    # And in words, right under the board, on screen while the log is far down the page.
    names = {p["id"]: p["name"] for p in mine["state"]["pieces"]}
    latest = page.locator(".board-latest")
    expect(latest).to_contain_text(f"Last: {mine['state']['seat_names'][seat]} {names[action['piece']]}")
    expect(latest).to_contain_text(names[action["target"]])
    assert inside_window(page, ".board-latest"), "the last move's words are off screen"
    page.screenshot(path=artifacts / "issue31" / "last-attack-marked-1366x768.png")

    # The marks come from the match's log, not from what this page saw: a reload keeps them.
    page.reload()
    match_page_ready(page)
    assert {k: m["space"] for k, m in last_marks(page).items()} == expected
    expect(latest).to_contain_text(names[action["target"]])
