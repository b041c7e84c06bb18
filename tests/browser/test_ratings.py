"""A rated match's end, seen live: each player's rating change under the end banner."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.conftest import REST, auth, join_match, new_player, rest_act, rest_view, signed_in
from tests.browser.helpers import random_play


def test_the_end_of_a_rated_match_shows_each_players_change(web_server, new_context):
    rey, kylo = new_player(web_server, "Rey"), new_player(web_server, "Kylo")
    created = REST.post(
        f"{web_server.url}/api/v1/matches",
        json={"ruleset": "kelly", "seat": 0, "rated": True},
        headers=auth(rey),
    )
    match_id = created.json()["id"]
    join_match(web_server, kylo, match_id)
    random_play(web_server, match_id, [rey, kylo], steps=6, seed=5)  # both seats play: the match counts
    page = signed_in(new_context(), web_server, rey).new_page()
    page.goto(f"{web_server.url}/matches/{match_id}")
    expect(page.locator("#connection")).to_have_text("Live")
    changes = page.locator("#rating-changes")
    expect(changes).to_be_hidden()

    mine = rest_view(web_server, match_id, kylo)
    resign = next(a for a in mine["legal_actions"] if a["type"] == "resign")
    rest_act(web_server, match_id, kylo, resign, mine["version"])
    expect(page.locator("#banner")).to_contain_text("You won")
    expect(changes).to_contain_text(re.compile(r"Rey 1500\? → 1[6-9]\d\d\? \(\+\d+\)"))
    expect(changes).to_contain_text(re.compile(r"Kylo 1500\? → 1[1-4]\d\d\? \(−\d+\)"))
