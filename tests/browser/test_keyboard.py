"""Keyboard play of kelly: a move in at most five keys from a fresh page (six with the
attack confirm), the targets next in the focus order, arrows across the board, Escape
to cancel, and the focus still on the board after the move; an attack and the choice
of where its loser is pushed, by keys alone."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.conftest import join_match, new_match, new_player, rest_act, rest_view, signed_in
from tests.browser.helpers import acting_page, aggressive_choice, view, wait_for_version

DESKTOP = {"width": 1366, "height": 768}


def focused(page: Page, selector: str) -> bool:
    return page.evaluate(
        "s => Boolean(document.activeElement && document.activeElement.matches(s))", selector
    )


def focus_centre(page: Page) -> tuple[float, float]:
    """Where the focused thing of the board is on the screen."""
    x, y = page.evaluate(
        "(() => { const n = document.activeElement; const d = n.querySelector('.marker-dot') || n;"
        " const b = d.getBoundingClientRect(); return [b.left + b.width / 2, b.top + b.height / 2]; })()"
    )
    return x, y


def on_board(page: Page) -> bool:
    return page.evaluate("Boolean(document.activeElement && document.activeElement.closest('svg.board'))")


def test_a_keyboard_only_kelly_move_within_the_key_budget(web_server, new_context, artifacts):
    blue, red = new_player(web_server, "Leia"), new_player(web_server, "Chewie")
    match_id = new_match(web_server, blue)
    join_match(web_server, red, match_id)
    pages = []
    for player in (blue, red):
        page = signed_in(new_context(viewport=DESKTOP), web_server, player).new_page()
        page.goto(f"{web_server.url}/matches/{match_id}")
        expect(page.locator("#connection")).to_have_text("Live")
        pages.append(page)
    page = acting_page(pages)
    expect(page.locator("[data-piece][data-selectable]").first).to_be_visible()
    start = view(page)["version"]

    keys = 0
    while not focused(page, "[data-piece][data-selectable]"):
        page.keyboard.press("Tab")
        keys += 1
        assert keys <= 3, (
            "Tab took more than three presses to reach a piece that can act",
            page.evaluate("document.activeElement.outerHTML.slice(0, 200)"),
        )
    piece = page.evaluate("document.activeElement.dataset.piece")
    page.keyboard.press("Enter")
    keys += 1
    # The selected piece's legal targets come next: the first one already has the focus.
    page.wait_for_function(
        "() => document.activeElement && document.activeElement.matches('[data-space][data-legal]')"
    )
    space = page.evaluate("document.activeElement.dataset.space")
    page.keyboard.press("Tab")
    assert focused(page, "[data-space][data-legal]") or focused(page, f"[data-piece='{piece}']")
    page.keyboard.press("Shift+Tab")
    assert focused(page, f"[data-space='{space}']")
    page.keyboard.press("Enter")
    keys += 1
    if page.locator("#attack-confirm").is_visible():
        page.keyboard.press("Enter")
        keys += 1
        assert keys <= 6
    else:
        assert keys <= 5
    for each in pages:
        wait_for_version(each, start + 1)
    moved = next(p for p in view(page)["state"]["pieces"] if p["id"] == piece)
    assert moved["at"] == space
    # The focus stays on the board: on the piece that moved.
    page.wait_for_function("() => document.activeElement?.closest('svg.board') != null")
    assert focused(page, f"[data-piece='{piece}']")
    page.screenshot(path=artifacts / "keyboard-after-move.png")

    # Arrows move among the board's spaces and pieces, in the arrow's direction on the
    # screen; Escape cancels a selection. Where the focus stands depends on the dice, so
    # each axis is tried both ways: at an edge only one of the two can move.
    page.keyboard.press("Enter")
    expect(page.locator(f"[data-piece='{piece}'][data-selected]")).to_have_count(1)
    # The focus settles: on the first target when the piece has one, else on the piece.
    page.wait_for_function(
        "() => document.activeElement?.matches('[data-space][data-legal]')"
        " || document.querySelectorAll('[data-space][data-legal]').length === 0"
    )
    for backward, forward, axis in (("ArrowUp", "ArrowDown", 1), ("ArrowLeft", "ArrowRight", 0)):
        moved = 0
        for key, sign in ((backward, -1), (forward, 1)):
            before = focus_centre(page)
            page.keyboard.press(key)
            assert on_board(page), key
            after = focus_centre(page)
            if after != before:
                moved += 1
                assert (after[axis] - before[axis]) * sign > 0, f"{key} went the wrong way"
        assert moved, f"neither {backward} nor {forward} moved the focus"
    page.keyboard.press("Escape")
    expect(page.locator("[data-piece][data-selected]")).to_have_count(0)
    expect(page.locator("[data-space][data-legal]")).to_have_count(0)
    assert on_board(page)
    assert view(page)["version"] == start + 1


def tab_to(page: Page, selector: str, limit: int = 200) -> None:
    """Tab (forwards only, as a player would) until the focus is on ``selector``."""
    for _ in range(limit):
        if focused(page, selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{limit} Tab presses never reached {selector}")


def test_a_keyboard_only_kelly_turn_attacks_and_chooses_the_push(web_server, new_context, artifacts):
    """Blue plays by keyboard alone: an attack (piece, target, the confirm's Attack
    button), and, when an exchange leaves Blue to choose, where the loser is pushed.
    Red plays over REST."""
    blue, red = new_player(web_server, "Leia"), new_player(web_server, "Chewie")
    page = signed_in(new_context(viewport=DESKTOP), web_server, blue).new_page()
    attacks = pushes = 0
    match = {"status": "finished"}
    for _ in range(300):
        if attacks and pushes:
            break
        if match["status"] != "active":  # the dice decide: a match may end with no push to choose
            match_id = new_match(web_server, blue)
            join_match(web_server, red, match_id)
            page.goto(f"{web_server.url}/matches/{match_id}")
            expect(page.locator("#connection")).to_have_text("Live")
        match = rest_view(web_server, match_id, blue)
        if match["status"] != "active":
            continue
        wait_for_version(page, match["version"])
        if 0 not in match["to_act"]:
            mine = rest_view(web_server, match_id, red)
            rest_act(web_server, match_id, red, aggressive_choice(mine), mine["version"])
            continue
        push = match["state"]["push"]
        if push:
            # Blue won an exchange: the loser is already picked, its spaces lit; Blue chooses one.
            expect(page.locator(f"[data-piece='{push['piece']}'][data-selected]")).to_have_count(1)
            tab_to(page, "[data-space][data-legal]")
            space = page.evaluate("document.activeElement.dataset.space")
            page.keyboard.press("Enter")
            wait_for_version(page, match["version"] + 1)
            shoved = next(p for p in view(page)["state"]["pieces"] if p["id"] == push["piece"])
            assert shoved["at"] == space
            pushes += 1
            continue
        attack = next((a for a in match["legal_actions"] if a["type"] == "attack"), None)
        if attack is None:
            rest_act(web_server, match_id, blue, aggressive_choice(match), match["version"])
            continue
        # The attacker, then its target (the target's space comes in the focus order
        # after the selected piece), then Attack on the confirm step: keys only.
        attacker = page.locator(f"[data-piece='{attack['piece']}']")
        tab_to(page, f"[data-piece='{attack['piece']}'][data-selectable]")
        # The only piece that can act is picked already (aria-pressed): Enter would put it down.
        if attacker.get_attribute("aria-pressed") != "true":
            page.keyboard.press("Enter")
        expect(attacker).to_have_attribute("aria-pressed", "true")
        expect(page.locator("[data-space][data-legal]").first).to_be_attached()
        at = next(p["at"] for p in match["state"]["pieces"] if p["id"] == attack["target"])
        tab_to(page, f"[data-space='{at}'][data-legal], [data-piece='{attack['target']}']")
        page.keyboard.press("Enter")
        expect(page.locator("#attack-confirm [data-confirm]")).to_be_focused()
        page.keyboard.press("Enter")
        wait_for_version(page, match["version"] + 1)
        events = page.evaluate("window.__dejarik.store.entries.at(-1).events")
        assert any(e["type"] == "attack" and e["piece"] == attack["piece"] for e in events)
        attacks += 1
    assert attacks, "Blue never had an attack"
    assert pushes, f"Blue never chose where a loser goes ({attacks} attacks)"
    page.screenshot(path=artifacts / "keyboard-after-push.png")
