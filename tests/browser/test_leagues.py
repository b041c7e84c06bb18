"""A league in the browser (issue 32): a GM creates a round-robin of four (two players,
two bots) from the page, the players join by its invite link, play their round-1
matches by clicking, and the standings change on every screen without a reload."""

from __future__ import annotations

import re
import time

import httpx
from playwright.sync_api import Page, expect

from app.api.league_pages import score
from tests.browser.conftest import new_player, signed_in
from tests.browser.helpers import open_page, play_any, view, wait_for_version

RULESET = "courtier"  # with four quiet turns to a draw: short games, whoever wins them


def league_page_ready(page: Page) -> None:
    """The page's websocket is open (it hears of changes from then on), and a marker
    that a reload would wipe is set."""
    page.wait_for_function("() => document.querySelector('[data-league]') !== null")
    page.evaluate("() => { window.__notReloaded = true; }")


def my_turn(page: Page) -> bool:
    match = view(page)
    return match["you"]["seat"] in match["to_act"]


def standings_row(page: Page, player_id: str):
    return page.locator(f"[data-standing='{player_id}']")


def test_a_gm_runs_a_round_robin_of_four_in_the_browser(web_server, new_context, artifacts):
    gm = new_player(web_server, "Maz Kanata")
    gm_context = signed_in(new_context(viewport={"width": 1280, "height": 900}), web_server, gm)
    host = open_page(gm_context, f"{web_server.url}/leagues/new")
    host.fill("#league-name", "Takodana Open")
    host.check(f"input[type='radio'][name='ruleset'][value='{RULESET}']")
    host.fill(f"input[name='options.{RULESET}.turns_without_kill']", "4")
    host.check("input[name='format'][value='round-robin']")
    host.check("input[name='play'][value='run']")  # the GM runs it and does not play
    host.click("button:has-text('Create league')")
    host.wait_for_url("**/leagues/*")
    league_id = host.url.rsplit("/", 1)[1]

    for bot in (f"{RULESET}-beginner", f"{RULESET}-club"):
        host.select_option("#league-bot", bot)
        host.click("[data-league-add-bot]")
        expect(host.locator("[data-league-player]")).to_have_count(1 if bot.endswith("beginner") else 2)
    invite = host.locator("#league-invite").input_value()
    assert invite.endswith(f"/leagues/{league_id}")

    players = [new_player(web_server, name) for name in ("Rey", "Finn")]
    pages: dict[str, Page] = {}
    for player in players:
        page = open_page(signed_in(new_context(), web_server, player), invite)
        page.click("[data-league-join]")
        expect(page.locator(f"[data-league-player='{player['id']}']")).to_be_visible()
        pages[player["id"]] = page
    expect(host.locator("[data-league-player]")).to_have_count(4)

    host.click("[data-league-start]")
    expect(host.locator("[data-league-status]")).to_contain_text("Running")
    league = httpx.get(f"{web_server.url}/api/v1/leagues/{league_id}").json()
    assert league["status"] == "running" and len(league["rounds"]) == 3  # a round-robin pairs every round
    round_one = league["rounds"][0]["pairings"]

    # Every screen shows the standings, all at nought, before anyone plays.
    league_pages = [host]
    for player in players:
        league_page = open_page(pages[player["id"]].context, f"{web_server.url}/leagues/{league_id}")
        league_pages.append(league_page)
    for page in league_pages:
        league_page_ready(page)
        for player in players:
            expect(standings_row(page, player["id"]).locator("td").nth(2)).to_have_text("0")  # played

    # Each player finds their round-1 match on the home page and plays it by clicking.
    match_pages: list[Page] = []
    for player in players:
        home = pages[player["id"]]
        home.goto(f"{web_server.url}/")
        lines = home.locator("[data-league-matches] li")
        expect(lines).to_have_count(3)  # a match a round: a round-robin's rounds are all paired at the start
        line = lines.filter(has_text="round 1").locator("a")
        expect(line).to_contain_text("Your league match against")
        line.click()
        home.wait_for_url("**/matches/*")
        expect(home.locator("#connection")).to_have_text("Live")
        expect(home.locator("#match")).to_have_attribute("data-version", re.compile(r"^\d+$"))
        league_line = home.locator("[data-league-line]")
        expect(league_line).to_have_text("A match of the league Takodana Open, round 1")
        match_pages.append(home)
    mine = {page.url.rsplit("/", 1)[1] for page in match_pages}
    assert mine <= {p["match"] for p in round_one}

    # Whoever is to act plays (a bot answers by itself; the two players may meet each other).
    moves, idle_since = 0, time.monotonic()
    while not all(view(page)["status"] == "finished" for page in match_pages):
        acting = [p for p in match_pages if view(p)["status"] != "finished" and my_turn(p)]
        for page in acting:
            wait_for_version(page, play_any(page) + 1)
            moves, idle_since = moves + 1, time.monotonic()
        if not acting:
            assert time.monotonic() - idle_since < 60, (
                "nobody could act for a minute"
            )  # a bot's first move starts its process
            match_pages[0].wait_for_timeout(100)
        assert moves < 300

    # The standings changed on all three league pages, which were never reloaded.
    finished = httpx.get(f"{web_server.url}/api/v1/leagues/{league_id}").json()
    results = {p["match"]: p["result"] for p in finished["rounds"][0]["pairings"]}
    assert all(results[m] in ("1-0", "0-1", "½-½") for m in mine)
    expected = {
        s["player"]["id"] if isinstance(s["player"], dict) else s["player"]: s for s in finished["standings"]
    }
    for page in league_pages:
        for player in players:
            row = standings_row(page, player["id"])
            expect(row.locator("td").nth(2)).to_have_text("1")  # played
            expect(row.locator("td").nth(1)).to_have_text(score(expected[player["id"]]["points"]))
        assert page.evaluate("() => window.__notReloaded === true")
        for match_id in mine:
            expect(
                page.locator(
                    f"[data-pairing='1-{[p['match'] for p in round_one].index(match_id)}'] [data-result]"
                )
            ).not_to_contain_text("in play")
    host.screenshot(path=artifacts / "league-standings.png", full_page=True)

    # Finn withdraws, asked first: his games left are lost by forfeit, on the host's screen too.
    finn = players[1]
    finn_page = league_pages[2]
    finn_page.get_by_text("Withdraw from the league").click()
    finn_page.click("[data-league-withdraw]")
    expect(host.locator(f"[data-league-player='{finn['id']}']")).to_contain_text("(withdrawn)")
    later = [
        i
        for r in league["rounds"][1:]
        for i, p in enumerate(r["pairings"])
        if finn["id"] in {s and s["id"] for s in p["seats"]}
    ]
    assert later, "Finn had games in the later rounds"
    expect(host.locator("[data-result]", has_text="(forfeit)")).to_have_count(len(later))
    assert host.evaluate("() => window.__notReloaded === true")


LONG_NAMES = (
    "Grand Admiral Thrawn",
    "Doctor Aphra of Vanqor",
    "Qi'ra of Corellia",
    "Cad Bane",
    "Hondo Ohnaka",
)


def test_the_league_page_fits_a_phone_a_laptop_and_a_tv(web_server, new_context, artifacts):
    """A running round-robin of six (long names, a result in) on the host's page, at the
    sizes the newcomer walk used: the page never scrolls sideways, the standings' player,
    points and tie-break are on screen (a phone hides won, drawn and lost), the text reads
    on a phone, and the host's controls are big enough to tap."""
    host = new_player(web_server, "Mace Windu of Haruun Kal")
    created = httpx.post(
        f"{web_server.url}/api/v1/leagues",
        json={"name": "The Outer Rim Winter League", "ruleset": "kelly", "format": "round-robin"},
        headers={"Authorization": f"Bearer {host['token']}"},
    )
    assert created.status_code == 201, created.text
    league_id = created.json()["id"]
    players = [new_player(web_server, name) for name in LONG_NAMES]
    for player in players:
        joined = httpx.post(
            f"{web_server.url}/api/v1/leagues/{league_id}/join",
            headers={"Authorization": f"Bearer {player['token']}"},
        )
        assert joined.status_code == 200, joined.text
    started = httpx.post(
        f"{web_server.url}/api/v1/leagues/{league_id}/start",
        headers={"Authorization": f"Bearer {host['token']}"},
    ).json()
    played = started["rounds"][0]["pairings"][0]
    loser = next(p for p in (host, *players) if p["id"] == played["seats"][1]["id"])
    current = httpx.get(f"{web_server.url}/api/v1/matches/{played['match']}").json()
    resigned = httpx.post(
        f"{web_server.url}/api/v1/matches/{played['match']}/actions",
        json={"action": {"type": "resign"}, "version": current["version"]},
        headers={"Authorization": f"Bearer {loser['token']}"},
    )
    assert resigned.status_code == 200, resigned.text

    for width, height in ((375, 812), (1366, 768), (1920, 1080)):
        phone = width < 500
        context = new_context(viewport={"width": width, "height": height}, has_touch=phone, is_mobile=phone)
        page = open_page(signed_in(context, web_server, host), f"{web_server.url}/leagues/{league_id}")
        league_page_ready(page)
        expect(page.locator("[data-standings] td").first).to_be_visible()
        # The result in words, not a chess score: seat 1 resigned, so seat 0 won.
        expect(page.locator(f"[data-league-match='{played['match']}']")).to_contain_text(
            f"{played['seats'][0]['name']} won"
        )
        page.screenshot(path=artifacts / f"league-{width}x{height}.png", full_page=True)
        label = f"{width}×{height}"
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), (
            f"scrolls sideways: {label}"
        )
        row = standings_row(page, host["id"])
        for column in ("th", "td:nth-of-type(2)", "td:last-of-type"):  # player, points, tie-break
            box = row.locator(column).bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, (label, column, box)
        wdl_shown = row.locator("td.wdl").first.is_visible()
        assert wdl_shown is not phone, f"won/drawn/lost shown: {wdl_shown} at {label}"
        if phone:
            size = page.evaluate(
                "parseFloat(getComputedStyle(document.querySelector('[data-standings] td')).fontSize)"
            )
            assert size >= 14, f"standings text {size}px on a phone"
            for control in (".adjudicate-form select", "[data-league-adjudicate]", "summary"):
                for box in (b.bounding_box() for b in page.locator(control).all()[:3]):
                    assert box and box["height"] >= 44, (control, box)
        # Started, the host who plays has only their own place left to manage there.
        expect(page.locator("#league-controls-title")).to_have_text("Your place")
        # Nothing is adjudicated by a slip: the host first chooses the result.
        expect(page.locator(".adjudicate-form select").first).to_have_value("")
        # The host adjudicates without scrolling the rounds' tables sideways.
        button = page.locator("[data-league-adjudicate]").first.bounding_box()
        assert button and button["x"] + button["width"] <= width + 0.5, (label, button)
        context.close()
