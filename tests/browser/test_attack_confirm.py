"""The odds before every attack, on every screen: a tap or a click on the target of an
attack opens a confirm step beside it (nothing is sent before Attack), and the board,
the confirm step and the turn banner fit the window without scrolling."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import join_match, new_match, new_player, rest_act, rest_view, signed_in
from tests.browser.helpers import aggressive_choice, destination, inside_window, view, wait_for_version

PHONE = {"width": 375, "height": 812}
SIZES = [PHONE] + [
    {"width": w, "height": h} for w, h in ((1280, 800), (1366, 768), (1440, 900), (1920, 1080))
]

# Every action frame the page puts on its websocket, recorded before the page's scripts run.
RECORD_SENT = """
window.__sent = [];
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
  try { const m = JSON.parse(data); if (m.type === "action") window.__sent.push(m.action); } catch {}
  return send.call(this, data);
};
"""


def kelly_at_an_attack(server) -> tuple[str, dict[str, str], dict[str, Any]]:
    """A kelly match played over REST until the player to act can attack."""
    blue, red = new_player(server, "Leia"), new_player(server, "Chewie")
    match_id = new_match(server, blue)
    join_match(server, red, match_id)
    players = [blue, red]
    for _ in range(120):
        seat = rest_view(server, match_id)["to_act"][0]
        mine = rest_view(server, match_id, players[seat])
        action = aggressive_choice(mine)
        if action["type"] == "attack":
            return match_id, players[seat], action
        rest_act(server, match_id, players[seat], action, mine["version"])
    raise AssertionError("no attack came within 120 actions")


def open_as(
    new_context, server, player, match_id: str, viewport: dict[str, int], touch: bool = False, **options: Any
) -> Page:
    context = signed_in(
        new_context(viewport=viewport, has_touch=touch, is_mobile=touch, **options), server, player
    )
    context.add_init_script(RECORD_SENT)
    page = context.new_page()
    page.js_errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda error: page.js_errors.append(str(error)))  # type: ignore[attr-defined]
    page.goto(f"{server.url}/matches/{match_id}")
    expect(page.locator("#connection")).to_have_text("Live")
    expect(page.locator("[data-piece][data-selectable]").first).to_be_visible()
    return page


def tap_centre(page: Page, selector: str, touch: bool = True) -> None:
    """A finger (or the mouse) on the middle of what ``selector`` finds, as the eye aims."""
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    if touch:
        page.touchscreen.tap(x, y)
    else:
        page.mouse.click(x, y)


def covers(page: Page, panel: str, selector: str) -> bool:
    """Whether ``panel`` lies over the centre of what ``selector`` finds."""
    box, under = page.locator(panel).bounding_box(), page.locator(selector).bounding_box()
    assert box and under, (panel, selector)
    x, y = under["x"] + under["width"] / 2, under["y"] + under["height"] / 2
    return box["x"] <= x <= box["x"] + box["width"] and box["y"] <= y <= box["y"] + box["height"]


def room_for_the_odds(page: Page, fight: list[str], others: list[str]) -> bool:
    """Whether the board's box holds a spot for the confirm step (a pixel larger, to be
    safe) 8 px clear of the box around the ``fight`` pieces that hides the centre of none
    of ``others``: spots on a 16 px grid from the board's corner."""
    board, panel = page.locator("svg.board").bounding_box(), page.locator("#attack-confirm").bounding_box()
    assert board and panel
    width, height = panel["width"] + 1, panel["height"] + 1
    boxes = [box for selector in fight if (box := page.locator(selector).first.bounding_box())]
    fight_left, fight_top = min(b["x"] for b in boxes), min(b["y"] for b in boxes)
    fight_right = max(b["x"] + b["width"] for b in boxes)
    fight_bottom = max(b["y"] + b["height"] for b in boxes)
    centres = []
    for selector in others:
        box = page.locator(selector).bounding_box()
        assert box, selector
        centres.append((box["x"] + box["width"] / 2, box["y"] + box["height"] / 2))
    left = board["x"]
    while left + width <= board["x"] + board["width"]:
        top = board["y"]
        while top + height <= board["y"] + board["height"]:
            clear = (
                left >= fight_right + 8
                or fight_left - 8 >= left + width
                or top >= fight_bottom + 8
                or fight_top - 8 >= top + height
            )
            hides = any(left <= x <= left + width and top <= y <= top + height for x, y in centres)
            if clear and not hides:
                return True
            top += 16
        left += 16
    return False


def test_a_tap_on_a_target_shows_the_odds_and_sends_nothing_until_attack(web_server, new_context, artifacts):
    match_id, attacker, action = kelly_at_an_attack(web_server)
    page = open_as(new_context, web_server, attacker, match_id, PHONE, touch=True)
    start = view(page)["version"]
    target_space = destination(view(page), action)

    tap_centre(page, f"[data-piece='{action['piece']}']")
    expect(page.locator(f"[data-space='{target_space}'][data-legal]")).to_have_count(1)
    tap_centre(page, f"[data-space='{target_space}'] .marker-dot")

    confirm = page.locator("#attack-confirm")
    expect(confirm).to_be_visible()
    outcomes = {o["key"]: o for o in action["odds"]["outcomes"]}
    assert set(outcomes) == {"kill", "push", "counter-push", "counter-kill"}
    expect(confirm.locator("[data-odds-outcome]")).to_have_count(4)
    for key, outcome in outcomes.items():
        row = confirm.locator(f"[data-odds-outcome='{key}']")
        expect(row).to_contain_text("%")
        expect(row).to_contain_text(outcome["text"])  # the server's words for it
        assert row.get_attribute("title") == f"exactly {outcome['exact']}"
    expect(confirm.locator("[data-confirm]")).to_be_visible()
    page.screenshot(path=artifacts / "attack-confirm-phone.png")

    # Nothing went out: no frame, no new version, on this page or the server.
    assert page.evaluate("window.__sent") == []
    assert rest_view(web_server, match_id)["version"] == start

    # Cancel closes it, still sending nothing; the piece stays selected.
    tap_centre(page, "#attack-confirm [data-confirm-cancel]")
    expect(confirm).to_be_hidden()
    assert page.evaluate("window.__sent") == []
    expect(page.locator(f"[data-piece='{action['piece']}'][data-selected]")).to_have_count(1)

    # Attack sends exactly that attack.
    tap_centre(page, f"[data-space='{target_space}'] .marker-dot")
    expect(confirm).to_be_visible()
    tap_centre(page, "#attack-confirm [data-confirm]")
    wait_for_version(page, start + 1)
    sent = page.evaluate("window.__sent")
    assert [{k: v for k, v in a.items() if k != "odds"} for a in sent] == [
        {"type": "attack", "piece": action["piece"], "target": action["target"]}
    ]
    expect(confirm).to_be_hidden()
    assert page.js_errors == []  # type: ignore[attr-defined]


@pytest.mark.runs_long
def test_the_board_the_odds_and_the_turn_fit_the_window(web_server, new_context, artifacts):
    match_id, attacker, action = kelly_at_an_attack(web_server)
    for size in SIZES:
        phone = size == PHONE
        page = open_as(new_context, web_server, attacker, match_id, size, touch=phone)
        target_space = destination(view(page), action)
        tap_centre(page, f"[data-piece='{action['piece']}']", touch=phone)
        expect(page.locator(f"[data-space='{target_space}'][data-legal]")).to_have_count(1)
        tap_centre(page, f"[data-space='{target_space}'] .marker-dot", touch=phone)
        expect(page.locator("#attack-confirm")).to_be_visible()
        label = f"{size['width']}x{size['height']}"
        page.screenshot(path=artifacts / f"attack-confirm-{label}.png")
        assert page.evaluate("scrollY") == 0, label
        for part in ("svg.board", "#attack-confirm", "#turn"):
            assert inside_window(page, part), f"{part} is not wholly on screen at {label}"
        # The odds leave both the attacker and its target in sight.
        for piece in (f"[data-piece='{action['piece']}']", f"[data-space='{target_space}'] .cell"):
            assert not covers(page, "#attack-confirm", piece), f"the odds cover {piece} at {label}"
        # Where the board has room clear of the fight, the odds hide no other piece either.
        fight = [f"[data-piece='{action['piece']}']", f"[data-piece][data-at='{target_space}']"]
        others = [
            f"[data-piece='{p.get_attribute('data-piece')}']"
            for p in page.locator("[data-piece][data-at]").all()
            if p.get_attribute("data-piece") != action["piece"] and p.get_attribute("data-at") != target_space
        ]
        if room_for_the_odds(page, fight, others):
            for piece in others:
                assert not covers(page, "#attack-confirm", piece), f"the odds cover {piece} at {label}"
        # Every space of the board is on screen, the home row included.
        spaces = page.locator("[data-space] .cell")
        for i in range(spaces.count()):
            box = spaces.nth(i).bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= size["height"] + 0.5, label
        assert page.evaluate("window.__sent") == []
        page.context.close()


def test_a_death_push_reads_as_a_kill_in_the_odds(web_server, new_context):
    """dalsiandon's death_push: the server words a push with nowhere to go as a kill
    (tests/rules/test_dalsiandon.py), and the page shows the outcomes as the server
    words them: one kill, no push."""
    page = new_context().new_page()
    page.goto(f"{web_server.url}/")
    shown = page.evaluate(
        """async () => {
            const { oddsOutcomes } = await import('/static/js/state.js');
            return oddsOutcomes({ type: 'attack', piece: 'monnok', target: 'ngok', odds: { outcomes: [
                { key: 'kill', probability: 0.75, exact: '3/4', text: "Kill: Ng'ok is destroyed" },
                { key: 'counter-push', probability: 0.2, exact: '1/5', text: 'Counter-push' },
                { key: 'counter-kill', probability: 0.05, exact: '1/20', text: 'Counter-kill' } ] } });
        }"""
    )
    assert [o["key"] for o in shown] == ["kill", "counter-push", "counter-kill"]
    kill = shown[0]
    assert kill["probability"] == 0.75 and kill["exact"] == "3/4"
    assert kill["text"].startswith("Kill: Ng'ok is destroyed")


def test_on_a_phone_the_odds_never_hide_the_attacker_or_its_target(web_server, new_context):
    """Wherever the fight is on the board, the confirm step sits clear of both pieces."""
    checked: set[tuple[str, str]] = set()
    for _ in range(3):  # matches, until a dozen fights were looked at
        if len(checked) < 12:
            check_every_attack(web_server, new_context, checked)
    assert len(checked) >= 12, checked


def check_every_attack(server, new_context, checked: set[tuple[str, str]]) -> None:
    """A kelly match played over REST; before each action, the confirm step of every
    attack open to the player to act is shown on their phone and checked. (Tapping is
    tested above: here the page's store is given the selection and the pending attack,
    as its input layer would.)"""
    blue, red = new_player(server, "Leia"), new_player(server, "Chewie")
    match_id = new_match(server, blue)
    join_match(server, red, match_id)
    players = [blue, red]
    pages: dict[int, Page] = {}  # each seat's phone, opened on its first turn
    for _ in range(200):
        match = rest_view(server, match_id)
        if not match["to_act"]:
            break
        seat = match["to_act"][0]
        mine = rest_view(server, match_id, players[seat])
        if seat not in pages:
            pages[seat] = open_as(
                new_context, server, players[seat], match_id, PHONE, touch=True, reduced_motion="reduce"
            )
        page = pages[seat]
        wait_for_version(page, mine["version"])
        for action in [a for a in mine["legal_actions"] if a["type"] == "attack"]:
            target_space = destination(mine, action)
            page.evaluate(
                "([action, destination]) => window.__dejarik.store.update("
                "{ selected: action.piece, attack: { destination, action } })",
                [action, target_space],
            )
            expect(page.locator("#attack-confirm")).to_be_visible()
            for part in (f"[data-piece='{action['piece']}']", f"[data-space='{target_space}'] .cell"):
                assert not covers(page, "#attack-confirm", part), f"the odds cover {part}: {action}"
            assert inside_window(page, "#attack-confirm"), action
            page.evaluate("window.__dejarik.store.update({ selected: null, attack: null })")
            checked.add((action["piece"], target_space))
        rest_act(server, match_id, players[seat], aggressive_choice(mine), mine["version"])
    for page in pages.values():
        page.context.close()


def test_the_odds_go_where_they_hide_no_piece_even_far_from_the_fight(web_server, new_context):
    """A fixed scene: a 600 px board, the fight on its right edge, and two columns of
    pieces from top to bottom between it and the board's left half. The panel goes to
    the free room on the left, far from the fight; with no free room at all, it hides
    as few pieces as it can, and never the fight."""
    page = new_context().new_page()
    page.goto(f"{web_server.url}/")
    spots = page.evaluate(
        """async () => {
            const { bestSpot } = await import('/static/js/placement.js');
            const rect = (left, top, side = 40) =>
              ({ left, top, right: left + side, bottom: top + side, width: side });
            const board = { left: 0, top: 0, right: 600, bottom: 600, width: 600, height: 600 };
            const fight = rect(520, 280);
            const size = { width: 200, height: 150 };
            // Two columns of pieces, top to bottom, between the fight and the left half.
            const beside = [0, 100, 200, 300, 400, 500].flatMap((top) => [rect(300, top), rect(430, top)]);
            const free = bestSpot({ board, fight, others: beside, size, windowHeight: 800 });
            // Pieces on every 100 px of the board: nowhere is free.
            const crowd = [];
            for (let x = 20; x < 600; x += 100) for (let y = 20; y < 600; y += 100) crowd.push(rect(x, y));
            const crowded = bestSpot({ board, fight, others: crowd, size, windowHeight: 600 });
            const hidden = (spot, others) => others.filter((r) => {
              const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
              return spot.left <= x && x <= spot.left + size.width
                && spot.top <= y && y <= spot.top + size.height;
            }).length;
            // The fewest any spot clear of the fight can hide, trying every whole pixel.
            let fewest = Infinity;
            for (let left = 0; left <= 400; left++) for (let top = 0; top <= 450; top++) {
              const clear = left + 200 <= fight.left - 8 || left >= fight.right + 8
                || top + 150 <= fight.top - 8 || top >= fight.bottom + 8;
              if (clear) fewest = Math.min(fewest, hidden({ left, top }, crowd));
            }
            const crowdedHides = hidden(crowded, crowd);
            return { free, freeHides: hidden(free, beside), crowded, crowdedHides, fewest, fight };
        }"""
    )
    free, fight = spots["free"], spots["fight"]
    assert spots["freeHides"] == 0, spots
    assert free["left"] + 200 <= 300, "the free room is left of the column of pieces"
    assert free["top"] >= 0 and free["top"] + 150 <= 600, "on the board"
    crowded = spots["crowded"]
    # A 200 by 150 panel holds the centres of two pieces of a 100 px grid wherever it
    # goes: it hides no more than that, and stays clear of the fight.
    assert spots["crowdedHides"] == spots["fewest"] == 2, spots
    assert (
        crowded["left"] + 200 <= fight["left"] - 8
        or crowded["top"] + 150 <= fight["top"] - 8
        or (crowded["top"] >= fight["bottom"] + 8)
    ), spots
