"""The words a player reads: after random play of every ruleset, the match log and the
buttons name pieces by owner and name (never an id), no option key shows, dice read
as players say them (never "d6:4"), and the page is titled with the ruleset's name."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from app.rules import registry
from tests.browser.conftest import join_match, new_match, new_player, rest_view, signed_in
from tests.browser.helpers import random_play

RULESETS = sorted(registry())
DICE_NOTATION = re.compile(r"\bd\d+:\d")
SNAKE_CASE = re.compile(r"\b[a-z]+_[a-z_]+\b")


def piece_ids(events: list[dict[str, Any]], state: dict[str, Any]) -> set[str]:
    """Every piece id the match has used: in its events and in its last state."""
    ids: set[str] = set()
    for event in events:
        for key in ("piece", "target", "by", "broken_by"):
            if isinstance(event.get(key), str):
                ids.add(event[key])
        ids.update(p for p in event.get("pieces") or [] if isinstance(p, str))
    for key in ("pieces", "lost", "captured", "defeated", "inactive"):
        ids.update(p["id"] for p in state.get(key) or [] if isinstance(p, dict))
    return ids


@pytest.mark.parametrize("ruleset", RULESETS)
def test_random_play_logs_no_ids_option_keys_or_dice_notation(ruleset, web_server, new_context, artifacts):
    blue, red = new_player(web_server, "Leia"), new_player(web_server, "Chewie")
    match_id = new_match(web_server, blue, ruleset)
    join_match(web_server, red, match_id)
    random_play(web_server, match_id, [blue, red], steps=150, seed=len(ruleset))

    page = signed_in(new_context(viewport={"width": 1280, "height": 800}), web_server, blue).new_page()
    page.goto(f"{web_server.url}/matches/{match_id}")
    expect(page.locator("#connection")).to_have_text("Live")
    events = httpx.get(f"{web_server.url}/api/v1/matches/{match_id}/events?after=0", timeout=30).json()[
        "events"
    ]
    expect(page.locator("#log > li")).to_have_count(len(events))
    page.screenshot(path=artifacts / f"words-{ruleset}.png", full_page=True)

    state = rest_view(web_server, match_id)["state"]
    ids = piece_ids([e for entry in events for e in entry.get("events", [])], state)
    assert ids or ruleset == "eote", "random play used no pieces"
    words = page.locator("#log").inner_text() + "\n" + page.locator("#buttons").inner_text()
    for piece in ids:
        shown = re.search(rf"(?<![\w'-]){re.escape(piece)}(?![\w'-])", words)
        assert not shown, f"piece id {piece!r} in: {words[max(0, shown.start() - 80) : shown.end() + 40]!r}"
    assert not DICE_NOTATION.search(words), DICE_NOTATION.search(words)
    keys = set(registry()[ruleset].options_schema.model_json_schema().get("properties", {}))
    leaked = set(SNAKE_CASE.findall(words)) | {k for k in keys if "_" in k and k in words}
    assert not leaked, f"option keys or internal names in the log: {leaked}"
    assert registry()[ruleset].name in page.title()
