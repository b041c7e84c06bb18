"""The dice tray shows the latest roll to every page that opens after it (a reload, a
player who joins late, a spectator) just as the live update showed it; a draft's many
one-die rolls share a row per player; dice rolled live come into view, on a phone too."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.conftest import join_match, new_match, new_player, signed_in
from tests.browser.helpers import (
    dice_shown,
    inside_window,
    match_page_ready,
    rest_play_to_an_attack,
    wait_for_version,
)

DESKTOP = {"width": 1280, "height": 800}


def open_page(new_context, server, match_id: str, player=None) -> Page:
    context = new_context(viewport=DESKTOP)
    if player:
        signed_in(context, server, player)
    page = context.new_page()
    page.goto(f"{server.url}/matches/{match_id}")
    expect(page.locator("#connection")).to_have_text("Live")
    return page


def tray(page: Page) -> dict:
    shown = dice_shown(page)
    shown["words"] = page.locator("#dice-tray").inner_text()
    return shown


def test_the_tray_after_a_reload_equals_the_tray_before(web_server, new_context, artifacts):
    blue, red = new_player(web_server, "Leia"), new_player(web_server, "Chewie")
    match_id = new_match(web_server, blue)
    join_match(web_server, red, match_id)
    players = [blue, red]
    page = open_page(new_context, web_server, match_id, blue)
    # The start rolled for the first player: the tray shows that roll, not "No dice".
    expect(page.locator("#dice-tray")).to_contain_text("First player")

    # Play over REST (as from a phone) until an attack rolls; the page follows live.
    wait_for_version(page, rest_play_to_an_attack(web_server, match_id, players))
    live = tray(page)
    assert live["dice"] and live["outcome"], live
    assert live["dice"] == live["faces"]

    page.reload()
    expect(page.locator("#connection")).to_have_text("Live")
    assert tray(page) == live
    # A spectator who opens the match now sees the same roll.
    spectator = open_page(new_context, web_server, match_id)
    assert tray(spectator) == live
    spectator.screenshot(path=artifacts / "dice-tray-spectator-after-open.png")


def test_a_draft_s_one_die_rolls_share_a_row_per_player(web_server, new_context, artifacts):
    blue, red = new_player(web_server, "Leia"), new_player(web_server, "Chewie")
    match_id = new_match(web_server, blue, "dalsiandon")
    join_match(web_server, red, match_id)
    page = open_page(new_context, web_server, match_id, red)
    shown = tray(page)
    start = next(e for e in page.evaluate("window.__dejarik.store.entries") if e["action"]["type"] == "start")
    rolls = [e for e in start["events"] if e["type"] == "roll"]
    draft = [r for r in rolls if r["purpose"] == "draft"]
    assert len(draft) >= 8  # at least one roll per seat for each of the four picks
    # Every die is there, in the order rolled per player; the draft takes one row per player.
    expect(page.locator("#dice-tray .roll[data-purpose='draft']")).to_have_count(2)
    expect(page.locator("#dice-tray .roll-group[data-purpose='draft']")).to_have_count(2)
    expected = [f"d8:{r['dice'][0]['face']}" for seat in (0, 1) for r in draft if r["seat"] == seat]
    assert shown["dice"][: len(draft)] == expected
    page.screenshot(path=artifacts / "dice-tray-draft.png")


def test_the_dice_of_an_attack_come_into_view_on_a_phone_and_a_laptop(web_server, new_context, artifacts):
    blue, red = new_player(web_server, "Leia"), new_player(web_server, "Chewie")
    match_id = new_match(web_server, blue)
    join_match(web_server, red, match_id)
    players = [blue, red]
    pages = {}
    for width, height in ((390, 844), (1366, 768)):
        phone = width < 500
        context = new_context(viewport={"width": width, "height": height}, has_touch=phone, is_mobile=phone)
        pages[width] = signed_in(context, web_server, blue).new_page()
        pages[width].goto(f"{web_server.url}/matches/{match_id}")
        match_page_ready(pages[width])

    # Both sides play over REST (as from their phones) until an attack; the pages follow live.
    attacked = rest_play_to_an_attack(web_server, match_id, players)
    for width, page in pages.items():
        wait_for_version(page, attacked)
        shown = dice_shown(page)
        assert shown["dice"] and shown["outcome"], shown
        # On screen without scrolling: on the phone they pop up over the foot of the page.
        assert inside_window(page, "#dice-tray .outcome"), f"the outcome is off screen at {width}"
        assert inside_window(page, "#dice-tray .roll"), f"the dice are off screen at {width}"
        height = page.viewport_size["height"]
        page.screenshot(path=artifacts / "issue31" / f"kelly-attack-dice-{width}x{height}.png")
    # A tap puts the phone's dice back in their card, below the board.
    phone = pages[390]
    phone.locator(".dice-card").tap()
    expect(phone.locator(".dice-card")).not_to_have_attribute("data-popup", "")
    assert not inside_window(phone, "#dice-tray .outcome")
