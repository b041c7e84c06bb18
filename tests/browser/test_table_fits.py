"""The table view (/matches/{id}/table) fits one screen, a TV that cannot scroll: every
ruleset, at the start of a match and after pieces are lost, at 1280×720 and 1920×1080
(and 3840×2160 for the screenshots): one page a moment, its window shrunk from the
largest screen to each smaller one."""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import Page

from app.rules import registry
from app.rules.base import COMMON_ACTION_TYPES
from tests.browser.conftest import join_match, new_match, new_player, rest_act, rest_view
from tests.browser.helpers import resize, table_ready

RULESETS = sorted(registry())
SCREENS = [{"width": 1280, "height": 720}, {"width": 1920, "height": 1080}]
UHD = {"width": 3840, "height": 2160}


def pieces_lost(state: dict[str, Any], start: dict[str, Any]) -> bool:
    if state.get("kind") == "eote":
        return any(c["lost"] > 0 for c in state["characters"])
    on_board = lambda s: sum(1 for p in s.get("pieces", []) if p.get("at"))  # noqa: E731
    return on_board(state) < on_board(start)


def play_until_pieces_are_lost(server, match_id: str, players: list[dict[str, str]]) -> None:
    """Both sides attack whenever they can (else a seeded random action) until a piece is lost."""
    rng = random.Random(17)
    start = None
    for _ in range(600):
        match = rest_view(server, match_id)
        if match["status"] != "active":
            return
        if start is None and match["state"].get("phase", "play") == "play":
            start = match["state"]
        if start is not None and pieces_lost(match["state"], start):
            return
        seat = match["to_act"][0]
        mine = rest_view(server, match_id, players[seat])
        actions = [a for a in mine["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES]
        attacks = [a for a in actions if a["type"] == "attack"]
        rest_act(server, match_id, players[seat], rng.choice(attacks or actions), mine["version"])
    raise AssertionError("no piece was lost within 600 actions")


def fits(page: Page, screen: dict[str, int], shot) -> None:
    resize(page, **screen)
    sizes = page.evaluate(
        "(d => [d.scrollHeight, innerHeight, d.scrollWidth, innerWidth])(document.documentElement)"
    )
    page.screenshot(path=shot)
    assert sizes[0] <= sizes[1], f"{shot.name}: {sizes[0]} px tall on a {sizes[1]} px screen"
    assert sizes[2] <= sizes[3], f"{shot.name}: {sizes[2]} px wide on a {sizes[3]} px screen"
    if page.locator("svg.board").count():
        box = page.locator("svg.board").bounding_box()
        assert box and box["y"] + box["height"] <= screen["height"] + 0.5


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_table_view_fits_one_screen_at_the_start_and_after_losses(
    ruleset, web_server, new_context, artifacts
):
    blue, red = new_player(web_server, "Rey"), new_player(web_server, "Finn")
    match_id = new_match(web_server, blue, ruleset)
    join_match(web_server, red, match_id)
    for moment in ("start", "losses"):
        if moment == "losses":
            play_until_pieces_are_lost(web_server, match_id, [blue, red])
        # Opened on the largest screen, then the window shrunk to each other: the view fits
        # itself again on a resize, and what fitted a larger screen would not fit a smaller.
        page = new_context(viewport=UHD).new_page()
        page.goto(f"{web_server.url}/matches/{match_id}/table")
        table_ready(page, web_server, match_id)
        for screen in [UHD, *reversed(SCREENS)]:
            label = f"{screen['width']}x{screen['height']}"
            fits(page, screen, artifacts / f"table-{ruleset}-{moment}-{label}.png")
        page.context.close()
