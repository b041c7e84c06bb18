"""Rematch: offered by a player of a finished match, answered once by the other;
accepted, it is a new match with the same ruleset and options and the seats swapped."""

from __future__ import annotations

from datetime import timedelta

from tests.api.helpers import finish_by_resigning, start_match, view
from tests.conftest import new_player


async def test_a_rematch_offered_and_accepted_swaps_the_seats(client):
    match, players = await start_match(client, "simeone", {"turns_without_kill": 20})
    early = await client.post(f"/api/v1/matches/{match['id']}/rematch", headers=players[0]["headers"])
    assert early.status_code == 409 and "over" in early.json()["detail"]
    finished = await finish_by_resigning(client, match, players)
    assert finished["rematch"] is None
    url = f"/api/v1/matches/{match['id']}/rematch"

    offered = await client.post(url, headers=players[0]["headers"])
    assert offered.status_code == 200 and offered.json()["rematch"] == {
        "status": "offered",
        "by": 0,
        "match": None,
        "expires_at": offered.json()["rematch"]["expires_at"],
    }
    assert (await view(client, match["id"]))["rematch"]["status"] == "offered"
    assert (await client.post(url, headers=players[1]["headers"])).status_code == 409, "one offer at a time"
    own = await client.post(url + "/accept", headers=players[0]["headers"])
    assert own.status_code == 403 and "opponent" in own.json()["detail"]
    stranger = await new_player(client, "Stranger")
    assert (await client.post(url + "/accept", headers=stranger["headers"])).status_code == 403

    accepted = await client.post(url + "/accept", json={"seed": "cd" * 16}, headers=players[1]["headers"])
    assert accepted.status_code == 200, accepted.text
    new = accepted.json()["match"]
    assert new["status"] == "active" and new["ruleset"] == "simeone" and new["options"] == finished["options"]
    assert [s["player"]["id"] for s in new["seats"]] == [players[1]["id"], players[0]["id"]]
    assert new["dice"]["player_seeds"][0] == "cd" * 16 and new["you"]["seat"] == 0
    answered = {"status": "accepted", "by": 0, "match": new["id"], "expires_at": None}
    assert accepted.json()["rematch"] == answered
    assert (await view(client, match["id"]))["rematch"]["match"] == new["id"]
    again = await client.post(url + "/decline", headers=players[1]["headers"])
    assert again.status_code == 409 and "accepted" in again.json()["detail"]


async def test_a_declined_rematch_makes_no_match(client):
    match, players = await start_match(client)
    await finish_by_resigning(client, match, players)
    url = f"/api/v1/matches/{match['id']}/rematch"
    assert (await client.post(url, headers=players[1]["headers"])).status_code == 200
    declined = await client.post(url + "/decline", headers=players[0]["headers"])
    assert declined.json()["rematch"] == {"status": "declined", "by": 1, "match": None, "expires_at": None}
    late = await client.post(url + "/accept", headers=players[0]["headers"])
    assert late.status_code == 409 and "declined" in late.json()["detail"]
    listed = (await client.get("/api/v1/matches", params={"player": players[0]["id"]})).json()["matches"]
    assert [m["id"] for m in listed] == [match["id"]]


async def test_a_bot_accepts_a_rematch_at_once_and_the_new_match_starts_with_it_seated(client):
    human = await new_player(client, "Kessa")
    created = await client.post(
        "/api/v1/matches",
        json={"ruleset": "kelly", "seat": 0, "bots": [{"seat": 1, "bot": "kelly-beginner"}]},
        headers=human["headers"],
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    for _ in range(20):  # the bot may act meanwhile: resign at the version it left
        current = await view(client, match_id)
        resigned = await client.post(
            f"/api/v1/matches/{match_id}/actions",
            json={"action": {"type": "resign"}, "version": current["version"]},
            headers=human["headers"],
        )
        if resigned.status_code != 409:
            break
    assert resigned.status_code == 200, resigned.text

    offered = await client.post(f"/api/v1/matches/{match_id}/rematch", headers=human["headers"])
    assert offered.status_code == 200, offered.text
    answer = offered.json()["rematch"]
    assert answer["status"] == "accepted" and answer["match"], "the bot says yes at once"
    new = await view(client, answer["match"], human)
    assert new["status"] == "active" and new["ruleset"] == "kelly"
    assert new["seats"][0]["bot"]["id"] == "kelly-beginner", "the bot sits a seat further round"
    assert new["seats"][1]["player"]["id"] == human["id"] and new["you"]["seat"] == 1


async def test_an_unanswered_offer_expires_and_either_player_may_offer_again(client, server_clock):
    match, players = await start_match(client)
    await finish_by_resigning(client, match, players)
    url = f"/api/v1/matches/{match['id']}/rematch"
    offered = (await client.post(url, headers=players[0]["headers"])).json()["rematch"]
    assert offered["status"] == "offered" and offered["expires_at"]

    server_clock.skew = timedelta(minutes=6)
    stale = (await view(client, match["id"]))["rematch"]
    assert stale["status"] == "expired" and stale["by"] == 0
    late = await client.post(url + "/accept", headers=players[1]["headers"])
    assert late.status_code == 409 and "expired" in late.json()["detail"]
    listed = (await client.get("/api/v1/matches", params={"player": players[1]["id"]})).json()["matches"]
    assert [m["id"] for m in listed] == [match["id"]], "an expired offer seats nobody"

    again = await client.post(url, headers=players[1]["headers"])
    assert again.status_code == 200, again.text
    assert again.json()["rematch"]["status"] == "offered" and again.json()["rematch"]["by"] == 1
    accepted = await client.post(url + "/accept", headers=players[0]["headers"])
    assert accepted.status_code == 200, accepted.text
    seated = [s["player"]["id"] for s in accepted.json()["match"]["seats"]]
    assert seated == [players[1]["id"], players[0]["id"]], "the new offerer moves a seat round"
