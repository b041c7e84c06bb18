"""Leagues through the REST API (issue 32, shared/API.md "Leagues"): create, join, bots,
start, results into standings as matches end, Swiss rounds, withdrawal, adjudication,
bad input, the export, the live socket; and two servers on one database recording each
result and pairing each round once."""

from __future__ import annotations

import asyncio
import json
import os
import random
import time

import httpx
import jsonschema
import pytest
from sqlalchemy import func, select, update
from websockets.asyncio.client import connect

from app.config import Settings
from app.db import make_engine
from app.leagues.pairing import Game
from app.leagues.standings import standings
from app.models import LeagueGame, Match, Outbox, Player
from tests.api.helpers import play_one, view
from tests.conftest import LiveServer, new_player, reachable_redis


async def make_league(client, host, players=(), **body) -> dict:
    """A league hosted (and played in) by ``host``, which ``players`` join."""
    created = await client.post(
        "/api/v1/leagues",
        json={"name": "Mos Eisley Open", "ruleset": "kelly", "format": "round-robin", **body},
        headers=host["headers"],
    )
    assert created.status_code == 201, created.text
    league = created.json()
    for player in players:
        joined = await client.post(f"/api/v1/leagues/{league['id']}/join", headers=player["headers"])
        assert joined.status_code == 200, joined.text
        league = joined.json()
    return league


async def league_of(client, league_id) -> dict:
    response = await client.get(f"/api/v1/leagues/{league_id}")
    assert response.status_code == 200, response.text
    return response.json()


async def start(client, league, host) -> dict:
    started = await client.post(f"/api/v1/leagues/{league['id']}/start", headers=host["headers"])
    assert started.status_code == 200, started.text
    return started.json()


async def people(client, *names) -> list[dict]:
    return [await new_player(client, name) for name in names]


async def resign(client, match_id, loser) -> None:
    current = await view(client, match_id)
    resigned = await client.post(
        f"/api/v1/matches/{match_id}/actions",
        json={"action": {"type": "resign"}, "version": current["version"]},
        headers=loser["headers"],
    )
    assert resigned.status_code == 200, resigned.text


def recomputed(league) -> list[dict]:
    """The standings from the league's rounds alone, as a client would compute them."""
    games = [
        Game(
            r["round"], p["seats"][0]["id"], p["seats"][1] and p["seats"][1]["id"], p["result"], p["forfeit"]
        )
        for r in league["rounds"]
        for p in r["pairings"]
    ]
    table = standings([p["id"] for p in league["players"]], games, league["format"])
    return [
        {
            "player": s.player,
            "points": s.points,
            "played": s.played,
            "won": s.won,
            "drawn": s.drawn,
            "lost": s.lost,
            "tiebreak": s.tiebreak,
        }
        for s in table
    ]


def live(league) -> list[dict]:
    return [{**s, "player": s["player"]["id"]} for s in league["standings"]]


async def eventually(check, within_s: float = 15.0):
    deadline = time.monotonic() + within_s
    while True:
        result = await check()
        if result or time.monotonic() > deadline:
            return result
        await asyncio.sleep(0.1)


@pytest.mark.both_databases
async def test_a_round_robin_of_four_creates_every_match_and_standings_follow_each_result(client):
    host, *others = await people(client, "Dengar", "Bossk", "IG-88", "Zuckuss")
    league = await make_league(client, host, others, rated=True, options={"clock": {"per_move_s": 86400}})
    assert league["status"] == "open" and [p["name"] for p in league["players"]] == [
        "Dengar", "Bossk", "IG-88", "Zuckuss",
    ]  # fmt: skip
    league = await start(client, league, host)
    assert league["status"] == "running" and league["total_rounds"] == 3
    pairings = [p for r in league["rounds"] for p in r["pairings"]]
    assert [len(r["pairings"]) for r in league["rounds"]] == [2, 2, 2]
    met = {frozenset(s["id"] for s in p["seats"]) for p in pairings}
    assert len(met) == 6, "everyone meets everyone once"
    by_id = {p["id"]: p for p in (host, *others)}
    for pairing in pairings:
        match = await view(client, pairing["match"])
        assert match["status"] == "active" and match["rated"] is True
        assert [s["player"]["id"] for s in match["seats"]] == [s["id"] for s in pairing["seats"]]
        assert match["options"]["clock"]["per_move_s"] == 86400
    async with httpx.AsyncClient(
        base_url=client.base_url, cookies={"dejarik_token": host["token"]}
    ) as browser:
        home = await browser.get("/")
    assert home.status_code == 200 and home.text.count("Your league match against") == 3
    # Each match ends: the loser (seat 1, or seat 0 every third) resigns; after every
    # result the live standings are the ones recomputed from the games.
    for n, pairing in enumerate(pairings):
        loser_seat = 0 if n % 3 == 0 else 1
        await resign(client, pairing["match"], by_id[pairing["seats"][loser_seat]["id"]])
        league = await league_of(client, league["id"])
        played = next(p for r in league["rounds"] for p in r["pairings"] if p["match"] == pairing["match"])
        assert played["result"] == ("0-1" if loser_seat == 0 else "1-0") and played["forfeit"] is False
        assert live(league) == recomputed(league)
        assert sum(s["played"] for s in league["standings"]) == 2 * (n + 1)

    async def finished():
        return (await league_of(client, league["id"]))["status"] == "finished"

    assert await eventually(finished)
    export = await client.get(f"/api/v1/leagues/{league['id']}/export")
    assert export.status_code == 200 and export.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in export.text.splitlines()]
    assert lines[0]["type"] == "league" and lines[0]["id"] == league["id"]
    assert [line["match"] for line in lines[1:]] == [p["match"] for p in pairings]


@pytest.mark.both_databases
async def test_a_swiss_round_two_is_paired_once_round_one_ends(client):
    host, *others = await people(client, "Leia", "Han", "Lando", "Chewie")
    league = await make_league(client, host, others, format="swiss", rounds=3)
    league = await start(client, league, host)
    assert len(league["rounds"]) == 1 and len(league["rounds"][0]["pairings"]) == 2
    by_id = {p["id"]: p for p in (host, *others)}
    first = league["rounds"][0]["pairings"]
    for pairing in first:
        await resign(client, pairing["match"], by_id[pairing["seats"][1]["id"]])

    async def second_round():
        current = await league_of(client, league["id"])
        return current if len(current["rounds"]) == 2 else None

    league = await eventually(second_round)
    assert league, "round 2 is paired once round 1 has ended"
    met = {frozenset(s["id"] for s in p["seats"]) for p in first}
    again = league["rounds"][1]["pairings"]
    assert len(again) == 2 and not {frozenset(s["id"] for s in p["seats"]) for p in again} & met
    assert [(await view(client, p["match"]))["status"] for p in again] == ["active", "active"]
    assert live(league) == recomputed(league)


async def test_a_withdrawal_forfeits_the_round_robin_games_left(client):
    host, *others = await people(client, "Ackbar", "Mon Mothma", "Wedge", "Biggs")
    league = await start(client, await make_league(client, host, others), host)
    by_id = {p["id"]: p for p in (host, *others)}
    pairings = [p for r in league["rounds"] for p in r["pairings"]]
    played = next(p for p in pairings if others[2]["id"] in {s["id"] for s in p["seats"]})
    loser = next(s["id"] for s in played["seats"] if s["id"] != others[2]["id"])
    await resign(client, played["match"], by_id[loser])  # Biggs wins one before leaving
    left = await client.post(f"/api/v1/leagues/{league['id']}/withdraw", headers=others[2]["headers"])
    assert left.status_code == 200, left.text
    league = left.json()
    assert next(p for p in league["players"] if p["id"] == others[2]["id"])["withdrawn"] is True
    for pairing in (p for r in league["rounds"] for p in r["pairings"]):
        seats = [s["id"] for s in pairing["seats"]]
        if others[2]["id"] not in seats:
            assert pairing["result"] is None
            continue
        if pairing["match"] == played["match"]:
            assert pairing["forfeit"] is False and pairing["result"] in ("1-0", "0-1")
            continue
        lost = "0-1" if seats[0] == others[2]["id"] else "1-0"
        assert pairing["result"] == lost and pairing["forfeit"] is True
        match = await view(client, pairing["match"])
        assert match["status"] == "finished" and match["result"]["winner"] == (1 if lost == "0-1" else 0)
    biggs = next(s for s in league["standings"] if s["player"]["id"] == others[2]["id"])
    assert (biggs["won"], biggs["lost"]) == (1, 2)
    assert live(league) == recomputed(league)
    again = await client.post(f"/api/v1/leagues/{league['id']}/withdraw", headers=others[2]["headers"])
    assert again.status_code == 409 and "already withdrawn" in again.json()["detail"]


async def test_the_host_adjudicates_a_game_that_will_never_be_played(client):
    host, *others = await people(client, "Jabba", "Greedo", "Bib Fortuna", "Salacious")
    league = await make_league(client, host, others[:2], play=False)
    assert [p["id"] for p in league["players"]] == [p["id"] for p in others[:2]]
    joined = await client.post(f"/api/v1/leagues/{league['id']}/join", headers=others[2]["headers"])
    league = await start(client, joined.json(), host)
    round_one = league["rounds"][0]["pairings"]
    bye = next(i for i, p in enumerate(round_one) if p["seats"][1] is None)
    game = next(i for i, p in enumerate(round_one) if p["seats"][1] is not None)
    assert round_one[bye]["result"] == "bye" and round_one[bye]["match"] is None
    url = f"/api/v1/leagues/{league['id']}/adjudicate"
    refused = await client.post(
        url, json={"round": 1, "pairing": game, "result": "1-0"}, headers=others[0]["headers"]
    )
    assert refused.status_code == 403 and "host" in refused.json()["detail"]
    for body, status, words in (
        ({"round": 1, "pairing": bye, "result": "1-0"}, 409, "bye"),
        ({"round": 9, "pairing": 0, "result": "1-0"}, 422, "round"),
        ({"round": 1, "pairing": 7, "result": "1-0"}, 422, "pairing"),
        ({"round": 1, "pairing": game, "result": "2-0"}, 422, "result"),
    ):
        answer = await client.post(url, json=body, headers=host["headers"])
        assert answer.status_code == status and words in answer.json()["detail"], answer.text
    assert await league_of(client, league["id"]) == league, "nothing changed"
    decided = await client.post(
        url, json={"round": 1, "pairing": game, "result": "½-½"}, headers=host["headers"]
    )
    assert decided.status_code == 200, decided.text
    pairing = decided.json()["rounds"][0]["pairings"][game]
    assert pairing["result"] == "½-½" and pairing["forfeit"] is True
    match = await view(client, pairing["match"])
    assert match["status"] == "finished" and match["result"]["winner"] is None
    twice = await client.post(
        url, json={"round": 1, "pairing": game, "result": "1-0"}, headers=host["headers"]
    )
    assert twice.status_code == 409 and "already has a result" in twice.json()["detail"]
    assert live(decided.json()) == recomputed(decided.json())


async def test_bad_input_is_refused_with_a_message_and_changes_nothing(client):
    host, friend, late = await people(client, "Thrawn", "Pellaeon", "Rukh")
    bad_bodies = (
        ({"name": "x", "ruleset": "chess", "format": "swiss", "rounds": 2}, "ruleset"),
        ({"name": "x", "ruleset": "kelly", "format": "knockout"}, "format"),
        ({"name": "x", "ruleset": "kelly", "format": "swiss", "rounds": 0}, "rounds"),
        ({"name": "x", "ruleset": "kelly", "format": "swiss", "rounds": 40}, "rounds"),
        ({"name": "x", "ruleset": "kelly", "format": "swiss", "rated": "yes"}, "rated"),
        ({"name": "x", "ruleset": "kelly", "format": "swiss", "surprise": 1}, "surprise"),
        ({"name": "", "ruleset": "kelly", "format": "round-robin"}, "name"),
        (
            {
                "name": "x",
                "ruleset": "kelly",
                "format": "round-robin",
                "options": {"clock": {"per_move_s": 1}},
            },
            "per_move_s",
        ),
    )
    for body, words in bad_bodies:
        answer = await client.post("/api/v1/leagues", json=body, headers=host["headers"])
        assert answer.status_code == 422 and words in answer.json()["detail"], (body, answer.text)
    anonymous = await client.post(
        "/api/v1/leagues", json={"name": "x", "ruleset": "kelly", "format": "swiss"}
    )
    assert anonymous.status_code == 401
    missing = await client.get("/api/v1/leagues/nope")
    assert missing.status_code == 404 and "no league" in missing.json()["detail"]
    league = await make_league(client, host, [friend], format="swiss", rounds=1)
    url = f"/api/v1/leagues/{league['id']}"
    checks = (
        (f"{url}/start", friend, None, 403, "host"),
        (f"{url}/bots", friend, {"bot": "kelly-beginner"}, 403, "host"),
        (
            f"{url}/bots",
            host,
            {"bot": "simeone-beginner"},
            422,
            "bot: simeone-beginner plays simeone, not kelly",
        ),
        (f"{url}/bots", host, {"bot": "nobody"}, 422, "bot"),
        (f"{url}/withdraw", friend, {"player": host["id"]}, 403, "host"),
        (f"{url}/adjudicate", host, {"round": 1, "pairing": 0, "result": "1-0"}, 409, "open"),
    )
    for path, who, body, status, words in checks:
        answer = await client.post(path, json=body, headers=who["headers"])
        assert answer.status_code == status and words in answer.json()["detail"], (path, answer.text)
    assert await league_of(client, league["id"]) == league, "nothing changed"
    league = await start(client, league, host)
    late_join = await client.post(f"{url}/join", headers=late["headers"])
    assert late_join.status_code == 409 and "join only before" in late_join.json()["detail"]
    twice = await client.post(f"{url}/start", headers=host["headers"])
    assert twice.status_code == 409 and "already running" in twice.json()["detail"]
    assert await league_of(client, league["id"]) == league, "nothing changed"
    solo = await make_league(client, late, format="swiss", rounds=1)
    lonely = await client.post(f"/api/v1/leagues/{solo['id']}/start", headers=late["headers"])
    assert lonely.status_code == 409 and "at least 2 players" in lonely.json()["detail"]


async def test_a_bot_the_host_enters_plays_its_league_matches(client):
    host, friend = await people(client, "Luke", "Wedge")
    league = await make_league(client, host, [friend])
    entered = await client.post(
        f"/api/v1/leagues/{league['id']}/bots", json={"bot": "kelly-beginner"}, headers=host["headers"]
    )
    assert entered.status_code == 200, entered.text
    assert entered.json()["players"][-1]["bot"] == "kelly-beginner"
    league = await start(client, entered.json(), host)
    bot_id = league["players"][-1]["id"]
    bot_matches = [
        p["match"]
        for r in league["rounds"]
        for p in r["pairings"]
        if p["match"] and bot_id in {s and s["id"] for s in p["seats"]}
    ]
    assert len(bot_matches) == 2
    by_id = {host["id"]: host, friend["id"]: friend}
    for match_id in bot_matches:  # where the person's turn comes first, they play it
        for _ in range(10):
            current = await view(client, match_id)
            person = next(s for s in current["seats"] if s["player"]["id"] != bot_id)
            if person["seat"] not in current["to_act"]:
                break
            seats = {person["seat"]: by_id[person["player"]["id"]]}
            await play_one(client, match_id, seats, random.Random(1))

    async def bot_moved():  # in each of its matches, the bot in seat 0 as in seat 1
        for match_id in bot_matches:
            log = (await client.get(f"/api/v1/matches/{match_id}/events")).json()["events"]
            seat = next(
                s["seat"] for s in (await view(client, match_id))["seats"] if s["player"]["id"] == bot_id
            )
            if not any(e["seat"] == seat and e["action"]["type"] != "join" for e in log):
                return False
        return True

    assert await eventually(bot_moved, 120), (
        "the bot plays its league matches"
    )  # a busy machine: tests/bots wait 180 s


async def test_a_league_viewer_hears_when_a_league_match_ends(client, live_server):
    host, friend, third = await people(client, "Poe", "Finn", "Rey")
    league = await start(client, await make_league(client, host, [friend, third]), host)
    pairing = next(p for p in league["rounds"][0]["pairings"] if p["match"])
    by_id = {p["id"]: p for p in (host, friend, third)}
    document = (await client.get("/asyncapi.json")).json()
    messages = document["channels"]["league"]["messages"]

    def described(frame):  # every frame as /asyncapi.json's league channel says
        schema = messages[frame["type"]]["payload"]["$ref"].rsplit("/", 1)[1]
        jsonschema.validate(frame, document["components"]["schemas"][schema])
        return frame

    async with connect(f"{live_server.ws_url}/ws/leagues/{league['id']}") as socket:
        assert described(json.loads(await asyncio.wait_for(socket.recv(), 5)))["type"] == "hello"
        await socket.send(json.dumps({"type": "ping"}))
        assert described(json.loads(await asyncio.wait_for(socket.recv(), 5))) == {"type": "pong"}
        await resign(client, pairing["match"], by_id[pairing["seats"][1]["id"]])
        news = described(json.loads(await asyncio.wait_for(socket.recv(), 5)))
        assert news == {"type": "league", "league": league["id"]}
    updated = await league_of(client, league["id"])
    assert (
        next(p for p in updated["rounds"][0]["pairings"] if p["match"] == pairing["match"])["result"] == "1-0"
    )


@pytest.mark.both_databases
async def test_two_servers_record_each_result_and_pair_each_round_once(database_url):
    """Both servers see every match end (the same resignation sent to each at once) and
    both sweep for rounds to pair every 0.2 s: each result and each round is written once.
    A league page open on the other server hears of each result (through the broker)."""
    if database_url.startswith("postgresql"):
        broker = database_url.replace("postgresql+asyncpg://", "postgresql://")
    else:
        broker = reachable_redis(os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0"))
    settings = {"database_url": database_url, "broker_url": broker, "league_sweep_s": 0.2}
    one = LiveServer(Settings(**settings)).start()
    two = LiveServer(Settings(**settings)).start()
    engine = make_engine(database_url)
    try:
        async with (
            httpx.AsyncClient(base_url=one.url, timeout=30) as on_one,
            httpx.AsyncClient(base_url=two.url, timeout=30) as on_two,
        ):
            host, *others = await people(on_one, "Vader", "Tarkin", "Krennic", "Veers")
            by_id = {p["id"]: p for p in (host, *others)}
            league = await start(
                on_two, await make_league(on_one, host, others, format="swiss", rounds=2), host
            )
            first, second = league["rounds"][0]["pairings"]
            async with connect(f"{two.ws_url}/ws/leagues/{league['id']}") as socket:
                assert json.loads(await asyncio.wait_for(socket.recv(), 5))["type"] == "hello"
                await resign(on_one, first["match"], by_id[first["seats"][1]["id"]])  # on server one
                news = json.loads(await asyncio.wait_for(socket.recv(), 10))
                assert news == {"type": "league", "league": league["id"]}, "heard on server two"
            loser = by_id[second["seats"][1]["id"]]
            current = await view(on_one, second["match"])
            body = {"action": {"type": "resign"}, "version": current["version"]}
            url = f"/api/v1/matches/{second['match']}/actions"
            answers = await asyncio.gather(
                on_one.post(url, json=body, headers=loser["headers"]),
                on_two.post(url, json=body, headers=loser["headers"]),
            )
            assert {a.status_code for a in answers} <= {200, 409}, [a.text for a in answers]
            assert any(a.status_code == 200 for a in answers)

            async def paired():
                current = await league_of(on_two, league["id"])
                return current if len(current["rounds"]) == 2 else None

            league = await eventually(paired)
            assert league, "round 2 paired"
            await asyncio.sleep(1)  # both servers' sweeps have looked again meanwhile
            league = await league_of(on_one, league["id"])
            assert [len(r["pairings"]) for r in league["rounds"]] == [2, 2]
            assert [p["result"] for p in league["rounds"][0]["pairings"]] == ["1-0", "1-0"]
            assert live(league) == recomputed(league)
            async with engine.connect() as connection:
                matches = await connection.scalar(
                    select(func.count()).select_from(Match).where(Match.league_id == league["id"])
                )
                games = await connection.scalar(
                    select(func.count()).select_from(LeagueGame).where(LeagueGame.league_id == league["id"])
                )
            assert (matches, games) == (4, 4), "each round's matches and games written once"
            for pairing in league["rounds"][1]["pairings"]:
                await resign(on_two, pairing["match"], by_id[pairing["seats"][0]["id"]])

            async def finished():
                return (await league_of(on_one, league["id"]))["status"] == "finished"

            assert await eventually(finished)
            league = await league_of(on_two, league["id"])
            assert [p["result"] for p in league["rounds"][1]["pairings"]] == ["0-1", "0-1"]
            assert sum(s["points"] for s in league["standings"]) == 4
    finally:
        await engine.dispose()
        one.stop()
        two.stop()


async def with_a_webhook(engine, player) -> None:
    """Give ``player`` a channel (a webhook no test delivers to: only the outbox is read)."""
    async with engine.begin() as connection:
        await connection.execute(
            update(Player).where(Player.id == player["id"]).values(webhook_url="https://example.com/hook")
        )


async def test_each_round_owes_every_player_a_league_round_notice(client, live_server):
    """Written with the round: one per channel a player has (a bot has none), naming their match."""
    host, *others = await people(client, "Hera", "Kanan", "Sabine", "Zeb")
    engine = make_engine(live_server.settings.database_url)
    try:
        await with_a_webhook(engine, host)
        league = await start(client, await make_league(client, host, others, format="swiss", rounds=2), host)
        by_id = {p["id"]: p for p in (host, *others)}
        for pairing in league["rounds"][0]["pairings"]:
            await resign(client, pairing["match"], by_id[pairing["seats"][1]["id"]])

        async def paired():
            current = await league_of(client, league["id"])
            return current if len(current["rounds"]) == 2 else None

        league = await eventually(paired)
        assert league
        async with engine.connect() as connection:
            rows = (
                await connection.execute(
                    select(Outbox.player_id, Outbox.channel, Outbox.match_id, Outbox.text).where(
                        Outbox.event == "league_round"
                    )
                )
            ).all()
        mine = [r for r in rows if r.player_id == host["id"]]
        host_matches = [
            p["match"]
            for r in league["rounds"]
            for p in r["pairings"]
            if host["id"] in {s["id"] for s in p["seats"]}
        ]
        assert [(r.channel, r.match_id) for r in mine] == [("webhook", m) for m in host_matches]
        assert all("Mos Eisley Open" in r.text and "your league match against" in r.text for r in mine)
        assert not [r for r in rows if r.player_id != host["id"] and r.player_id in by_id], (
            "no channel, no notice"
        )
    finally:
        await engine.dispose()


async def test_a_round_robin_s_start_is_one_notice_naming_every_match(client, live_server):
    """Every match of a round-robin opens at its start: each player hears once a channel,
    with every opponent named and their first match linked, not once (or twice, with "your
    turn") a match. A turn later in one of those matches is told as in any match."""
    host, *others = await people(client, "Hera", "Kanan", "Sabine", "Zeb")
    engine = make_engine(live_server.settings.database_url)
    try:
        await with_a_webhook(engine, host)
        league = await start(client, await make_league(client, host, others), host)
        games = [
            (r["round"], p)
            for r in league["rounds"]
            for p in r["pairings"]
            if host["id"] in {s["id"] for s in p["seats"]}
        ]
        assert len(games) == 3
        by_id = {p["id"]: p for p in (host, *others)}
        matches = [p["match"] for _, p in games]
        owed = select(Outbox.event, Outbox.match_id, Outbox.text).where(Outbox.player_id == host["id"])
        async with engine.connect() as connection:
            rows = (await connection.execute(owed)).all()
        assert [(r.event, r.match_id) for r in rows] == [("league_round", matches[0])], rows
        for number, pairing in games:
            opponent = next(s["name"] for s in pairing["seats"] if s["id"] != host["id"])
            assert f"{opponent} (round {number})" in rows[0].text, rows[0].text
        assert "Mos Eisley Open has started" in rows[0].text and "3 league matches" in rows[0].text

        # Play the first match until the opponent has moved and it is the host's turn again:
        # that turn is told.
        first = games[0][1]
        seated = [by_id[s["id"]] for s in first["seats"]]
        mine = next(seat for seat, player in enumerate(seated) if player is host)
        rng, opponent_moved = random.Random(1), False
        for _ in range(20):
            if opponent_moved and mine in (await view(client, first["match"]))["to_act"]:
                break
            seat, _, _ = await play_one(client, first["match"], seated, rng)
            opponent_moved |= seat != mine
        else:
            raise AssertionError("the host's turn never came back")
        async with engine.connect() as connection:
            rows = (await connection.execute(owed)).all()
        assert ("your_turn", first["match"]) in [(r.event, r.match_id) for r in rows], rows
    finally:
        await engine.dispose()


async def test_a_swiss_league_without_rounds_gets_about_log2_of_its_players(client):
    host, *others = await people(client, "Cassian", "Jyn", "K-2SO", "Bodhi", "Chirrut")
    league = await make_league(client, host, others, format="swiss", double=True)
    assert league["total_rounds"] == 0 and league["double"] is False
    league = await start(client, league, host)
    assert league["total_rounds"] == 3 and len(league["rounds"]) == 1
    bye = [p for p in league["rounds"][0]["pairings"] if p["seats"][1] is None]
    assert len(bye) == 1 and bye[0]["result"] == "bye"
    assert sum(s["points"] for s in league["standings"]) == 1, "a Swiss bye is a point"


async def test_the_league_pages_create_join_and_start_a_league(client, live_server):
    """The forms of /leagues/new and /leagues/{id}, as a browser posts them."""
    host, friend, third = await people(client, "Sabine", "Ezra", "Chopper")
    origin = {"Origin": live_server.url}

    def browser(player):
        return httpx.AsyncClient(
            base_url=live_server.url, cookies={"dejarik_token": player["token"]}, headers=origin
        )

    async with browser(host) as as_host, browser(friend) as as_friend, browser(third) as as_third:
        form = await as_host.get("/leagues/new")
        assert form.status_code == 200 and 'action="/leagues"' in form.text and "League name" in form.text
        fields = {
            "name": "Lothal Cup",
            "ruleset": "kelly",
            "options.kelly.turns_without_kill": "50",
            "format": "swiss",
            "rounds": "2",
            "play": "play",
        }
        created = await as_host.post("/leagues", data=fields)
        assert created.status_code == 303, created.text
        url = created.headers["location"]
        league_id = url.rsplit("/", 1)[1]
        for joiner in (as_friend, as_third):
            page = await joiner.get(url)
            assert "Join the league" in page.text and "Invite link" in page.text
            assert (await joiner.post(f"{url}/join")).status_code == 303
        page = await as_host.get(url)
        assert "Start the league" in page.text and "Add a bot" in page.text
        assert (await as_host.post(f"{url}/bots", data={"bot": "kelly-beginner"})).status_code == 303
        refused = await as_friend.post(f"{url}/start")
        assert refused.status_code == 403 and "only the league&#39;s host starts it" in refused.text
        assert (await as_host.post(f"{url}/start")).status_code == 303
        league = await league_of(client, league_id)
        assert league["status"] == "running" and league["total_rounds"] == 2
        assert league["options"]["turns_without_kill"] == 50 and len(league["players"]) == 4
        page = await as_host.get(url)
        assert (
            "Standings" in page.text and "Adjudicate" in page.text and "Withdraw from the league" in page.text
        )
        live = await as_host.get(f"{url}/live")
        assert live.status_code == 200 and 'id="league-live"' in live.text
        bad = await as_host.post("/leagues", data={**fields, "name": ""})
        assert bad.status_code == 422 and "name" in bad.text


async def test_a_swiss_league_that_cannot_pair_its_next_round_says_why_it_ended(client, live_server):
    """Two of four withdraw after round 1, and the two left have met: no round 2 can be paired,
    so the league ends after round 1 of 3, and its page says so and why (the host sees why the
    rounds stopped). With one player left, it says there was nobody to pair."""
    for leaving in (2, 3):
        host, *others = await people(client, "Hera", "Kanan", "Zeb", "Ezra")
        league = await start(client, await make_league(client, host, others, format="swiss", rounds=3), host)
        by_id = {p["id"]: p for p in (host, *others)}
        hosts_game = next(
            p for p in league["rounds"][0]["pairings"] if host["id"] in {s["id"] for s in p["seats"]}
        )
        opponent = next(by_id[s["id"]] for s in hosts_game["seats"] if s["id"] != host["id"])
        rest = [p for p in others if p is not opponent]
        for player in [*rest, opponent][:leaving]:
            left = await client.post(f"/api/v1/leagues/{league['id']}/withdraw", headers=player["headers"])
            assert left.status_code == 200, left.text
        if leaving == 2:
            await resign(client, hosts_game["match"], opponent)

        async def finished(league_id=league["id"]):
            current = await league_of(client, league_id)
            return current if current["status"] == "finished" else None

        league = await eventually(finished)
        assert league and len(league["rounds"]) == 1 and league["total_rounds"] == 3
        async with httpx.AsyncClient(base_url=live_server.url) as browser:
            page = await browser.get(f"/leagues/{league['id']}")
        why = (
            "in every pairing left two players would meet again" if leaving == 2 else "fewer than two players"
        )
        assert "Finished after round 1 of 3" in page.text and why in page.text, page.text
