"""One identity on every device: rename, device links, sign-out per device, and
tokens that survive the migration to per-device tokens."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from alembic import command
from sqlalchemy import text, update

from app.config import Settings
from app.db import make_engine
from app.migrate import alembic_config
from app.models import DeviceLink
from app.services.players import hash_token
from tests.api.helpers import start_match, view
from tests.conftest import LiveServer, new_player, postgres_database


async def me(client: httpx.AsyncClient, token: str) -> httpx.Response:
    return await client.get("/api/v1/players/me", headers={"Authorization": f"Bearer {token}"})


async def device_link(client: httpx.AsyncClient, player: dict) -> dict:
    response = await client.post("/api/v1/players/me/device-links", headers=player["headers"])
    assert response.status_code == 201, response.text
    return response.json()


async def open_link(live_server: LiveServer, url: str) -> httpx.Response:
    """Open the link as a fresh browser would: no cookie, redirects not followed."""
    async with httpx.AsyncClient(timeout=30) as browser:
        return await browser.get(url)


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

    opened = await open_link(live_server, link["url"])
    assert opened.status_code == 303
    phone_token = opened.cookies[live_server.settings.cookie_name]
    assert phone_token != chewie["token"]
    assert (await me(client, phone_token)).json() == {"id": chewie["id"], "name": "Chewie"}

    again = await open_link(live_server, link["url"])
    assert again.status_code == 410 and "already used" in again.text
    assert live_server.settings.cookie_name not in again.cookies
    assert (await open_link(live_server, link["url"] + "x")).status_code == 410


async def test_an_expired_device_link_signs_nobody_in(client, live_server):
    chewie = await new_player(client, "Chewie")
    link = await device_link(client, chewie)
    secret = link["url"].rsplit("/", 1)[1]
    engine = make_engine(live_server.settings.database_url)
    try:
        async with engine.begin() as connection:
            await connection.execute(
                update(DeviceLink)
                .where(DeviceLink.token_hash == hash_token(secret))
                .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
            )
    finally:
        await engine.dispose()
    opened = await open_link(live_server, link["url"])
    assert opened.status_code == 410 and "expired" in opened.text
    assert live_server.settings.cookie_name not in opened.cookies


async def test_signing_out_ends_only_that_devices_token(client, live_server):
    chewie = await new_player(client, "Chewie")
    opened = await open_link(live_server, (await device_link(client, chewie))["url"])
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
