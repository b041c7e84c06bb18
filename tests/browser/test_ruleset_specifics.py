"""What each board ruleset adds is shown in the page and its decisions are made by clicking.

Matches are set up through the REST API (created with options, positions reached by
posting legal actions); the page is then checked the way a player sees it. Screenshots
at desktop and phone widths go to ``test-artifacts/``.
"""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from app.rules import registry
from app.rules.base import COMMON_ACTION_TYPES
from app.rules.dice import Dice
from tests.browser.conftest import auth, join_match, new_player, rest_act, rest_view, signed_in
from tests.browser.helpers import acting_page, click_space, resize, view, wait_for_version

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 800}


# --- REST set-up -------------------------------------------------------------------


def create(server, ruleset: str, options: dict | None = None) -> tuple[str, list[dict[str, Any]]]:
    blue, red = new_player(server, "Leia"), new_player(server, "Lando")
    response = httpx.post(
        f"{server.url}/api/v1/matches",
        json={"ruleset": ruleset, "options": options or {}, "seat": 0},
        headers=auth(blue),
        timeout=30,
    )
    assert response.status_code == 201, response.text
    match_id = response.json()["id"]
    join_match(server, red, match_id)
    return match_id, [blue, red]


def game_actions(match: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in match["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES]


def play_rest(server, match_id, players, choose) -> dict[str, Any]:
    """The seat to act plays ``choose(view, actions)``; returns the view after."""
    seat = rest_view(server, match_id)["to_act"][0]
    mine = rest_view(server, match_id, players[seat])
    rest_act(server, match_id, players[seat], choose(mine, game_actions(mine)), mine["version"])
    return rest_view(server, match_id)


def arrange_by_rest(server, match_id, players) -> dict[str, Any]:
    """Place every creature on the first free home space until play begins."""
    match = rest_view(server, match_id)
    while match["state"].get("phase") not in ("play", None) and match["status"] == "active":
        match = play_rest(server, match_id, players, lambda _, actions: actions[0])
    return match


def replay_deterministic(server, match_id, players, ruleset: str, goal, tries: int = 400) -> dict[str, Any]:
    """For a ruleset without dice: find a random line of play that reaches ``goal`` with the
    rules engine, then post it move by move. Returns the REST view there."""
    rules = registry()[ruleset]
    for attempt in range(tries):
        rng = random.Random(attempt)
        state, _ = rules.new_game(rules.options({}), Dice(b"unused"))
        line = []
        for _ in range(300):
            if rules.outcome(state):
                break
            seat = rules.to_act(state)[0]
            actions = [a for a in rules.legal_actions(state, seat) if a["type"] not in COMMON_ACTION_TYPES]
            if goal(actions):
                for seat, action in line:
                    match = rest_view(server, match_id, players[seat])
                    rest_act(server, match_id, players[seat], action, match["version"])
                return rest_view(server, match_id)
            action = rng.choice(actions)
            line.append((seat, action))
            state, _ = rules.apply(state, seat, action, Dice(b"unused"))
    raise AssertionError(f"no line of {ruleset} reaches the goal")


# --- pages ------------------------------------------------------------------------


def open_page(server, new_context, player, match_id, viewport=DESKTOP) -> Page:
    page = signed_in(new_context(viewport=viewport), server, player).new_page()
    page.js_errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda error: page.js_errors.append(str(error)))  # type: ignore[attr-defined]
    page.goto(f"{server.url}/matches/{match_id}")
    expect(page.locator("#connection")).to_have_text("Live")
    page.wait_for_function("() => window.__dejarik.store.view !== null")  # the snapshot is in
    return page


def shots(page: Page, artifacts, name: str) -> None:
    """Desktop and phone screenshots; the phone page must not scroll sideways."""
    resize(page, **DESKTOP)
    page.screenshot(path=artifacts / f"specifics-{name}-desktop.png", full_page=True)
    resize(page, **PHONE)
    page.screenshot(path=artifacts / f"specifics-{name}-375.png", full_page=True)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width}px wide on a 375px screen"
    resize(page, **DESKTOP)
    assert page.js_errors == []  # type: ignore[attr-defined]


# --- dalsiandon -------------------------------------------------------------------


def test_dalsiandon_draft_decisions_by_buttons_then_arrangement_from_the_tray(
    web_server, new_context, artifacts
):
    # About one draft in six ends with three misses and a choice; deal until one does.
    for _ in range(100):
        match_id, players = create(web_server, "dalsiandon")
        match = rest_view(web_server, match_id)
        if match["state"]["phase"] == "draft":
            break
    else:
        pytest.fail("no draft reached the choice")
    draft = match["state"]["draft"]
    chooser = match["to_act"][0]
    pages = [open_page(web_server, new_context, players[s], match_id) for s in (0, 1)]
    page, other = pages[chooser], pages[1 - chooser]

    for each in pages:
        expect(each.locator(".draft-panel [data-draft-number]")).to_have_count(8)
        expect(each.locator(".draft-rolls li")).to_have_count(len(draft["rolls"]))
        for n in draft["numbers"]:
            card = each.locator(f"[data-draft-number='{n['number']}']")
            expect(card).to_contain_text(n["name"])
            if n["taken_by"] is not None:
                expect(card).to_have_attribute("data-taken-by", str(n["taken_by"]))
    expect(page.locator(".draft-pick")).to_have_count(2)
    expect(other.locator(".draft-pick")).to_have_count(0)
    expect(page.locator("#actions-left")).to_be_hidden()  # no "2 actions left" during a draft
    expect(page.locator(".draft-ask")).to_contain_text("Three misses")
    shots(page, artifacts, "dalsiandon-draft")

    # The chooser defers by button; the other player then chooses by button.
    before = view(page)["version"]
    page.click(".draft-defer")
    wait_for_version(other, before + 1)
    expect(other.locator(".draft-pick")).to_have_count(2)
    expect(other.locator(".draft-defer")).to_have_count(0)
    kind = other.locator("[data-draft-number]:has(.draft-pick)").first.get_attribute("data-kind")
    before = view(other)["version"]
    other.locator(".draft-pick").first.click()
    wait_for_version(other, before + 1)
    expect(other.locator(f"[data-draft-number][data-kind='{kind}']")).to_have_attribute(
        "data-taken-by", str(1 - chooser)
    )
    assert view(other)["state"]["phase"] == "arrange"
    expect(other.locator(".setup-rolls")).to_contain_text("Setup d10")

    # Arrangement: a creature from the tray, then a highlighted home space.
    arranging = acting_page(pages)
    expect(arranging.locator(".tray[data-tray='bottom'] [data-reserve-piece]")).to_have_count(4)
    piece = arranging.locator("[data-reserve-piece]").first.get_attribute("data-reserve-piece")
    arranging.click(f"[data-reserve-piece='{piece}']")
    expect(arranging.locator(f"[data-reserve-piece='{piece}']")).to_have_attribute("aria-pressed", "true")
    expect(arranging.locator("[data-space][data-legal]")).to_have_count(4)
    space = next(a["to"] for a in view(arranging)["legal_actions"] if a.get("piece") == piece)
    before = view(arranging)["version"]
    click_space(arranging, space)
    wait_for_version(arranging, before + 1)
    expect(arranging.locator(f"[data-piece='{piece}']")).to_have_attribute("data-at", space)
    expect(arranging.locator("[data-reserve-piece]")).to_have_count(3)
    # The other seat sees the same creature placed, and the rest waiting in the top tray.
    watcher = pages[1] if arranging is pages[0] else pages[0]
    wait_for_version(watcher, before + 1)
    expect(watcher.locator(f"[data-piece='{piece}']")).to_have_attribute("data-at", space)
    expect(watcher.locator(".tray[data-tray='top'] [data-tray-piece]")).to_have_count(3)
    shots(arranging, artifacts, "dalsiandon-arrange")


def test_a_quick_click_on_the_next_creature_while_one_is_placed_picks_it(web_server, new_context):
    match_id, players = create(web_server, "dalsiandon")
    while rest_view(web_server, match_id)["state"]["phase"] != "arrange":
        play_rest(web_server, match_id, players, lambda _, actions: actions[0])
    seat = rest_view(web_server, match_id)["to_act"][0]
    page = open_page(web_server, new_context, players[seat], match_id)
    first, second = [
        tray.get_attribute("data-reserve-piece") for tray in page.locator("[data-reserve-piece]").all()[:2]
    ]
    page.click(f"[data-reserve-piece='{first}']")
    space = next(a["to"] for a in view(page)["legal_actions"] if a.get("piece") == first)
    before = view(page)["version"]
    # Its spaces lit (drawn on the next frame after the click), as a player would see them.
    expect(page.locator(f"[data-space='{space}'][data-legal] .marker-dot")).to_be_attached()
    # The space, then the next creature at once: the second click comes while the first
    # placement is still on its way to the server (in the same task, before any reply).
    page.evaluate(
        """([space, next]) => {
            document.querySelector(`[data-space='${space}'][data-legal] .marker-dot`)
                .dispatchEvent(new MouseEvent('click', {bubbles: true}));
            document.querySelector(`[data-reserve-piece='${next}']`).click();
        }""",
        [space, second],
    )
    wait_for_version(page, before + 1)
    expect(page.locator(f"[data-piece='{first}']")).to_have_attribute("data-at", space)
    expect(page.locator(f"[data-reserve-piece='{second}']")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("[data-space][data-legal]").first).to_be_attached()  # its home spaces are lit
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_dalsiandon_safe_zone_and_rays_of_death_combat_ray(web_server, new_context, artifacts):
    options = {"teams": "random", "rays_of_death": True, "king_of_the_center": True}
    match_id, players = create(web_server, "dalsiandon", options)
    match = arrange_by_rest(web_server, match_id, players)
    ray = match["state"]["combat_ray"]
    assert ray is not None
    seat = match["to_act"][0]
    page = open_page(web_server, new_context, players[seat], match_id)

    expect(page.locator("[data-zone='safe']")).to_have_count(12)
    expect(page.locator(".fact[data-fact='safe-zone']")).to_contain_text("ring A")
    expect(page.locator("[data-zone='ray']")).to_have_count(len(ray["spaces"]))
    for space in ray["spaces"]:
        expect(page.locator(f"[data-zone='ray'][data-zone-space='{space}']")).to_have_count(1)
    expect(page.locator(".fact[data-fact='combat-ray']")).to_contain_text(
        "the core" if ray["ring"] == "C" else ", ".join(ray["spaces"])
    )
    expect(page.locator("[data-zone='must'][data-zone-space='C']")).to_have_count(1)
    expect(page.locator(".fact[data-fact='cycle']")).to_contain_text("0/4 acted")

    # Act with one creature by clicking: it is marked as having acted this cycle.
    action = next(a for a in view(page)["legal_actions"] if a["type"] == "move")
    page.click(f"[data-piece='{action['piece']}'][data-selectable]")
    before = view(page)["version"]
    click_space(page, action["to"])
    wait_for_version(page, before + 1)
    expect(page.locator(f"[data-piece='{action['piece']}']")).to_have_attribute("data-acted", "")
    expect(page.locator(".fact[data-fact='cycle']")).to_contain_text("1/4 acted")
    page.hover(f"[data-piece='{action['piece']}']")
    expect(page.locator(".piece-info")).to_contain_text("has acted this cycle")
    shots(page, artifacts, "dalsiandon-rays")


# --- kelly-d20 --------------------------------------------------------------------


def test_kelly_d20_centre_hold_counter(web_server, new_context, artifacts):
    match_id, players = create(web_server, "kelly-d20")
    page = open_page(web_server, new_context, players[0], match_id)
    expect(page.locator(".fact[data-fact='centre-hold']")).to_contain_text("0/3")
    # The creatures' own dice read as players say them: the Molator attacks with 8 + d4.
    expect(page.locator("#legend tr[data-kind='molator'] td")).to_have_text(["8", "2", "2", "d4", "d10"])

    def into_the_core(match, actions):
        on_core = {p["id"] for p in match["state"]["pieces"] if p["at"] == "C"}
        moves = [a for a in actions if a["type"] == "move"]
        return (
            next((a for a in moves if a["to"] == "C"), None)
            or next((a for a in moves if a["piece"] not in on_core), None)
            or actions[0]
        )

    for _ in range(40):
        match = play_rest(web_server, match_id, players, into_the_core)
        if sum(match["state"]["centre_hold"]) or match["status"] != "active":
            break
    hold = match["state"]["centre_hold"]
    assert sum(hold) > 0
    wait_for_version(page, match["version"])
    for seat in (0, 1):
        expect(
            page.locator(f".fact[data-fact='centre-hold'] [data-progress-seat='{seat}'] i[data-on]")
        ).to_have_count(hold[seat])
    expect(page.locator(".fact[data-fact='centre-hold']")).to_contain_text(f"{max(hold)}/3")
    shots(page, artifacts, "kelly-d20-hold")


# --- simeone ----------------------------------------------------------------------


def test_simeone_scores_stun_and_push_off_the_board(web_server, new_context, artifacts):
    rng = random.Random(7)

    def aggressive(_, actions):
        attacks = [a for a in actions if a["type"] == "attack"]
        moves = [a for a in actions if a["type"] == "move"]
        return rng.choice(attacks or moves or actions)

    def play_until(goal, current=None):
        """Play aggressively (new matches when one ends) until ``goal(match, chooser view)``."""
        for _ in range(20):
            if current is None:
                match_id, players = create(web_server, "simeone")
                arrange_by_rest(web_server, match_id, players)
            else:
                match_id, players = current
                current = None
            for _ in range(300):
                match = rest_view(web_server, match_id)
                if match["status"] != "active":
                    break
                mine = rest_view(web_server, match_id, players[match["to_act"][0]])
                if goal(match, mine):
                    return match_id, players, mine
                play_rest(web_server, match_id, players, aggressive)
        raise AssertionError("the position never came up")

    # A stunned creature: a STUN badge and a dashed, dimmed token, and said in words.
    match_id, players, mine = play_until(lambda m, _: any(p.get("stunned") for p in m["state"]["pieces"]))
    page = open_page(web_server, new_context, players[0], match_id)
    piece = next(p for p in mine["state"]["pieces"] if p["stunned"])
    token = page.locator(f"[data-piece='{piece['id']}']")
    expect(token).to_have_attribute("data-stunned", "")
    expect(token.locator(".badge-stun")).to_be_visible()
    assert "stunned" in (token.get_attribute("aria-label") or "")
    shots(page, artifacts, "simeone-stun")

    # A push off the board: a marker beyond the ring-A space, clicked.
    match_id, players, mine = play_until(
        lambda _, v: any(a.get("to") == "off" for a in v["legal_actions"]), (match_id, players)
    )
    chooser = mine["you"]["seat"]  # the pusher: either seat, as the dice fell
    page = open_page(web_server, new_context, players[chooser], match_id)
    wait_for_version(page, mine["version"])
    state = mine["state"]
    for seat in (0, 1):
        expect(page.locator(f".fact[data-fact='scores'] [data-fact-seat='{seat}']")).to_have_text(
            f" {state['scores'][seat]}"
        )
    expect(page.locator(".fact[data-fact='scores']")).to_contain_text(f"{state['points_to_win']} to win")
    expect(page.locator(".fact[data-fact='round']")).to_contain_text(str(state["round"]))
    pushed = state["push"]["piece"]
    marker = page.locator(".choice[data-choice='off']")
    expect(marker).to_have_count(1)
    shots(page, artifacts, "simeone-push-off")
    before = mine["version"]
    marker.click()
    wait_for_version(page, before + 1)
    expect(page.locator(f"[data-piece='{pushed}']")).to_have_count(0)
    expect(page.locator(f".tray [data-tray-piece='{pushed}']")).to_have_attribute("data-status", "defeated")
    after = view(page)["state"]
    for seat in (0, 1):
        expect(page.locator(f".fact[data-fact='scores'] [data-fact-seat='{seat}']")).to_have_text(
            f" {after['scores'][seat]}"
        )
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_simeone_activation_is_shown_and_ended_by_a_button(web_server, new_context, artifacts):
    match_id, players = create(web_server, "simeone")
    match = arrange_by_rest(web_server, match_id, players)
    # Activate a creature with more than one action by moving it once.
    for _ in range(20):
        seat = match["to_act"][0]
        mine = rest_view(web_server, match_id, players[seat])
        if any(a["type"] == "end_activation" for a in mine["legal_actions"]):
            break
        many = {p["id"] for p in mine["state"]["pieces"] if p.get("actions", 1) > 1 and p["owner"] == seat}
        moves = [a for a in game_actions(mine) if a["type"] == "move" and a["piece"] in many]
        rest_act(web_server, match_id, players[seat], (moves or game_actions(mine))[0], mine["version"])
        match = rest_view(web_server, match_id)
    page = open_page(web_server, new_context, players[seat], match_id)
    active = mine["state"]["active"]
    expect(page.locator(f"[data-piece='{active}']")).to_have_attribute("data-active", "")
    fact = page.locator(".fact[data-fact='activation']")
    expect(fact).to_contain_text(f"{mine['state']['actions_left']} action")
    before = mine["version"]
    fact.locator("[data-action-type='end_activation']").focus()
    page.keyboard.press("Enter")
    wait_for_version(page, before + 1)
    expect(page.locator(".fact[data-fact='activation']")).to_have_count(0)
    assert page.js_errors == []  # type: ignore[attr-defined]


# --- orbit-chess and courtier -----------------------------------------------------


def test_orbit_chess_tray_activates_a_captured_piece_by_clicking(web_server, new_context, artifacts):
    match_id, players = create(web_server, "orbit-chess")
    match = replay_deterministic(
        web_server, match_id, players, "orbit-chess", lambda acts: any(a["type"] == "activate" for a in acts)
    )
    seat = match["to_act"][0]
    page = open_page(web_server, new_context, players[seat], match_id)
    mine = view(page)
    activate = next(a for a in mine["legal_actions"] if a["type"] == "activate")
    piece = activate["piece"]
    tray = page.locator(".tray[data-tray='bottom']")
    expect(tray.locator(f"[data-reserve-piece='{piece}']")).to_be_visible()
    expect(tray.locator(f"[data-reserve-piece='{piece}'] [data-family='chess'] use.figure")).to_have_count(1)
    # Chess figures with owner shapes on the board; protected pieces marked.
    expect(page.locator("[data-piece][data-family='chess']")).to_have_count(len(mine["state"]["pieces"]))
    expect(page.locator("[data-piece][data-protected]")).to_have_count(
        sum(1 for p in mine["state"]["pieces"] if p.get("protected"))
    )
    # The notation of the last move is in the log and in the facts.
    expect(page.locator("#log")).to_contain_text(f"[{mine['state']['last_move']}]")
    expect(page.locator(".fact[data-fact='last-move']")).to_contain_text(mine["state"]["last_move"])
    shots(page, artifacts, "orbit-chess-tray")

    page.click(f"[data-reserve-piece='{piece}']")
    expect(page.locator("[data-space][data-legal]")).to_have_count(
        sum(1 for a in mine["legal_actions"] if a.get("piece") == piece)
    )
    before = mine["version"]
    click_space(page, activate["to"])
    wait_for_version(page, before + 1)
    expect(page.locator(f"[data-piece='{piece}']")).to_have_attribute("data-at", activate["to"])
    expect(page.locator(f"[data-reserve-piece='{piece}']")).to_have_count(0)
    expect(page.locator("#log")).to_contain_text(f"[{activate['notation']}]")
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_courtier_kings_guards_and_the_capture_choice_by_keyboard(web_server, new_context, artifacts):
    match_id, players = create(web_server, "courtier")
    match = replay_deterministic(
        web_server, match_id, players, "courtier", lambda acts: any(a["type"] == "capture" for a in acts)
    )
    seat = match["to_act"][0]
    page = open_page(web_server, new_context, players[seat], match_id)
    mine = view(page)
    captures = [a for a in mine["legal_actions"] if a["type"] == "capture"]
    kings = [p for p in mine["state"]["pieces"] if p["kind"] == "king"]
    expect(page.locator("[data-piece][data-kind='king'] .royal-ring")).to_have_count(len(kings))
    expect(page.locator("[data-piece][data-family='guard'] use.figure[data-figure='guard']")).to_have_count(
        len(mine["state"]["pieces"]) - len(kings)
    )
    markers = page.locator(".choice[data-choice='capture']")
    expect(markers).to_have_count(len(captures))
    expect(page.locator(".fact[data-fact='capture-choice']")).to_be_visible()
    shots(page, artifacts, "courtier-capture")
    victim = captures[0]["piece"]
    at = next(p["at"] for p in mine["state"]["pieces"] if p["id"] == victim)
    before = mine["version"]
    page.focus(f".choice[data-choice='capture'][data-for='{at}']")
    page.keyboard.press("Enter")
    wait_for_version(page, before + 1)
    expect(page.locator(f"[data-piece='{victim}']")).to_have_count(0)
    expect(page.locator(f".tray [data-tray-piece='{victim}']")).to_have_attribute("data-status", "captured")
    assert page.js_errors == []  # type: ignore[attr-defined]
