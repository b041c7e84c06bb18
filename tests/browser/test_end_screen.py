"""After the game: the end screen offers a new match (same ruleset and options, seats
swapped, both players seated; the second to ask lands in the same one) and a link to
your matches."""

from __future__ import annotations

import httpx
from playwright.sync_api import expect

from tests.browser.conftest import auth, join_match, new_player, rest_view, signed_in


def test_new_match_from_the_end_screen_swaps_the_seats(web_server, new_context, artifacts):
    blue, red = new_player(web_server, "Leia"), new_player(web_server, "Chewie")
    options = {"death_push": True, "teams": "random"}
    created = httpx.post(
        f"{web_server.url}/api/v1/matches",
        json={"ruleset": "dalsiandon", "options": options, "seat": 0},
        headers=auth(blue),
        timeout=30,
    )
    match_id = created.json()["id"]
    join_match(web_server, red, match_id)
    pages = {}
    for name, player in (("blue", blue), ("red", red)):
        page = signed_in(new_context(viewport={"width": 1280, "height": 800}), web_server, player).new_page()
        page.goto(f"{web_server.url}/matches/{match_id}")
        expect(page.locator("#connection")).to_have_text("Live")
        expect(page.locator("#after-match")).to_be_hidden()
        pages[name] = page
    red_page = pages["red"]
    red_page.click("[data-action-type='resign']")
    red_page.click("[data-action-type='resign']")
    for page in pages.values():
        expect(page.locator("#after-match [data-new-match]")).to_be_visible()
        expect(page.locator("#after-match [data-your-matches]")).to_have_attribute("href", "/")
    red_page.screenshot(path=artifacts / "end-screen.png")

    red_page.click("[data-new-match]")
    red_page.wait_for_url(lambda url: match_id not in url)
    again = red_page.url.rsplit("/", 1)[1]
    expect(red_page.locator("#connection")).to_have_text("Live")
    view = rest_view(web_server, again)
    assert view["ruleset"] == "dalsiandon"
    assert view["options"]["death_push"] is True and view["options"]["teams"] == "random"
    seats = {s["seat"]: s["player"]["id"] for s in view["seats"] if s["player"]}
    assert seats == {0: red["id"], 1: blue["id"]}, "the seats are swapped and both are seated"
    assert view["status"] == "active"

    # The other player's "New match" lands in the same match, not a third one.
    pages["blue"].click("[data-new-match]")
    pages["blue"].wait_for_url(f"**/matches/{again}")
    expect(pages["blue"].locator("#role")).to_contain_text("You play Red")


def test_new_match_is_refused_before_the_end_and_to_strangers(web_server):
    blue, red, stranger = (new_player(web_server, n) for n in ("Leia", "Chewie", "Jabba"))
    created = httpx.post(
        f"{web_server.url}/api/v1/matches",
        json={"ruleset": "kelly", "options": {}, "seat": 0},
        headers=auth(blue),
        timeout=30,
    )
    match_id = created.json()["id"]
    join_match(web_server, red, match_id)
    url = f"{web_server.url}/matches/{match_id}/again"
    early = httpx.post(url, cookies={"dejarik_token": blue["token"]}, timeout=30)
    assert early.status_code == 409 and "finished match" in early.text
    version = rest_view(web_server, match_id, red)["version"]
    resigned = httpx.post(
        f"{web_server.url}/api/v1/matches/{match_id}/actions",
        json={"action": {"type": "resign"}, "version": version},
        headers=auth(red),
        timeout=30,
    )
    assert resigned.status_code == 200
    outsider = httpx.post(url, cookies={"dejarik_token": stranger["token"]}, timeout=30)
    assert outsider.status_code == 409
    matches = httpx.get(f"{web_server.url}/api/v1/matches?player={stranger['id']}", timeout=30).json()
    assert matches["matches"] == [], "nothing was created for a stranger"
