"""Rated matches through the API: what changes at the end, and what does not."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import insert

from app.config import Settings
from app.db import make_engine
from app.models import PlayerRating
from app.ratings import Rating, bot_rating, rated_match
from app.rules.base import COMMON_ACTION_TYPES
from tests.api.helpers import play_one, view
from tests.bots.helpers import wait_for
from tests.conftest import LiveServer, new_player


def now() -> datetime:
    """Any moment: a new player's rating has no absence to age by."""
    return datetime.now(UTC)


async def rated_match_between(client, host, guest, rated: bool = True, ruleset: str = "kelly"):
    created = await client.post(
        "/api/v1/matches", json={"ruleset": ruleset, "seat": 0, "rated": rated}, headers=host["headers"]
    )
    assert created.status_code == 201, created.text
    assert created.json()["rated"] is rated
    joined = await client.post(f"/api/v1/matches/{created.json()['id']}/join", headers=guest["headers"])
    assert joined.status_code == 200, joined.text
    return joined.json()


async def both_play(client, match_id: str, players: list[dict]) -> dict:
    """Each seat plays game actions until both have played one; returns the view."""
    rng, played = random.Random(7), set()
    while played != {0, 1}:
        seat, _action, _response = await play_one(client, match_id, players, rng)
        played.add(seat)
    return await view(client, match_id)


async def resignation(client, match_id: str, player: dict) -> dict:
    """The body of ``player``'s resignation at the match's current version."""
    mine = await view(client, match_id, player)
    action = next(a for a in mine["legal_actions"] if a["type"] == "resign")
    return {"action": action, "version": mine["version"]}


async def send(on: httpx.AsyncClient, match_id: str, player: dict, body: dict) -> httpx.Response:
    return await on.post(f"/api/v1/matches/{match_id}/actions", json=body, headers=player["headers"])


async def resign(client, match_id: str, player: dict) -> httpx.Response:
    return await send(client, match_id, player, await resignation(client, match_id, player))


async def ratings_of(client, player: dict) -> dict:
    response = await client.get(f"/api/v1/players/{player['id']}")
    assert response.status_code == 200, response.text
    assert response.json()["name"] == player["name"]
    return response.json()["ratings"]


async def test_a_rated_match_moves_both_ratings_once_both_have_played(client):
    rey, kylo = await new_player(client, "Rey"), await new_player(client, "Kylo")
    match = await rated_match_between(client, rey, kylo)
    await both_play(client, match["id"], [rey, kylo])
    assert (await resign(client, match["id"], kylo)).status_code == 200

    ended = await view(client, match["id"])
    assert ended["rated"] is True and ended["result"]["winner"] == 0
    changes = {c["seat"]: c for c in ended["rating_changes"]}
    won = rated_match(Rating(), Rating(), 1.0, now())
    assert changes[0]["before"] == changes[1]["before"] == 1500
    assert changes[0]["after"] == pytest.approx(won.rating, abs=0.01)
    assert changes[1]["after"] == pytest.approx(3000 - won.rating, abs=0.01)
    assert changes[0]["before_provisional"] and changes[0]["after_provisional"], "one game: still 1500?"

    mine = (await ratings_of(client, rey))["kelly"]
    assert mine["rating"] == changes[0]["after"] and mine["games"] == 1 and mine["provisional"]
    assert mine["volatility"] == pytest.approx(0.09, abs=0.001) and 45 <= mine["rd"] < 500
    assert (await ratings_of(client, kylo))["kelly"]["rating"] < 1500
    listed = await client.get("/api/v1/matches", params={"player": rey["id"]})
    assert listed.json()["matches"][0]["rated"] is True
    # Provisional ratings are left off the leaderboard.
    board = (await client.get("/api/v1/rulesets/kelly/leaderboard")).json()["players"]
    assert rey["id"] not in {row["player"]["id"] for row in board}


async def test_the_rated_box_makes_a_rated_match_whose_rating_the_player_page_charts(client):
    rey, kylo = await new_player(client, "Rey"), await new_player(client, "Kylo")
    home = await client.get("/", headers={"Cookie": f"dejarik_token={rey['token']}"})
    assert "Rated: the result changes both players' ratings" in home.text
    created = await client.post(
        "/matches",
        data={"ruleset": "kelly", "seat": "0", "rated": "1"},
        headers={"Cookie": f"dejarik_token={rey['token']}"},
    )
    assert created.status_code == 303, created.text
    match_id = created.headers["location"].rsplit("/", 1)[1]
    assert (await view(client, match_id))["rated"] is True
    await client.post(f"/api/v1/matches/{match_id}/join", headers=kylo["headers"])
    await both_play(client, match_id, [rey, kylo])
    await resign(client, match_id, kylo)
    after = round((await ratings_of(client, rey))["kelly"]["rating"])

    page = await client.get(f"/players/{rey['id']}")
    assert page.status_code == 200
    assert f"<span data-rating-shown>{after}?</span>" in page.text, "provisional after one match"
    assert 'class="rating-chart"' in page.text and "<polyline" in page.text
    assert 'href="/rules/kelly/leaderboard"' in page.text
    assert (
        'class="player-ratings"'
        not in (await client.get(f"/players/{(await new_player(client, 'Nobody'))['id']}")).text
    )


async def test_a_match_resigned_before_every_seat_played_is_not_rated(client):
    han, greedo = await new_player(client, "Han"), await new_player(client, "Greedo")
    match = await rated_match_between(client, han, greedo)
    first = match["to_act"][0]
    players = [han, greedo]
    assert (await resign(client, match["id"], players[1 - first])).status_code == 200
    ended = await view(client, match["id"])
    assert ended["status"] == "finished" and ended["rated"] is True and ended["rating_changes"] is None
    assert await ratings_of(client, han) == {} and await ratings_of(client, greedo) == {}


async def test_a_casual_match_changes_no_rating(client):
    luke, biggs = await new_player(client, "Luke"), await new_player(client, "Biggs")
    created = await client.post("/api/v1/matches", json={"ruleset": "kelly"}, headers=luke["headers"])
    assert created.json()["rated"] is False, "casual unless asked"
    match = await rated_match_between(client, luke, biggs, rated=False)
    await both_play(client, match["id"], [luke, biggs])
    await resign(client, match["id"], biggs)
    ended = await view(client, match["id"])
    assert ended["status"] == "finished" and ended["rating_changes"] is None
    assert await ratings_of(client, luke) == {}


async def test_against_a_bot_the_change_is_halved_and_the_bots_rating_stays(client):
    bots = {b["id"]: b for b in (await client.get("/api/v1/bots")).json()}
    beginner = bots["kelly-beginner"]
    assert beginner["rating"] < bots["kelly-club"]["rating"] < bots["kelly-master"]["rating"]
    finn = await new_player(client, "Finn")
    created = await client.post(
        "/api/v1/matches",
        json={"ruleset": "kelly", "seat": 0, "rated": True, "bots": [{"seat": 1, "bot": "kelly-beginner"}]},
        headers=finn["headers"],
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    rng = random.Random(3)
    played_once = False
    while True:  # Finn plays until the bot has answered at least once
        mine = await wait_for(client, match_id, lambda v: 0 in v["to_act"], finn)
        if played_once and any(
            e["seat"] == 1 and e["action"]["type"] != "join" for e in await events(client, match_id)
        ):
            break
        action = rng.choice([a for a in mine["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES])
        sent = await client.post(
            f"/api/v1/matches/{match_id}/actions",
            json={"action": action, "version": mine["version"]},
            headers=finn["headers"],
        )
        assert sent.status_code == 200, sent.text
        played_once = True
    assert (await resign(client, match_id, finn)).status_code == 200

    changes = {c["seat"]: c for c in (await view(client, match_id))["rating_changes"]}
    as_if_a_person = rated_match(Rating(), bot_rating(beginner["rating"]), 0.0, now())
    assert 1500 - changes[0]["after"] == pytest.approx((1500 - as_if_a_person.rating) / 2, abs=0.01)
    assert changes[1]["before"] == changes[1]["after"] == beginner["rating"]
    bot_player = (await view(client, match_id))["seats"][1]["player"]["id"]
    assert (await client.get(f"/api/v1/players/{bot_player}")).json()["ratings"] == {}


async def events(client, match_id):
    return (await client.get(f"/api/v1/matches/{match_id}/events")).json()["events"]


async def test_the_leaderboard_lists_established_ratings_best_first(client, database_url):
    players = [await new_player(client, name) for name in ("Mon Mothma", "Ackbar", "Newcomer")]
    engine = make_engine(database_url)
    try:
        async with engine.begin() as connection:
            await connection.execute(
                insert(PlayerRating),
                [
                    {"player_id": players[0]["id"], "ruleset": "simeone", "rating": 1700.0, "rd": 60.0,
                     "volatility": 0.06, "games": 30},
                    {"player_id": players[1]["id"], "ruleset": "simeone", "rating": 1810.5, "rd": 80.0,
                     "volatility": 0.06, "games": 25},
                    {"player_id": players[2]["id"], "ruleset": "simeone", "rating": 2400.0, "rd": 150.0,
                     "volatility": 0.09, "games": 3},
                ],
            )  # fmt: skip
    finally:
        await engine.dispose()
    board = (await client.get("/api/v1/rulesets/simeone/leaderboard")).json()["players"]
    ours = [row for row in board if row["player"]["id"] in {p["id"] for p in players}]
    assert [(row["player"]["name"], row["rating"], row["games"]) for row in ours] == [
        ("Ackbar", 1810.5, 25),
        ("Mon Mothma", 1700.0, 30),
    ]
    page = await client.get("/rules/simeone/leaderboard")
    assert page.status_code == 200 and "Ackbar" in page.text and "Newcomer" not in page.text


async def test_ratings_input_is_checked(client):
    leia = await new_player(client, "Leia")
    bad = await client.post(
        "/api/v1/matches", json={"ruleset": "kelly", "rated": "yes"}, headers=leia["headers"]
    )
    assert bad.status_code == 422 and "rated" in bad.text
    assert (await client.get("/api/v1/players/nobody-at-all")).status_code == 404
    assert (await client.get("/api/v1/rulesets/sabacc/leaderboard")).status_code == 404
    assert (await client.get("/api/v1/players/me", headers=leia["headers"])).json()["id"] == leia["id"]


@pytest.mark.both_databases
async def test_two_servers_rate_each_ending_once(database_url):
    """The same last action sent to two servers at once is rated once; two matches of one
    player ending at once on two servers both count."""
    one = LiveServer(Settings(database_url=database_url)).start()
    two = LiveServer(Settings(database_url=database_url)).start()
    try:
        async with (
            httpx.AsyncClient(base_url=one.url, timeout=30) as on_one,
            httpx.AsyncClient(base_url=two.url, timeout=30) as on_two,
        ):
            rey, kylo, hux = [await new_player(on_one, name) for name in ("Rey", "Kylo", "Hux")]
            first = await rated_match_between(on_one, rey, kylo)
            second = await rated_match_between(on_two, rey, hux)
            await both_play(on_one, first["id"], [rey, kylo])
            await both_play(on_two, second["id"], [rey, hux])
            # Kylo's one resignation sent to both servers at once; Hux resigns the other match
            # at the same moment.
            kylo_resigns = await resignation(on_one, first["id"], kylo)
            hux_resigns = await resignation(on_two, second["id"], hux)
            answers = await asyncio.gather(
                send(on_one, first["id"], kylo, kylo_resigns),
                send(on_two, first["id"], kylo, kylo_resigns),
                send(on_one, second["id"], hux, hux_resigns),
            )
            assert all(a.status_code in (200, 409) for a in answers)
            assert answers[2].status_code == 200
            for server in (on_one, on_two):
                mine = (await ratings_of(server, rey))["kelly"]
                assert mine["games"] == 2, "both matches counted, each once"
                assert (await ratings_of(server, kylo))["kelly"]["games"] == 1
            changes = (await view(on_two, first["id"]))["rating_changes"]
            assert len(changes) == 2 and changes[0]["after"] > changes[0]["before"]
    finally:
        one.stop()
        two.stop()


async def test_rd_grows_while_a_player_is_away(client, server_clock):
    poe, bb = await new_player(client, "Poe"), await new_player(client, "Bebe")
    match = await rated_match_between(client, poe, bb)
    await both_play(client, match["id"], [poe, bb])
    await resign(client, match["id"], bb)
    fresh = (await ratings_of(client, poe))["kelly"]
    server_clock.skew = timedelta(days=60)
    later = (await ratings_of(client, poe))["kelly"]
    assert later["rd"] > fresh["rd"] and later["rating"] == fresh["rating"]
