"""The kelly tutorial in a browser: a newcomer moves first and is taught one idea at a
time (move, attack with the odds, the dice, a push, how to win) against the scripted
Tutor, on a real match through the real server, then offered a next step."""

from __future__ import annotations

import httpx
from playwright.sync_api import Page, expect

from tests.browser.helpers import click_space, version, view


def start_tutorial(page: Page, site: str) -> None:
    """From the home page, as a newcomer: the tutorial, a name, Start."""
    page.goto(f"{site}/")
    page.click("[data-learn='tutorial']")
    page.fill("#tutorial-name", "Padawan")
    page.click("text=Start the tutorial")
    expect(page.locator("#connection")).to_have_text("Live")


def expect_lesson(page: Page, lesson: str, timeout: float = 10_000) -> None:
    expect(page.locator(".tutorial-panel")).to_have_attribute("data-lesson", lesson, timeout=timeout)


def follow_the_glow(page: Page, piece: str, space: str) -> None:
    """Click the piece the panel lights, then the space it lights (an enemy's, to attack)."""
    page.locator(f"[data-piece='{piece}'][data-tutorial-hint='piece']").click()
    expect(page.locator(f"[data-space='{space}'][data-tutorial-hint='space']")).to_be_attached()
    click_space(page, space)


def log_entries(site: str, match_id: str) -> list[dict]:
    return httpx.get(f"{site}/api/v1/matches/{match_id}/events?after=0", timeout=30).json()["events"]


def tutor_actions(site: str, match_id: str) -> list[str]:
    return [
        e["action"]["type"]
        for e in log_entries(site, match_id)
        if e["seat"] == 1 and e["action"].get("type") in {"move", "attack", "push"}
    ]


def test_the_tutorial_teaches_one_idea_at_a_time_from_the_first_move_to_a_win(
    web_server, new_context, artifacts
):
    shots = artifacts / "issue31"
    shots.mkdir(exist_ok=True)
    page = new_context(viewport={"width": 1366, "height": 768}).new_page()
    start_tutorial(page, web_server.url)
    panel, now = page.locator(".tutorial-panel"), page.locator(".tutorial-panel .tutorial-now")
    expect(panel.locator("[data-step]")).to_have_count(5)

    # 1. The learner moves first, with nothing lost: the panel says what to click, and it glows.
    expect_lesson(page, "move")
    expect(page.locator("#turn")).to_contain_text("Your turn")
    match = view(page)
    assert match["state"]["lost"] == [] and tutor_actions(web_server.url, match["id"]) == []
    expect(panel).to_be_in_viewport(ratio=1)
    expect(now.locator(".tutorial-do")).to_contain_text("Click your Ghhhk on A4")
    page.screenshot(path=shots / "tutorial-1-move-1366x768.png")
    follow_the_glow(page, "ghhhk", "A6")

    # 2. The attack: the exact odds show, and nothing is rolled until Attack is pressed.
    expect_lesson(page, "attack")
    expect(panel.locator("[data-step='move']")).to_have_attribute("data-done", "true")
    follow_the_glow(page, "ghhhk", "A7")
    confirm = page.locator("#attack-confirm")
    expect(confirm.locator("[data-odds-outcome='push']")).to_contain_text("48.6%")
    expect(confirm.locator("[data-odds-outcome='kill']")).to_contain_text("25.7%")
    page.screenshot(path=shots / "tutorial-2-attack-odds-1366x768.png")
    before = version(page)
    assert not any(e["action"].get("type") == "attack" for e in log_entries(web_server.url, match["id"]))
    confirm.locator("[data-confirm]").click()

    # 3. The dice, read out from the roll the server made: 12 against 10, a push.
    expect_lesson(page, "dice")
    attack = next(e for e in log_entries(web_server.url, match["id"]) if e["version"] == before + 1)
    combat = next(e for e in attack["events"] if e["type"] == "combat")
    assert (combat["attack"], combat["defense"], combat["result"]) == (12, 10, "push")
    expect(now).to_contain_text("4 + 1 + 4 + 3 = 12")
    expect(now).to_contain_text("3 + 2 + 5 = 10")
    expect(now.locator("[data-applies]")).to_have_text("1 to 6: the defender is pushed")
    expect(panel).to_be_in_viewport(ratio=1)
    page.screenshot(path=shots / "tutorial-3-dice-1366x768.png")
    now.locator("[data-tutorial-read]").click()

    # 4. The push: the learner won the exchange and chooses where the loser goes.
    expect_lesson(page, "push")
    expect(now).to_contain_text("you choose where Red K'lor'slug goes")
    click_space(page, "B7")

    # The Tutor's turn: it comes closer and attacks nothing while the learner learns.
    expect_lesson(page, "win", timeout=20_000)
    expect(page.locator("[data-piece='molator'][data-tutorial-hint='piece']")).to_be_attached(timeout=20_000)
    assert tutor_actions(web_server.url, match["id"]) == ["move", "move"]
    assert [p["owner"] for p in view(page)["state"]["lost"]] == []

    # 5. How to win: destroy every enemy creature; the planned attack destroys one.
    expect(now).to_contain_text("You win when Red has no creature left")
    expect(now).to_contain_text("97.5%")
    follow_the_glow(page, "molator", "A12")
    page.locator("#attack-confirm [data-confirm]").click()
    expect(panel).to_have_attribute("data-finished", "true")
    for step in ("move", "attack", "dice", "push", "win"):
        expect(panel.locator(f"[data-step='{step}']")).to_have_attribute("data-done", "true")
    expect(now).to_contain_text("Your Molator destroyed Red K'lor'slug")
    expect(now).to_contain_text("Destroy all four red creatures and you win")

    # The finish: a clear next step, one click into a real match against the computer.
    expect(page.locator("[data-tutorial-next='friend']")).to_be_visible()
    page.click("[data-tutorial-next='computer']")
    page.wait_for_url(lambda url: "/matches/" in url and match["id"] not in url)
    expect(page.locator("[data-bot-seat='1']")).to_contain_text("Beginner")


def test_on_a_phone_each_lesson_shows_above_the_board_and_says_tap(web_server, new_context, artifacts):
    shots = artifacts / "issue31"
    shots.mkdir(exist_ok=True)
    phone = new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = phone.new_page()
    start_tutorial(page, web_server.url)
    panel = page.locator(".tutorial-panel")
    expect_lesson(page, "move")
    expect(panel.locator(".tutorial-do")).to_contain_text("Tap your Ghhhk on A4")
    expect(panel).to_be_in_viewport(ratio=1)
    panel_box, board_box = panel.bounding_box(), page.locator("svg.board").bounding_box()
    assert panel_box["y"] + panel_box["height"] <= board_box["y"], "the lesson comes before the board"
    page.screenshot(path=shots / "tutorial-1-move-390x844.png")
    follow_the_glow(page, "ghhhk", "A6")
    expect_lesson(page, "attack")
    expect(panel).to_be_in_viewport()
    follow_the_glow(page, "ghhhk", "A7")
    expect(page.locator("#attack-confirm [data-odds-outcome='push']")).to_contain_text("48.6%")
    page.screenshot(path=shots / "tutorial-2-attack-odds-390x844.png")
    page.locator("#attack-confirm [data-confirm]").click()
    expect_lesson(page, "dice")
    expect(panel.locator("[data-applies]")).to_have_text("1 to 6: the defender is pushed")
    page.screenshot(path=shots / "tutorial-3-dice-390x844.png")


def test_only_the_browser_holding_the_tutor_can_make_it_act(web_server, new_context):
    page = new_context().new_page()
    page.goto(f"{web_server.url}/tutorial")
    page.fill("#tutorial-name", "Padawan")
    page.click("text=Start the tutorial")
    page.wait_for_selector("#match[data-version]", state="attached")
    match_id = view(page)["id"]
    stranger = httpx.post(f"{web_server.url}/tutorial/{match_id}/opponent", timeout=30)
    assert stranger.status_code == 403
    assert "no tutor" in stranger.json()["message"]
