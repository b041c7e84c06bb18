"""axe-core (from its npm package, installed by `make axe`, which `make test` runs) finds
no violations on the home, match (every ruleset, desktop and phone), replay, table and
rules pages. Screenshots of every ruleset at 1280 and 375 px go to test-artifacts/."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from app.rules import registry
from app.rules.base import COMMON_ACTION_TYPES
from tests.browser.conftest import join_match, new_match, new_player, rest_act, rest_view, signed_in

AXE = Path(__file__).resolve().parents[2] / ".cache/node/node_modules/axe-core/axe.min.js"
RULESETS = sorted(registry())
VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 375, "height": 812}}
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]


@pytest.fixture(scope="session")
def axe_source() -> str:
    if not AXE.exists():
        pytest.fail(f"axe-core is not installed at {AXE}: run `make axe` (part of `make test`)")
    return AXE.read_text()


def violations(page: Page, axe_source: str) -> list[str]:
    """Every axe violation of the page as words (rule, impact, where), with animations settled."""
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


def open_settled(page: Page, url: str) -> None:
    page.emulate_media(reduced_motion="reduce")  # nothing half-faded while axe measures contrast
    page.goto(url)
    page.wait_for_load_state("networkidle")


def seated_match(server, ruleset: str):
    blue, red = new_player(server, "Rey"), new_player(server, "Finn")
    match_id = new_match(server, blue, ruleset)
    join_match(server, red, match_id)
    return match_id, blue


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


def test_home_pages_have_no_violations(web_server, new_context, axe_source):
    page = new_context().new_page()
    open_settled(page, web_server.url + "/")
    assert violations(page, axe_source) == []
    player = new_player(web_server, "Lando")
    new_match(web_server, player)
    page = signed_in(new_context(), web_server, player).new_page()
    open_settled(page, web_server.url + "/")
    expect(page.locator("[data-match-link]")).to_have_count(1)
    assert violations(page, axe_source) == []


@pytest.mark.parametrize("ruleset", RULESETS)
def test_match_and_table_pages_have_no_violations(ruleset, web_server, new_context, axe_source, artifacts):
    match_id, blue = seated_match(web_server, ruleset)
    for name, viewport in VIEWPORTS.items():
        page = signed_in(new_context(viewport=viewport), web_server, blue).new_page()
        open_settled(page, f"{web_server.url}/matches/{match_id}")
        expect(page.locator("#connection")).to_have_text("Live")
        page.wait_for_function("document.getElementById('match').dataset.version !== undefined")
        page.screenshot(path=artifacts / f"ruleset-{ruleset}-{viewport['width']}.png", full_page=True)
        assert violations(page, axe_source) == [], (ruleset, name)
        # A piece picked: its legal targets lit, the hint changed.
        selectable = page.locator("[data-piece][data-selectable]")
        if selectable.count():
            selectable.first.click()
            expect(page.locator("[data-space][data-legal]").first).to_be_attached()
            assert violations(page, axe_source) == [], (ruleset, name, "selected")
    # The "How to play" drawer opened on the match page, with its rules loaded.
    page.locator(".howto summary").click()
    expect(page.locator(".howto-body [data-guide='aim']")).to_be_visible()
    assert violations(page, axe_source) == [], (ruleset, "how to play")
    table = new_context(viewport={"width": 1920, "height": 1080}).new_page()
    open_settled(table, f"{web_server.url}/matches/{match_id}/table")
    table.wait_for_timeout(500)
    assert violations(table, axe_source) == [], (ruleset, "table")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_replay_pages_have_no_violations(ruleset, web_server, new_context, axe_source, artifacts):
    match_id, latest = played_then_resigned(web_server, ruleset)
    for name, viewport in VIEWPORTS.items():
        page = new_context(viewport=viewport).new_page()
        open_settled(page, f"{web_server.url}/matches/{match_id}/replay?v={latest}")
        expect(page.locator("#position")).to_have_text(f"Version {latest} of {latest}")
        expect(page.locator("#banner")).to_be_visible()
        assert violations(page, axe_source) == [], (ruleset, name, "the end")
        # A step back into the match: a position with the board and that step's dice.
        page.click("[data-step='first']")
        expect(page.locator("#position")).to_have_text(f"Version 0 of {latest}")
        for _ in range(min(latest, 6)):
            page.click("[data-step='forward']")
        expect(page.locator("#position")).to_have_text(f"Version {min(latest, 6)} of {latest}")
        page.screenshot(path=artifacts / f"replay-{ruleset}-{viewport['width']}.png", full_page=True)
        assert violations(page, axe_source) == [], (ruleset, name, "mid-match")


@pytest.mark.parametrize("path", ["/rules", *(f"/rules/{r}" for r in RULESETS)])
def test_rules_pages_have_no_violations(path, web_server, new_context, axe_source, artifacts):
    for viewport in VIEWPORTS.values():
        page = new_context(viewport=viewport).new_page()
        open_settled(page, web_server.url + path)
        assert violations(page, axe_source) == [], (path, viewport)
    name = path.strip("/").replace("/", "-")
    page.screenshot(path=artifacts / f"{name}-375.png", full_page=True)
