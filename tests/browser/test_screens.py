"""Every ruleset's match page at the sizes players use (a phone with touch, laptops, a
desktop): the turn banner and the whole board on screen without scrolling, nothing
wider than the window. Screenshots of each go to ``test-artifacts/`` for review."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.rules import registry
from tests.browser.conftest import join_match, new_match, new_player, signed_in
from tests.browser.helpers import inside_window, random_play

RULESETS = sorted(registry())
SIZES = [(375, 812), (1280, 800), (1366, 768), (1440, 900), (1920, 1080)]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_ruleset_fits_every_screen(ruleset, web_server, new_context, artifacts):
    blue, red = new_player(web_server, "Leia"), new_player(web_server, "Chewie")
    match_id = new_match(web_server, blue, ruleset)
    join_match(web_server, red, match_id)
    random_play(web_server, match_id, [blue, red], steps=12, seed=3)
    for width, height in SIZES:
        phone = width < 500
        context = new_context(viewport={"width": width, "height": height}, has_touch=phone, is_mobile=phone)
        page = signed_in(context, web_server, blue).new_page()
        page.goto(f"{web_server.url}/matches/{match_id}")
        expect(page.locator("#connection")).to_have_text("Live")
        expect(page.locator("#turn")).not_to_have_text("Loading the match…")
        page.screenshot(path=artifacts / f"screen-{ruleset}-{width}x{height}.png")
        label = f"{ruleset} at {width}x{height}"
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), f"too wide: {label}"
        assert inside_window(page, "#turn"), f"turn banner off screen: {label}"
        # Who you play and the connection stay at the right edge, even under a long turn line.
        long_turn = "You choose where Red Mantellian Savrip is pushed."
        page.evaluate("text => { document.getElementById('turn').textContent = text; }", long_turn)
        side, bar = page.locator(".status-side").bounding_box(), page.locator(".status-bar").bounding_box()
        assert side and bar and abs(side["x"] + side["width"] - bar["x"] - bar["width"]) < 2, label
        if page.locator("svg.board").count():
            assert inside_window(page, "svg.board"), f"board not wholly on screen: {label}"
        context.close()
