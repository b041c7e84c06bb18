"""A GM-hosted eote match in the browser: Han's initial ranks check fails with a re-roll
on offer; Han asks the game master for it, both players see that the GM decides, the
GM grants it from the GM's page, and both players see the re-roll (RULINGS §9)."""

from __future__ import annotations

import httpx
from playwright.sync_api import Page, expect

from tests.api.helpers import dice_for_a_reroll
from tests.browser.conftest import auth, join_match, new_player, rest_act, rest_view, signed_in
from tests.browser.helpers import DESKTOP, open_page, wait_for_version

OPTIONS = {"initial_ranks_check": True, "sheets": [{"name": "Han"}, {"name": "Greedo"}]}
WAITING = "Han (Light) asked for a re-roll: waiting for the game master to grant or refuse it"


def test_the_gm_grants_a_reroll_from_the_gm_page_and_both_players_see_it(
    web_server, new_context, monkeypatch, artifacts
):
    dice_for_a_reroll(monkeypatch, OPTIONS)
    gm = new_player(web_server, "The GM")
    created = httpx.post(
        f"{web_server.url}/api/v1/matches",
        json={"ruleset": "eote", "options": OPTIONS, "seat": None},
        headers=auth(gm),
        timeout=30,
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    players = [new_player(web_server, "Kyla"), new_player(web_server, "Dorn")]
    for player in players:
        join_match(web_server, player, match_id)
    waiting = rest_view(web_server, match_id, gm)
    start = next(a for a in waiting["legal_actions"] if a["type"] == "gm_start")
    rest_act(web_server, match_id, gm, start, waiting["version"])

    url = f"{web_server.url}/matches/{match_id}"
    gm_page = open_page(signed_in(new_context(viewport=DESKTOP), web_server, gm), url)
    han, greedo = (open_page(signed_in(new_context(viewport=DESKTOP), web_server, p), url) for p in players)
    pages: list[Page] = [gm_page, han, greedo]
    for page in pages:
        expect(page.locator("#connection")).to_have_text("Live")

    # Han picks a difficulty and fails with a re-roll on offer: the button asks the GM.
    han.locator("#buttons [data-action-type='choose_difficulty']").first.click()
    ask = han.locator("#buttons [data-action-type='ask_reroll']")
    expect(ask).to_contain_text("Ask the game master for a re-roll")
    expect(han.locator("#buttons [data-action-type='reroll']")).to_have_count(0)
    before = rest_view(web_server, match_id)["version"]
    ask.click()
    for page in pages:
        wait_for_version(page, before + 1)
    for page in (han, greedo):  # the players wait for the GM, and can do nothing meanwhile
        expect(page.locator("#turn")).to_have_text(f"{WAITING}.")
        expect(page.locator(".eote-step .step-detail")).to_have_text(f"{WAITING}.")
        expect(page.locator(".hint-bar .hint-text")).to_have_text(
            "The game master decides; play goes on once they have."
        )
        expect(page.locator("#buttons [data-action-type='ask_reroll']")).to_have_count(0)
        expect(page.locator("#log")).to_contain_text("Han (Light) asked the game master for a re-roll")
        expect(page.locator("#buttons [data-action-type^='gm_']")).to_have_count(0)

    grant = gm_page.locator("#buttons .gm-actions [data-action-type='gm_grant_reroll']")
    refuse = gm_page.locator("#buttons .gm-actions [data-action-type='gm_refuse_reroll']")
    expect(gm_page.locator("#turn")).to_have_text(f"{WAITING}. It is your decision as game master.")
    expect(grant).to_contain_text("Grant Han (Light) a re-roll")
    expect(refuse).to_have_text("Refuse Han (Light) a re-roll: the roll stands")
    gm_page.screenshot(path=str(artifacts / "gm-reroll-gm-decides.png"), full_page=True)
    grant.click()
    for page in pages:
        wait_for_version(page, before + 2)

    granted = rest_view(web_server, match_id)
    roll = granted["state"]["last_roll"]
    assert roll["purpose"] == "initial ranks check" and roll["rerolls"] == 1
    for page in (han, greedo):
        expect(page.locator("#log")).to_contain_text("The game master granted Han (Light) a re-roll")
        expect(page.locator("#turn")).not_to_contain_text("waiting for the game master")
        expect(page.locator(".eote-roll .roll-about")).to_contain_text("re-roll 1")
        expect(page.locator(".eote-roll")).not_to_contain_text("null")
        expect(page.locator("#dice-tray")).to_have_attribute("data-state", "settled")
        faces = page.locator("#dice-tray .roll [data-face]")
        expect(faces).to_have_count(len(roll["dice"]))
        assert [int(f) for f in faces.evaluate_all("ds => ds.map(d => d.dataset.face)")] == [
            d["face"] for d in roll["dice"]
        ], "the tray shows the re-roll's dice"
    expect(gm_page.locator("#buttons [data-action-type='gm_grant_reroll']")).to_have_count(0)
    han.screenshot(path=str(artifacts / "gm-reroll-granted.png"), full_page=True)
    for page in pages:
        assert page.js_errors == []  # type: ignore[attr-defined]
