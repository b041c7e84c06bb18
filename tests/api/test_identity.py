"""One identity on every device: rename, device links (asked before they sign in),
devices listed and signed out from another, sign-out per device, and tokens that
survive the migration to per-device tokens."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from alembic import command
from sqlalchemy import text, update

from app.config import Settings
from app.db import make_engine
from app.migrate import alembic_config
from app.models import DeviceLink, PlayerToken
from app.services.players import hash_token
from tests.api.helpers import start_match, view
from tests.conftest import LiveServer, new_player, postgres_database


async def me(client: httpx.AsyncClient, token: str) -> httpx.Response:
    return await client.get("/api/v1/players/me", headers={"Authorization": f"Bearer {token}"})


async def device_link(client: httpx.AsyncClient, player: dict) -> dict:
    response = await client.post("/api/v1/players/me/device-links", headers=player["headers"])
    assert response.status_code == 201, response.text
    return response.json()


FIREFOX_ANDROID = "Mozilla/5.0 (Android 14; Mobile; rv:128.0) Gecko/128.0 Firefox/128.0"
CHROME_WINDOWS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/126.0.0.0 Safari/537.36"
)


def browser(
    live_server: LiveServer, cookie: str | None = None, agent: str = FIREFOX_ANDROID
) -> httpx.AsyncClient:
    """A browser: its own cookie jar (holding ``cookie``, a token), its user agent, and
    the server's own origin on its posts, as a page of the server sends them."""
    client = httpx.AsyncClient(
        base_url=live_server.url, timeout=30, headers={"User-Agent": agent, "Origin": live_server.url}
    )
    if cookie is not None:
        client.cookies.set(live_server.settings.cookie_name, cookie)
    return client


async def open_link(live_server: LiveServer, url: str) -> httpx.Response:
    """Open the link as a fresh browser would: no cookie, redirects not followed."""
    async with browser(live_server) as fresh:
        return await fresh.get(url)


async def confirm_link(live_server: LiveServer, url: str, cookie: str | None = None) -> httpx.Response:
    """Open the link and press its page's button, as a browser (holding ``cookie``) would."""
    async with browser(live_server, cookie) as it:
        asked = await it.get(url)
        assert asked.status_code == 200, asked.text
        return await it.post(url)


def words(response: httpx.Response) -> str:
    """The page's text with its line breaks and indents as single spaces."""
    return " ".join(response.text.split())


async def set_in_database(live_server: LiveServer, statement) -> None:
    engine = make_engine(live_server.settings.database_url)
    try:
        async with engine.begin() as connection:
            await connection.execute(statement)
    finally:
        await engine.dispose()


async def devices_of(client: httpx.AsyncClient, token: str) -> list[dict]:
    response = await client.get("/api/v1/players/me/devices", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text
    return response.json()["devices"]


async def test_a_rename_shows_everywhere_and_a_bad_name_changes_nothing(client):
    match, (blue, _red) = await start_match(client)
    renamed = await client.patch(
        "/api/v1/players/me", json={"name": "  Chewbacca  "}, headers=blue["headers"]
    )
    assert renamed.status_code == 200
    assert renamed.json() == {"id": blue["id"], "name": "Chewbacca"}
    assert (await me(client, blue["token"])).json()["name"] == "Chewbacca"
    seats = (await view(client, match["id"]))["seats"]
    assert seats[0]["player"] == {"id": blue["id"], "name": "Chewbacca"}

    for bad, why in (({"name": "   "}, "empty"), ({"name": "x" * 41}, "40"), ({}, "name")):
        refused = await client.patch("/api/v1/players/me", json=bad, headers=blue["headers"])
        assert refused.status_code == 422 and why in refused.json()["detail"], refused.text
    assert (await me(client, blue["token"])).json()["name"] == "Chewbacca"
    assert (await client.patch("/api/v1/players/me", json={"name": "Han"})).status_code == 401


async def test_a_device_link_signs_in_once_within_ten_minutes(client, live_server):
    chewie = await new_player(client, "Chewie")
    link = await device_link(client, chewie)
    expires = datetime.fromisoformat(link["expires_at"])
    assert timedelta(minutes=9) < expires - datetime.now(UTC) <= timedelta(minutes=10)
    assert link["url"].startswith(live_server.url + "/")

    # Opening it (a previewer, a scanner) only asks: it neither signs in nor spends the link.
    for _ in range(2):
        opened = await open_link(live_server, link["url"])
        assert opened.status_code == 200 and "Sign in as Chewie?" in opened.text
        assert live_server.settings.cookie_name not in opened.cookies

    confirmed = await confirm_link(live_server, link["url"])
    assert confirmed.status_code == 303 and confirmed.headers["location"] == "/"
    phone_token = confirmed.cookies[live_server.settings.cookie_name]
    assert phone_token != chewie["token"]
    assert (await me(client, phone_token)).json() == {"id": chewie["id"], "name": "Chewie"}

    again = await open_link(live_server, link["url"])
    assert again.status_code == 410 and "already used" in again.text
    assert live_server.settings.cookie_name not in again.cookies
    async with browser(live_server) as late:
        spent = await late.post(link["url"])
    assert spent.status_code == 410 and "already used" in spent.text
    assert live_server.settings.cookie_name not in spent.cookies
    assert (await open_link(live_server, link["url"] + "x")).status_code == 410


async def test_m2_opening_a_link_in_a_signed_in_browser_changes_nothing_until_confirmed(client, live_server):
    """The audit's login CSRF (M2): an attacker sends the victim's browser to a link of
    the attacker's player. Opening it must neither replace the victim's cookie nor spend
    the link; a post from the attacker's page is refused."""
    victim, attacker = await new_player(client, "Leia"), await new_player(client, "Boba")
    link = await device_link(client, attacker)
    async with browser(live_server, victim["token"]) as victims_browser:
        opened = await victims_browser.get(link["url"])
        assert opened.status_code == 200
        assert "set-cookie" not in opened.headers
        assert "This browser now plays as <strong>Leia</strong>, who will be signed out and" in words(opened)
        assert "Leia is gone for good" in words(opened)  # no passkey, no other device
        assert (await victims_browser.get("/api/v1/players/me")).json()["name"] == "Leia"

        forged = await victims_browser.post(link["url"], headers={"Origin": "http://evil.example"})
        assert forged.status_code == 403 and "cross-site" in forged.text
        assert "set-cookie" not in forged.headers
        assert (await victims_browser.get("/api/v1/players/me")).json()["name"] == "Leia"
    assert (await me(client, victim["token"])).json()["name"] == "Leia"
    # Still unspent: its owner's own browser signs in with it.
    assert (await confirm_link(live_server, link["url"])).status_code == 303


async def test_m2_confirming_a_link_signs_the_browsers_previous_player_out(client, live_server):
    han, chewie = await new_player(client, "Han"), await new_player(client, "Chewie")
    link = await device_link(client, chewie)
    async with browser(live_server, han["token"]) as hans_browser:
        opened = await hans_browser.get(link["url"])
        assert "unless" not in words(opened) and "Han is gone for good" in words(opened)
        # Han has another device now: the page says that one can bring him back.
        await confirm_link(live_server, (await device_link(client, han))["url"])
        opened = await hans_browser.get(link["url"])
        assert "unless the other device signed in as Han sends this browser a sign-in link" in words(opened)
        confirmed = await hans_browser.post(link["url"])
        assert confirmed.status_code == 303
        assert (await hans_browser.get("/api/v1/players/me")).json()["name"] == "Chewie"
    assert (await me(client, han["token"])).status_code == 401  # forgotten here, and signed out
    assert len(await devices_of(client, chewie["token"])) == 2


async def test_m2_a_link_opened_by_its_own_player_stays_unused(client, live_server):
    chewie = await new_player(client, "Chewie")
    link = await device_link(client, chewie)
    async with browser(live_server, chewie["token"]) as own:
        opened = await own.get(link["url"])
    assert opened.status_code == 200 and "already plays as <strong>Chewie</strong>" in words(opened)
    assert "<form" not in opened.text
    assert (await confirm_link(live_server, link["url"])).status_code == 303


async def test_an_expired_device_link_signs_nobody_in(client, live_server):
    chewie = await new_player(client, "Chewie")
    link = await device_link(client, chewie)
    secret = link["url"].rsplit("/", 1)[1]
    await set_in_database(
        live_server,
        update(DeviceLink)
        .where(DeviceLink.token_hash == hash_token(secret))
        .values(expires_at=datetime.now(UTC) - timedelta(seconds=1)),
    )
    opened = await open_link(live_server, link["url"])
    assert opened.status_code == 410 and "expired" in opened.text
    assert live_server.settings.cookie_name not in opened.cookies
    async with browser(live_server) as late:
        posted = await late.post(link["url"])
    assert posted.status_code == 410 and "expired" in posted.text
    assert live_server.settings.cookie_name not in posted.cookies


async def test_held_guessed_link_secrets_are_gone_and_spend_nothing(client, live_server):
    """The audit's 200 random guesses each got a 410; a handful, the same size as real
    secrets (192 bits), each opened and posted."""
    chewie = await new_player(client, "Chewie")
    link = await device_link(client, chewie)
    base = link["url"].rsplit("/", 1)[0]
    async with browser(live_server) as guesser:
        for _ in range(5):
            guess = f"{base}/{secrets.token_urlsafe(24)}"
            for response in (await guesser.get(guess), await guesser.post(guess)):
                assert response.status_code == 410 and "not valid" in response.text
                assert "set-cookie" not in response.headers
        assert live_server.settings.cookie_name not in guesser.cookies
    # Nothing spent: the real link still asks, then signs in once.
    assert (await open_link(live_server, link["url"])).status_code == 200
    assert (await confirm_link(live_server, link["url"])).status_code == 303
    assert len(await devices_of(client, chewie["token"])) == 2


async def test_signing_out_ends_only_that_devices_token(client, live_server):
    chewie = await new_player(client, "Chewie")
    opened = await confirm_link(live_server, (await device_link(client, chewie))["url"])
    phone_token = opened.cookies[live_server.settings.cookie_name]

    out = await client.post("/api/v1/players/me/sign-out", headers=chewie["headers"])
    assert out.status_code == 204
    assert (await me(client, chewie["token"])).status_code == 401
    assert (await me(client, phone_token)).json()["id"] == chewie["id"]
    assert (await client.post("/api/v1/players/me/sign-out", headers=chewie["headers"])).status_code == 401


async def test_a_bad_passkey_credential_is_refused_clearly(client):
    chewie = await new_player(client, "Chewie")
    options = await client.post("/api/v1/players/me/passkeys/options", headers=chewie["headers"])
    assert options.status_code == 200 and options.json()["challenge"]
    assert options.json()["authenticatorSelection"]["residentKey"] == "required"
    for body in ({}, {"response": {"clientDataJSON": "bm90IGpzb24"}}, {"id": "x", "response": "y"}):
        refused = await client.post("/api/v1/players/me/passkeys", json=body, headers=chewie["headers"])
        assert refused.status_code == 422, refused.text
    login = await client.post("/api/v1/passkeys/login", json={"response": {}})
    assert login.status_code == 422
    assert (await client.post("/api/v1/passkeys/login/options")).json()["challenge"]


async def test_m3_a_player_lists_their_devices_and_signs_the_others_out(client, live_server):
    chewie = await new_player(client, "Chewie")  # httpx's own user agent
    phone = (await confirm_link(live_server, (await device_link(client, chewie))["url"])).cookies
    phone_token = phone[live_server.settings.cookie_name]
    async with browser(live_server, agent=CHROME_WINDOWS) as laptop:
        laptop_token = (await laptop.post((await device_link(client, chewie))["url"])).cookies[
            live_server.settings.cookie_name
        ]
    leia = await new_player(client, "Leia")

    listed = await devices_of(client, chewie["token"])
    assert (listed[0]["name"], listed[0]["current"]) == ("python-httpx", True)
    assert {d["name"] for d in listed[1:]} == {"Firefox Mobile on Android", "Chrome on Windows"}
    assert not any(d["current"] for d in listed[1:])
    for device in listed:
        assert set(device) == {"id", "name", "created_at", "last_used_at", "current"}
        assert len(device["id"]) == 16 and int(device["id"], 16) >= 0
        assert datetime.fromisoformat(device["last_used_at"]) >= datetime.fromisoformat(device["created_at"])
    seen_from_phone = await devices_of(client, phone_token)
    assert seen_from_phone[0]["name"] == "Firefox Mobile on Android" and seen_from_phone[0]["current"]
    assert (await devices_of(client, leia["token"]))[0]["name"] == "python-httpx"  # Leia sees only hers

    phone_id = next(d["id"] for d in listed if d["name"] == "Firefox Mobile on Android")
    own_id = listed[0]["id"]
    leias_id = (await devices_of(client, leia["token"]))[0]["id"]
    path = "/api/v1/players/me/devices/"
    # Another player's device, an unknown one, a malformed id, the caller's own: refused.
    for device_id, status in ((leias_id, 404), ("0123456789abcdef", 404), ("nope", 422), (own_id, 409)):
        refused = await client.delete(path + device_id, headers=chewie["headers"])
        assert refused.status_code == status, refused.text
    assert (await me(client, leia["token"])).status_code == 200
    assert (await me(client, chewie["token"])).status_code == 200

    out = await client.delete(path + phone_id, headers=chewie["headers"])
    assert out.status_code == 204
    assert (await me(client, phone_token)).status_code == 401  # the phone's next request
    assert (await client.delete(path + phone_id, headers=chewie["headers"])).status_code == 404
    assert [d["name"] for d in await devices_of(client, chewie["token"])] == [
        "python-httpx",
        "Chrome on Windows",
    ]

    everywhere = await client.post("/api/v1/players/me/sign-out-others", headers=chewie["headers"])
    assert everywhere.status_code == 200 and everywhere.json() == {"signed_out": 1}
    assert (await me(client, laptop_token)).status_code == 401
    assert (await me(client, chewie["token"])).json()["name"] == "Chewie"
    assert [d["current"] for d in await devices_of(client, chewie["token"])] == [True]
    assert (await me(client, leia["token"])).status_code == 200
    again = await client.post("/api/v1/players/me/sign-out-others", headers=chewie["headers"])
    assert again.json() == {"signed_out": 0}


async def test_m3_signing_a_device_out_with_the_cookie_needs_the_servers_own_page(client, live_server):
    chewie = await new_player(client, "Chewie")
    phone_token = (await confirm_link(live_server, (await device_link(client, chewie))["url"])).cookies[
        live_server.settings.cookie_name
    ]
    phone_id = next(d["id"] for d in await devices_of(client, chewie["token"]) if not d["current"])
    async with browser(live_server, chewie["token"]) as laptop:
        foreign = {"Origin": "http://evil.example"}
        for forged in (
            await laptop.delete(f"/api/v1/players/me/devices/{phone_id}", headers=foreign),
            await laptop.post("/api/v1/players/me/sign-out-others", headers=foreign),
            await laptop.post(f"/settings/devices/{phone_id}/sign-out", headers=foreign),
            await laptop.post("/settings/devices/sign-out-others", headers=foreign),
        ):
            assert forged.status_code == 403, forged.text
        assert (await me(client, phone_token)).status_code == 200
        assert (await laptop.delete(f"/api/v1/players/me/devices/{phone_id}")).status_code == 204
    assert (await me(client, phone_token)).status_code == 401


async def test_m3_a_signed_out_browser_is_told_so(client, live_server):
    chewie = await new_player(client, "Chewie")
    async with browser(live_server) as phone:
        await phone.post((await device_link(client, chewie))["url"])
        assert (await phone.get("/settings")).status_code == 200
        assert (
            await client.post("/api/v1/players/me/sign-out-others", headers=chewie["headers"])
        ).json() == {"signed_out": 1}
        assert (await phone.get("/api/v1/players/me")).status_code == 401
        page = await phone.get("/settings")
        assert page.status_code == 401 and "This browser is signed out" in page.text
        assert f'{live_server.settings.cookie_name}=""' in page.headers["set-cookie"]  # the stale cookie goes
        home = await phone.get("/")
        assert "This browser was signed out" not in home.text  # said once
        assert 'id="name-input"' in home.text


async def test_m3_last_used_is_recorded_at_most_once_a_minute(client, live_server):
    chewie = await new_player(client, "Chewie")
    token_hash = hash_token(chewie["token"])
    long_ago = datetime.now(UTC) - timedelta(hours=2)
    await set_in_database(
        live_server,
        update(PlayerToken).where(PlayerToken.token_hash == token_hash).values(last_used_at=long_ago),
    )
    used = datetime.fromisoformat((await devices_of(client, chewie["token"]))[0]["last_used_at"])
    assert datetime.now(UTC) - used < timedelta(minutes=1)  # the request itself was recorded

    recently = datetime.now(UTC) - timedelta(seconds=30)
    await set_in_database(
        live_server,
        update(PlayerToken).where(PlayerToken.token_hash == token_hash).values(last_used_at=recently),
    )
    for _ in range(3):
        assert (await me(client, chewie["token"])).status_code == 200
    kept = datetime.fromisoformat((await devices_of(client, chewie["token"]))[0]["last_used_at"])
    assert abs(kept - recently) < timedelta(seconds=1)  # not written again within the minute


async def test_i1_device_links_use_the_public_url_when_it_is_set(client, live_server):
    chewie = await new_player(client, "Chewie")
    spoofed = {**chewie["headers"], "Host": "evil.example"}
    from_request = await client.post("/api/v1/players/me/device-links", headers=spoofed)
    assert from_request.json()["url"].startswith("http://evil.example/link/")  # no PUBLIC_URL: the request's

    settings = live_server.settings.model_copy(update={"public_url": "https://dejarik.example/"})
    server = LiveServer(settings).start()
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as other:
            link = await other.post("/api/v1/players/me/device-links", headers=spoofed)
            assert link.status_code == 201
            assert link.json()["url"].startswith("https://dejarik.example/link/")
            other.cookies.set(settings.cookie_name, chewie["token"])
            page = await other.post("/settings/device-link", headers={"Host": "evil.example"})
            assert 'value="https://dejarik.example/link/' in page.text and "evil.example" not in page.text
    finally:
        server.stop()


@pytest.fixture
def fresh_database_url(database_url, tmp_path):
    """An empty database of the same kind as ``database_url``."""
    if database_url.startswith("sqlite"):
        yield f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    else:
        yield from postgres_database()


@pytest.mark.both_databases  # migrations on each database
async def test_tokens_issued_before_the_upgrade_keep_working(fresh_database_url):
    engine = make_engine(fresh_database_url)
    try:
        async with engine.begin() as connection:

            def to_0002(sync_connection) -> None:
                config = alembic_config()
                config.attributes["connection"] = sync_connection
                command.upgrade(config, "0002")

            await connection.run_sync(to_0002)
            await connection.execute(
                text(
                    "INSERT INTO players (id, name, token_hash, created_at) "
                    "VALUES ('old1', 'Old Ben', :h, :at)"
                ),
                {"h": hash_token("a-token-from-before"), "at": datetime.now(UTC)},
            )
    finally:
        await engine.dispose()
    server = LiveServer(Settings(database_url=fresh_database_url)).start()  # migrates to the newest
    try:
        async with httpx.AsyncClient(base_url=server.url) as client:
            assert (await me(client, "a-token-from-before")).json() == {"id": "old1", "name": "Old Ben"}
    finally:
        server.stop()
