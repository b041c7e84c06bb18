"""Two players, a spectator and a phone play kelly matches in real browsers."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.conftest import join_match, new_match, new_player, signed_in
from tests.browser.helpers import (
    acting_page,
    aggressive_choice,
    dice_shown,
    play_by_clicking,
    play_by_keyboard,
    select_piece,
    version,
    view,
    wait_for_version,
)

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 740}


def open_match(context, server, match_id: str) -> Page:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors  # type: ignore[attr-defined]
    page.goto(f"{server.url}/matches/{match_id}")
    expect(page.locator("#connection")).to_have_text("Live")
    expect(page.locator("[data-piece]")).to_have_count(8)
    return page


def seated_pair(server, new_context, viewport=DESKTOP):
    blue, red = new_player(server, "Leia"), new_player(server, "Chewie")
    match_id = new_match(server, blue)
    join_match(server, red, match_id)
    pages = [
        open_match(signed_in(new_context(viewport=viewport), server, player), server, match_id)
        for player in (blue, red)
    ]
    return match_id, pages


def test_two_players_and_a_spectator_play_to_an_attack(web_server, new_context, artifacts):
    match_id, (blue, red) = seated_pair(web_server, new_context)
    spectator = open_match(new_context(viewport=DESKTOP), web_server, match_id)
    expect(spectator.locator("#role")).to_have_text("You are watching.")

    # Whose turn it is and how many actions are left, on every screen.
    first = acting_page([blue, red])
    expect(first.locator("#turn")).to_contain_text("Your turn")
    expect(first.locator("#actions-left")).to_have_text("2 actions left this turn")
    waiting = red if first is blue else blue
    expect(waiting.locator("[data-piece][data-selectable]")).to_have_count(0)
    assert first.locator("[data-piece][data-selectable]").count() > 0
    blue.screenshot(path=artifacts / "match-start-blue.png")
    red.screenshot(path=artifacts / "match-start-red.png")

    # The first action from the keyboard alone.
    page = first
    before = play_by_keyboard(page, aggressive_choice(view(page)))
    for each in (blue, red, spectator):
        wait_for_version(each, before + 1)
    expect(first.locator("#actions-left")).to_have_text("1 action left this turn")

    attacked = False
    for _ in range(80):
        page = acting_page([blue, red])
        action = aggressive_choice(view(page))
        if action["type"] == "attack":
            select_piece(page, action["piece"])
            # The odds of the attack show before committing to it.
            target_at = page.get_attribute(f"[data-piece='{action['target']}']", "data-at")
            page.hover(f"[data-piece='{action['target']}']")
            expect(page.locator("#odds")).to_be_visible()
            for outcome in action["odds"]["outcomes"]:  # each outcome in words: "Ng'ok is killed"
                expect(page.locator("#odds")).to_contain_text(outcome["text"])
            expect(page.locator("#odds")).to_contain_text("%")
            page.screenshot(path=artifacts / "attack-odds.png")
            assert page.get_attribute(f"[data-space='{target_at}']", "data-legal") is not None
        before = play_by_clicking(page, action)
        for each in (blue, red, spectator):
            wait_for_version(each, before + 1)
        if action["type"] == "attack":
            attacked = True
            break
    assert attacked, "no attack came within 80 actions"

    # Both players and the spectator see the same dice, totals and outcome.
    shown = [dice_shown(each) for each in (blue, red, spectator)]
    assert shown[0]["dice"], "no dice shown"
    assert shown[0]["dice"] == shown[0]["faces"], "the dice must stop on the faces the server rolled"
    assert all(die.startswith("d6:") for die in shown[0]["dice"])
    assert shown[0]["outcome"] and shown[0]["outcome"][0] in ("kill", "push", "counter-push", "counter-kill")
    assert shown[0] == shown[1] == shown[2]
    for each in (blue, red, spectator):
        expect(each.locator("#log")).to_contain_text("rolled attack")
        expect(each.locator("#log")).to_contain_text("attacked")
    assert spectator.locator("[data-piece][data-selectable]").count() == 0
    for name, each in (("blue", blue), ("red", red), ("spectator", spectator)):
        each.screenshot(path=artifacts / f"after-attack-{name}.png", full_page=True)

    # Each player's home is at the bottom: blue sees A1..A4 low, red sees A7..A10 low.
    def height_of(page: Page, space: str) -> float:
        box = (
            page.locator(f"[data-space='{space}'] .marker").bounding_box()
            or page.locator(f"[data-space='{space}']").bounding_box()
        )
        return box["y"]

    assert height_of(blue, "A2") > height_of(blue, "A8")
    assert height_of(red, "A8") > height_of(red, "A2")
    assert height_of(spectator, "A2") > height_of(spectator, "A8")
    for each in (blue, red, spectator):
        assert each.js_errors == []  # type: ignore[attr-defined]


def test_a_dropped_socket_reconnects_and_catches_up(web_server, new_context, artifacts):
    _, (blue, red) = seated_pair(web_server, new_context)
    actor = acting_page([blue, red])
    watcher = red if actor is blue else blue
    watcher.evaluate("window.__beforeDrop = 'still the same page'")
    start = version(watcher)

    watcher.evaluate("window.__dejarik.net.drop(2500)")
    expect(watcher.locator("#connection")).not_to_have_text("Live")
    before = play_by_clicking(actor, aggressive_choice(view(actor)))
    wait_for_version(actor, before + 1)
    assert version(watcher) == start, "the dropped page should not have heard of the action yet"
    watcher.screenshot(path=artifacts / "reconnect-offline.png")

    wait_for_version(watcher, before + 1, timeout=15_000)
    expect(watcher.locator("#connection")).to_have_text("Live")
    assert watcher.evaluate("window.__beforeDrop") == "still the same page"  # no reload
    moved = actor.evaluate("window.__dejarik.store.view.state.pieces")
    for piece in moved:
        expect(watcher.locator(f"[data-piece='{piece['id']}']")).to_have_attribute("data-at", piece["at"])
    expect(watcher.locator(f"#log li[data-version='{before + 1}']")).to_contain_text("moved")

    # And it stays live: the next action arrives at once.
    page = acting_page([blue, red])
    before = play_by_clicking(page, aggressive_choice(view(page)))
    wait_for_version(watcher, before + 1)


def test_a_phone_sized_screen_can_play(web_server, new_context, artifacts):
    _, pages = seated_pair(web_server, new_context, viewport=PHONE)
    for page in pages:
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"the page is {width}px wide on a 375px screen"
        board = page.locator("svg.board").bounding_box()
        assert board["width"] >= 300, "the board should fill the phone's width"
    for _ in range(4):
        page = acting_page(pages)
        before = play_by_clicking(page, aggressive_choice(view(page)))
        for each in pages:
            wait_for_version(each, before + 1)
    for i, page in enumerate(pages):
        page.screenshot(path=artifacts / f"phone-{i}.png", full_page=True)
        assert page.js_errors == []  # type: ignore[attr-defined]


def test_resigning_shows_the_result_to_both(web_server, new_context, artifacts):
    _, (blue, red) = seated_pair(web_server, new_context)
    red.click("[data-action-type='resign']")
    red.click("[data-action-type='resign']")  # the second click confirms
    expect(blue.locator("#banner")).to_contain_text("You won!")
    expect(red.locator("#banner")).to_contain_text("You lost")
    expect(blue.locator("#banner")).to_have_attribute("data-outcome", "win")
    expect(red.locator("[data-piece][data-selectable]")).to_have_count(0)
    expect(blue.locator("[data-piece][data-selectable]")).to_have_count(0)
    blue.screenshot(path=artifacts / "resigned-blue.png")


def test_the_log_says_it_is_loading_until_the_moves_so_far_arrive(web_server, new_context):
    """An empty "What happened" reads as "nothing has": while the log is on its way the
    page says so, and if it cannot be loaded it says that instead of nothing."""
    blue, red = new_player(web_server, "Leia"), new_player(web_server, "Chewie")
    match_id = new_match(web_server, blue)
    join_match(web_server, red, match_id)
    held: list = []
    page = new_context(viewport=DESKTOP).new_page()
    page.route("**/events?after=0", lambda route: held.append(route))
    page.goto(f"{web_server.url}/matches/{match_id}")
    expect(page.locator("#connection")).to_have_text("Live")
    note = page.locator("#log .log-note")
    expect(note).to_have_text("Loading the moves so far…")
    expect(page.locator("#log")).to_have_attribute("aria-busy", "true")
    for _ in range(50):  # Playwright runs the route handler while the test waits
        if held:
            break
        page.wait_for_timeout(100)
    assert held, "the page asked for the log"
    held[0].continue_()
    expect(page.locator("#log li[data-version]").first).to_be_visible()
    expect(note).to_have_count(0)
    expect(page.locator("#log")).to_have_attribute("aria-busy", "false")

    failing = new_context(viewport=DESKTOP).new_page()
    failing.route("**/events?after=0", lambda route: route.fulfill(status=503, body="{}"))
    failing.goto(f"{web_server.url}/matches/{match_id}")
    expect(failing.locator("#log .log-note")).to_contain_text("could not be loaded")
