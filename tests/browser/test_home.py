"""The home page: a name once, your matches, a new match, an invite that seats a newcomer."""

from __future__ import annotations

import httpx
from playwright.sync_api import expect


def test_name_create_invite_and_join_in_one_step(web_server, new_context, artifacts):
    host = new_context(viewport={"width": 1280, "height": 900}).new_page()
    host.goto(web_server.url + "/")
    host.fill("#name-input", "Han")
    host.click("button:has-text('Start')")
    expect(host.locator("header .who")).to_contain_text("Han")
    cookie = next(c for c in host.context.cookies() if c["name"] == "dejarik_token")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    assert host.evaluate("document.cookie") == ""  # the token is out of reach of scripts

    # The options form comes from each ruleset's JSON Schema; kelly is picked by default.
    expect(host.locator("input[name='ruleset'][value='kelly']")).to_be_checked()
    expect(host.locator("input[name='options.kelly.turns_without_kill']")).to_be_visible()
    host.fill("input[name='options.kelly.turns_without_kill']", "40")
    host.screenshot(path=artifacts / "home-new-match.png", full_page=True)
    host.click("button:has-text('Create match')")
    host.wait_for_url("**/matches/*")
    match_id = host.url.rsplit("/", 1)[1]
    expect(host.locator("#turn")).to_contain_text("Waiting for players")
    invite = host.locator("[data-invite-seat='1']")
    expect(invite).to_be_visible()
    expect(host.locator("[data-spectator-link]")).to_have_value(f"{web_server.url}/matches/{match_id}")
    link = invite.input_value()
    assert link == f"{web_server.url}/matches/{match_id}/join/1"
    created = httpx.get(f"{web_server.url}/api/v1/matches/{match_id}").json()
    assert created["options"]["turns_without_kill"] == 40

    # A newcomer: one form, a name, and they sit as Red.
    guest = new_context(viewport={"width": 375, "height": 740}).new_page()
    guest.goto(link)
    guest.fill("#name-input", "Chewie")
    guest.click("button:has-text('Sit as Red')")
    guest.wait_for_url(f"**/matches/{match_id}")
    expect(guest.locator("#role")).to_have_text("You play Red (Chewie).")
    expect(guest.locator("[data-piece]")).to_have_count(8)

    # The host's page starts the match live; the invite disappears.
    expect(host.locator("[data-piece]")).to_have_count(8)
    expect(invite).to_be_hidden()
    expect(host.locator("#log")).to_contain_text("Chewie sat down as Red")
    guest.screenshot(path=artifacts / "home-guest-joined.png", full_page=True)

    # Home lists the match: under "Waiting for you" for whoever must act.
    match = httpx.get(f"{web_server.url}/api/v1/matches/{match_id}").json()
    acting, other = (host, guest) if match["to_act"] == [0] else (guest, host)
    for page in (acting, other):
        page.goto(web_server.url + "/")
    expect(acting.locator(f"[data-group='yours'] [data-match-link='{match_id}']")).to_be_visible()
    expect(other.locator(f"[data-group='playing'] [data-match-link='{match_id}']")).to_be_visible()


def test_options_of_other_rulesets_and_hosting_without_a_seat(web_server, new_context):
    page = new_context().new_page()
    page.goto(web_server.url + "/")
    page.fill("#name-input", "Lando")
    page.click("button:has-text('Start')")
    page.check("input[name='ruleset'][value='simeone']")
    expect(page.locator("select[name='options.simeone.center_point']")).to_be_visible()
    expect(page.locator("input[name='options.kelly.turns_without_kill']")).to_be_hidden()
    page.select_option("select[name='options.simeone.center_point']", "off")
    page.fill("input[name='options.simeone.points_to_win']", "7")
    page.check("input[name='seat'][value='host']")
    page.click("button:has-text('Create match')")
    page.wait_for_url("**/matches/*")
    match = httpx.get(page.url.replace("/matches/", "/api/v1/matches/")).json()
    assert match["ruleset"] == "simeone"
    assert match["options"]["center_point"] == "off" and match["options"]["points_to_win"] == 7
    assert all(seat["player"] is None for seat in match["seats"])
    expect(page.locator("#role")).to_have_text("You host this match.")
    # A GM's invite links are in the Seats panel, with each seat's state.
    expect(page.locator("[data-gm-invite-link='0']")).to_be_visible()
    expect(page.locator("[data-gm-invite-link='1']")).to_be_visible()
