"""Cross-site request forgery: a page of another site (or another port of this host)
cannot use the browser's cookie to act; this server's own pages, and the origins
listed in ``allowed_origins``, can. The name form never silently replaces a player."""

from __future__ import annotations

import json

import httpx
import pytest
from websockets.asyncio.client import connect

from app.config import Settings
from tests.api.helpers import start_match, view
from tests.api.hostile import serve
from tests.conftest import new_player

PROXY = "https://dejarik.example"
FOREIGN = ["http://evil.example", "http://127.0.0.1:1", "null", "https://dejarik.example.evil.example"]


@pytest.fixture(scope="module")
def origin_server(database_url):
    yield from serve(Settings(database_url=database_url, allowed_origins=[PROXY]))


def cookie_of(player: dict) -> dict[str, str]:
    return {"Cookie": f"dejarik_token={player['token']}"}


async def test_foreign_pages_cannot_post_forms_with_the_cookie(origin_server):
    async with httpx.AsyncClient(base_url=origin_server.url) as client:
        waiting = await client.post(
            "/api/v1/matches",
            json={"ruleset": "kelly", "seat": 0},
            headers=(await new_player(client, "Host"))["headers"],
        )
        match_id = waiting.json()["id"]
        victim = await new_player(client, "Victim")
        for origin in FOREIGN:
            headers = {**cookie_of(victim), "Origin": origin}
            attempts = [
                await client.post(f"/matches/{match_id}/join/1", headers=headers),
                await client.post("/matches", data={"ruleset": "kelly", "seat": "0"}, headers=headers),
                await client.post("/name", data={"name": "Mallory"}, headers=headers),
                await client.post("/api/v1/matches", json={"ruleset": "kelly"}, headers=headers),
            ]
            for response in attempts:
                assert response.status_code == 403, (origin, response.text)
                assert "cross-site" in response.json()["detail"]
        assert (await view(client, match_id))["seats"][1]["player"] is None, "the victim was not seated"
        mine = await client.get("/api/v1/matches", params={"player": victim["id"]})
        assert mine.json()["matches"] == [], "no match was created as the victim"
        # The same requests from this server's pages (or a listed origin) work.
        for origin in (origin_server.url, PROXY):
            created = await client.post(
                "/matches",
                data={"ruleset": "kelly", "seat": "0"},
                headers={**cookie_of(victim), "Origin": origin},
            )
            assert created.status_code == 303 and created.headers["location"].startswith("/matches/")
        joined = await client.post(
            f"/matches/{match_id}/join/1", headers={**cookie_of(victim), "Origin": origin_server.url}
        )
        assert joined.status_code == 303
        assert (await view(client, match_id))["seats"][1]["player"]["id"] == victim["id"]
        # A script with its bearer token forges nothing: no origin check.
        with_bearer = await client.post(
            "/api/v1/matches",
            json={"ruleset": "kelly"},
            headers={"Authorization": f"Bearer {victim['token']}", "Origin": "http://evil.example"},
        )
        assert with_bearer.status_code == 201


async def test_the_name_form_asks_before_replacing_a_player(origin_server):
    async with httpx.AsyncClient(base_url=origin_server.url) as client:
        own = {"Origin": origin_server.url}
        first = await client.post("/name", data={"name": "Han"}, headers=own)
        assert first.status_code == 303
        token = client.cookies["dejarik_token"]
        asked = await client.post("/name", data={"name": "Greedo"}, headers=own)
        assert asked.status_code == 200 and "Switch player?" in asked.text and "Han" in asked.text
        assert client.cookies["dejarik_token"] == token, "not replaced without confirmation"
        assert (await client.get("/api/v1/players/me")).json()["name"] == "Han"
        confirmed = await client.post("/name", data={"name": "Greedo", "switch": "confirmed"}, headers=own)
        assert confirmed.status_code == 303 and client.cookies["dejarik_token"] != token
        assert (await client.get("/api/v1/players/me")).json()["name"] == "Greedo"


async def test_foreign_pages_cannot_open_the_websocket(origin_server):
    async with httpx.AsyncClient(base_url=origin_server.url) as client:
        match, players = await start_match(client)
    url = f"{origin_server.ws_url}/ws/matches/{match['id']}"
    for origin, cookie in [(o, True) for o in FOREIGN] + [(None, True), ("http://evil.example", False)]:
        headers = {**(cookie_of(players[0]) if cookie else {}), **({"Origin": origin} if origin else {})}
        async with connect(url, additional_headers=headers) as socket:
            refusal = json.loads(await socket.recv())
            assert refusal["type"] == "error" and refusal["code"] == 403, (origin, refusal)
    for origin in (origin_server.url, PROXY):
        async with connect(url, additional_headers={**cookie_of(players[0]), "Origin": origin}) as socket:
            snapshot = json.loads(await socket.recv())
            assert snapshot["type"] == "snapshot" and snapshot["you"]["seat"] == 0
    async with connect(f"{url}?token={players[0]['token']}") as script:  # a bot: token, no Origin
        assert json.loads(await script.recv())["you"]["seat"] == 0


async def test_held_every_state_changing_route_refuses_the_cookie_from_a_foreign_page(origin_server):
    """The audit's 12 routes × 4 foreign origins: 403 with the cookie, and nothing changes.
    The same requests from this server's own page then do act (the routes are real)."""
    async with httpx.AsyncClient(base_url=origin_server.url) as client:
        finished, (victim, other) = await start_match(client)
        resigned = await client.post(
            f"/api/v1/matches/{finished['id']}/actions",
            json={"action": {"type": "resign"}, "version": finished["version"]},
            headers=other["headers"],
        )
        assert resigned.status_code == 200, resigned.text
        running, (_, _) = await start_match(client)
        watched = running["id"]  # the victim talks there as a spectator
        hosted = await client.post(
            "/api/v1/matches", json={"ruleset": "kelly", "seat": None}, headers=victim["headers"]
        )
        assert hosted.status_code == 201, hosted.text
        bot = next(b["id"] for b in (await client.get("/api/v1/bots")).json() if "kelly" in b["rulesets"])
        done, gm = finished["id"], hosted.json()["id"]
        routes = [
            ("POST", "/api/v1/players/me/device-links", {}),
            ("POST", "/api/v1/players/me/passkeys/options", {}),
            ("PATCH", "/api/v1/players/me", {"json": {"name": "Mallory"}}),
            (
                "PUT",
                "/api/v1/players/me/notifications",
                {"json": {"webhook_url": None, "email": "m@evil.example"}},
            ),
            ("POST", f"/api/v1/matches/{watched}/chat", {"json": {"text": "gg", "channel": "spectators"}}),
            ("POST", "/settings/device-link", {}),
            ("POST", "/settings/name", {"data": {"name": "Mallory"}}),
            ("POST", f"/matches/{done}/again", {}),
            ("POST", "/tutorial", {}),
            ("POST", f"/matches/{gm}/bots", {"data": {"seat": "0", "bot": bot}}),
            ("POST", f"/api/v1/matches/{done}/rematch", {}),
            ("POST", "/api/v1/players/me/sign-out", {}),  # last: it ends the victim's token
        ]

        async def state() -> dict:
            me = await client.get("/api/v1/players/me", headers=victim["headers"])
            return {
                "me": me.json(),
                "notifications": (
                    await client.get("/api/v1/players/me/notifications", headers=victim["headers"])
                ).json(),
                "matches": sorted(
                    m["id"]
                    for m in (await client.get("/api/v1/matches", params={"player": victim["id"]})).json()[
                        "matches"
                    ]
                ),
                "chat": (await client.get(f"/api/v1/matches/{watched}/chat?channel=spectators")).json(),
                "seats": (await view(client, gm))["seats"],
                "rematch": (await view(client, done)).get("rematch"),
            }

        before = await state()
        for origin in FOREIGN:
            for method, path, body in routes:
                forged = await client.request(
                    method, path, headers={**cookie_of(victim), "Origin": origin}, **body
                )
                assert forged.status_code == 403, (origin, method, path, forged.text)
                assert "cross-site" in forged.json()["detail"]
                assert "set-cookie" not in forged.headers
        assert await state() == before, "no forged request changed anything"

        for method, path, body in routes:
            own = await client.request(
                method, path, headers={**cookie_of(victim), "Origin": origin_server.url}, **body
            )
            assert own.status_code < 400, (method, path, own.status_code, own.text)
        assert (await client.get("/api/v1/players/me", headers=victim["headers"])).status_code == 401
