"""Playing the computer from the home page, a bot's reply drawn one action at a time,
and a GM seating a bot in an NPC seat."""

from __future__ import annotations

import time

import httpx
from playwright.sync_api import expect

from tests.browser.conftest import REST, auth, new_player, rest_act, rest_view, signed_in
from tests.browser.helpers import open_new_match_form, play_any, view, wait_for_version


def test_play_the_computer_from_the_home_page_to_the_end(web_server, new_context, artifacts):
    page = new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(web_server.url + "/")
    page.fill("#name-input", "Finn")
    page.click("button:has-text('Start')")
    open_new_match_form(page)
    # Courtier, ended as a draw after four quiet turns: a short game, whoever wins it.
    page.check("input[type='radio'][name='ruleset'][value='courtier']")
    page.fill("input[name='options.courtier.turns_without_kill']", "4")
    page.select_option("#bot-level", "beginner")
    page.click("#new-match button:has-text('Play the computer')")
    page.wait_for_url("**/matches/*")
    match_id = page.url.rsplit("/", 1)[1]
    expect(page.locator("[data-bot-seat='1']")).to_contain_text("Beginner bot")
    expect(page.locator("#turn")).not_to_contain_text("Waiting for players")
    rest = httpx.get(f"{web_server.url}/api/v1/matches/{match_id}").json()
    assert rest["status"] == "active" and rest["seats"][1]["bot"]["id"] == "courtier-beginner"
    assert rest["options"]["turns_without_kill"] == 4

    moves = 0
    while True:
        page.wait_for_function(
            "() => { const v = window.__dejarik.store.view;"
            " return v.status === 'finished' || v.to_act.includes(v.you.seat); }",
            timeout=60_000,  # the bot's first move starts its worker process
        )
        if view(page)["status"] == "finished":
            break
        before = play_any(page)
        wait_for_version(page, before + 1)
        moves += 1
        assert moves < 200
    page.screenshot(path=artifacts / "bots-play-the-computer.png", full_page=True)
    log = httpx.get(f"{web_server.url}/api/v1/matches/{match_id}/events").json()["events"]
    assert any(e["seat"] == 1 and e["action"]["type"] == "move" for e in log), "the computer moved"
    assert moves >= 1
    final = httpx.get(f"{web_server.url}/api/v1/matches/{match_id}").json()
    assert final["status"] == "finished" and final["result"]["reason"]


def test_a_gm_seats_the_computer_in_the_npc_seat(web_server, new_context):
    gm = new_context(viewport={"width": 1280, "height": 900}).new_page()
    gm.goto(web_server.url + "/")
    gm.fill("#name-input", "Maz")
    gm.click("button:has-text('Start')")
    open_new_match_form(gm)
    gm.check("input[type='radio'][name='ruleset'][value='orbit-chess']")
    gm.check("input[name='seat'][value='host']")
    gm.click("button:has-text('Create match')")
    gm.wait_for_url("**/matches/*")
    match_id = gm.url.rsplit("/", 1)[1]
    gm.wait_for_function("() => window.__dejarik && window.__dejarik.store.view")
    before = view(gm)["version"]
    gm.locator("#buttons .gm-actions [data-action-type='gm_take_seat']").nth(1).click()
    wait_for_version(gm, before + 1)
    expect(gm.locator("[data-gm-seat='1'] [data-gm-seat-state]")).to_contain_text("NPC")
    gm.select_option("#gm-bot-1", "orbit-chess-master")
    gm.click("[data-gm-bot-form='1'] button:has-text('Seat the computer')")
    gm.wait_for_url(f"**/matches/{match_id}")
    expect(gm.locator("[data-bot-seat='1']")).to_contain_text("Master bot")
    rest = httpx.get(f"{web_server.url}/api/v1/matches/{match_id}").json()
    assert rest["seats"][1]["bot"] == {"id": "orbit-chess-master", "name": "Master bot"}
    assert rest["seats"][1]["npc"] is False
    assert rest["seats"][1]["player"]["name"] == "Master bot"


RECORD_VERSIONS = """() => {
  window.__drawn = [];
  const match = document.getElementById('match');
  new MutationObserver(() => window.__drawn.push([Number(match.dataset.version), performance.now()]))
    .observe(match, { attributes: true, attributeFilter: ['data-version'] });
}"""


def test_a_bot_s_reply_is_drawn_one_action_at_a_time(web_server, new_context):
    """This server's bots answer at once (``bot_delay_ms=0``), as a fast server or a page
    catching up might deliver them: the page still draws each of the bot's actions as a
    step of its own, on screen for a moment before the next (by the page's own clock)."""
    human = new_player(web_server, "Finn")
    created = REST.post(
        f"{web_server.url}/api/v1/matches",
        json={"ruleset": "kelly", "seat": 0, "bots": [{"seat": 1, "bot": "kelly-beginner"}]},
        headers=auth(human),
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    page = signed_in(new_context(viewport={"width": 1280, "height": 900}), web_server, human).new_page()
    page.goto(f"{web_server.url}/matches/{match_id}")
    yours = "() => { const v = window.__dejarik.store.view; return v && v.to_act.includes(v.you.seat); }"
    page.wait_for_function(yours, timeout=60_000)  # the bot's first move starts its worker process
    page.evaluate(RECORD_VERSIONS)
    start = view(page)["version"]

    # Finn moves (over REST, as from his phone) until the turn passes to the bot.
    while 0 in (match := rest_view(web_server, match_id, human))["to_act"]:
        move = next(a for a in match["legal_actions"] if a["type"] == "move")
        rest_act(web_server, match_id, human, move, match["version"])
    # The bot plays its turn; then the page, at its own pace, draws it up to Finn's turn again.
    for _ in range(300):
        if 0 in (match := rest_view(web_server, match_id, human))["to_act"]:
            break
        time.sleep(0.1)
    wait_for_version(page, match["version"], timeout=30_000)
    log = REST.get(f"{web_server.url}/api/v1/matches/{match_id}/events?after={start}").json()["events"]
    mine = max(e["version"] for e in log if e["seat"] == 0)  # Finn's last move
    bot_steps = [e["version"] for e in log if e["seat"] == 1 and e["version"] > mine]
    assert len(bot_steps) >= 2, log  # kelly: two actions a turn

    drawn = page.evaluate("window.__drawn")
    versions = [version for version, _ in drawn]
    for step in bot_steps:
        assert step in versions, f"the bot's action {step} was never drawn on its own: {versions}"
    at = dict(drawn)
    before = mine
    for step in bot_steps:
        # A moment between each step and the one before: the page holds each 600 ms here
        # (without motion), counted from when the step before was drawn; the observer may
        # note that one late on a busy machine (by 250 ms once, at a load of 9). Without the
        # pacing they came 36-63 ms apart.
        assert at[step] - at[before] >= 300, (step, drawn)
        before = step
