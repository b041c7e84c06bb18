"""Every ruleset's match page at the sizes players use (a phone with touch, laptops, a
desktop): the turn banner and the whole board on screen without scrolling, nothing
wider than the window, and the page titled with the ruleset's name. The page is
loaded once a device: on the phone, and on a computer whose window is then resized to
each other size (the board fits itself again on a resize). Screenshots of each go to
``test-artifacts/`` for review. On a phone the board's labels read and its pieces are big
enough to tap, and it stays put as turns change; setting up DalsianDon keeps it large."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from app.rules import registry
from app.rules.base import COMMON_ACTION_TYPES
from tests.browser.conftest import join_match, new_match, new_player, rest_act, rest_view, signed_in
from tests.browser.helpers import (
    aggressive_choice,
    contrast_ratio,
    inside_window,
    match_page_ready,
    random_play,
    resize,
    wait_for_version,
)

RULESETS = sorted(registry())
PHONE = (375, 812)
# Largest first: the page is loaded at the first, then its window shrunk to each other
# (what fitted a larger window would not fit a smaller one unless the page fits itself again).
COMPUTERS = [(1920, 1080), (1440, 900), (1366, 768), (1280, 800)]


def check_fits(page: Page, label: str, shot) -> None:
    page.screenshot(path=shot)
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), f"too wide: {label}"
    assert inside_window(page, "#turn"), f"turn banner off screen: {label}"
    # Who you play and the connection stay at the right edge, even under a long turn line
    # (the page writes its own turn line again when it next draws itself).
    long_turn = "You choose where Red Mantellian Savrip is pushed."
    page.evaluate("text => { document.getElementById('turn').textContent = text; }", long_turn)
    side, bar = page.locator(".status-side").bounding_box(), page.locator(".status-bar").bounding_box()
    assert side and bar and abs(side["x"] + side["width"] - bar["x"] - bar["width"]) < 2, label
    if page.locator("svg.board").count():
        assert inside_window(page, "svg.board"), f"board not wholly on screen: {label}"


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_ruleset_fits_every_screen(ruleset, web_server, new_context, artifacts):
    blue, red = new_player(web_server, "Leia"), new_player(web_server, "Chewie")
    match_id = new_match(web_server, blue, ruleset)
    join_match(web_server, red, match_id)
    random_play(web_server, match_id, [blue, red], steps=12, seed=3)
    for sizes in ([PHONE], COMPUTERS):
        phone = sizes[0][0] < 500
        width, height = sizes[0]
        context = new_context(viewport={"width": width, "height": height}, has_touch=phone, is_mobile=phone)
        page = signed_in(context, web_server, blue).new_page()
        page.goto(f"{web_server.url}/matches/{match_id}")
        match_page_ready(page)
        assert registry()[ruleset].name in page.title()
        for width, height in sizes:
            if (width, height) != sizes[0]:
                resize(page, width, height)
            label = f"{ruleset} at {width}x{height}"
            check_fits(page, label, artifacts / f"screen-{ruleset}-{width}x{height}.png")
        context.close()


PHONE_390 = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}

BOARD_LOOK = """() => {
  const svg = document.querySelector('svg.board');
  const box = svg.getBoundingClientRect();
  const scale = box.width / svg.viewBox.baseVal.width;
  return {
    left: box.left + scrollX, top: box.top + scrollY, width: box.width,
    labels: [...svg.querySelectorAll('[data-space]')].map(space => {
      const label = getComputedStyle(space.querySelector('.space-label'));
      return {space: space.dataset.space, px: parseFloat(label.fontSize) * scale, fill: label.fill,
              cell: getComputedStyle(space.querySelector('.cell')).fill};
    }),
    reach: [...svg.querySelectorAll('[data-piece][data-selectable]')].map(piece => {
      const r = piece.getBoundingClientRect();
      return Math.min(r.width, r.height);
    }),
  };
}"""


def test_the_phone_board_reads_taps_and_stays_put_as_turns_change(web_server, new_context, artifacts):
    blue, red = new_player(web_server, "Leia"), new_player(web_server, "Chewie")
    match_id = new_match(web_server, blue)
    join_match(web_server, red, match_id)
    players = [blue, red]
    page = signed_in(new_context(**PHONE_390), web_server, blue).new_page()
    page.goto(f"{web_server.url}/matches/{match_id}")
    match_page_ready(page)
    first = page.evaluate(BOARD_LOOK)
    for label in first["labels"]:  # 12 px at least, 4.5:1 on its own space
        assert label["px"] >= 12, label
        assert contrast_ratio(label["fill"], label["cell"]) >= 4.5, label

    # Both play over REST (as from their phones), attacks first, for a few turns each;
    # the board's place on the phone's page never moves, and Leia's pieces are big to tap.
    places, reaches = set(), []
    for _ in range(16):
        match = rest_view(web_server, match_id)
        if match["status"] != "active":
            break
        seat = match["to_act"][0]
        mine = rest_view(web_server, match_id, players[seat])
        rest_act(web_server, match_id, players[seat], aggressive_choice(mine), mine["version"])
        wait_for_version(page, mine["version"] + 1)
        if rest_view(web_server, match_id)["status"] != "active":
            break  # the dice ended it: the end banner takes its place above the board
        look = page.evaluate(BOARD_LOOK)
        places.add((round(look["left"]), round(look["top"]), round(look["width"])))
        reaches += look["reach"]
    assert places == {(round(first["left"]), round(first["top"]), round(first["width"]))}, places
    assert reaches and min(reaches) >= 44, reaches
    page.screenshot(path=artifacts / "issue31" / "kelly-phone-board-390x844.png")


def arrange_phase(server, match_id: str, players: list[dict]) -> None:
    """Both players draft over REST until the creatures are to be set up."""
    for _ in range(60):
        match = rest_view(server, match_id)
        if match["state"]["phase"] == "arrange":
            return
        seat = match["to_act"][0]
        mine = rest_view(server, match_id, players[seat])
        action = next(a for a in mine["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES)
        rest_act(server, match_id, players[seat], action, mine["version"])
    raise AssertionError("the draft did not end")


@pytest.mark.parametrize("size", [(1366, 768), (390, 844)], ids=["laptop", "phone"])
def test_dalsiandon_s_set_up_keeps_the_board_as_large_as_in_play(size, web_server, new_context, artifacts):
    blue, red = new_player(web_server, "Leia"), new_player(web_server, "Chewie")
    match_id = new_match(web_server, blue, "dalsiandon")
    join_match(web_server, red, match_id)
    players = [blue, red]
    arrange_phase(web_server, match_id, players)
    width, height = size
    phone = width < 500
    context = new_context(viewport={"width": width, "height": height}, has_touch=phone, is_mobile=phone)
    page = signed_in(context, web_server, blue).new_page()
    page.goto(f"{web_server.url}/matches/{match_id}")
    match_page_ready(page)
    setting_up = page.evaluate(BOARD_LOOK)
    assert min(label["px"] for label in setting_up["labels"]) >= 12, setting_up["labels"]
    # Blue's own tray, the creatures to place, is on screen beside or under the board.
    expect(page.locator(".reserve-tray")).to_be_visible()
    assert inside_window(page, ".reserve-tray"), "the tray to place from is off screen"
    page.screenshot(path=artifacts / "issue31" / f"dalsiandon-setup-{width}x{height}.png")

    # Both set up over REST; the page follows into play.
    while (match := rest_view(web_server, match_id))["state"]["phase"] != "play":
        seat = match["to_act"][0]
        mine = rest_view(web_server, match_id, players[seat])
        action = next(a for a in mine["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES)
        rest_act(web_server, match_id, players[seat], action, mine["version"])
    wait_for_version(page, match["version"])
    expect(page.locator("svg.board")).not_to_have_attribute("data-phase", "arrange")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    in_play = page.evaluate(BOARD_LOOK)
    assert setting_up["width"] >= in_play["width"] - 1, (setting_up["width"], in_play["width"])
