"""Keyboard play of kelly: a move in at most five keys from a fresh page (six with the
attack confirm), the targets next in the focus order, arrows across the board, Escape
to cancel, and the focus still on the board after the move."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.conftest import join_match, new_match, new_player, signed_in
from tests.browser.helpers import acting_page, view, wait_for_version

DESKTOP = {"width": 1366, "height": 768}


def focused(page: Page, selector: str) -> bool:
    return page.evaluate(
        "s => Boolean(document.activeElement && document.activeElement.matches(s))", selector
    )


def focus_centre(page: Page) -> tuple[float, float]:
    """Where the focused thing of the board is on the screen."""
    x, y = page.evaluate(
        "(() => { const n = document.activeElement; const d = n.querySelector('.marker-dot') || n;"
        " const b = d.getBoundingClientRect(); return [b.left + b.width / 2, b.top + b.height / 2]; })()"
    )
    return x, y


def on_board(page: Page) -> bool:
    return page.evaluate("Boolean(document.activeElement && document.activeElement.closest('svg.board'))")


def test_a_keyboard_only_kelly_move_within_the_key_budget(web_server, new_context, artifacts):
    blue, red = new_player(web_server, "Leia"), new_player(web_server, "Chewie")
    match_id = new_match(web_server, blue)
    join_match(web_server, red, match_id)
    pages = []
    for player in (blue, red):
        page = signed_in(new_context(viewport=DESKTOP), web_server, player).new_page()
        page.goto(f"{web_server.url}/matches/{match_id}")
        expect(page.locator("#connection")).to_have_text("Live")
        pages.append(page)
    page = acting_page(pages)
    expect(page.locator("[data-piece][data-selectable]").first).to_be_visible()
    start = view(page)["version"]

    keys = 0
    while not focused(page, "[data-piece][data-selectable]"):
        page.keyboard.press("Tab")
        keys += 1
        assert keys <= 3, (
            "Tab took more than three presses to reach a piece that can act",
            page.evaluate("document.activeElement.outerHTML.slice(0, 200)"),
        )
    piece = page.evaluate("document.activeElement.dataset.piece")
    page.keyboard.press("Enter")
    keys += 1
    # The selected piece's legal targets come next: the first one already has the focus.
    page.wait_for_function(
        "document.activeElement && document.activeElement.matches('[data-space][data-legal]')"
    )
    space = page.evaluate("document.activeElement.dataset.space")
    page.keyboard.press("Tab")
    assert focused(page, "[data-space][data-legal]") or focused(page, f"[data-piece='{piece}']")
    page.keyboard.press("Shift+Tab")
    assert focused(page, f"[data-space='{space}']")
    page.keyboard.press("Enter")
    keys += 1
    if page.locator("#attack-confirm").is_visible():
        page.keyboard.press("Enter")
        keys += 1
        assert keys <= 6
    else:
        assert keys <= 5
    for each in pages:
        wait_for_version(each, start + 1)
    moved = next(p for p in view(page)["state"]["pieces"] if p["id"] == piece)
    assert moved["at"] == space
    # The focus stays on the board: on the piece that moved.
    page.wait_for_function("document.activeElement && document.activeElement.closest('svg.board') !== null")
    assert focused(page, f"[data-piece='{piece}']")
    page.screenshot(path=artifacts / "keyboard-after-move.png")

    # Arrows move among the board's spaces and pieces, in the arrow's direction on the
    # screen; Escape cancels a selection. Where the focus stands depends on the dice, so
    # each axis is tried both ways: at an edge only one of the two can move.
    page.keyboard.press("Enter")
    expect(page.locator(f"[data-piece='{piece}'][data-selected]")).to_have_count(1)
    # The focus settles: on the first target when the piece has one, else on the piece.
    page.wait_for_function(
        "document.activeElement && document.activeElement.matches('[data-space][data-legal]')"
        " || document.querySelectorAll('[data-space][data-legal]').length === 0"
    )
    for backward, forward, axis in (("ArrowUp", "ArrowDown", 1), ("ArrowLeft", "ArrowRight", 0)):
        moved = 0
        for key, sign in ((backward, -1), (forward, 1)):
            before = focus_centre(page)
            page.keyboard.press(key)
            assert on_board(page), key
            after = focus_centre(page)
            if after != before:
                moved += 1
                assert (after[axis] - before[axis]) * sign > 0, f"{key} went the wrong way"
        assert moved, f"neither {backward} nor {forward} moved the focus"
    page.keyboard.press("Escape")
    expect(page.locator("[data-piece][data-selected]")).to_have_count(0)
    expect(page.locator("[data-space][data-legal]")).to_have_count(0)
    assert on_board(page)
    assert view(page)["version"] == start + 1
