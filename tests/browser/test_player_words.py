"""The words a player reads reach the page as the server wrote them. Which words the
server writes, for every ruleset (pieces by owner and name, never an id; no option
key; dice as players say them), is tested without a browser in tests/rules/test_words.py;
here, after random play of one ruleset, the match log shows every entry with the
server's words, the buttons (words the page adds to actions that have none) show no
id either, and the page is titled with the ruleset's name."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import expect

from app.rules import registry
from tests.browser.conftest import join_match, new_match, new_player, signed_in
from tests.browser.helpers import match_page_ready, random_play

# simeone: actions without words of their own (a stunned piece shaking off the stun, a
# push off the board) are worded by the page, and pieces leave the board for the tray.
RULESET = "simeone"
DICE_NOTATION = re.compile(r"\bd\d+:\d")
SNAKE_CASE = re.compile(r"\b[a-z]+_[a-z_]+\b")


def test_random_play_shows_the_servers_words_and_no_ids(web_server, new_context, artifacts):
    blue, red = new_player(web_server, "Leia"), new_player(web_server, "Chewie")
    match_id = new_match(web_server, blue, RULESET)
    join_match(web_server, red, match_id)
    random_play(web_server, match_id, [blue, red], steps=150, seed=len(RULESET))

    page = signed_in(new_context(viewport={"width": 1280, "height": 800}), web_server, blue).new_page()
    page.goto(f"{web_server.url}/matches/{match_id}")
    match_page_ready(page)
    entries = httpx.get(
        f"{web_server.url}/api/v1/matches/{match_id}/events?after=0",
        headers={"Authorization": f"Bearer {blue['token']}"},
        timeout=30,
    ).json()["events"]
    expect(page.locator("#log > li")).to_have_count(len(entries))
    page.screenshot(path=artifacts / f"words-{RULESET}.png", full_page=True)

    log = page.locator("#log").inner_text()
    texts = [event["text"] for entry in entries for event in entry["events"]]
    assert texts and all(text in log for text in texts), "every event shows in the server's words"
    ids = {e[key] for entry in entries for e in entry["events"] for key in ("piece", "target") if key in e}
    assert ids, "random play used pieces"
    words = log + "\n" + page.locator("#buttons").inner_text()
    for piece in ids:
        shown = re.search(rf"(?<![\w'-]){re.escape(piece)}(?![\w'-])", words)
        assert not shown, f"piece id {piece!r} in: {words[max(0, shown.start() - 80) : shown.end() + 40]!r}"
    assert not DICE_NOTATION.search(words), DICE_NOTATION.search(words)
    assert not SNAKE_CASE.findall(words), f"internal names in the log or buttons: {SNAKE_CASE.findall(words)}"
    assert registry()[RULESET].name in page.title()
