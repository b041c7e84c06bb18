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

    # Arrows move among the board's spaces and pieces; Escape cancels a selection.
    page.keyboard.press("Enter")
    expect(page.locator(f"[data-piece='{piece}'][data-selected]")).to_have_count(1)
    for key in ("ArrowUp", "ArrowLeft", "ArrowDown", "ArrowRight"):
        before = page.evaluate("document.activeElement.outerHTML.slice(0, 80)")
        page.keyboard.press(key)
        assert on_board(page), key
        assert page.evaluate("document.activeElement.outerHTML.slice(0, 80)") != before, f"{key} did not move"
    page.keyboard.press("Escape")
    expect(page.locator("[data-piece][data-selected]")).to_have_count(0)
    expect(page.locator("[data-space][data-legal]")).to_have_count(0)
    assert on_board(page)
    assert view(page)["version"] == start + 1
