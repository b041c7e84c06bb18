"""What a screen reader hears: every update of a match is spoken through the page's
aria-live region in short player words ("Blue Savrip moves from A3 to B5. Red's turn."),
for moves, pushes, placements, deaths, captures, turns, a resignation and the end of
the match, in kelly, simeone and orbit-chess; and on the big-screen table view too."""

from __future__ import annotations

import random
from typing import Any

import httpx
from playwright.sync_api import Page, expect

from app.rules.base import COMMON_ACTION_TYPES
from tests.browser.conftest import join_match, new_match, new_player, rest_act, rest_view, signed_in
from tests.browser.helpers import aggressive_choice, wait_for_version


class Pieces:
    """Every piece's name and owner as the page words them ("Red Ng'ok"), kept after it dies."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.owners: dict[str, int] = {}

    def learn(self, view: dict[str, Any]) -> None:
        state = view["state"]
        legend = state.get("legend") or {}
        for key in ("pieces", "lost", "captured", "defeated", "unplaced"):
            for piece in state.get(key) or []:
                self.names[piece["id"]] = piece.get("name") or legend[piece["kind"]]["name"]
                self.owners[piece["id"]] = piece["owner"]

    def owned(self, view: dict[str, Any], piece_id: str) -> str:
        return f"{view['state']['seat_names'][self.owners[piece_id]]} {self.names[piece_id]}"


def expected_sentences(view: dict[str, Any], pieces: Pieces, events: list[dict], viewer: int) -> list[str]:
    """The sentences the viewer must hear for the events this test knows the words of."""
    seats = view["state"]["seat_names"]
    said = []
    for event in events:
        kind = event["type"]
        if kind == "move":
            said.append(f"{pieces.owned(view, event['piece'])} moves from {event['from']} to {event['to']}.")
        elif kind == "push":
            where = "off the board" if event["to"] == "off" else f"to {event['to']}"
            said.append(f"{pieces.owned(view, event['piece'])} is pushed from {event['from']} {where}.")
        elif kind == "place":
            said.append(f"{pieces.owned(view, event['piece'])} is placed on {event['to']}.")
        elif kind in ("kill", "defeat"):
            said.append(f"{pieces.owned(view, event['piece'])} is destroyed.")
        elif kind == "capture":
            said.append(f"{pieces.owned(view, event['piece'])} is captured on {event['at']}.")
        elif kind == "turn":
            said.append("Your turn." if event["seat"] == viewer else f"{seats[event['seat']]}'s turn.")
        elif kind == "resign":
            said.append(f"{seats[event['seat']]} resigns.")
        elif kind == "end":
            said.append(f"{seats[event['winner']]} wins: {event['reason']}.")
    return said


class Table:
    """Two players over REST and the blue player's page, open with reduced motion (the dice
    settle at once); each action's spoken words are checked against its logged events."""

    def __init__(self, server, new_context, ruleset: str) -> None:
        self.server = server
        self.players = [new_player(server, "Rey"), new_player(server, "Finn")]
        self.match_id = new_match(server, self.players[0], ruleset)
        join_match(server, self.players[1], self.match_id)
        context = new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
        self.page: Page = signed_in(context, server, self.players[0]).new_page()
        self.page.goto(f"{server.url}/matches/{self.match_id}")
        expect(self.page.locator("#connection")).to_have_text("Live")
        self.pieces = Pieces()
        self.heard: list[str] = []

    def act(self, seat: int, action: dict[str, Any]) -> list[dict]:
        """``seat`` plays ``action``; the blue page speaks its events. Returns the events."""
        mine = rest_view(self.server, self.match_id, self.players[seat])
        self.pieces.learn(mine)
        rest_act(self.server, self.match_id, self.players[seat], action, mine["version"])
        wait_for_version(self.page, mine["version"] + 1)
        entry = httpx.get(
            f"{self.server.url}/api/v1/matches/{self.match_id}/events?after={mine['version']}", timeout=30
        ).json()["events"][0]
        self.pieces.learn(rest_view(self.server, self.match_id))
        announced = self.page.locator("#announce")
        for sentence in expected_sentences(mine, self.pieces, entry["events"], viewer=0):
            expect(announced).to_contain_text(sentence)
            self.heard.append(sentence)
        return entry["events"]

    def to_act(self) -> tuple[int, dict[str, Any]]:
        seat = rest_view(self.server, self.match_id)["to_act"][0]
        return seat, rest_view(self.server, self.match_id, self.players[seat])

    def resign(self, seat: int) -> None:
        events = self.act(seat, {"type": "resign"})
        assert [e["type"] for e in events] == ["resign", "end"]


def test_a_kelly_match_is_spoken_move_by_move(web_server, new_context):
    table = Table(web_server, new_context, "kelly")
    announced = table.page.locator("#announce")
    seen: set[str] = set()
    for _ in range(60):
        if rest_view(web_server, table.match_id)["status"] != "active":
            break  # a win by the dice: its end was spoken, as each action's events are checked
        seat, mine = table.to_act()
        state = mine["state"]
        if state.get("push") and state["push"]["chooser"] == 0:
            # The blue player must choose where a loser goes: the page says so.
            pushed = table.pieces.owned(mine, state["push"]["piece"])
            expect(announced).to_contain_text(f"Choose where {pushed} is pushed.")
            seen.add("choose")
        events = table.act(seat, aggressive_choice(mine))
        seen.update(e["type"] for e in events)
        both_turns = "Your turn." in table.heard and "Red's turn." in table.heard
        if {"move", "push", "kill", "turn"} <= seen and both_turns:  # the turn passed both ways
            break
    assert {"move", "attack", "turn"} <= seen, seen
    assert "Your turn." in table.heard and "Red's turn." in table.heard
    if rest_view(web_server, table.match_id)["status"] == "active":
        table.resign(1)
        expect(announced).to_have_text("Red resigns. Blue wins: Red resigned.")
    else:
        assert any(" wins: " in sentence for sentence in table.heard), table.heard


def test_a_simeone_match_is_spoken_from_its_placements(web_server, new_context):
    table = Table(web_server, new_context, "simeone")
    rng = random.Random(2)
    placed = 0
    for _ in range(40):
        seat, mine = table.to_act()
        actions = [a for a in mine["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES]
        placing = [a for a in actions if a["type"] == "place"]
        events = table.act(seat, rng.choice(placing or actions))
        placed += sum(e["type"] == "place" for e in events)
        if placed >= 4 and any(e["type"] == "move" for e in events):
            break
    assert placed >= 4 and any(" moves from " in sentence for sentence in table.heard), table.heard
    table.resign(0)
    expect(table.page.locator("#announce")).to_have_text("Blue resigns. Red wins: Blue resigned.")


def test_orbit_chess_moves_and_captures_are_spoken_on_the_players_page_and_the_table(web_server, new_context):
    table = Table(web_server, new_context, "orbit-chess")
    tv = new_context(viewport={"width": 1920, "height": 1080}, reduced_motion="reduce").new_page()
    tv.goto(f"{web_server.url}/matches/{table.match_id}/table")
    expect(tv.locator("#tv-connection")).to_have_text("Live")
    rng = random.Random(4)
    for _ in range(30):
        seat, mine = table.to_act()
        actions = [a for a in mine["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES]
        captures = [a for a in actions if a.get("captures")]
        events = table.act(seat, rng.choice(captures or actions))
        assert any(e["type"] == "move" for e in events)
        # The spectators' big screen speaks the same words (it has no seat: no "Your turn").
        spoken = expected_sentences(mine, table.pieces, events, viewer=-1)
        for sentence in spoken:
            expect(tv.locator("#tv-announce")).to_contain_text(sentence)
        assert "[" not in table.page.locator("#announce").text_content(), "chess notation is for the eye"
        if any(e["type"] == "capture" for e in events):
            break
    table.resign(1)
    expect(table.page.locator("#announce")).to_have_text("Black resigns. White wins: Black resigned.")
    expect(tv.locator("#tv-announce")).to_have_text("Black resigns. White wins: Black resigned.")
