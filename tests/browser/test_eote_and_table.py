"""The eote table in the browser (piles, sheets, narrative dice, spending, pending
effects) and the big-screen table view (/matches/{id}/table) following matches live."""

from __future__ import annotations

import random
import re
from typing import Any

from playwright.sync_api import Page, expect

from app.rules.base import COMMON_ACTION_TYPES
from tests.browser.conftest import (
    REST,
    auth,
    join_match,
    new_match,
    new_player,
    rest_act,
    rest_view,
    signed_in,
)
from tests.browser.helpers import acting_page, aggressive_choice, gm_control, resize, view, wait_for_version

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 740}
TV = {"width": 1920, "height": 1080}
LAPTOP = {"width": 1366, "height": 768}
PHONE_390 = {"width": 390, "height": 844}
SHAPES = {
    "boost": "square",
    "setback": "square",
    "ability": "diamond",
    "difficulty": "diamond",
    "proficiency": "hexagon",
    "challenge": "hexagon",
}
GLYPHS = {"success": "★", "failure": "✖", "advantage": "▲", "threat": "▼", "triumph": "✪", "despair": "⊗"}
LATER_EFFECTS = {"defender_setback", "attacker_boost", "defender_boost", "attacker_setback"}


# --- REST, as a player at the table would act from their phone ------------------------


def rest_seated(
    server, players: list[dict[str, str]], match_id: str
) -> tuple[dict[str, str], dict[str, Any]]:
    """The player who decides now and the match as they see it."""
    seat = rest_view(server, match_id)["to_act"][0]
    return players[seat], rest_view(server, match_id, players[seat])


def eote_match(server) -> tuple[str, list[dict[str, str]]]:
    blue, red = new_player(server, "Rey"), new_player(server, "Finn")
    match_id = new_match(server, blue, "eote")
    join_match(server, red, match_id)
    return match_id, [blue, red]


def open_page(context, server, path: str) -> Page:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors  # type: ignore[attr-defined]
    page.goto(f"{server.url}{path}")
    return page


# --- checks ---------------------------------------------------------------------------


def check_roll_shown(page: Page, roll: dict[str, Any]) -> None:
    """Every die of ``roll``: its kind, shape, face and glyphs; and the net result."""
    dice = page.locator(".eote-roll .ndice.rolled .ndie")
    expect(dice).to_have_count(len(roll["dice"]))
    shown = page.evaluate(
        """() => [...document.querySelectorAll('.eote-roll .ndice.rolled .ndie')].map(d => ({
            kind: d.dataset.kind, shape: d.dataset.shape, face: Number(d.dataset.face),
            glyphs: d.querySelector('.ndie-glyphs').textContent,
            label: d.getAttribute('aria-label'), words: d.querySelector('.ndie-kind').textContent,
            body: d.querySelector('.ndie-body').tagName,
        }))"""
    )
    for die, node in zip(roll["dice"], shown, strict=True):
        assert node["kind"] == die["kind"] and node["face"] == die["face"]
        assert node["shape"] == SHAPES[die["kind"]]
        assert node["body"] == ("rect" if SHAPES[die["kind"]] == "square" else "polygon")
        assert node["words"] == die["kind"], "the kind is written under the die"
        assert die["kind"] in node["label"]
        expected = "".join(GLYPHS[s] for s in die["symbols"]) or "–"
        assert node["glyphs"] == expected
        for symbol in die["symbols"]:
            assert symbol in node["label"], "each symbol is in the die's words too"
    net = roll["net"]
    chips = {
        c["symbol"]: c["count"]
        for c in page.evaluate(
            """() => [...document.querySelectorAll('.eote-roll .net .sym')]
                .map(s => ({symbol: s.dataset.symbol, count: Number(s.dataset.count)}))"""
        )
    }
    expected_chips: dict[str, int] = {}
    if net["success"]:
        expected_chips["success" if net["success"] > 0 else "failure"] = abs(net["success"])
    if net["advantage"]:
        expected_chips["advantage" if net["advantage"] > 0 else "threat"] = abs(net["advantage"])
    for special in ("triumph", "despair"):
        if net[special]:
            expected_chips[special] = net[special]
    assert chips == expected_chips
    expect(page.locator(".eote-roll .net-line")).to_contain_text("Net result")


def no_controls(page: Page) -> None:
    visible_controls = page.evaluate(
        """() => [...document.querySelectorAll(`button, input, select, textarea, a[href], summary,
                [tabindex], [role=button], [contenteditable]`)]
            .filter(n => n.getClientRects().length > 0).map(n => n.outerHTML.slice(0, 80))"""
    )
    assert visible_controls == [], visible_controls
    assert page.locator("[data-selectable], [data-legal], [data-action-index]").count() == 0


def click_action(page: Page, action_type: str, nth: int = 0) -> int:
    before = view(page)["version"]
    page.locator(f"#buttons [data-action-type='{action_type}']").nth(nth).click()
    return before


# --- the eote match page ------------------------------------------------------------------


def test_an_eote_match_plays_by_buttons_with_piles_dice_and_pending_effects(
    web_server, new_context, artifacts
):
    match_id, players = eote_match(web_server)
    pages = []
    for player, viewport in zip(players, (DESKTOP, PHONE), strict=True):
        page = open_page(
            signed_in(new_context(viewport=viewport), web_server, player), web_server, f"/matches/{match_id}"
        )
        expect(page.locator("#connection")).to_have_text("Live")
        pages.append(page)
    for page in pages:
        expect(page.locator(".eote-seat")).to_have_count(2)
        expect(page.locator(".eote-seat [data-pile='active'] .pile-count").first).to_have_text("4")
        expect(page.locator(".eote-seat .strain").first).to_contain_text("Strain 0 / 12")
        expect(page.locator(".eote-seat .sheet").first).to_contain_text("Intellect")
        expect(page.locator(".eote-step")).to_contain_text("Round 1: setting pieces")
        expect(page.locator("[data-table-link]")).to_have_attribute("href", f"/matches/{match_id}/table")
        assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]

    # Setting is hidden: the setter sees a tentative piece, the opponent a face-down one.
    setter = acting_page(pages)
    other = pages[1 - pages.index(setter)]
    seat = view(setter)["you"]["seat"]
    expect(setter.locator(".eote-step")).to_contain_text("You set pieces")
    before = click_action(setter, "set_piece")
    for page in pages:
        wait_for_version(page, before + 1)
    expect(setter.locator(f".eote-seat[data-seat='{seat}'] .token.tentative")).to_have_count(1)
    expect(setter.locator(f".eote-seat[data-seat='{seat}'] [data-pile='active'] .pile-count")).to_have_text(
        "3"
    )
    expect(other.locator(f".eote-seat[data-seat='{seat}'] .token.face-down")).to_have_count(1)
    expect(other.locator(f".eote-seat[data-seat='{seat}'] [data-hidden-set='true']")).to_contain_text(
        "in secret"
    )
    expect(other.locator(f".eote-seat[data-seat='{seat}'] [data-pile='active'] .pile-count")).to_have_text(
        "4"
    )
    other.screenshot(path=artifacts / "eote-hidden-setting.png", full_page=True)
    before = click_action(setter, "done_setting")
    for page in pages:
        wait_for_version(page, before + 1)
    expect(other.locator(f".eote-seat[data-seat='{seat}'] [data-pile='set'] .pile-count")).to_have_text("1")

    # Click through to the roll: the second setter sets nothing, then defence and attack.
    rolled = False
    for _ in range(12):
        page = acting_page(pages)
        types = [a["type"] for a in view(page)["legal_actions"]]
        if "done_setting" in types:
            before = click_action(page, "done_setting")
        elif "adjust_set" in types:
            before = click_action(page, "adjust_set")
        elif "defence" in types:
            expect(page.locator("#buttons [data-action-type='defence']").first).to_contain_text(
                "Primary defence:"
            )
            expect(page.locator(".pool-preview .ndie").first).to_be_visible()
            before = click_action(page, "defence")
        elif "attack" in types:
            expect(page.locator("#buttons [data-action-type='attack']").first).to_contain_text(
                "Primary attack: rolls"
            )
            before = click_action(page, "attack")
            rolled = True
        else:
            before = click_action(page, next(t for t in types if t not in COMMON_ACTION_TYPES))
        for each in pages:
            wait_for_version(each, before + 1)
        if rolled:
            break
    assert rolled, "no roll within 12 decisions"
    roll = view(pages[0])["state"]["last_roll"]
    for page in pages:
        check_roll_shown(page, roll)
        expect(page.locator("#announce")).to_contain_text("rolled round 1")
        expect(page.locator("#log")).to_contain_text("Net:")
    pages[0].screenshot(path=artifacts / "eote-roll-desktop.png", full_page=True)
    pages[1].screenshot(path=artifacts / "eote-roll-phone.png", full_page=True)

    # Drive the match by REST to a spending step that buys an effect for a later round,
    # then buy it by clicking its button: it shows as pending on both screens.
    rng = random.Random(6)
    bought = False
    for _ in range(300):
        state = rest_view(web_server, match_id)
        if state["status"] != "active":
            break
        player, mine = rest_seated(web_server, players, match_id)
        later = [a for a in mine["legal_actions"] if a["type"] == "spend" and a["effect"] in LATER_EFFECTS]
        if later:
            page = pages[players.index(player)]
            wait_for_version(page, mine["version"])
            index = [a for a in view(page)["legal_actions"] if a["type"] == "spend"].index(later[0])
            expect(page.locator(".eote-spend")).to_contain_text("Limit Rule")
            button = page.locator("#buttons [data-action-type='spend']").nth(index)
            expect(button).to_have_text(later[0]["label"])
            before = view(page)["version"]
            button.click()
            for each in pages:
                wait_for_version(each, before + 1)
            bought = True
            break
        choices = [a for a in mine["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES]
        # Set a piece now and then, so that rolls kill and the rounds differ.
        rest_act(web_server, match_id, player, rng.choice(choices), mine["version"])
    assert bought, "no advantage or threat to spend on a later effect came up"
    effects = view(pages[0])["state"]["pending_effects"]
    assert effects
    for page in pages:
        expect(page.locator(".eote-pending li[data-effect]")).to_have_count(len(effects))
        expect(page.locator(".eote-pending")).to_contain_text(effects[0]["text"])
    pages[0].screenshot(path=artifacts / "eote-pending-desktop.png", full_page=True)
    pages[1].screenshot(path=artifacts / "eote-pending-phone.png", full_page=True)
    for page in pages:
        assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
        assert page.js_errors == []  # type: ignore[attr-defined]


def test_game_master_buttons_are_grouped_and_a_pause_is_announced(web_server, new_context, artifacts):
    """The host's GM controls arrive as legal actions "gm_…" (client side here: the
    match page is given such a view) and sit under their own heading."""
    match_id, players = eote_match(web_server)
    page = open_page(
        signed_in(new_context(viewport=DESKTOP), web_server, players[0]), web_server, f"/matches/{match_id}"
    )
    expect(page.locator("#connection")).to_have_text("Live")
    # The socket is open before its snapshot arrives: the view to extend is there only then.
    page.wait_for_function("() => window.__dejarik.store.view !== null")
    page.evaluate(
        """() => { const s = window.__dejarik.store;
            s.update({view: {...s.view, paused: true, legal_actions: [...s.view.legal_actions,
                {type: 'gm_pause', label: 'Pause'}, {type: 'gm_edit_sheet', label: 'Edit a sheet'}]}}); }"""
    )
    group = page.locator("#buttons .gm-actions")
    expect(group.locator("h3")).to_have_text("Game master")
    expect(group.locator("button")).to_have_count(2)
    expect(group.locator("button").first).to_have_text("Pause")
    expect(page.locator("#buttons > button[data-action-type^='gm_']")).to_have_count(0)
    expect(page.locator("#banner")).to_have_text("Paused by the game master")
    page.screenshot(path=artifacts / "eote-gm-paused.png")
    assert page.js_errors == []  # type: ignore[attr-defined]


# --- the table view -------------------------------------------------------------------------


def test_the_table_view_of_a_kelly_match_follows_live_with_the_latest_roll(
    web_server, new_context, artifacts
):
    blue, red = new_player(web_server, "Leia"), new_player(web_server, "Chewie")
    match_id = new_match(web_server, blue)
    join_match(web_server, red, match_id)
    players = [blue, red]
    tv = open_page(new_context(viewport=TV), web_server, f"/matches/{match_id}/table")
    expect(tv.locator("#tv-connection")).to_have_text("Live")
    expect(tv.locator("svg.board [data-space]")).to_have_count(25)
    expect(tv.locator("[data-piece]")).to_have_count(8)
    expect(tv.locator("#tv-turn")).to_contain_text("to act")
    no_controls(tv)
    board = tv.locator("svg.board").bounding_box()
    assert board["height"] >= 800, "the board is drawn large"

    attacked = False
    for _ in range(80):
        player, mine = rest_seated(web_server, players, match_id)
        action = aggressive_choice(mine)
        rest_act(web_server, match_id, player, action, mine["version"])
        wait_for_version_tv(tv, mine["version"] + 1)
        if action["type"] == "attack":
            attacked = True
            break
    assert attacked, "no attack came within 80 actions"
    state = rest_view(web_server, match_id)
    for piece in state["state"]["pieces"]:
        if piece.get("at"):
            expect(tv.locator(f"[data-piece='{piece['id']}']")).to_have_attribute("data-at", piece["at"])
    expect(tv.locator("#tv-roll")).to_have_attribute("data-state", "settled")
    dice = tv.locator("#tv-roll .die")
    assert dice.count() >= 2
    # The roll is shown large, once the screen has fitted itself to it (a frame or two later):
    # 4.4em, and when long log lines make the side column shrink, never below 0.72 of that
    # (table.js, fitSide): about 50 px, against the players' pages' 2.3rem dice (37 px).
    tv.wait_for_function("() => document.querySelector('#tv-roll .die').getBoundingClientRect().width >= 48")
    expect(tv.locator("#tv-roll .outcome")).to_be_visible()
    # Spoken as on the players' pages: the exchange in one sentence, both totals.
    exchange = re.compile(r" attacks .*: \d+ dice total \d+ against \d+ dice total \d+, ")
    expect(tv.locator("#tv-announce")).to_contain_text(exchange)
    expect(tv.locator("#tv-log")).to_contain_text("attacked")
    no_controls(tv)
    tv.screenshot(path=artifacts / "table-kelly.png")

    # A reload finds the latest roll again from the match log.
    tv.reload()
    expect(tv.locator("#tv-connection")).to_have_text("Live")
    expect(tv.locator("#tv-roll .die").first).to_be_visible()
    # And a dropped connection comes back by itself.
    tv.evaluate("window.__dejarik.net.drop(300)")
    expect(tv.locator("#tv-connection")).to_have_text("Live")
    player, mine = rest_seated(web_server, players, match_id)
    rest_act(web_server, match_id, player, aggressive_choice(mine), mine["version"])
    wait_for_version_tv(tv, mine["version"] + 1)
    assert tv.js_errors == []  # type: ignore[attr-defined]


def wait_for_version_tv(page: Page, at_least: int) -> None:
    page.wait_for_function("v => Number(document.getElementById('tv').dataset.version) >= v", arg=at_least)


def test_the_table_view_of_an_eote_match_shows_piles_and_the_roll_large(web_server, new_context, artifacts):
    match_id, players = eote_match(web_server)
    # The TV's browser happens to be signed in as the first setter: it still shows
    # only what a spectator sees, and no controls.
    setter_seat = rest_view(web_server, match_id)["to_act"][0]
    tv = open_page(
        signed_in(new_context(viewport=TV), web_server, players[setter_seat]),
        web_server,
        f"/matches/{match_id}/table",
    )
    expect(tv.locator("#tv-connection")).to_have_text("Live")
    expect(tv.locator(".eote-seat")).to_have_count(2)
    expect(tv.locator("#tv-turn")).to_contain_text("Round 1: setting pieces")
    no_controls(tv)

    player, mine = rest_seated(web_server, players, match_id)
    rest_act(web_server, match_id, player, {"type": "set_piece"}, mine["version"])
    wait_for_version_tv(tv, mine["version"] + 1)
    expect(tv.locator(f".eote-seat[data-seat='{setter_seat}'] .token.face-down")).to_have_count(1)
    expect(tv.locator(".token.tentative")).to_have_count(0)

    rolled = None
    for _ in range(20):
        player, mine = rest_seated(web_server, players, match_id)
        types = {a["type"]: a for a in mine["legal_actions"]}
        action = next(
            types[t] for t in ("done_setting", "adjust_set", "defence", "attack", "done") if t in types
        )
        rest_act(web_server, match_id, player, action, mine["version"])
        wait_for_version_tv(tv, mine["version"] + 1)
        if action["type"] == "attack":
            rolled = rest_view(web_server, match_id)["state"]["last_roll"]
            break
    assert rolled, "no roll within 20 decisions"
    check_roll_shown(tv, rolled)
    die = tv.locator(".eote-roll .ndice.rolled .ndie-shape").first.bounding_box()
    # Large from a couch: the page scales the whole screen to fit what it holds (76-90 px
    # here, by the log's length); the match page draws them 45 px (2.8rem).
    assert die["width"] >= 64, "the dice are drawn large"
    expect(tv.locator("#tv-announce")).to_contain_text("rolled round 1")
    expect(tv.locator(".round-result")).to_be_visible()
    no_controls(tv)
    tv.screenshot(path=artifacts / "table-eote.png")

    # Paused by the game master: a banner across the table.
    tv.evaluate("() => { const s = window.__dejarik.store; s.update({view: {...s.view, paused: true}}); }")
    expect(tv.locator("#tv-banner")).to_have_text("Paused by the game master")
    tv.screenshot(path=artifacts / "table-eote-paused.png")
    assert tv.js_errors == []  # type: ignore[attr-defined]


COUCH_SCREENS = [{"width": 1280, "height": 720}, {"width": 1920, "height": 1080}]
TEXT_SIZES = """(selector) => [...document.querySelectorAll(selector)]
    .filter((el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())
      && el.getClientRects().length && getComputedStyle(el).visibility !== "hidden")
    .map((el) => [parseFloat(getComputedStyle(el).fontSize), el.className || el.tagName])"""


def test_the_eote_table_view_reads_from_a_couch_and_shows_a_qr_to_join_while_a_seat_is_open(
    web_server, new_context, artifacts
):
    gm, kyla, dorn = (new_player(web_server, n) for n in ("The GM", "Kyla", "Dorn"))
    match_id = new_match(web_server, gm, "eote", seat=None)
    join_match(web_server, kyla, match_id)
    tv = open_page(new_context(viewport=COUCH_SCREENS[1]), web_server, f"/matches/{match_id}/table")
    expect(tv.locator("#tv-connection")).to_have_text("Live")

    # A seat is open: its invite link as a QR code anyone at the table can scan.
    join = tv.locator("#tv-join")
    expect(join).to_be_visible()
    expect(join).to_contain_text("Scan to sit as Dark")
    shown = join.locator(".tv-invite:visible")
    expect(shown).to_have_count(1)
    expect(shown.locator("svg")).to_be_visible()
    expect(shown.locator("[data-join-link]")).to_have_text(f"{web_server.url}/matches/{match_id}/join/1")
    (artifacts / "issue31").mkdir(exist_ok=True)
    tv.screenshot(path=artifacts / "issue31" / "table-eote-waiting-1920x1080.png")
    join_match(web_server, dorn, match_id)
    expect(join).to_be_hidden()

    gm_control(web_server, match_id, gm, "gm_start")
    gm_control(web_server, match_id, gm, "gm_open_seat", seat=1)  # Dorn has to go: who takes over?
    expect(join).to_be_visible()
    for screen in COUCH_SCREENS:
        resize(tv, **screen)
        expect(tv.locator(".eote-seat")).to_have_count(2)
        stats = tv.evaluate(TEXT_SIZES, ".tv .eote-seat *")
        log = tv.evaluate(TEXT_SIZES, "#tv-log li, #tv-log li *")
        label = f"{screen['width']}x{screen['height']}"
        tv.screenshot(path=artifacts / "issue31" / f"table-eote-open-seat-{label}.png")
        assert min(stats)[0] >= max(log)[0], f"{label}: stats {min(stats)} smaller than the log's {max(log)}"
        box = shown.locator("svg").bounding_box()
        assert box and box["width"] >= 120, f"{label}: a QR code a phone can scan from the couch"
    assert tv.js_errors == []  # type: ignore[attr-defined]


def test_the_eote_choices_say_what_they_do_and_which_is_stronger(web_server, new_context, artifacts):
    """Issue 31, item 10: each eote button says what the choice does and why one might pick
    it, not only its dice: what setting a piece risks, which characteristic an attack or a
    defence uses, and which of the two is the stronger now. Han is a cunning, trained
    player; Chewie's strengths are Willpower and Presence: the stronger choice is primary
    for Han and secondary for Chewie, attacking or defending."""
    han = {"name": "Han", "intellect": 2, "cunning": 4, "willpower": 1, "presence": 1}
    chewie = {"name": "Chewie", "intellect": 1, "cunning": 1, "willpower": 3, "presence": 4}
    players = [new_player(web_server, "Rey"), new_player(web_server, "Finn")]
    created = REST.post(
        f"{web_server.url}/api/v1/matches",
        json={
            "ruleset": "eote",
            "seat": 0,
            "options": {"sheets": [{**han, "dejarik_attack": 3, "dejarik_defence": 2}, chewie]},
        },
        headers=auth(players[0]),
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    join_match(web_server, players[1], match_id)
    out = artifacts / "issue31"
    out.mkdir(exist_ok=True)

    def page_of(player: dict[str, str], viewport: dict[str, int]) -> Page:
        page = open_page(
            signed_in(new_context(viewport=viewport), web_server, player), web_server, f"/matches/{match_id}"
        )
        expect(page.locator("#connection")).to_have_text("Live")
        return page

    def why(page: Page, action_type: str, nth: int = 0):
        return page.locator(f"#buttons [data-action-type='{action_type}']").nth(nth).locator(".action-why")

    player, mine = rest_seated(web_server, players, match_id)
    page = page_of(player, LAPTOP)
    expect(why(page, "set_piece")).to_contain_text("one more piece at stake")
    expect(why(page, "done_setting")).to_contain_text("losing the roll costs you only one piece")

    def play_to(step: str) -> tuple[dict[str, str], dict[str, Any]]:
        while True:
            player, mine = rest_seated(web_server, players, match_id)
            types = {a["type"]: a for a in mine["legal_actions"]}
            if step in types:
                return player, mine
            action = types.get("done_setting") or next(
                a for a in mine["legal_actions"] if a["type"] == "adjust_set" and a["change"] == "none"
            )
            rest_act(web_server, match_id, player, action, mine["version"])

    names = {0: "Han", 1: "Chewie"}
    for step, stat, stronger in (
        ("defence", ("Cunning", "Presence"), "defence"),
        ("attack", ("Intellect", "Willpower"), "attack"),
    ):
        player, mine = play_to(step)
        seat = mine["you"]["seat"]
        sheet = (han, chewie)[seat]
        for viewport in (LAPTOP, PHONE_390):
            page = page_of(player, viewport)
            primary, secondary = why(page, step, 0), why(page, step, 1)
            expect(primary).to_contain_text(f"Your {stat[0]} ({sheet[stat[0].lower()]})")
            expect(secondary).to_contain_text(
                f"Your {stat[1]} ({sheet[stat[1].lower()]}) alone, ranks left out"
            )
            for choice in (primary, secondary):
                expect(choice).to_contain_text("On average")
            best, other = (primary, secondary) if seat == 0 else (secondary, primary)
            expect(best).to_contain_text(f"the stronger {stronger} now")
            expect(other).not_to_contain_text("stronger")
            page.locator("#buttons").scroll_into_view_if_needed()
            size = f"{viewport['width']}x{viewport['height']}"
            page.screenshot(path=out / f"eote-{step}-buttons-{names[seat].lower()}-{size}.png")
        rest_act(
            web_server,
            match_id,
            player,
            next(a for a in mine["legal_actions"] if a["type"] == step),
            mine["version"],
        )
