"""A GM-run table session, all through real browser contexts: the GM creates the
match from the home page ("host without playing"), two players join through their
invite links, the GM edits the options (a bad value is refused with the server's
message, a good one is saved), starts, pauses (players cannot act, not even through
the websocket), resumes, undoes (both screens go back; the undone action and its
dice stay in the log), plays a seat as an NPC and hands it back, and opens a seat
that a newcomer takes mid-match. A table view in its own context follows it all."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from app.rules.base import COMMON_ACTION_TYPES
from tests.browser.conftest import join_match, new_match, new_player, rest_act, rest_view, signed_in
from tests.browser.helpers import (
    DESKTOP,
    aggressive_choice,
    gm_control,
    open_new_match_form,
    open_page,
    play_any,
    play_by_clicking,
    view,
    wait_for_version,
)

PHONE = {"width": 375, "height": 740}
TV = {"width": 1600, "height": 900}

# The option each ruleset's GM edits: the field, a refused value with the words the
# refusal says (as a person writes them), and an accepted one.
EDITS = {
    "eote": ("options.sheets.0.intellect", "9", "must be at most 6", "4"),
    "kelly": ("options.turns_without_kill", "-5", "must be at least 0", "60"),
}


class Session:
    """The GM's page, the players' pages (by seat) and the table view."""

    def __init__(self, server, gm: Page, match_id: str):
        self.server, self.gm, self.id = server, gm, match_id
        self.players: list[Page] = []
        self.tv: Page | None = None

    @property
    def pages(self) -> list[Page]:
        return [self.gm, *self.players]

    def rest(self) -> dict[str, Any]:
        return httpx.get(f"{self.server.url}/api/v1/matches/{self.id}", timeout=30).json()

    def synced(self, at_least: int | None = None) -> int:
        """Wait until every page and the table view show the match's current version."""
        version = self.rest()["version"] if at_least is None else at_least
        for page in self.pages:
            wait_for_version(page, version)
        if self.tv is not None:
            self.tv.wait_for_function(
                "v => Number(document.getElementById('tv').dataset.version) >= v", arg=version
            )
        return version

    def control(self, kind: str, nth: int = 0) -> int:
        """The GM presses one of the "Game master" buttons; returns the new version."""
        before = view(self.gm)["version"]
        button = self.gm.locator(f"#buttons .gm-actions [data-action-type='{kind}']").nth(nth)
        expect(button).to_be_enabled()
        button.click()
        return self.synced(before + 1)

    def acting(self) -> Page:
        match = self.rest()
        return self.players[match["to_act"][0]]

    def check_log(self, words: str) -> None:
        for page in self.pages:
            expect(page.locator("#log")).to_contain_text(words)
        assert self.tv is not None
        expect(self.tv.locator("#tv-log")).to_contain_text(words)


def create_from_home(context, server, ruleset: str) -> tuple[Page, str]:
    gm = open_page(context, f"{server.url}/")
    gm.fill("#name-input", "The GM")
    gm.click("button:has-text('Start')")
    open_new_match_form(gm)
    gm.check(f"input[type='radio'][name='ruleset'][value='{ruleset}']")
    gm.check("input[name='seat'][value='host']")
    gm.click("button:has-text('Create match')")
    gm.wait_for_url("**/matches/*")
    return gm, gm.url.rsplit("/", 1)[1]


def join_by_link(context, link: str, name: str) -> Page:
    page = open_page(context, link)
    page.fill("#name-input", name)
    page.click("button:has-text('Sit as')")
    page.wait_for_url("**/matches/*")
    expect(page.locator("#connection")).to_have_text("Live")
    return page


def no_way_to_act(page: Page) -> None:
    expect(page.locator("#buttons [data-action-index]")).to_have_count(0)
    expect(page.locator("[data-selectable], [data-legal]")).to_have_count(0)


def play_until_a_roll(session: Session, ruleset: str) -> tuple[int, list[dict[str, Any]]]:
    """Players act by clicking until an action rolls dice. Returns the version of that
    action and each player's match state just before it."""
    for _ in range(60):
        page = session.acting()
        match = view(page)
        before = [view(p)["state"] for p in session.players]
        if ruleset == "eote":
            types = [a["type"] for a in match["legal_actions"]]
            kind = next(t for t in ("done_setting", "adjust_set", "defence", "attack") if t in types)
            page.locator(f"#buttons [data-action-type='{kind}']").first.click()
            rolled = kind == "attack"
        else:
            action = aggressive_choice(match)
            play_by_clicking(page, action)
            rolled = action["type"] == "attack"
        version = session.synced(match["version"] + 1)
        if rolled:
            return version, before
    raise AssertionError("no roll within 60 actions")


@pytest.mark.runs_long
@pytest.mark.parametrize("ruleset", ["eote", "kelly"])
def test_a_gm_runs_a_table_session_in_the_browser(web_server, new_context, artifacts, ruleset):
    gm, match_id = create_from_home(new_context(viewport=DESKTOP), web_server, ruleset)
    session = Session(web_server, gm, match_id)
    expect(gm.locator("#connection")).to_have_text("Live")
    expect(gm.locator("#role")).to_have_text("You host this match.")
    panel = gm.locator("#gm-panel")
    expect(panel.locator("[data-gm-seat]")).to_have_count(2)
    for seat in (0, 1):
        row = panel.locator(f"[data-gm-seat='{seat}']")
        expect(row).to_have_attribute("data-state", "open")
        expect(row.locator("[data-gm-seat-state]")).to_contain_text("open")
        expect(row.locator("[data-gm-invite-link]")).to_be_visible()
    links = [panel.locator(f"[data-gm-invite-link='{s}']").input_value() for s in (0, 1)]
    assert links == [f"{web_server.url}/matches/{match_id}/join/{s}" for s in (0, 1)]

    session.tv = open_page(new_context(viewport=TV), f"{web_server.url}/matches/{match_id}/table")
    expect(session.tv.locator("#tv-connection")).to_have_text("Live")

    names = ["Kyla", "Dorn"]
    for seat, (link, viewport) in enumerate(zip(links, (DESKTOP, PHONE), strict=True)):
        session.players.append(join_by_link(new_context(viewport=viewport), link, names[seat]))
        row = panel.locator(f"[data-gm-seat='{seat}']")
        expect(row).to_have_attribute("data-state", "taken")
        expect(row.locator("[data-gm-seat-state]")).to_have_text(f"played by {names[seat]}")
        expect(row.locator("[data-gm-invite]")).to_be_hidden()
    session.synced()
    for page in session.players:
        expect(page.locator("#gm-panel")).to_have_count(0)  # only the GM runs the table
        expect(page.locator("#buttons [data-action-index]")).to_have_count(0)

    # The options form: the gm_set_options control, filled in. A bad value is refused
    # with the server's message beside the form and the field; a good one is saved.
    field, bad, why, good = EDITS[ruleset]
    form = gm.locator("#gm-options")
    expect(form).to_be_visible()
    expect(gm.locator("#buttons [data-action-type='gm_set_options']")).to_have_text("Edit the match options")
    version = view(gm)["version"]
    gm.locator("#buttons [data-action-type='gm_set_options']").click()  # leads to the form
    expect(form.locator("[name^='options.']").first).to_be_focused()
    if ruleset == "eote":
        for label in ("Intellect", "Cunning", "Willpower", "Presence", "Dejarik attack", "Dejarik defence"):
            expect(form.get_by_label(label, exact=False).first).to_be_visible()
        expect(form.locator("input[name='options.sheets.1.strain_threshold']")).to_have_value("12")
        expect(form.locator("input[name='options.sheets.1.knowledge_core_worlds']")).to_be_visible()
    form.locator(f"[name='{field}']").fill(bad)
    form.locator("button[type=submit]").click()
    error = form.locator("[data-gm-options-error]")
    expect(error).to_contain_text(why)
    expect(error).not_to_contain_text("options.")  # the field by its label, not its key
    expect(error).not_to_contain_text("Input should")
    expect(form.locator(".option.invalid .gm-field-error")).to_contain_text(why)
    expect(form.locator(f"[name='{field}']")).to_have_attribute("aria-invalid", "true")
    expect(form.locator("[data-gm-options-status]")).to_have_text("Not saved.")
    gm.screenshot(path=artifacts / f"gm-{ruleset}-options-refused.png", full_page=True)
    assert session.rest()["version"] == version, "the refused options changed nothing"

    form.locator(f"[name='{field}']").fill(good)
    if ruleset == "eote":
        form.locator("input[name='options.sheets.1.name']").fill("Lowbacca")
    form.locator("button[type=submit]").click()
    expect(form.locator("[data-gm-options-status]")).to_have_text("Saved.")
    expect(error).to_be_hidden()
    expect(form.locator(".gm-field-error")).to_have_count(0)
    version = session.synced(version + 1)
    saved = session.rest()["options"]
    if ruleset == "eote":
        assert saved["sheets"][0]["intellect"] == 4 and saved["sheets"][1]["name"] == "Lowbacca"
        session.check_log("The game master changed the options: Light's sheet: intellect 2 → 4")
        session.check_log("Dark's sheet: name (none) → Lowbacca")
    else:
        assert saved["turns_without_kill"] == 60
        session.check_log("The game master changed the options: Turns without kill 100 → 60")
    expect(form.locator(f"[name='{field}']")).to_have_value(good)
    gm.screenshot(path=artifacts / f"gm-{ruleset}-options-saved.png", full_page=True)
    # A reload shows the saved values too (the form is drawn with the match's options).
    gm.reload()
    expect(gm.locator("#connection")).to_have_text("Live")
    expect(gm.locator(f"#gm-options [name='{field}']")).to_have_value(good)

    # The GM starts the match: the form goes, the players play.
    session.control("gm_start")
    expect(gm.locator("#gm-options")).to_be_hidden()
    assert session.rest()["status"] == "active"
    if ruleset == "eote":
        for page in session.players:
            expect(page.locator("#board")).to_contain_text("Lowbacca")
        expect(session.tv.locator("#tv-board")).to_contain_text("Lowbacca")

    rolled_at, before = play_until_a_roll(session, ruleset)
    for page in session.players:
        expect(page.locator(f"#log li[data-version='{rolled_at}']")).to_contain_text("rolled")

    # Paused: both players see the banner and nothing to act with; the table too.
    actor = session.acting()
    waiting_action = next(a for a in view(actor)["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES)
    paused_at = session.control("gm_pause")
    for page in session.players:
        expect(page.locator("#banner")).to_have_text("Paused by the game master")
        expect(page.locator("#turn")).to_have_text("The host has paused the match.")
        no_way_to_act(page)
    expect(session.tv.locator("#tv-banner")).to_have_text("Paused by the game master")
    session.check_log("The game master paused the match")
    # An attempt through the websocket anyway: refused, nothing changes.
    actor.evaluate("([a, v]) => window.__dejarik.net.sendAction(a, v)", [waiting_action, paused_at])
    expect(actor.locator("#error")).to_contain_text("the host has paused the match")
    assert session.rest()["version"] == paused_at
    actor.screenshot(path=artifacts / f"gm-{ruleset}-paused-player.png", full_page=True)
    session.tv.screenshot(path=artifacts / f"gm-{ruleset}-paused-table.png")

    session.control("gm_resume")
    for page in session.players:
        expect(page.locator("#banner")).to_be_hidden()
    expect(session.tv.locator("#tv-banner")).to_be_hidden()
    expect(actor.locator("#buttons [data-action-index], [data-selectable]").first).to_be_visible()
    session.check_log("The game master resumed play")

    # Undo: the last player action (the one that rolled) is taken back on every screen;
    # it and its dice stay in the log.
    undo = gm.locator("#buttons [data-action-type='gm_undo']")
    # It names the action it undoes, in the log's own words.
    undone = gm.locator(f"#log li[data-version='{rolled_at}'] div").all_inner_texts()
    expect(undo).to_have_text(f"Undo: {next(line for line in undone if ' rolled ' not in line)}")
    session.control("gm_undo")
    for page, state in zip(session.players, before, strict=True):
        assert view(page)["state"] == state, "back to the position before the undone action"
        expect(page.locator(f"#log li[data-version='{rolled_at}']")).to_contain_text("rolled")
    tv_state = session.tv.evaluate("window.__dejarik.store.view.state")
    if ruleset == "kelly":
        for piece in before[0]["pieces"]:
            if piece.get("at"):
                for page in [*session.players, session.tv]:
                    expect(page.locator(f"[data-piece='{piece['id']}']")).to_have_attribute(
                        "data-at", piece["at"]
                    )
        assert tv_state["pieces"] == before[0]["pieces"]
    if ruleset == "kelly":  # (eote draws its dice on its own table)
        for page in session.players:
            expect(page.locator("#dice-tray")).to_have_attribute("data-undone", "true")
            expect(page.locator("#dice-tray .roll").first).to_be_visible()
    session.check_log(f"The game master undid #{rolled_at}, ")
    session.check_log("Its dice stay in the log")
    for page in session.players:
        expect(page.locator("#log")).to_contain_text("The game master undid")
    gm.screenshot(path=artifacts / f"gm-{ruleset}-undone-gm.png", full_page=True)
    session.players[0].screenshot(path=artifacts / f"gm-{ruleset}-undone-player.png", full_page=True)
    session.tv.screenshot(path=artifacts / f"gm-{ruleset}-undone-table.png")

    # The GM plays the seat to act as an NPC, from the GM's own page, then hands it back.
    seat = session.rest()["to_act"][0]
    player = session.players[seat]
    session.control("gm_take_seat", nth=seat)
    row = gm.locator(f"#gm-panel [data-gm-seat='{seat}']")
    expect(row).to_have_attribute("data-state", "npc")
    expect(row.locator("[data-gm-seat-state]")).to_have_text(f"NPC: you play it ({names[seat]} watches)")
    expect(player.locator("#role")).to_have_text("You are watching.")
    no_way_to_act(player)
    session.check_log("The game master took over")
    assert view(gm)["you"]["seat"] == seat
    gm.screenshot(path=artifacts / f"gm-{ruleset}-npc.png", full_page=True)
    before_move = play_any(gm)
    session.synced(before_move + 1)
    entry = session.rest()
    assert entry["version"] == before_move + 1
    events_url = f"{web_server.url}/api/v1/matches/{match_id}/events?after={before_move}"
    log = httpx.get(events_url, timeout=30).json()
    assert log["events"][0]["seat"] == seat, "the NPC's move is the seat's own"
    session.control("gm_release_seat")
    expect(row).to_have_attribute("data-state", "taken")
    expect(player.locator("#role")).to_contain_text("You play")
    session.check_log("handed")
    assert view(gm)["you"]["seat"] is None

    # The GM opens a seat mid-match: its invite link shows, and a newcomer takes it.
    session.control("gm_open_seat", nth=1)
    row = gm.locator("#gm-panel [data-gm-seat='1']")
    expect(row).to_have_attribute("data-state", "open")
    expect(row.locator("[data-gm-invite-link]")).to_be_visible()
    session.check_log("a new player can join with its invite link")
    expect(session.players[1].locator("#role")).to_have_text("You are watching.")
    newcomer = join_by_link(new_context(viewport=PHONE), links[1], "Tarfful")
    expect(row).to_have_attribute("data-state", "taken")
    expect(row.locator("[data-gm-seat-state]")).to_have_text("played by Tarfful")
    expect(newcomer.locator("#role")).to_contain_text("You play")
    gm.screenshot(path=artifacts / f"gm-{ruleset}-reopened.png", full_page=True)
    session.tv.screenshot(path=artifacts / f"gm-{ruleset}-table-end.png")

    for page in [*session.pages, session.tv, newcomer]:
        assert page.js_errors == []  # type: ignore[attr-defined]


def test_a_gm_table_says_what_it_waits_for_names_undo_in_players_words_and_marks_npc_moves(
    web_server, new_context, artifacts
):
    gm, kyla, dorn = (new_player(web_server, n) for n in ("The GM", "Kyla", "Dorn"))
    match_id = new_match(web_server, gm, "eote", seat=None)
    join_match(web_server, kyla, match_id)
    join_match(web_server, dorn, match_id)
    gm_page, player_page = (
        signed_in(new_context(viewport=DESKTOP), web_server, p).new_page() for p in (gm, kyla)
    )
    tv = new_context(viewport=TV).new_page()
    for page, path in ((gm_page, ""), (player_page, ""), (tv, "/table")):
        page.goto(f"{web_server.url}/matches/{match_id}{path}")

    # Both seated, not started: everyone is told the GM starts it, nobody to share a link.
    waiting = "Both players are seated — the game master starts the match."
    expect(player_page.locator("#turn")).to_have_text(waiting)
    expect(player_page.locator("#match")).not_to_contain_text("invite link below")
    expect(tv.locator("#tv-turn")).to_have_text(waiting)
    expect(gm_page.locator("#turn")).to_have_text(
        "Both players are seated: start the match when you are ready."
    )

    (artifacts / "issue31").mkdir(exist_ok=True)
    gm_page.screenshot(path=artifacts / "issue31" / "gm-both-seated-gm.png")
    player_page.screenshot(path=artifacts / "issue31" / "gm-both-seated-player.png")

    # A seat's secret setting step: the undo names it by what the players know of it.
    gm_control(web_server, match_id, gm, "gm_start")
    playing = rest_view(web_server, match_id)
    setter = [kyla, dorn][playing["to_act"][0]]
    mine = rest_view(web_server, match_id, setter)
    set_piece = next(a for a in mine["legal_actions"] if a["type"] == "set_piece")
    rest_act(web_server, match_id, setter, set_piece, mine["version"])
    undo = gm_page.locator("#buttons [data-action-type='gm_undo']")
    expect(undo).to_contain_text("last secret setting step")
    for placeholder in ("#", "hidden", "is choosing pieces to set"):
        expect(undo).not_to_contain_text(placeholder)

    # The GM plays the setter's seat as an NPC: its moves say so on every screen.
    seat = playing["to_act"][0]
    gm_control(web_server, match_id, gm, "gm_take_seat", seat=seat)
    as_npc = rest_view(web_server, match_id, gm)
    done = next(a for a in as_npc["legal_actions"] if a["type"] == "done_setting")
    rest_act(web_server, match_id, gm, done, as_npc["version"])
    npc_line = f"#log li[data-version='{as_npc['version'] + 1}']"
    expect(player_page.locator(npc_line)).to_contain_text("Played by the game master as")
    expect(tv.locator(f"#tv-log li[data-version='{as_npc['version'] + 1}']")).to_contain_text(
        "Played by the game master as"
    )
    expect(player_page.locator(f"#log li[data-version='{mine['version'] + 1}']")).not_to_contain_text(
        "game master"
    )
