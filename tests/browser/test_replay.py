"""The replay viewer and the dice check, in a real browser: stepping by buttons, keys
and the timer shows the very positions of ``/at/{version}``, and the finished
match's every die is recomputed by WebCrypto in the page."""

from __future__ import annotations

import random
from urllib.parse import parse_qs

import httpx
from playwright.sync_api import Page, expect

from app.rules.base import COMMON_ACTION_TYPES
from tests.browser.conftest import auth, join_match, new_match, new_player, rest_act, rest_view, signed_in


def finished_match(server, ruleset: str = "kelly", seed: int = 3) -> tuple[str, dict]:
    """A match played to the end over REST by two random players who attack when they can
    (a whole game of aimless moves would take hundreds of requests)."""
    players = [new_player(server, "Lando"), new_player(server, "Lobot")]
    match_id = new_match(server, players[0], ruleset)
    join_match(server, players[1], match_id)
    rng = random.Random(seed)
    for _ in range(3000):
        shown = rest_view(server, match_id)
        if shown["status"] == "finished":
            return match_id, shown
        seat = rng.choice(shown["to_act"])
        mine = rest_view(server, match_id, players[seat])
        actions = [a for a in mine["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES]
        action = rng.choice([a for a in actions if a["type"] == "attack"] or actions)
        rest_act(server, match_id, players[seat], action, mine["version"])
    raise AssertionError("the match did not finish")


def at(server, match_id: str, version: int) -> dict:
    return httpx.get(f"{server.url}/api/v1/matches/{match_id}/at/{version}", timeout=30).json()


def expect_position(page: Page, server, match_id: str, version: int, latest: int) -> None:
    expect(page.locator("#position")).to_have_text(f"Step {version} of {latest}")
    for piece in at(server, match_id, version)["state"].get("pieces", []):
        if piece.get("at"):
            expect(page.locator(f"[data-piece='{piece['id']}']")).to_have_attribute("data-at", piece["at"])


def dice_in_log(server, match_id: str) -> int:
    log = httpx.get(f"{server.url}/api/v1/matches/{match_id}/events", timeout=30).json()["events"]
    return sum(len(e["dice"]) for entry in log for e in entry["events"] if e["type"] == "roll")


def test_stepping_through_a_replay_by_buttons_keys_and_timer(web_server, new_context):
    match_id, final = finished_match(web_server)
    latest = final["version"]
    page = new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{web_server.url}/matches/{match_id}/replay?v=3")
    expect_position(page, web_server, match_id, 3, latest)
    page.keyboard.press("ArrowRight")
    expect_position(page, web_server, match_id, 4, latest)
    assert page.url.endswith("?v=4")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect_position(page, web_server, match_id, 2, latest)
    page.click("[data-step='forward']")
    expect_position(page, web_server, match_id, 3, latest)
    page.click("[data-step='last']")
    expect_position(page, web_server, match_id, latest, latest)
    expect(page.locator("#banner")).to_contain_text(final["result"]["reason"])
    expect(page.locator("#log li[aria-current='step']")).to_have_attribute("data-version", str(latest))

    # An attack shows the odds it was declared with.
    log = httpx.get(f"{web_server.url}/api/v1/matches/{match_id}/events", timeout=30).json()["events"]
    attack = next((e for e in log if e["action"].get("odds")), None)
    if attack is not None:
        page.click(f"#log li[data-version='{attack['version']}']")
        expect_position(page, web_server, match_id, attack["version"], latest)
        expect(page.locator("#odds")).to_contain_text("Odds as declared")
        expect(page.locator("#dice-tray .die").first).to_be_visible()

    # Play from the start at the fastest speed: it runs to the end and stops.
    page.click("[data-step='first']")
    expect_position(page, web_server, match_id, 0, latest)
    page.select_option("[data-speed]", "100")
    page.click("[data-play]")
    expect(page.locator("[data-play]")).to_have_text("Pause")
    expect(page.locator("#position")).to_have_text(
        f"Step {latest} of {latest}", timeout=latest * 400 + 10_000
    )
    expect(page.locator("[data-play]")).to_have_text("Play")
    expect_position(page, web_server, match_id, latest, latest)


def test_the_replay_opens_on_the_final_position_with_controls_every_font_draws(
    web_server, new_context, artifacts
):
    match_id, final = finished_match(web_server, seed=7)
    latest = final["version"]
    for width, height in ((1366, 768), (390, 844)):
        page = new_context(viewport={"width": width, "height": height}).new_page()
        page.goto(f"{web_server.url}/matches/{match_id}/replay")  # as the match page links it
        # What a player who just finished wants: the end, with its result and final board.
        expect(page.locator("#replay")).to_have_attribute("data-version", str(latest))
        expect_position(page, web_server, match_id, latest, latest)
        expect(page.locator("#banner")).to_contain_text(final["result"]["reason"])
        expect(page.locator("svg.board")).to_be_in_viewport(ratio=1)
        expect(page.locator("#dice-tray")).not_to_have_attribute("data-state", "rolling")
        page.screenshot(path=artifacts / "issue31" / f"replay-opens-{width}x{height}.png")
        # Each control is words and the marks « ‹ › » (characters of Windows-1252, which
        # every system font draws; ⏮ ⏭ showed as empty boxes), with a name for screen readers.
        controls = page.locator(".replay-controls button").evaluate_all(
            "buttons => buttons.map((b) => [b.textContent.trim(), b.getAttribute('aria-label')])"
        )
        assert len(controls) == 5
        for shown, name in controls:
            assert shown and name, controls
            shown.encode("cp1252")  # raises on a character outside it
        page.click("[data-step='first']")
        expect(page.locator("#replay")).to_have_attribute("data-version", "0")


def test_the_dice_check_runs_in_the_browser_on_the_replay_and_the_match_page(web_server, new_context):
    match_id, _ = finished_match(web_server, "kelly-d20", seed=5)
    dice = dice_in_log(web_server, match_id)
    assert dice > 0
    page = new_context(viewport={"width": 1280, "height": 900}).new_page()
    for url in (f"/matches/{match_id}/replay", f"/matches/{match_id}"):
        page.goto(web_server.url + url)
        panel = page.locator("#verify-dice")
        expect(panel).to_be_visible()
        panel.locator("[data-verify]").click()
        result = panel.locator("[data-verify-result]")
        expect(result).to_have_attribute("data-verdict", "ok")
        expect(result).to_contain_text(f"Checked {dice} dice")
        expect(result).to_have_attribute("data-checked", str(dice))

    # The same check on a copy of the log with one die changed finds it.
    report = page.evaluate(
        """async (matchId) => {
            const { verifyDice } = await import('/static/js/verify.js');
            const view = await (await fetch(`/api/v1/matches/${matchId}`)).json();
            const { events } = await (await fetch(`/api/v1/matches/${matchId}/events`)).json();
            const roll = events.flatMap((e) => e.events).find((e) => e.type === 'roll' && e.dice.length);
            roll.dice[0].face = roll.dice[0].face % roll.dice[0].sides + 1;
            return await verifyDice(view, events);
        }""",
        match_id,
    )
    assert len(report["problems"]) >= 1 and "the seed gives" in report["problems"][0]


def test_a_running_match_replays_without_its_seed_and_the_browser_sends_its_own(web_server, new_context):
    host = new_player(web_server, "Seeder")
    context = new_context(viewport={"width": 1280, "height": 900})
    signed_in(context, web_server, host)
    page = context.new_page()
    page.goto(web_server.url + "/")
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/matches")) as sent:
        page.click("[data-play-friend]")
    page.wait_for_url("**/matches/*")
    match_id = page.url.rsplit("/", 1)[1]
    created = rest_view(web_server, match_id, host)
    seed = created["dice"]["player_seeds"][0]
    assert len(seed) == 64 and created["dice"]["scheme"] == "hmac-sha256-v2"
    assert parse_qs(sent.value.post_data)["seed"] == [seed], "the seed is the one the browser drew"
    guest = new_player(web_server, "Guest")
    httpx.post(
        f"{web_server.url}/api/v1/matches/{match_id}/join", json={"seed": "ab" * 20}, headers=auth(guest)
    ).raise_for_status()
    assert rest_view(web_server, match_id)["dice"]["player_seeds"] == [seed, "ab" * 20]
    page.goto(f"{web_server.url}/matches/{match_id}/replay")
    latest = created["version"] + 2
    expect(page.locator("#position")).to_have_text(f"Step {latest} of {latest}")
    expect(page.locator("#verify-dice")).to_have_count(0)
    # The match goes on; at the end of the replay, End finds the version played since.
    playing = rest_view(web_server, match_id)
    seat = playing["to_act"][0]
    mover = [host, guest][seat]
    mine = rest_view(web_server, match_id, mover)
    action = next(a for a in mine["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES)
    rest_act(web_server, match_id, mover, action, mine["version"])
    page.keyboard.press("End")
    expect(page.locator("#position")).to_have_text(f"Step {latest + 1} of {latest + 1}")
    expect(page.locator(f"#log li[data-version='{latest + 1}']")).to_have_attribute("aria-current", "step")


def test_a_rematch_offered_in_one_browser_is_accepted_live_in_the_other(web_server, new_context):
    players = [new_player(web_server, "Offers"), new_player(web_server, "Accepts")]
    match_id = new_match(web_server, players[0], "kelly")
    join_match(web_server, players[1], match_id)
    pages = []
    for player in players:
        context = signed_in(new_context(viewport={"width": 1280, "height": 900}), web_server, player)
        page = context.new_page()
        page.goto(f"{web_server.url}/matches/{match_id}")
        expect(page.locator("#connection")).to_have_attribute("data-connection", "live")
        pages.append(page)
    shown = rest_view(web_server, match_id)
    rest_act(web_server, match_id, players[1], {"type": "resign"}, shown["version"])
    offerer, accepter = pages
    expect(offerer.locator("[data-rematch='offer']")).to_be_visible()
    expect(offerer.locator("#records [data-replay-link]")).to_be_visible()
    offerer.click("[data-rematch='offer']")
    expect(offerer.locator("[data-rematch-status]")).to_contain_text("waiting for an answer")
    # The other page hears of the offer over its websocket: no reload.
    expect(accepter.locator("[data-rematch-status]")).to_contain_text("Offers offers a rematch")
    accepter.click("[data-rematch='accept']")
    for page in (accepter, offerer):
        page.wait_for_url(lambda url: match_id not in url and "/matches/" in url)
    new_id = offerer.url.rsplit("/", 1)[1]
    assert accepter.url.rsplit("/", 1)[1] == new_id
    new = rest_view(web_server, new_id)
    assert new["status"] == "active" and [s["player"]["name"] for s in new["seats"]] == ["Accepts", "Offers"]
    expect(offerer.locator("#role")).to_contain_text("You play")
