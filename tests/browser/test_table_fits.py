"""The table view (/matches/{id}/table) fits one screen, a TV that cannot scroll: every
ruleset, at the start of a match and after pieces are lost, at 1280×720 and 1920×1080
(and 3840×2160 for the screenshots)."""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from app.rules import registry
from app.rules.base import COMMON_ACTION_TYPES
from tests.browser.conftest import join_match, new_match, new_player, rest_act, rest_view

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


def fits(new_context, server, match_id: str, screen: dict[str, int], shot) -> None:
    page = new_context(viewport=screen).new_page()
    page.goto(f"{server.url}/matches/{match_id}/table")
    expect(page.locator("#tv-connection")).to_have_text("Live")
    entries = httpx.get(f"{server.url}/api/v1/matches/{match_id}/events?after=0", timeout=30).json()["events"]
    expect(page.locator("#tv-log li")).to_have_count(min(6, len(entries)))
    expect(page.locator("#tv-roll")).not_to_have_attribute("data-state", "rolling")
    sizes = page.evaluate(
        "(d => [d.scrollHeight, innerHeight, d.scrollWidth, innerWidth])(document.documentElement)"
    )
    page.screenshot(path=shot)
    assert sizes[0] <= sizes[1], f"{shot.name}: {sizes[0]} px tall on a {sizes[1]} px screen"
    assert sizes[2] <= sizes[3], f"{shot.name}: {sizes[2]} px wide on a {sizes[3]} px screen"
    if page.locator("svg.board").count():
        box = page.locator("svg.board").bounding_box()
        assert box and box["y"] + box["height"] <= screen["height"] + 0.5
    page.context.close()


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
        for screen in [*SCREENS, UHD]:
            label = f"{screen['width']}x{screen['height']}"
            fits(
                new_context, web_server, match_id, screen, artifacts / f"table-{ruleset}-{moment}-{label}.png"
            )
