"""Every ruleset's match page at the sizes players use (a phone with touch, laptops, a
desktop): the turn banner and the whole board on screen without scrolling, nothing
wider than the window, and the page titled with the ruleset's name. The page is
loaded once a device: on the phone, and on a computer whose window is then resized to
each other size (the board fits itself again on a resize). Screenshots of each go to
``test-artifacts/`` for review."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from app.rules import registry
from tests.browser.conftest import join_match, new_match, new_player, signed_in
from tests.browser.helpers import inside_window, match_page_ready, random_play, resize

RULESETS = sorted(registry())
PHONE = (375, 812)
# Largest first: the page is loaded at the first, then its window shrunk to each other
# (what fitted a larger window would not fit a smaller one unless the page fits itself again).
COMPUTERS = [(1920, 1080), (1440, 900), (1366, 768), (1280, 800)]


def check_fits(page: Page, label: str, shot) -> None:
    page.screenshot(path=shot)
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), f"too wide: {label}"
    assert inside_window(page, "#turn"), f"turn banner off screen: {label}"
    # Who you play and the connection stay at the right edge, even under a long turn line
    # (the page writes its own turn line again when it next draws itself).
    long_turn = "You choose where Red Mantellian Savrip is pushed."
    page.evaluate("text => { document.getElementById('turn').textContent = text; }", long_turn)
    side, bar = page.locator(".status-side").bounding_box(), page.locator(".status-bar").bounding_box()
    assert side and bar and abs(side["x"] + side["width"] - bar["x"] - bar["width"]) < 2, label
    if page.locator("svg.board").count():
        assert inside_window(page, "svg.board"), f"board not wholly on screen: {label}"


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_ruleset_fits_every_screen(ruleset, web_server, new_context, artifacts):
    blue, red = new_player(web_server, "Leia"), new_player(web_server, "Chewie")
    match_id = new_match(web_server, blue, ruleset)
    join_match(web_server, red, match_id)
    random_play(web_server, match_id, [blue, red], steps=12, seed=3)
    for sizes in ([PHONE], COMPUTERS):
        phone = sizes[0][0] < 500
        width, height = sizes[0]
        context = new_context(viewport={"width": width, "height": height}, has_touch=phone, is_mobile=phone)
        page = signed_in(context, web_server, blue).new_page()
        page.goto(f"{web_server.url}/matches/{match_id}")
        match_page_ready(page)
        assert registry()[ruleset].name in page.title()
        for width, height in sizes:
            if (width, height) != sizes[0]:
                resize(page, width, height)
            label = f"{ruleset} at {width}x{height}"
            check_fits(page, label, artifacts / f"screen-{ruleset}-{width}x{height}.png")
        context.close()
