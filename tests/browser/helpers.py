"""Driving a match page the way a player does: click a piece that can act, then a
highlighted space. The choice of action reads the page's own legal actions."""

from __future__ import annotations

import random
import re
from typing import Any

from playwright.sync_api import Page, expect

from app.rules.base import COMMON_ACTION_TYPES
from app.rules.board import NEIGHBOURS
from app.rules.board import distance as board_distance
from tests.browser.conftest import REST, rest_act, rest_view

DESKTOP = {"width": 1280, "height": 900}


def open_page(context, url: str) -> Page:
    """A new page of ``context`` at ``url`` that keeps its JavaScript errors (``page.js_errors``)."""
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors  # type: ignore[attr-defined]
    page.goto(url)
    return page


def view(page: Page) -> dict[str, Any]:
    """The match as the page holds it: once its socket's first snapshot is in (a page shows
    "Live" when the socket opens, a moment before: a reload once read nothing there)."""
    page.wait_for_function("() => window.__dejarik && window.__dejarik.store.view")
    return page.evaluate("window.__dejarik.store.view")


def version(page: Page) -> int:
    return int(page.get_attribute("#match", "data-version") or -1)


def wait_for_version(page: Page, at_least: int, timeout: float = 10_000) -> None:
    page.wait_for_function(
        "v => Number(document.getElementById('match').dataset.version) >= v", arg=at_least, timeout=timeout
    )


# --- a page is ready: all it loads after the page itself is shown ------------------------
# (what the tests assert on, never a quiet network: the pages poll and keep a socket open)


def match_page_ready(page: Page, seated: int = 2) -> None:
    """The match page shows the match live (its version drawn), the moves so far in the
    log, who is at the table (``seated`` players) and the latest dice at rest."""
    expect(page.locator("#connection")).to_have_text("Live")
    expect(page.locator("#match")).to_have_attribute("data-version", re.compile(r"^\d+$"))
    expect(page.locator("#log")).to_have_attribute("aria-busy", "false")
    expect(page.locator("#log li[data-version]").first).to_be_attached()
    expect(page.locator("#presence li")).to_have_count(seated)
    expect(page.locator("#dice-tray")).not_to_have_attribute("data-state", "rolling")


def table_ready(page: Page, server, match_id: str) -> None:
    """The table view shows the match live, the last lines of its log, and the latest
    dice at rest (the screen fitted to them)."""
    expect(page.locator("#tv-connection")).to_have_text("Live")
    entries = REST.get(f"{server.url}/api/v1/matches/{match_id}/events?after=0").json()["events"]
    expect(page.locator("#tv-log li")).to_have_count(min(6, len(entries)))
    expect(page.locator("#tv-roll")).not_to_have_attribute("data-state", "rolling")


def gm_control(server, match_id: str, gm: dict[str, str], kind: str, **fields: Any) -> None:
    """The GM sends one of their listed controls over REST, as its own REST client would."""
    listed = rest_view(server, match_id, gm)
    control = next(
        a
        for a in listed["legal_actions"]
        if a["type"] == kind and all(a.get(k) == v for k, v in fields.items())
    )
    rest_act(server, match_id, gm, control, listed["version"])


def resize(page: Page, width: int, height: int) -> None:
    """Resize the window and wait until the page has drawn itself at the new size: two
    frames after the resize event, the page's own render (on the first) is done."""
    if page.viewport_size == {"width": width, "height": height}:
        return
    page.evaluate(
        """() => window.__drawnAt || addEventListener('resize', () => requestAnimationFrame(() =>
            requestAnimationFrame(() => { window.__drawnAt = [innerWidth, innerHeight]; })))"""
    )
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function(
        "([w, h]) => window.__drawnAt && window.__drawnAt[0] === w && window.__drawnAt[1] === h",
        arg=[width, height],
    )


def open_new_match_form(page: Page) -> None:
    """Open the home page's full new-match form (every ruleset, option, seat and level),
    one step below its three quick choices."""
    page.click("#new-match > summary")
    expect(page.locator("#new-match .new-match-form")).to_be_visible()


def replay_ready(page: Page, version: int, latest: int) -> None:
    """The replay shows ``version`` of ``latest``, with that step's dice at rest."""
    expect(page.locator("#position")).to_have_text(f"Step {version} of {latest}")
    expect(page.locator("#replay")).to_have_attribute("data-version", str(version))
    expect(page.locator("#dice-tray")).not_to_have_attribute("data-state", "rolling")


def distance(start: str, goals: set[str]) -> int:
    """Steps from ``start`` to the nearest of ``goals`` over the board's orthogonal neighbours."""
    steps = board_distance(start, goals)
    return 99 if steps is None else steps


def aggressive_choice(match: dict[str, Any]) -> dict[str, Any]:
    """Attack when possible, push when asked, else the move that ends nearest an enemy."""
    actions = [a for a in match["legal_actions"] if "piece" in a]
    for kind in ("attack", "push"):
        chosen = [a for a in actions if a["type"] == kind]
        if chosen:
            return chosen[0]
    pieces = {p["id"]: p for p in match["state"]["pieces"]}
    seat = match["you"]["seat"]
    enemies = {p["at"] for p in pieces.values() if p["owner"] != seat}

    def closeness(action: dict[str, Any]) -> tuple[int, str, str]:
        return (distance(action["to"], enemies), action["piece"], action["to"])

    return min((a for a in actions if a["type"] == "move"), key=closeness)


def destination(match: dict[str, Any], action: dict[str, Any]) -> str:
    if "target" in action:
        return next(p["at"] for p in match["state"]["pieces"] if p["id"] == action["target"])
    return action["to"]


def click_space(page: Page, space: str) -> None:
    """Click the middle of a highlighted space (where a piece on it would be)."""
    page.locator(f"[data-space='{space}'][data-legal] .cell").scroll_into_view_if_needed()
    box = page.locator(f"[data-space='{space}'][data-legal] .marker-dot").bounding_box()
    assert box is not None, f"{space} is not highlighted"
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def confirm_attack(page: Page, action: dict[str, Any]) -> None:
    """An action with odds waits in its confirm step: press its Attack button."""
    if action.get("odds"):
        page.locator("#attack-confirm [data-confirm]").click()


def select_piece(page: Page, piece: str) -> None:
    if page.locator(f"[data-piece='{piece}'][data-selected]").count() == 0:
        page.click(f"[data-piece='{piece}'][data-selectable]")
    page.wait_for_selector("[data-space][data-legal]")


def play_by_clicking(page: Page, action: dict[str, Any]) -> int:
    """Select the action's piece and click its destination; returns the version before."""
    match = view(page)
    select_piece(page, action["piece"])
    click_space(page, destination(match, action))
    confirm_attack(page, action)
    return match["version"]


def play_by_keyboard(page: Page, action: dict[str, Any]) -> int:
    match = view(page)
    page.focus(f"[data-piece='{action['piece']}'][data-selectable]")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"[data-space='{destination(match, action)}'][data-legal]")
    page.focus(f"[data-space='{destination(match, action)}'][data-legal]")
    page.keyboard.press("Space")
    if action.get("odds"):  # the confirm step takes the focus: Enter on Attack
        page.wait_for_selector("#attack-confirm [data-confirm]:focus")
        page.keyboard.press("Enter")
    return match["version"]


def acting_page(pages: list[Page]) -> Page:
    """The page whose player must decide now."""
    for page in pages:
        match = view(page)
        if match["you"]["seat"] in match["to_act"]:
            return page
    raise AssertionError("nobody is to act")


def is_space(value: Any) -> bool:
    return isinstance(value, str) and value in NEIGHBOURS


def play_any(page: Page) -> int:
    """Play the page's first legal action the way the page offers it, knowing no rules:
    a board action by clicking piece and space, a reserve piece from the tray, else a
    button (never resign or a draw offer). Returns the version before."""
    match = view(page)
    on_board = {p["id"]: p["at"] for p in match["state"].get("pieces", []) if p.get("at")}
    for action in match["legal_actions"]:
        piece = action.get("piece")
        target = on_board.get(action.get("target")) if "target" in action else None
        to = action["to"] if is_space(action.get("to")) else target
        if piece is None or to is None:
            continue
        if piece in on_board:
            select_piece(page, piece)
        else:
            if page.get_attribute(f"[data-reserve-piece='{piece}']", "aria-pressed") != "true":
                page.click(f"[data-reserve-piece='{piece}']")
            page.wait_for_selector("[data-space][data-legal]")
        click_space(page, to)
        sharing = [
            a
            for a in match["legal_actions"]
            if a.get("piece") == piece and (a.get("to") == to or on_board.get(a.get("target")) == to)
        ]
        if len(sharing) > 1:  # several actions on one space: the page asks which
            page.locator("#choice-menu [data-menu-index]").first.click()
            confirm_attack(page, sharing[0])
        else:
            confirm_attack(page, action)
        return match["version"]
    buttons = page.locator("#buttons [data-action-index]")
    for i in range(buttons.count()):
        if buttons.nth(i).get_attribute("data-action-type") not in COMMON_ACTION_TYPES:
            buttons.nth(i).click()
            return match["version"]
    raise AssertionError(f"nothing to play in {match['legal_actions']}")


def dice_shown(page: Page) -> dict:
    """The settled dice tray: every die's sides and face, the totals, the outcome."""
    expect(page.locator("#dice-tray")).to_have_attribute("data-state", "settled")
    return page.evaluate(
        """() => ({
            dice: [...document.querySelectorAll('#dice-tray .die')]
                .map(d => `d${d.dataset.sides}:${d.querySelector('b').textContent}`),
            faces: [...document.querySelectorAll('#dice-tray .die')]
                .map(d => `d${d.dataset.sides}:${d.dataset.face}`),
            totals: [...document.querySelectorAll('#dice-tray [data-total]')].map(t => t.dataset.total),
            outcome: [...document.querySelectorAll('#dice-tray [data-outcome]')].map(o => o.dataset.outcome),
        })"""
    )


def rest_play_to_an_attack(server, match_id: str, players: list[dict[str, str]], within: int = 120) -> int:
    """Both seats play over REST (as from their phones), attacks preferred, until an attack
    is made: the match's version after it."""
    for _ in range(within):
        seat = rest_view(server, match_id)["to_act"][0]
        mine = rest_view(server, match_id, players[seat])
        action = aggressive_choice(mine)
        rest_act(server, match_id, players[seat], action, mine["version"])
        if action["type"] == "attack":
            return mine["version"] + 1
    raise AssertionError(f"no attack came within {within} actions")


def random_play(server, match_id: str, players: list[dict[str, str]], steps: int, seed: int) -> None:
    """Seeded random play over REST (attacks preferred) for ``steps`` actions or to the end."""
    rng = random.Random(seed)
    for _ in range(steps):
        match = rest_view(server, match_id)
        if match["status"] != "active":
            return
        seat = match["to_act"][0]
        mine = rest_view(server, match_id, players[seat])
        actions = [a for a in mine["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES]
        attacks = [a for a in actions if a["type"] == "attack"]
        chosen = rng.choice(attacks if attacks and rng.random() < 0.7 else actions)
        rest_act(server, match_id, players[seat], chosen, mine["version"])


def inside_window(page: Page, selector: str) -> bool:
    """Whether what ``selector`` finds is wholly inside the window, with no scrolling."""
    return page.evaluate(
        """s => { const r = document.querySelector(s).getBoundingClientRect();
                  return r.width > 0 && r.top >= 0 && r.left >= 0
                      && r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5; }""",
        selector,
    )


def contrast_ratio(a: str, b: str) -> float:
    """The WCAG contrast ratio of two computed CSS colours, ``rgb(r, g, b)``."""

    def luminance(colour: str) -> float:
        inside = colour[colour.index("(") + 1 : colour.index(")")]
        channels = [int(float(c)) / 255 for c in inside.split(",")[:3]]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)
