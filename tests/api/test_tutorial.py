"""The tutorial's match and its scripted Tutor, through the real server; the lessons
its seeds bring with the real rules; and the Tutor's script as a pure function."""

from __future__ import annotations

import json
from fractions import Fraction
from html import unescape

import httpx
import pytest

from app.config import Settings
from app.rules import get_ruleset
from app.rules.log import match_dice
from app.rules.odds import KELLY_WORDS, odds_for
from app.tutorial import (
    LESSON_PLAN,
    STUDENT_DICE_SEED,
    STUDENT_SEAT,
    TUTOR_DICE_SEED,
    TUTOR_NAME,
    TUTOR_PLAYER_ID,
    TUTOR_SEAT,
    TUTORIAL_SEED,
    push_chance,
    tutor_choice,
)
from tests.api.helpers import clear_of_the_minute_s_turn
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

    response = await client.post(f"/tutorial/{match_id}/opponent")  # the learner moves first
    assert response.status_code == 409
    assert response.json()["message"] == "the tutor is not to act now"
    after = (await client.get(f"/api/v1/matches/{match_id}")).json()
    assert after["to_act"] == [0]

    async with httpx.AsyncClient(base_url=client.base_url) as other:
        assert (await other.post(f"/tutorial/{match_id}/opponent")).status_code == 403
        other.cookies.set("dejarik_token", (await new_player(other, "Stranger"))["token"])
        assert (await other.post(f"/tutorial/{match_id}/opponent")).status_code == 403
    missing = await client.post("/tutorial/no-such-match/opponent")
    assert missing.status_code == 404
    assert (await client.get(f"/api/v1/matches/{match_id}")).json()["version"] == after["version"]


def combat_result(events: list[dict]) -> str:
    return next(e["result"] for e in events if e["type"] == "combat")


def test_following_the_plan_brings_every_lesson_in_order_with_the_real_rules():
    """The tutorial's seeds and the real kelly rules: the learner moves first, the planned
    attack ends in a push the learner chooses, the Tutor then only moves, and the planned
    last attack destroys a creature. No dice but the match's seeded ones."""
    kelly = get_ruleset("kelly")
    dice = match_dice(TUTORIAL_SEED.hex(), 0, [STUDENT_DICE_SEED, TUTOR_DICE_SEED])
    state, _ = kelly.start(kelly.options({}), dice)
    assert kelly.to_act(state) == [STUDENT_SEAT], "the learner moves first"

    state, _ = kelly.apply(state, STUDENT_SEAT, LESSON_PLAN["move"], dice)
    state, events = kelly.apply(state, STUDENT_SEAT, LESSON_PLAN["attack"], dice)
    assert combat_result(events) == "push"
    assert state.push.chooser == STUDENT_SEAT and state.push.options == [LESSON_PLAN["push"]["to"]]
    state, _ = kelly.apply(state, STUDENT_SEAT, LESSON_PLAN["push"], dice)

    tutor_actions = []
    while kelly.to_act(state) == [TUTOR_SEAT]:
        view = {
            "legal_actions": kelly.legal_actions(state, TUTOR_SEAT),
            "state": kelly.view(state, TUTOR_SEAT),
            "you": {"seat": TUTOR_SEAT},
        }
        action = tutor_choice(view)
        tutor_actions.append(action["type"])
        state, _ = kelly.apply(state, TUTOR_SEAT, action, dice)
    assert tutor_actions == ["move", "move"], "the Tutor attacks nothing while the learner learns"

    state, events = kelly.apply(state, STUDENT_SEAT, LESSON_PLAN["win"], dice)
    assert combat_result(events) == "kill"
    lost = [p for p in state.pieces.values() if p.at is None]
    assert [(p.id, p.owner) for p in lost] == [(LESSON_PLAN["win"]["target"], TUTOR_SEAT)]


async def test_a_tutorial_starts_with_the_learner_to_move_and_plays_out_as_planned(client):
    response = await client.post("/tutorial", data={"name": "Padawan"})
    match_id = response.headers["location"].rsplit("/", 1)[1]
    student = {"Authorization": f"Bearer {response.cookies['dejarik_token']}"}
    match = (await client.get(f"/api/v1/matches/{match_id}")).json()
    assert match["to_act"] == [STUDENT_SEAT] and match["state"]["lost"] == []
    assert match["dice"]["player_seeds"] == [STUDENT_DICE_SEED, TUTOR_DICE_SEED]
    # The page hands the plan to the panel.
    page = (await client.get(f"/tutorial/{match_id}")).text
    shown = page.split("data-tutorial-plan='", 1)[1].split("'", 1)[0]
    assert json.loads(unescape(shown)) == LESSON_PLAN
    refused = await client.post(f"/tutorial/{match_id}/opponent")
    assert refused.status_code == 409, "the Tutor never acts before the learner"

    async def learner_does(lesson: str) -> list[dict]:
        version = (await client.get(f"/api/v1/matches/{match_id}")).json()["version"]
        body = {"action": LESSON_PLAN[lesson], "version": version}
        done = await client.post(f"/api/v1/matches/{match_id}/actions", json=body, headers=student)
        assert done.status_code == 200, done.text
        return done.json()["events"]

    await learner_does("move")
    assert combat_result(await learner_does("attack")) == "push"
    await learner_does("push")
    for _ in range(2):
        tutor = await client.post(f"/tutorial/{match_id}/opponent")
        assert tutor.status_code == 200 and tutor.json()["action"]["type"] == "move", tutor.text
    assert (await client.post(f"/tutorial/{match_id}/opponent")).status_code == 409
    kill = await learner_does("win")
    assert any(e["type"] == "kill" and e["piece"] == LESSON_PLAN["win"]["target"] for e in kill)


async def test_l6_tutorials_cost_matches_and_players_and_share_one_tutor(database_url):
    """The audit made 40 tutorials past the match limit, and 10 more that each made a
    player past the player limit, each with a new "Tutor" player."""
    limits = {"rate_limit_matches": 3, "rate_limit_players": 2}
    server = LiveServer(Settings(database_url=database_url, **limits)).start()
    await clear_of_the_minute_s_turn()
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
    await clear_of_the_minute_s_turn()
    try:
        async with httpx.AsyncClient(base_url=server.url) as browser:
            await start_tutorial(browser)
        async with httpx.AsyncClient(base_url=server.url) as another:
            refused = await another.post("/tutorial", data={"name": "Padawan"})
            assert refused.status_code == 429 and "players" in refused.json()["detail"]
    finally:
        server.stop()


def test_the_tutor_only_moves_while_the_learner_learns_then_attacks_where_a_push_is_likeliest():
    pieces = [
        {"id": "monnok", "kind": "monnok", "owner": 1, "at": "A7"},
        {"id": "ngok", "kind": "ngok", "owner": 0, "at": "A1"},
    ]
    learning = {"you": {"seat": 1}, "state": {"pieces": pieces, "lost": []}}
    learnt = {"you": {"seat": 1}, "state": {"pieces": pieces, "lost": [{"id": "molator", "owner": 1}]}}
    moves = [{"type": "move", "piece": "monnok", "to": s} for s in ("A10", "B7", "C")]
    assert tutor_choice({**learning, "legal_actions": [{"type": "resign"}, *moves]})["to"] == "C"
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
    # Until it has lost a creature (the learner's last lesson) it comes closer, attacking nothing;
    assert tutor_choice({**learning, "legal_actions": [*moves, unlikely, likely]})["to"] == "C"
    # with no move it must attack; and once it has lost one it attacks whenever it can.
    assert tutor_choice({**learning, "legal_actions": [unlikely, likely]}) is likely
    assert tutor_choice({**learnt, "legal_actions": [*moves, unlikely, likely]}) is likely
    push = {"type": "push", "piece": "ngok", "to": "A2"}
    assert tutor_choice({**learning, "legal_actions": [push, likely]}) is push
    assert tutor_choice({**learning, "legal_actions": [{"type": "offer_draw"}]}) is None
