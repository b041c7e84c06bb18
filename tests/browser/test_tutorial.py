"""The kelly tutorial played to its end in a browser: a newcomer moves, attacks and
pushes against the scripted Tutor, on a real match through the real server."""

from __future__ import annotations

import httpx
from playwright.sync_api import Page, expect

from app.tutorial import push_chance
from tests.browser.helpers import aggressive_choice, play_by_clicking, view, wait_for_version


def student_choice(match: dict) -> dict:
    """As the panel advises: attack where a push is likeliest, else come closer."""
    attacks = [a for a in match["legal_actions"] if a["type"] == "attack"]
    return max(attacks, key=push_chance) if attacks else aggressive_choice(match)


def student_turn(page: Page) -> bool:
    match = view(page)
    return match["status"] == "active" and match["you"]["seat"] in match["to_act"]


def play_a_lesson(page: Page, site: str) -> bool:
    """Start the tutorial from the home page and play as the panel advises until the
    lesson is over or the match is; whether every step came up."""
    page.goto(f"{site}/")
    page.click("[data-learn='tutorial']")
    if page.locator("#tutorial-name").count():  # a second try: the student already has a name
        page.fill("#tutorial-name", "Padawan")
    page.click("text=Start the tutorial")
    expect(page.locator("#connection")).to_have_text("Live")
    page.wait_for_selector("#match[data-version]", state="attached")
    panel = page.locator(".tutorial-panel")
    expect(panel.locator("[data-step]")).to_have_count(3)
    assert view(page)["seats"][1]["player"]["name"] == "Tutor"
    for _ in range(60):
        # The Tutor plays on the server; wait until the lesson is over or the student must decide.
        page.wait_for_function(
            """() => { const v = window.__dejarik.store.view;
                       return document.querySelector('.tutorial-panel').dataset.finished === 'true'
                         || v.status !== 'active' || v.to_act.includes(v.you.seat); }""",
            timeout=20_000,
        )
        if panel.get_attribute("data-finished") == "true" or not student_turn(page):
            break
        expect(panel.locator(".tutorial-now")).to_contain_text("Now:")
        before = play_by_clicking(page, student_choice(view(page)))
        wait_for_version(page, before + 1)
    if panel.get_attribute("data-finished") == "true":
        return True
    # The dice can end a match before a push comes up: the panel says so and invites
    # another try, which the student takes.
    expect(panel.locator(".tutorial-now")).to_contain_text("start the tutorial again for another try")
    return False


def test_the_tutorial_teaches_moving_attacking_and_pushing(web_server, new_context, artifacts):
    page = new_context(viewport={"width": 1280, "height": 900}).new_page()
    assert any(play_a_lesson(page, web_server.url) for _ in range(3)), "three lessons ended before a push"
    panel = page.locator(".tutorial-panel")
    expect(panel).to_have_attribute("data-finished", "true")
    for step in ("move", "attack", "push"):
        expect(panel.locator(f"[data-step='{step}']")).to_have_attribute("data-done", "true")
    expect(panel.locator(".tutorial-now")).to_contain_text("That is Dejarik")
    page.screenshot(path=artifacts / "tutorial-finished.png", full_page=True)
    # The Tutor really plays through the server: its actions land in the match log. A
    # lesson can end in the student's first turn (a coin picks who starts), so play on
    # until the Tutor has had a turn.
    match_id = view(page)["id"]
    for _ in range(10):
        log = httpx.get(f"{web_server.url}/api/v1/matches/{match_id}/events?after=0", timeout=30).json()
        tutor_actions = [
            e["action"]["type"]
            for e in log["events"]
            if e["seat"] == 1 and e.get("action") and e["action"]["type"] in {"move", "attack", "push"}
        ]
        if tutor_actions or view(page)["status"] != "active":
            break
        page.wait_for_function(
            "() => { const v = window.__dejarik.store.view; return v.to_act.includes(v.you.seat); }",
            timeout=20_000,
        )
        before = play_by_clicking(page, student_choice(view(page)))
        wait_for_version(page, before + 1)
    assert tutor_actions, log["events"]


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
