"""The home page: a name once, then three choices (the computer in one click, a friend,
the tutorial) under your matches; the full new-match form one step away; an invite that
seats a newcomer; nothing wider than the window at any width."""

from __future__ import annotations

import httpx
from playwright.sync_api import expect

from tests.browser.conftest import join_match, new_match, new_player, signed_in
from tests.browser.helpers import open_new_match_form, open_page, resize


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
    open_new_match_form(host)
    expect(host.locator("#new-match input[name='ruleset'][value='kelly']")).to_be_checked()
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
    open_new_match_form(page)
    page.check("input[type='radio'][name='ruleset'][value='simeone']")
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


# The sizes of the walk-through (phone, laptop, TV) and the extremes: a small phone, a 4K screen.
SIZES = {320: 640, 390: 844, 1366: 768, 1920: 1080, 3840: 2160}
OVERFLOW = "document.documentElement.scrollWidth - innerWidth"


def test_one_click_after_a_name_plays_kelly_against_the_beginner_bot(web_server, new_context, artifacts):
    for width in (390, 1366, 1920):
        page = open_page(new_context(viewport={"width": width, "height": SIZES[width]}), web_server.url + "/")
        page.fill("#name-input", f"Rey {width}")
        page.click("button:has-text('Start')")
        expect(page.locator("header .who")).to_contain_text(f"Rey {width}")
        play = page.get_by_role("button", name="Play the computer")  # one, on the first screen
        expect(play).to_be_in_viewport()
        expect(page.get_by_role("button", name="Play a friend")).to_be_in_viewport()
        expect(page.locator("[data-start='learn'] a[href='/tutorial']")).to_be_in_viewport()
        if width == 390:
            page.screenshot(path=artifacts / "home-first-screen-new-390.png")
        assert page.js_errors == []
        play.click()
        page.wait_for_url("**/matches/*")
        expect(page.locator("[data-bot-seat='1']")).to_contain_text("Beginner bot")
        match = httpx.get(page.url.replace("/matches/", "/api/v1/matches/")).json()
        assert match["ruleset"] == "kelly" and match["status"] == "active"
        assert match["seats"][0]["player"]["name"] == f"Rey {width}"
        assert match["seats"][1]["bot"]["id"] == "kelly-beginner"


def test_nothing_is_wider_than_the_window_from_320_to_3840_px(web_server, new_context, artifacts):
    # Signed out: the name form and the rules links.
    page = new_context(viewport={"width": 320, "height": SIZES[320]}).new_page()
    page.goto(web_server.url + "/")
    for width, height in SIZES.items():
        resize(page, width, height)
        assert page.evaluate(OVERFLOW) <= 0, f"signed out, {width} px"

    # Signed in with matches: they wait above the three choices; the settings are elsewhere.
    leia, luke = new_player(web_server, "Leia Organa of Alderaan"), new_player(web_server, "Luke")
    new_match(web_server, leia)
    join_match(web_server, luke, new_match(web_server, leia))
    page = signed_in(new_context(viewport={"width": 320, "height": SIZES[320]}), web_server, leia).new_page()
    page.goto(web_server.url + "/")
    expect(page.locator("[data-match-link]")).to_have_count(2)
    expect(page.locator("#my-matches + .start")).to_be_attached()
    expect(page.locator("input[name='webhook_url']")).to_have_count(0)
    header = None
    for width, height in SIZES.items():
        resize(page, width, height)
        assert page.evaluate(OVERFLOW) <= 0, f"signed in, {width} px"
        # The header keeps to one line (the name is cut short on a small phone).
        height_now = page.locator("header.site").bounding_box()["height"]
        assert header is None or abs(height_now - header) < 1, f"the header wraps at {width} px"
        header = height_now
        if width in (390, 1366, 1920):
            expect(page.get_by_role("button", name="Play the computer")).to_be_in_viewport()
            page.screenshot(path=artifacts / f"home-first-screen-{width}.png")

    # The full form, one step away: every ruleset, option, seat and level fits too.
    open_new_match_form(page)
    expect(page.locator("#bot-level")).to_have_value("beginner")
    for width, height in SIZES.items():
        resize(page, width, height)
        assert page.evaluate(OVERFLOW) <= 0, f"the full form, {width} px"
        if width == 390:
            page.screenshot(path=artifacts / "home-full-form-390.png", full_page=True)


def test_the_clock_is_chosen_from_presets_or_in_minutes_hours_and_days(web_server, new_context, artifacts):
    """Issue 31: no clock in seconds. The form offers no clock, 5, 10 or 30 minutes a move
    (live) and 1, 3 or 7 days (correspondence), or another time in minutes, hours or days,
    whose fields show only once it is chosen; the match keeps the clock chosen."""
    kessa = new_player(web_server, "Kessa")
    out = artifacts / "issue31"
    out.mkdir(exist_ok=True)
    for width, height in ((1366, 768), (390, 844)):
        page = signed_in(
            new_context(viewport={"width": width, "height": height}), web_server, kessa
        ).new_page()
        page.goto(web_server.url + "/")
        open_new_match_form(page)
        clock = page.locator("[data-options-for='kelly'] [data-clock]")
        preset = clock.locator("select[data-clock-part='preset']")
        options = [o.strip() for o in preset.locator("option").all_inner_texts()]
        assert options == [
            "No clock",
            *(f"{t} a move" for t in ("5 minutes", "10 minutes", "30 minutes", "1 day", "3 days", "7 days")),
            "Another time…",
        ]
        expect(clock).not_to_contain_text("Per move")
        amount = clock.locator("input[data-clock-part='amount']")
        expect(amount).to_be_hidden()  # until "Another time…" is chosen
        preset.select_option(label="1 day a move")
        clock.scroll_into_view_if_needed()
        page.screenshot(path=out / f"new-match-clock-presets-{width}x{height}.png")
        preset.select_option("custom")
        expect(amount).to_be_visible()
        amount.fill("90")
        clock.locator("select[data-clock-part='unit']").select_option("minutes")
        page.screenshot(path=out / f"new-match-clock-custom-{width}x{height}.png")
    page.locator("#new-match button[type='submit']:has-text('Create match')").click()
    page.wait_for_url("**/matches/*")
    match_id = page.url.rsplit("/", 1)[1]
    options = httpx.get(f"{web_server.url}/api/v1/matches/{match_id}", timeout=30).json()["options"]
    assert options["clock"] == {"per_move_s": 90 * 60}
