"""Correspondence play in the browser: the home page's "Your turn" list with the
time left, kept current and counted in the tab's title; the notification settings (on the settings page);
the board's countdown, presence at the table, and a claim of the win on time."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import httpx
from playwright.sync_api import expect

from app.models import utcnow
from app.rules.base import COMMON_ACTION_TYPES
from tests.api.receivers import SmtpSink, WebhookReceiver
from tests.browser.conftest import auth, join_match, new_player, rest_act, rest_view, signed_in


def timed_match(server, host, per_move_s: int) -> str:
    response = httpx.post(
        f"{server.url}/api/v1/matches",
        json={"ruleset": "kelly", "options": {"clock": {"per_move_s": per_move_s}}, "seat": 0},
        headers=auth(host),
        timeout=30,
    )
    assert response.status_code == 201, response.text
    return response.json()["id"]


def background(page) -> None:
    """The tab goes to the background, as when the player switches to another tab."""
    page.evaluate(
        "Object.defineProperty(document, 'hidden', {value: true, configurable: true});"
        "document.dispatchEvent(new Event('visibilitychange'))"
    )


def test_home_lists_your_turn_first_with_time_left_and_keeps_it_current(web_server, new_context, artifacts):
    han, greedo = new_player(web_server, "Han"), new_player(web_server, "Greedo")
    match_id = timed_match(web_server, han, 24 * 3600)
    join_match(web_server, greedo, match_id)
    view = rest_view(web_server, match_id)
    mover, waiting = (han, greedo) if view["to_act"] == [0] else (greedo, han)

    pages = {}
    for player in (mover, waiting):
        page = signed_in(new_context(), web_server, player).new_page()
        page.goto(web_server.url + "/")
        pages[player["id"]] = page
    mine, theirs = pages[mover["id"]], pages[waiting["id"]]
    expect(mine.locator("#my-matches h2").first).to_have_text("Your turn")
    row = mine.locator(f"[data-group='yours'] [data-match-link='{match_id}']")
    expect(row.locator("time.time-left")).to_contain_text("h")  # 23 h 59 min left
    expect(row.locator("time.time-left")).to_contain_text("left")
    expect(theirs.locator(f"[data-group='playing'] [data-match-link='{match_id}']")).to_be_visible()
    background(theirs)
    assert "Your turn" not in theirs.title()  # nothing waits for them yet
    mine.screenshot(path=artifacts / "home-your-turn.png", full_page=True)

    # The mover plays a whole turn elsewhere; both home pages follow by themselves.
    seat = rest_view(web_server, match_id, mover)["you"]["seat"]
    while seat in (current := rest_view(web_server, match_id, mover))["to_act"]:
        moves = [a for a in current["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES]
        action = next((a for a in moves if a["type"] == "move"), moves[0])
        rest_act(web_server, match_id, mover, action, current["version"])
    # The pages poll every 5 s (static/js/home.js): the next poll may come that long after.
    polled = {"timeout": 12_000}
    expect(theirs.locator(f"[data-group='yours'] [data-match-link='{match_id}']")).to_be_visible(**polled)
    expect(mine.locator(f"[data-group='playing'] [data-match-link='{match_id}']")).to_be_visible(**polled)
    expect(theirs).to_have_title("(1) Your turn")


def test_notification_settings_in_the_browser(web_server, new_context):
    lando = new_player(web_server, "Lando")
    page = signed_in(new_context(), web_server, lando).new_page()
    page.goto(web_server.url + "/")
    # The settings are on their own page, one click from the header on every page.
    expect(page.locator("#notifications-form")).to_have_count(0)
    page.click("[data-settings-link]")
    page.wait_for_url("**/settings")
    # This server has no SMTP server set up: the page says so, and asks for no address.
    expect(page.locator("[data-email-status]")).to_contain_text("This server sends no email")
    expect(page.locator("input[name='email']")).to_have_count(0)
    page.fill("input[name='webhook_url']", "http://127.0.0.1:9/hook")
    page.click("#notifications-form button")
    expect(page.locator("#notifications-status")).to_contain_text("private")  # refused, said why

    settings = web_server.server.config.app.state.settings  # the notifier's too
    smtp = SmtpSink()
    settings.smtp_url = smtp.url
    try:
        page.reload()
        page.fill("input[name='webhook_url']", "")
        page.fill("input[name='email']", "lando@example.org")
        page.click("#notifications-form button")
        expect(page.locator("#notifications-status")).to_have_text(
            "Check your inbox to confirm lando@example.org: "
            "nothing else is sent there until you open the link."
        )
        saved = httpx.get(f"{web_server.url}/api/v1/players/me/notifications", headers=auth(lando)).json()
        assert saved == {"webhook_url": None, "email": "lando@example.org", "email_status": "pending"}
        page.reload()
        expect(page.locator("input[name='email']")).to_have_value("lando@example.org")
        expect(page.locator("[data-email-status]")).to_contain_text("Not confirmed yet: check your inbox")
    finally:
        settings.smtp_url = ""
        smtp.close()


def test_send_a_test_to_the_webhook_and_read_what_happened(web_server, new_context, artifacts):
    """Issue 31: "Send a test" posts a test notice to the saved webhook (a real receiver)
    and says what became of it in words: sent, or what the webhook answered."""
    settings = web_server.server.config.app.state.settings  # the notifier's too
    settings.webhook_allow_private = True  # the receivers are on 127.0.0.1
    channel, gone = WebhookReceiver(), WebhookReceiver(fail_first=100, fail_status=404)
    try:
        kessa = new_player(web_server, "Kessa")
        page = signed_in(new_context(viewport={"width": 1366, "height": 768}), web_server, kessa).new_page()
        page.goto(web_server.url + "/settings")
        expect(page.locator("[data-webhook-test]")).to_be_hidden()  # nothing saved to test yet
        page.fill("input[name='webhook_url']", channel.url + "/kessa")
        page.click("#notifications-form button[type='submit']")
        expect(page.locator("#notifications-status")).to_contain_text("Saved")
        page.click("[data-webhook-test]")
        result = page.locator("[data-webhook-test-result]")
        expect(result).to_have_text(re.compile(r"^Sent — check your channel"))
        (notice,) = channel.bodies("/kessa")
        assert notice["event"] == "webhook_test" and notice["content"].startswith("A test from Dejarik")
        out = artifacts / "issue31"
        out.mkdir(exist_ok=True)
        page.screenshot(path=out / "settings-webhook-test-sent-1366x768.png")

        # A changed address is saved first, then tested; a refusal says what the webhook answered.
        page.fill("input[name='webhook_url']", gone.url + "/deleted")
        page.click("[data-webhook-test]")
        expect(result).to_have_text(re.compile(r"^Your webhook answered 404 \(Not Found\)"))
        assert [status for _, _, status in gone.received] == [404]
        page.set_viewport_size({"width": 390, "height": 844})
        result.scroll_into_view_if_needed()
        page.screenshot(path=out / "settings-webhook-test-404-390x844.png")
    finally:
        settings.webhook_allow_private = False
        channel.close()
        gone.close()


def test_the_board_counts_down_shows_who_is_here_and_a_claim_wins_on_time(web_server, new_context, artifacts):
    app = web_server.server.config.app
    han, greedo = new_player(web_server, "Han"), new_player(web_server, "Greedo")
    # The match starts 58 s in the past (a server clock set back), so its minute runs out soon.
    app.state.now = lambda: utcnow() - timedelta(seconds=58)
    try:
        match_id = timed_match(web_server, han, 60)
        join_match(web_server, greedo, match_id)
    finally:
        app.state.now = utcnow
    view = rest_view(web_server, match_id)
    waiting = [han, greedo][1 - view["to_act"][0]]
    assert datetime.fromisoformat(view["deadline"]) - utcnow() < timedelta(seconds=3)

    mover_page = signed_in(new_context(), web_server, [han, greedo][view["to_act"][0]]).new_page()
    mover_page.goto(f"{web_server.url}/matches/{match_id}")
    page = signed_in(new_context(), web_server, waiting).new_page()
    page.goto(f"{web_server.url}/matches/{match_id}")
    expect(page.locator("#presence [data-connected='true']").first).to_be_visible()
    expect(page.locator("#deadline")).to_contain_text("ran out of time")
    claim = page.locator("#buttons [data-action-type='claim_timeout']")
    expect(claim).to_contain_text("Claim the win")
    page.screenshot(path=artifacts / "match-claim-on-time.png", full_page=True)
    claim.click()
    expect(page.locator("#banner")).to_contain_text("You won")
    expect(mover_page.locator("#banner")).to_contain_text("ran out of time")
    result = rest_view(web_server, match_id)["result"]
    assert "ran out of time" in result["reason"] and result["winner"] == 1 - view["to_act"][0]
