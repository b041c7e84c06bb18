"""The dice tray shows the latest roll to every page that opens after it (a reload, a
player who joins late, a spectator) just as the live update showed it; a draft's many
one-die rolls share a row per player."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.conftest import join_match, new_match, new_player, rest_act, rest_view, signed_in
from tests.browser.helpers import aggressive_choice, dice_shown, wait_for_version

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
    for _ in range(120):
        seat = rest_view(web_server, match_id)["to_act"][0]
        mine = rest_view(web_server, match_id, players[seat])
        action = aggressive_choice(mine)
        rest_act(web_server, match_id, players[seat], action, mine["version"])
        if action["type"] == "attack":
            break
    else:
        raise AssertionError("no attack came within 120 actions")
    wait_for_version(page, mine["version"] + 1)
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
