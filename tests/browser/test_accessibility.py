"""axe-core finds no violations on the home, match, table, replay and rules pages.

axe-core is the npm package at the Makefile's ``AXE_VERSION`` (the one place its
version is set), installed by `make axe`, which `make test` runs.

Each page is one template; what differs between rulesets is what the renderer draws
into it. So the pages are checked by renderer path, not by ruleset: a ruleset is a case
(``CASES``) for what its pages draw that no other case draws (found by comparing the
kinds of element every ruleset's pages show), at the width where that shows; kelly and
eote, the two renderers, at both widths. Every other ruleset is named in ``DRAWN_LIKE``
with the cases that draw all it draws. Screenshots of each page checked go to
test-artifacts/ (every ruleset at every size: test_screens.py).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from app.rules import registry
from app.rules.base import COMMON_ACTION_TYPES
from tests.browser.conftest import REST, join_match, new_match, new_player, rest_act, rest_view, signed_in
from tests.browser.helpers import match_page_ready, replay_ready, table_ready

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / ".cache/node/node_modules/axe-core"
VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 375, "height": 812}}
TV = {"width": 1920, "height": 1080}
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]

# ruleset -> the widths its match, table and replay pages are checked at, and why it is a case.
CASES: dict[str, tuple[tuple[str, ...], str]] = {
    "kelly": (("desktop", "phone"), "the board renderer's plain board; the page's layout at both widths"),
    "eote": (("desktop", "phone"), "a renderer of its own: character sheets, piles, narrative dice, buttons"),
    "dalsiandon": (
        ("desktop",),
        "setting up from a tray of reserve-piece buttons, the setup rolls panel, the safe zone, d8 and "
        "d10 dice, the minor facts a desktop shows",
    ),
    "simeone": (("phone",), "the reserve tray and the setting-up prompt on a phone; scores"),
    "kelly-d20": (("desktop",), "a fact with pips (the hold on the core)"),
    "orbit-chess": (("phone",), "white and black tokens, kings' royal rings, the protected swatch, words"),
}
# Rulesets whose pages draw nothing that the cases above do not draw too.
DRAWN_LIKE = {"courtier": "kelly's board, with orbit-chess's royal rings for its kings"}


def axe_version_wanted() -> str:
    found = re.search(r"^AXE_VERSION\s*:?=\s*(\S+)", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert found, "the Makefile sets AXE_VERSION"
    return found.group(1)


@pytest.fixture(scope="session")
def axe_source() -> str:
    wanted = axe_version_wanted()
    package = AXE / "package.json"
    installed = json.loads(package.read_text())["version"] if package.exists() else None
    if installed != wanted:
        pytest.fail(
            f"axe-core {wanted} (the Makefile's AXE_VERSION) is not installed at {AXE} "
            f"(found {installed}): run `make axe` (part of `make test`)"
        )
    return (AXE / "axe.min.js").read_text()


def violations(page: Page, axe_source: str) -> list[str]:
    """Every axe violation of the page as words (rule, impact, where)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(content=axe_source)
    found = page.evaluate(
        "async tags => (await axe.run(document, { runOnly: { type: 'tag', values: tags } })).violations", WCAG
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at "
        + json.dumps([n["target"] for n in v["nodes"][:4]])
        + (f" e.g. {v['nodes'][0]['failureSummary']}" if v["nodes"] else "")
        for v in found
    ]


def still_page(new_context, viewport: dict[str, int], server=None, player: dict | None = None) -> Page:
    """A page with reduced motion, so that nothing is half-faded while axe measures
    contrast; signed in as ``player`` if given. The pages' Content-Security-Policy runs no
    inline script, and axe is injected as one: these contexts bypass it
    (``test_security_headers.py`` checks the pages under it)."""
    context = new_context(viewport=viewport, reduced_motion="reduce", bypass_csp=True)
    if player is not None:
        signed_in(context, server, player)
    return context.new_page()


def seated_match(server, ruleset: str) -> tuple[str, list[dict[str, str]]]:
    players = [new_player(server, "Rey"), new_player(server, "Finn")]
    match_id = new_match(server, players[0], ruleset)
    join_match(server, players[1], match_id)
    return match_id, players


def played_then_resigned(server, ruleset: str, actions: int = 12) -> tuple[str, int]:
    """A match with a few random actions of whoever must act (dice rolled, pieces moved),
    then resigned by seat 0: finished, so its replay shows the result and the dice check.
    (The server's dice are not the test's: a few random actions may end an eote match
    first, and then it is finished already.)"""
    players = [new_player(server, "Rey"), new_player(server, "Finn")]
    match_id = new_match(server, players[0], ruleset)
    join_match(server, players[1], match_id)
    rng = random.Random(5)
    for _ in range(actions):
        for player in players:
            mine = rest_view(server, match_id, player)
            choices = [a for a in mine["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES]
            if choices:
                rest_act(server, match_id, player, rng.choice(choices), mine["version"])
                break
    mine = rest_view(server, match_id, players[0])
    if mine["status"] == "active":
        rest_act(server, match_id, players[0], {"type": "resign"}, mine["version"])
    return match_id, rest_view(server, match_id)["version"]


def test_every_ruleset_is_a_case_or_drawn_like_cases():
    assert set(CASES) | set(DRAWN_LIKE) == set(registry())
    assert not set(CASES) & set(DRAWN_LIKE)


def test_home_pages_have_no_violations(web_server, new_context, axe_source):
    page = still_page(new_context, VIEWPORTS["desktop"])
    page.goto(web_server.url + "/")
    expect(page.locator("form[action='/name']")).to_be_visible()
    assert violations(page, axe_source) == []
    player = new_player(web_server, "Lando")
    new_match(web_server, player)
    page = still_page(new_context, VIEWPORTS["desktop"], web_server, player)
    page.goto(web_server.url + "/")
    expect(page.locator("[data-match-link]")).to_have_count(1)
    assert violations(page, axe_source) == []


@pytest.mark.parametrize("ruleset", list(CASES))
def test_match_and_table_pages_have_no_violations(ruleset, web_server, new_context, axe_source, artifacts):
    match_id, players = seated_match(web_server, ruleset)
    # The page of the seat to act: it has a piece (or a tray piece) to pick.
    acting = players[rest_view(web_server, match_id)["to_act"][0]]
    widths = CASES[ruleset][0]
    for name in widths:
        viewport = VIEWPORTS[name]
        page = still_page(new_context, viewport, web_server, acting)
        page.goto(f"{web_server.url}/matches/{match_id}")
        match_page_ready(page)
        page.screenshot(path=artifacts / f"ruleset-{ruleset}-{viewport['width']}.png", full_page=True)
        assert violations(page, axe_source) == [], (ruleset, name)
        pickable = page.locator("[data-piece][data-selectable], [data-reserve-piece][data-selectable]")
        # eote's decisions, and dalsiandon's draft, are buttons already on the page.
        if ruleset != "eote" and pickable.count():
            # A piece picked, on the board or from the tray: its legal spaces lit, the hint changed.
            pickable.first.click()
            expect(page.locator("[data-space][data-legal]").first).to_be_attached()
            assert violations(page, axe_source) == [], (ruleset, name, "selected")
    if len(widths) > 1:  # kelly and eote
        # The "How to play" drawer opened, with its rules loaded (the rules themselves, the
        # same words as the rules pages: test_rules_pages_have_no_violations, every ruleset).
        page.locator(".howto summary").click()
        expect(page.locator(".howto-body [data-guide='aim']")).to_be_visible()
        assert violations(page, axe_source) == [], (ruleset, "how to play")
    table = still_page(new_context, TV)
    table.goto(f"{web_server.url}/matches/{match_id}/table")
    table_ready(table, web_server, match_id)
    assert violations(table, axe_source) == [], (ruleset, "table")


@pytest.mark.parametrize("ruleset", list(CASES))
def test_replay_pages_have_no_violations(ruleset, web_server, new_context, axe_source, artifacts):
    match_id, latest = played_then_resigned(web_server, ruleset)
    for name in CASES[ruleset][0]:
        viewport = VIEWPORTS[name]
        page = still_page(new_context, viewport)
        page.goto(f"{web_server.url}/matches/{match_id}/replay?v={latest}")
        replay_ready(page, latest, latest)
        expect(page.locator("#banner")).to_be_visible()
        assert violations(page, axe_source) == [], (ruleset, name, "the end")
        # A step back into the match: a position with the board and that step's dice.
        page.click("[data-step='first']")
        replay_ready(page, 0, latest)
        for _ in range(min(latest, 6)):
            page.click("[data-step='forward']")
        replay_ready(page, min(latest, 6), latest)
        page.screenshot(path=artifacts / f"replay-{ruleset}-{viewport['width']}.png", full_page=True)
        assert violations(page, axe_source) == [], (ruleset, name, "mid-match")


# The rules pages are server-written words and tables (and board diagrams drawn by the
# board renderer): every ruleset's on a phone, and the index, kelly's (a board ruleset)
# and eote's (no board) on a desktop too.
RULES_PAGES = {"/rules": tuple(VIEWPORTS)} | {
    f"/rules/{r}": tuple(VIEWPORTS) if r in ("kelly", "eote") else ("phone",) for r in sorted(registry())
}


@pytest.mark.parametrize("path", list(RULES_PAGES))
def test_rules_pages_have_no_violations(path, web_server, new_context, axe_source, artifacts):
    for width in RULES_PAGES[path]:
        page = still_page(new_context, VIEWPORTS[width])
        page.goto(web_server.url + path)
        expect(page.locator("h1")).to_be_visible()
        expect(page.locator(".diagram svg.board")).to_have_count(page.locator(".diagram").count())
        assert violations(page, axe_source) == [], (path, width)
    name = path.strip("/").replace("/", "-")
    page.screenshot(path=artifacts / f"{name}-375.png", full_page=True)


def test_identity_pages_have_no_violations(web_server, new_context, axe_source):
    """The settings page with its devices list, a device link's question in a browser
    that already plays as someone, and the page of a browser signed out elsewhere."""
    chewie, leia = new_player(web_server, "Chewie"), new_player(web_server, "Leia")
    url = REST.post(
        f"{web_server.url}/api/v1/players/me/device-links",
        headers={"Authorization": f"Bearer {chewie['token']}"},
    ).json()["url"]
    for viewport in VIEWPORTS.values():
        page = still_page(new_context, viewport, web_server, chewie)
        page.goto(url)  # Chewie's own link: nothing to do
        page = still_page(new_context, viewport, web_server, leia)
        page.goto(url)
        expect(page.locator("[data-forgotten]")).to_be_visible()
        assert violations(page, axe_source) == [], ("device link", viewport)
    phone = still_page(new_context, VIEWPORTS["phone"])
    phone.goto(url)
    phone.locator("[data-use-device-link]").click()
    expect(phone.locator("header .who")).to_contain_text("Chewie")
    for viewport in VIEWPORTS.values():
        page = still_page(new_context, viewport, web_server, chewie)
        page.goto(f"{web_server.url}/settings")
        expect(page.locator("[data-devices] li")).to_have_count(2)
        assert violations(page, axe_source) == [], ("settings", viewport)
    REST.post(
        f"{web_server.url}/api/v1/players/me/sign-out-others",
        headers={"Authorization": f"Bearer {chewie['token']}"},
    )
    phone.goto(f"{web_server.url}/settings")
    expect(phone.locator("[data-signed-out]")).to_be_visible()
    assert violations(phone, axe_source) == [], "signed out"


def test_league_pages_have_no_violations(web_server, new_context, axe_source):
    """Leagues (issue 32): the new-league form, and a running league's page as its host
    (controls, rounds, standings) at both widths, and the home page's league lines."""
    host, friend, third = (
        new_player(web_server, "Mon"),
        new_player(web_server, "Wedge"),
        new_player(web_server, "Hobbie"),
    )
    created = REST.post(
        f"{web_server.url}/api/v1/leagues",
        json={"name": "Yavin Cup", "ruleset": "kelly", "format": "round-robin"},
        headers={"Authorization": f"Bearer {host['token']}"},
    ).json()
    for player in (friend, third):
        REST.post(
            f"{web_server.url}/api/v1/leagues/{created['id']}/join",
            headers={"Authorization": f"Bearer {player['token']}"},
        )
    page = still_page(new_context, VIEWPORTS["desktop"], web_server, host)
    page.goto(f"{web_server.url}/leagues/new")
    expect(page.locator("[data-new-league]")).to_be_visible()
    assert violations(page, axe_source) == [], "new league"
    page.goto(f"{web_server.url}/leagues/{created['id']}")
    expect(page.locator("[data-league-start]")).to_be_visible()
    assert violations(page, axe_source) == [], "open league"
    REST.post(
        f"{web_server.url}/api/v1/leagues/{created['id']}/start",
        headers={"Authorization": f"Bearer {host['token']}"},
    )
    for viewport in VIEWPORTS.values():
        page = still_page(new_context, viewport, web_server, host)
        page.goto(f"{web_server.url}/leagues/{created['id']}")
        expect(page.locator("[data-standings]")).to_be_visible()
        assert violations(page, axe_source) == [], ("running league", viewport)
    page.goto(f"{web_server.url}/")
    expect(page.locator("[data-league-matches] a")).to_have_count(2)
    assert violations(page, axe_source) == [], "home with league matches"
