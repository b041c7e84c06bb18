"""The tutorial's match and its scripted Tutor, through the real server; and the
Tutor's script as a pure function."""

from __future__ import annotations

from fractions import Fraction

import httpx
import pytest

from app.config import Settings
from app.rules.odds import KELLY_WORDS, odds_for
from app.tutorial import TUTOR_NAME, TUTOR_PLAYER_ID, push_chance, tutor_choice
from tests.conftest import LiveServer, new_player


async def start_tutorial(client) -> str:
    response = await client.post("/tutorial", data={"name": "Padawan"})
    assert response.status_code == 303, response.text
    assert response.cookies.get("dejarik_token")
    return response.headers["location"].rsplit("/", 1)[1]


async def test_the_tutor_acts_only_on_its_turn_and_only_for_its_browser(client):
    match_id = await start_tutorial(client)
    match = (await client.get(f"/api/v1/matches/{match_id}")).json()
    assert match["ruleset"] == "kelly" and match["status"] == "active"
    assert [s["player"]["name"] for s in match["seats"]] == ["Padawan", TUTOR_NAME]
    page = await client.get(f"/tutorial/{match_id}")
    assert page.status_code == 200 and f'data-tutorial="{match_id}"' in page.text

    for _ in range(6):  # the Tutor plays its whole turn, one action per call
        match = (await client.get(f"/api/v1/matches/{match_id}")).json()
        response = await client.post(f"/tutorial/{match_id}/opponent")
        if 1 in match["to_act"]:
            assert response.status_code == 200, response.text
            assert response.json()["version"] == match["version"] + 1
        else:
            assert response.status_code == 409
            assert response.json()["message"] == "the tutor is not to act now"
            break
    after = (await client.get(f"/api/v1/matches/{match_id}")).json()
    assert after["to_act"] == [0]

    async with httpx.AsyncClient(base_url=client.base_url) as other:
        assert (await other.post(f"/tutorial/{match_id}/opponent")).status_code == 403
        other.cookies.set("dejarik_token", (await new_player(other, "Stranger"))["token"])
        assert (await other.post(f"/tutorial/{match_id}/opponent")).status_code == 403
    missing = await client.post("/tutorial/no-such-match/opponent")
    assert missing.status_code == 404
    assert (await client.get(f"/api/v1/matches/{match_id}")).json()["version"] == after["version"]


async def test_l6_tutorials_cost_matches_and_players_and_share_one_tutor(database_url):
    """The audit made 40 tutorials past the match limit, and 10 more that each made a
    player past the player limit, each with a new "Tutor" player."""
    limits = {"rate_limit_matches": 3, "rate_limit_players": 2}
    server = LiveServer(Settings(database_url=database_url, **limits)).start()
    try:
        async with httpx.AsyncClient(base_url=server.url) as browser:
            first = await start_tutorial(browser)  # a match and a player
            again = await browser.post("/tutorial")  # a match: the browser has its player
            assert again.status_code == 303, again.text
            second = again.headers["location"].rsplit("/", 1)[1]
            tutors = set()
            for match_id in (first, second):
                seats = (await browser.get(f"/api/v1/matches/{match_id}")).json()["seats"]
                tutors.add((seats[1]["player"]["id"], seats[1]["player"]["name"]))
            assert tutors == {(TUTOR_PLAYER_ID, TUTOR_NAME)}, "one Tutor for every tutorial"
        async with httpx.AsyncClient(base_url=server.url) as newcomer:
            await start_tutorial(newcomer)  # the last match token, and the last player token
        async with httpx.AsyncClient(base_url=server.url) as late:
            refused = await late.post("/tutorial", data={"name": "Padawan"})
            assert refused.status_code == 429 and "matches" in refused.json()["detail"]
            assert "dejarik_token" not in refused.cookies
    finally:
        server.stop()


async def test_l6_a_tutorial_that_creates_a_player_spends_a_player_token(database_url):
    server = LiveServer(Settings(database_url=database_url, rate_limit_players=1)).start()
    try:
        async with httpx.AsyncClient(base_url=server.url) as browser:
            await start_tutorial(browser)
        async with httpx.AsyncClient(base_url=server.url) as another:
            refused = await another.post("/tutorial", data={"name": "Padawan"})
            assert refused.status_code == 429 and "players" in refused.json()["detail"]
    finally:
        server.stop()


def test_the_tutor_attacks_where_a_push_is_likeliest_else_comes_closer():
    pieces = [
        {"id": "monnok", "kind": "monnok", "owner": 1, "at": "A7"},
        {"id": "ngok", "kind": "ngok", "owner": 0, "at": "A1"},
    ]
    view = {"you": {"seat": 1}, "state": {"pieces": pieces}}
    moves = [{"type": "move", "piece": "monnok", "to": s} for s in ("A10", "B7", "C")]
    assert tutor_choice({**view, "legal_actions": [{"type": "resign"}, *moves]})["to"] == "C"
    # The odds as legal_actions publish them (app/rules/odds.odds_for).
    odds = odds_for(
        {"push": Fraction(3, 10), "counter-push": Fraction(1, 2), "kill": Fraction(1, 5)},
        KELLY_WORDS,
        "A",
        "B",
    )
    likely = {"type": "attack", "piece": "monnok", "target": "ngok", "odds": odds}
    rare = odds_for({"push": Fraction(1, 10), "kill": Fraction(9, 10)}, KELLY_WORDS, "A", "B")
    unlikely = {"type": "attack", "piece": "monnok", "target": "x", "odds": rare}
    assert push_chance(likely) == pytest.approx(0.8)
    assert tutor_choice({**view, "legal_actions": [*moves, unlikely, likely]}) is likely
    push = {"type": "push", "piece": "ngok", "to": "A2"}
    assert tutor_choice({**view, "legal_actions": [push, likely]}) is push
    assert tutor_choice({**view, "legal_actions": [{"type": "offer_draw"}]}) is None
