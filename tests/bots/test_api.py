"""Bots through the public API, on SQLite and PostgreSQL: seating, and bots playing."""

from __future__ import annotations

import httpx

from app.rules import registry
from tests.api.helpers import dice_for_a_reroll, view
from tests.bots.helpers import wait_for
from tests.conftest import new_player


async def control(client, match_id, gm, kind, **fields):
    """The GM sends their listed control of type ``kind`` (with these fields); it must apply."""
    current = await view(client, match_id, gm)
    action = next(
        a
        for a in current["legal_actions"]
        if a["type"] == kind and all(a.get(k) == v for k, v in fields.items())
    )
    response = await client.post(
        f"/api/v1/matches/{match_id}/actions",
        json={"action": action, "version": current["version"]},
        headers=gm["headers"],
    )
    assert response.status_code == 200, response.text


async def bots_at_a_gms_table(client, gm, ruleset, bots, options=None) -> str:
    """A GM-run match with a bot in each seat (``bots``: one bot id per seat), started."""
    created = await client.post(
        "/api/v1/matches",
        json={
            "ruleset": ruleset,
            "options": options or {},
            "seat": None,
            "bots": [{"seat": seat, "bot": bot} for seat, bot in enumerate(bots)],
        },
        headers=gm["headers"],
    )
    assert created.status_code == 201, created.text
    await control(client, created.json()["id"], gm, "gm_start")
    return created.json()["id"]


async def test_every_ruleset_has_three_levels(client):
    response = await client.get("/api/v1/bots")
    assert response.status_code == 200
    bots = response.json()
    for ruleset in registry():
        levels = sorted(b["level"] for b in bots if ruleset in b["rulesets"])
        assert levels == [1, 2, 3], ruleset
    assert all(b["name"] and b["description"] for b in bots)


async def test_play_the_computer_starts_at_once_and_the_bot_moves(client):
    human = await new_player(client, "Lando")
    created = await client.post(
        "/api/v1/matches",
        json={"ruleset": "orbit-chess", "seat": 1, "bots": [{"seat": 0, "bot": "orbit-chess-master"}]},
        headers=human["headers"],
    )
    assert created.status_code == 201, created.text
    match = created.json()
    assert match["status"] == "active"
    assert match["seats"][0]["bot"] == {"id": "orbit-chess-master", "name": "Master bot"}
    assert match["seats"][0]["player"]["name"] == "Master bot"
    assert match["seats"][1]["bot"] is None
    # White (the bot) moves first: it answers without anyone asking.
    moved = await wait_for(client, match["id"], lambda v: 1 in v["to_act"], human)
    log = (await client.get(f"/api/v1/matches/{match['id']}/events")).json()["events"]
    assert [e["seat"] for e in log if e["action"]["type"] == "move"] == [0]
    assert moved["legal_actions"]


async def test_seating_refusals_change_nothing(client):
    host, other = await new_player(client, "Han"), await new_player(client, "Greedo")
    created = await client.post(
        "/api/v1/matches", json={"ruleset": "kelly", "seat": 0}, headers=host["headers"]
    )
    match_id = created.json()["id"]

    async def seat(body, who):
        return await client.post(f"/api/v1/matches/{match_id}/bots", json=body, headers=who["headers"])

    assert (await seat({"seat": 1, "bot": "kelly-club"}, other)).status_code == 403
    unknown = await seat({"seat": 1, "bot": "kelly-grandmaster"}, host)
    assert unknown.status_code == 422 and "kelly-club" in unknown.text
    wrong = await seat({"seat": 1, "bot": "courtier-club"}, host)
    assert wrong.status_code == 422 and "courtier" in wrong.text
    assert (await seat({"seat": 0, "bot": "kelly-club"}, host)).status_code == 409
    assert (await view(client, match_id))["version"] == 0
    bad_create = await client.post(
        "/api/v1/matches",
        json={"ruleset": "kelly", "seat": 0, "bots": [{"seat": 1, "bot": "eote-club"}]},
        headers=host["headers"],
    )
    assert bad_create.status_code == 422
    mine = (await client.get(f"/api/v1/matches?player={host['id']}")).json()["matches"]
    assert [m["id"] for m in mine] == [match_id]
    # Seated: the match starts, and the bot holds the seat.
    seated = await seat({"seat": 1, "bot": "kelly-club"}, host)
    assert seated.status_code == 200, seated.text
    assert seated.json()["status"] == "active"
    assert seated.json()["seats"][1]["bot"]["id"] == "kelly-club"
    assert (await seat({"seat": 1, "bot": "kelly-master"}, host)).status_code == 409


async def test_the_schema_gives_the_bot_ids_of_each_ruleset(client):
    """Seating a bot: its schema groups the bot ids by the ruleset they play, as GET
    /api/v1/bots lists them (a match takes its own ruleset's only, 422 otherwise)."""
    schemas = (await client.get("/openapi.json")).json()["components"]["schemas"]
    listed = (await client.get("/api/v1/bots")).json()
    choices = schemas["SeatBot"]["properties"]["bot"]["oneOf"]
    assert {choice["title"]: sorted(choice["enum"]) for choice in choices} == {
        f"Bots for {ruleset} matches": sorted(b["id"] for b in listed if ruleset in b["rulesets"])
        for ruleset in registry()
    }


async def test_two_bots_play_a_match_to_the_end(client):
    gm = await new_player(client, "Dealer")
    match_id = await bots_at_a_gms_table(client, gm, "courtier", ["courtier-club", "courtier-beginner"])
    finished = await wait_for(client, match_id, lambda v: v["status"] == "finished")
    assert finished["result"]["reason"]
    log = (await client.get(f"/api/v1/matches/{match_id}/events")).json()["events"]
    played = [e for e in log if e["seat"] is not None and e["action"]["type"] not in ("join",)]
    assert {e["seat"] for e in played} == {0, 1}
    assert all(e["action"]["type"] in ("move", "capture") for e in played)


async def test_a_gm_seats_a_bot_in_the_npc_seat(client):
    gm, player = await new_player(client, "Maz"), await new_player(client, "Rey")
    created = await client.post(
        "/api/v1/matches", json={"ruleset": "simeone", "seat": None}, headers=gm["headers"]
    )
    match_id = created.json()["id"]
    assert (
        await client.post(f"/api/v1/matches/{match_id}/join", json={"seat": 0}, headers=player["headers"])
    ).status_code == 200

    await control(client, match_id, gm, "gm_take_seat", seat=1)
    seated = await client.post(
        f"/api/v1/matches/{match_id}/bots", json={"seat": 1, "bot": "simeone-club"}, headers=gm["headers"]
    )
    assert seated.status_code == 200, seated.text
    seat = seated.json()["seats"][1]
    assert seat["npc"] is False and seat["bot"]["id"] == "simeone-club"
    await control(client, match_id, gm, "gm_start")
    # Simeone's set-up alternates placements, Blue first: the human places, the bot answers.
    mine = await view(client, match_id, player)
    place = mine["legal_actions"][0]
    placed = await client.post(
        f"/api/v1/matches/{match_id}/actions",
        json={"action": place, "version": mine["version"]},
        headers=player["headers"],
    )
    assert placed.status_code == 200, placed.text
    answered = await wait_for(
        client, match_id, lambda v: 0 in v["to_act"] or v["status"] == "finished", player
    )
    log = (await client.get(f"/api/v1/matches/{match_id}/events")).json()["events"]
    assert any(e["seat"] == 1 and e["action"]["type"] == "place" for e in log)
    assert answered["seats"][1]["player"]["name"] == "Club player bot"


async def test_eote_bots_ask_the_gm_for_a_reroll_wait_for_the_answer_and_play_on(client, monkeypatch):
    """GM-hosted eote with the initial ranks check: a bot whose check qualifies asks the
    GM for the re-roll; no seat is to act until the GM decides, then the bots play on."""
    options = {"initial_ranks_check": True, "turns_without_kill": 6}
    dice_for_a_reroll(monkeypatch, options)
    gm = await new_player(client, "Maz")
    match_id = await bots_at_a_gms_table(client, gm, "eote", ["eote-club", "eote-master"], options)

    def gm_asked(v):
        return any(a["type"] == "gm_grant_reroll" for a in v["legal_actions"])

    asked = await wait_for(client, match_id, lambda v: gm_asked(v) or v["status"] != "active", gm)
    check = asked["state"]["ranks_check"]
    assert asked["to_act"] == [] and check["seat"] == 0 and check["step"] == "asked"
    await control(client, match_id, gm, "gm_grant_reroll")
    decisions = 1
    while (
        current := await wait_for(client, match_id, lambda v: gm_asked(v) or v["status"] == "finished", gm)
    )["status"] != "finished":
        await control(client, match_id, gm, "gm_refuse_reroll")  # a bot asking again after the re-roll
        decisions += 1
    log = (await client.get(f"/api/v1/matches/{match_id}/events")).json()["events"]
    kinds = [(e["seat"], e["action"]["type"]) for e in log]
    first_ask = kinds.index((0, "ask_reroll"))
    assert kinds[first_ask + 1] == (None, "gm_grant_reroll"), "nothing happened while the GM decided"
    assert kinds.count((None, "gm_grant_reroll")) + kinds.count((None, "gm_refuse_reroll")) == decisions
    assert sum(1 for seat, kind in kinds if seat is not None and kind == "ask_reroll") == decisions
    assert {seat for seat, kind in kinds[first_ask + 2 :] if seat is not None} == {0, 1}, "the bots played on"
    assert current["result"]["reason"]


async def bot_only_match(client, host, ruleset="courtier"):
    """M4's request: a GM-hosted match with a bot in every seat (not started: it counts all the same)."""
    return await client.post(
        "/api/v1/matches",
        json={
            "ruleset": ruleset,
            "seat": None,
            "bots": [{"seat": 0, "bot": f"{ruleset}-club"}, {"seat": 1, "bot": f"{ruleset}-beginner"}],
        },
        headers=host["headers"],
    )


async def test_m4_a_third_bot_only_match_is_refused_429_and_changes_nothing(client):
    """M4: a player may host BOT_MATCHES_PER_PLAYER (2) unfinished matches with a bot;
    past it, creating one or seating a bot is a 429 that says what to do."""
    host, other = await new_player(client, "Hondo"), await new_player(client, "Kanan")
    assert (await bot_only_match(client, host)).status_code == 201
    against = await client.post(
        "/api/v1/matches",
        json={"ruleset": "orbit-chess", "seat": 0, "bots": [{"seat": 1, "bot": "orbit-chess-club"}]},
        headers=host["headers"],
    )
    assert against.status_code == 201, against.text
    plain = await client.post(
        "/api/v1/matches", json={"ruleset": "kelly", "seat": None}, headers=host["headers"]
    )
    assert plain.status_code == 201, "a match without bots is not limited"
    before = (await client.get(f"/api/v1/matches?player={host['id']}")).json()["matches"]

    third = await bot_only_match(client, host)
    assert third.status_code == 429, third.text
    assert third.json()["detail"] == (
        "you have 2 matches against bots running (at most 2 at once); finish or resign one first"
    )
    seat = await client.post(
        f"/api/v1/matches/{plain.json()['id']}/bots",
        json={"seat": 0, "bot": "kelly-club"},
        headers=host["headers"],
    )
    assert seat.status_code == 429 and "finish or resign one first" in seat.json()["detail"]
    after = (await client.get(f"/api/v1/matches?player={host['id']}")).json()["matches"]
    assert [m["id"] for m in after] == [m["id"] for m in before], "nothing was created"
    unchanged = await view(client, plain.json()["id"])
    assert unchanged["version"] == 0 and unchanged["seats"][0]["player"] is None

    # Another player is not held back by Hondo's matches.
    assert (await bot_only_match(client, other)).status_code == 201
    # Once one of Hondo's matches is over, Hondo may seat a bot again.
    mine = await view(client, against.json()["id"], host)
    resign = next(a for a in mine["legal_actions"] if a["type"] == "resign")
    resigned = await client.post(
        f"/api/v1/matches/{mine['id']}/actions",
        json={"action": resign, "version": mine["version"]},
        headers=host["headers"],
    )
    assert resigned.status_code == 200, resigned.text
    seat = await client.post(
        f"/api/v1/matches/{plain.json()['id']}/bots",
        json={"seat": 0, "bot": "kelly-club"},
        headers=host["headers"],
    )
    assert seat.status_code == 200, seat.text


async def test_m4_the_schema_documents_the_bot_quota_429(client):
    paths = (await client.get("/openapi.json")).json()["paths"]
    for operation in (paths["/api/v1/matches"]["post"], paths["/api/v1/matches/{match_id}/bots"]["post"]):
        refusal = operation["responses"]["429"]
        assert "finish or resign one first" in refusal["description"]
        assert refusal["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ErrorBody"}


async def test_m4_play_the_computer_past_the_quota_says_so_and_makes_no_match(live_server):
    """The home page's "Play the computer" form meets the same quota, before it makes a match."""
    async with httpx.AsyncClient(base_url=live_server.url, timeout=30) as http:
        host = await new_player(http, "Cad")
        http.cookies.set("dejarik_token", host["token"])
        form = {"ruleset": "orbit-chess", "seat": "0", "opponent": "computer", "level": "beginner"}
        origin = {"Origin": live_server.url}
        for _ in range(2):
            started = await http.post("/matches", data=form, headers=origin)
            assert started.status_code == 303, started.text
        before = (await http.get(f"/api/v1/matches?player={host['id']}")).json()["matches"]
        third = await http.post("/matches", data=form, headers=origin)
        assert third.status_code == 429
        assert "you have 2 matches against bots running" in third.text
        after = (await http.get(f"/api/v1/matches?player={host['id']}")).json()["matches"]
        assert len(before) == 2 and [m["id"] for m in after] == [m["id"] for m in before]
