"""Every installed ruleset plays in the browser without the page knowing its rules."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.rules import registry
from tests.browser.conftest import join_match, new_match, new_player, signed_in
from tests.browser.helpers import acting_page, play_any, view, wait_for_version

BOARD_RULESETS = sorted(r.id for r in registry().values() if r.view_kind == "board")


def seated_pages(server, new_context, ruleset: str):
    blue, red = new_player(server, "Rey"), new_player(server, "Finn")
    match_id = new_match(server, blue, ruleset)
    join_match(server, red, match_id)
    pages = []
    for player in (blue, red):
        page = signed_in(new_context(), server, player).new_page()
        page.js_errors = []  # type: ignore[attr-defined]
        page.on("pageerror", lambda error, page=page: page.js_errors.append(str(error)))
        page.goto(f"{server.url}/matches/{match_id}")
        expect(page.locator("#connection")).to_have_text("Live")
        pages.append(page)
    return pages


@pytest.mark.parametrize("ruleset", BOARD_RULESETS)
def test_every_board_ruleset_draws_its_board_and_plays(ruleset, web_server, new_context, artifacts):
    pages = seated_pages(web_server, new_context, ruleset)
    for page in pages:
        expect(page.locator("svg.board [data-space]")).to_have_count(25)
        for piece in view(page)["state"].get("pieces", []):
            if piece.get("at"):
                token = page.locator(f"[data-piece='{piece['id']}']")
                expect(token).to_have_attribute("data-at", piece["at"])
    for _ in range(6):
        if view(pages[0])["status"] != "active":
            break
        page = acting_page(pages)
        before = play_any(page)
        for each in pages:
            wait_for_version(each, before + 1)
    for i, page in enumerate(pages):
        page.screenshot(path=artifacts / f"ruleset-{ruleset}-{i}.png", full_page=True)
        assert page.js_errors == []  # type: ignore[attr-defined]
