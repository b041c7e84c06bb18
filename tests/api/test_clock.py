"""Timed matches: the deadline of the seat to act, claiming the win when it has
passed, and a GM's pause stopping the clock. The server's time is moved on by a
test clock in the app's state (``app.state.now``) instead of waiting."""

from __future__ import annotations

import html
import random
import re
from datetime import datetime, timedelta

from app.rules import get_ruleset
from app.rules.log import Entry, replay
from tests.api.helpers import play_one, start_match, view
from tests.conftest import new_player

CLOCK = {"per_move_s": 60}


def claims(match_view: dict) -> list[dict]:
    return [a for a in match_view["legal_actions"] if a["type"] == "claim_timeout"]


async def act(client, match_id, player, action, version):
    return await client.post(
        f"/api/v1/matches/{match_id}/actions",
        json={"action": action, "version": version},
        headers=player["headers"],
    )


async def test_an_untimed_match_has_no_deadline_and_no_claim(client):
    match, players = await start_match(client)
    assert match["deadline"] is None and match["options"]["clock"] is None
    waiting = next(p for s, p in enumerate(players) if s not in match["to_act"])
    refused = await act(client, match["id"], waiting, {"type": "claim_timeout"}, match["version"])
    assert refused.status_code == 409 and "no clock" in refused.json()["detail"]


async def test_clock_options_are_checked(client):
    blue = await new_player(client, "Lando")
    for clock, field in (({"per_move_s": 5}, "per_move_s"), ({"seconds": 60}, "per_move_s"), (7, "clock")):
        response = await client.post(
            "/api/v1/matches", json={"ruleset": "kelly", "options": {"clock": clock}}, headers=blue["headers"]
        )
        assert response.status_code == 422 and field in response.json()["detail"], response.text


async def test_the_mover_runs_out_of_time_and_the_other_claims_the_win(client, server_clock):
    match, players = await start_match(client, options={"clock": CLOCK})
    mover = match["to_act"][0]
    waiting = 1 - mover
    first = await view(client, match["id"], players[waiting])
    deadline = datetime.fromisoformat(first["deadline"])
    assert deadline == datetime.fromisoformat(first["updated_at"]) + timedelta(seconds=60)
    assert claims(first) == []
    early = await act(client, match["id"], players[waiting], {"type": "claim_timeout"}, first["version"])
    assert early.status_code == 409 and "has not run out" in early.json()["detail"]

    server_clock.skew = timedelta(seconds=61)
    late = await view(client, match["id"], players[waiting])
    assert late["deadline"] == first["deadline"]
    (claim,) = claims(late)
    assert claims(await view(client, match["id"], players[mover])) == []  # not against oneself
    assert claims(await view(client, match["id"])) == []  # nor for a spectator
    mine = await act(client, match["id"], players[mover], {"type": "claim_timeout"}, late["version"])
    assert mine.status_code == 403

    claimed = await act(client, match["id"], players[waiting], claim, late["version"])
    assert claimed.status_code == 200, claimed.text
    end = await view(client, match["id"], players[waiting])
    assert end["status"] == "finished" and end["deadline"] is None
    assert end["result"]["winner"] == waiting and "ran out of time" in end["result"]["reason"]
    assert end["legal_actions"] == []

    # The claim is a log entry like any action: replaying the log gives the same end.
    log = (await client.get(f"/api/v1/matches/{match['id']}/events")).json()["events"]
    assert log[-1]["action"] == {"type": "claim_timeout"} and log[-1]["seat"] == waiting
    ruleset = get_ruleset("kelly")
    entries = [Entry.from_json(e) for e in log]
    state = replay(ruleset, end["options"], end["seed"], entries, player_seeds=end["dice"]["player_seeds"])
    assert state.result.model_dump() == end["result"]


async def test_a_decision_keeps_its_deadline_through_a_multi_action_turn(client, server_clock):
    match, players = await start_match(client, options={"clock": CLOCK})
    before = await view(client, match["id"])
    seat, _, _ = await play_one(client, match["id"], players, random.Random(3))
    after = await view(client, match["id"])
    if after["to_act"] == [seat]:  # the second action of the same turn: same decision, same deadline
        assert after["deadline"] == before["deadline"]
    else:
        assert datetime.fromisoformat(after["deadline"]) > datetime.fromisoformat(before["deadline"])


async def test_a_pause_stops_the_clock(client, server_clock):
    gm, blue, red = [await new_player(client, n) for n in ("Maz", "Rey", "Finn")]
    created = await client.post(
        "/api/v1/matches",
        json={"ruleset": "kelly", "options": {"clock": CLOCK}, "seat": None},
        headers=gm["headers"],
    )
    match_id = created.json()["id"]
    for player in (blue, red):
        assert (await client.post(f"/api/v1/matches/{match_id}/join", headers=player["headers"])).is_success
    seated = await view(client, match_id, gm)
    started = await act(client, match_id, gm, {"type": "gm_start"}, seated["version"])
    assert started.status_code == 200, started.text
    running = await view(client, match_id, gm)
    deadline = datetime.fromisoformat(running["deadline"])

    server_clock.skew = timedelta(seconds=30)
    paused = await act(client, match_id, gm, {"type": "gm_pause"}, running["version"])
    assert paused.status_code == 200
    assert (await view(client, match_id))["deadline"] is None  # the clock stands still

    server_clock.skew = timedelta(seconds=1000)  # long past the deadline, but paused
    waiting = [blue, red][1 - running["to_act"][0]]
    assert claims(await view(client, match_id, waiting)) == []
    resumed = await act(client, match_id, gm, {"type": "gm_resume"}, running["version"] + 1)
    assert resumed.status_code == 200
    after = await view(client, match_id, waiting)
    log = (await client.get(f"/api/v1/matches/{match_id}/events")).json()["events"]
    pause_at, resume_at = (datetime.fromisoformat(e["at"]) for e in log[-2:])
    assert datetime.fromisoformat(after["deadline"]) == deadline + (resume_at - pause_at)
    assert claims(after) == []  # the 30 s left before the pause are still left


async def test_held_a_draw_offer_and_its_refusal_keep_the_deadline_and_the_claim_waits_for_it(
    client, server_clock
):
    """The audit's clock checks: the deadline is 60 s ahead; a draw offer by the waiting
    seat and the mover's refusal do not move it; 3 s before it the claim is not listed and
    is refused (409), 1 s after it is listed and wins."""
    match, players = await start_match(client, options={"clock": CLOCK})
    mover = match["to_act"][0]
    waiting = 1 - mover
    first = await view(client, match["id"], players[waiting])
    deadline = datetime.fromisoformat(first["deadline"])
    assert deadline - datetime.fromisoformat(first["updated_at"]) == timedelta(seconds=60)

    offered = await act(client, match["id"], players[waiting], {"type": "offer_draw"}, first["version"])
    assert offered.status_code == 200, offered.text
    answer = await view(client, match["id"], players[mover])
    declined = await act(client, match["id"], players[mover], {"type": "decline_draw"}, answer["version"])
    assert declined.status_code == 200, declined.text
    after = await view(client, match["id"], players[waiting])
    assert after["to_act"] == [mover] and datetime.fromisoformat(after["deadline"]) == deadline

    for late_by, listed, status in ((-3, False, 409), (1, True, 200)):
        server_clock.skew = deadline + timedelta(seconds=late_by) - datetime.now(deadline.tzinfo)
        now = await view(client, match["id"], players[waiting])
        assert bool(claims(now)) is listed, late_by
        claimed = await act(client, match["id"], players[waiting], {"type": "claim_timeout"}, now["version"])
        assert claimed.status_code == status, (late_by, claimed.text)
    end = await view(client, match["id"])
    assert end["result"]["winner"] == waiting and "ran out of time" in end["result"]["reason"]


async def test_the_match_forms_offer_the_clock_in_minutes_and_days_and_send_seconds(client):
    """Issue 31: the new-match form chooses the clock from presets (live: 5, 10, 30 minutes;
    correspondence: 1, 3, 7 days) or another time in minutes, hours or days, never a
    number of seconds; the API still counts seconds. The GM's options form shows a
    match's clock the same way."""
    kessa = await new_player(client, "Kessa")
    cookie = {"Cookie": f"dejarik_token={kessa['token']}"}
    home = html.unescape((await client.get("/", headers=cookie)).text)
    for words in (
        "No clock",
        *(f"{t} a move" for t in ("5 minutes", "10 minutes", "30 minutes")),
        *(f"{t} a move" for t in ("1 day", "3 days", "7 days")),
        "Another time…",
    ):
        assert f">{words}</option>" in home, words
    assert 'name="options.kelly.clock.per_move_s"' not in home and "Per move s" not in home
    for form, seconds in (
        ({"preset": "259200"}, 3 * 24 * 3600),
        ({"preset": "300"}, 300),
        ({"preset": "custom", "amount": "90", "unit": "minutes"}, 90 * 60),
        ({"preset": "custom", "amount": "2", "unit": "days"}, 2 * 24 * 3600),
        ({"preset": ""}, None),
    ):
        fields = {f"options.kelly.clock.{key}": value for key, value in form.items()}
        created = await client.post(
            "/matches", data={"ruleset": "kelly", "seat": "0", **fields}, headers=cookie
        )
        assert created.status_code == 303, created.text
        match_id = created.headers["location"].rsplit("/", 1)[1]
        clock = (await view(client, match_id))["options"]["clock"]
        assert clock == ({"per_move_s": seconds} if seconds else None), form

    for amount, unit in (("0", "minutes"), ("31", "days"), ("soon", "hours")):  # refused in words
        fields = {"preset": "custom", "amount": amount, "unit": unit}
        data = {"ruleset": "kelly", "seat": "0", **{f"options.kelly.clock.{k}": v for k, v in fields.items()}}
        refused = await client.post("/matches", data=data, headers=cookie)
        assert refused.status_code == 422
        assert "The clock must be a number of minutes, hours or days" in html.unescape(refused.text)
        assert "per_move_s" not in refused.text

    created = await client.post(
        "/api/v1/matches",
        json={"ruleset": "eote", "seat": None, "options": {"clock": {"per_move_s": 5400}}},
        headers=kessa["headers"],
    )
    gm_page = (await client.get(f"/matches/{created.json()['id']}", headers=cookie)).text
    assert re.search(r'<option value="custom" selected>', gm_page)
    assert re.search(r'name="options.clock.amount"[^>]*value="90"', gm_page)
    assert re.search(r'<option value="minutes" selected>minutes</option>', gm_page)
