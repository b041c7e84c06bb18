from __future__ import annotations

import hashlib
import re

import pytest
from sqlalchemy import select

from app.db import make_engine
from app.models import Player
from tests.conftest import new_player


async def test_a_new_player_gets_a_token_that_identifies_them(client):
    chewie = await new_player(client, "  Chewie  ")
    assert chewie["name"] == "Chewie" and len(chewie["token"]) >= 40
    me = await client.get("/api/v1/players/me", headers=chewie["headers"])
    assert me.json() == {"id": chewie["id"], "name": "Chewie"}


async def test_tokens_are_stored_only_hashed(client, live_server):
    chewie = await new_player(client, "Chewie")
    engine = make_engine(live_server.settings.database_url)
    try:
        async with engine.connect() as connection:
            stored = (await connection.execute(select(Player).where(Player.id == chewie["id"]))).one()
    finally:
        await engine.dispose()
    assert stored.token_hash == hashlib.sha256(chewie["token"].encode()).hexdigest()
    assert chewie["token"] not in repr(tuple(stored))


async def test_bad_or_missing_tokens_are_refused_clearly(client):
    missing = await client.get("/api/v1/players/me")
    assert missing.status_code == 401 and "Bearer" in missing.json()["detail"]
    wrong = await client.get("/api/v1/players/me", headers={"Authorization": "Bearer not-a-token"})
    assert wrong.status_code == 401 and "not valid" in wrong.json()["detail"]
    scheme = await client.get("/api/v1/players/me", headers={"Authorization": "Basic abc"})
    assert scheme.status_code == 401


async def test_a_name_must_be_given_and_short(client):
    for body in ({}, {"name": ""}, {"name": "x" * 41}, {"name": 7}, {"name": "   "}):
        response = await client.post("/api/v1/players", json=body)
        assert response.status_code == 422, body
        assert "name" in response.json()["detail"]


@pytest.mark.parametrize(
    "name",
    [
        "\u202eredaolB",
        "Han\u200bSolo",
        "\u2066Leia\u2069",
        "Boba\u00adFett",
        "Lando\ufeff",
        "Greedo\U000e0041",
    ],
)
async def test_l1_a_name_with_bidi_controls_or_invisible_characters_is_refused(client, name):
    """The audit's "\\u202eredaolB" (shown reversed) and zero-width names: 422, saying why,
    on creation and on a rename; the schema's pattern says so too (Schemathesis reads it)."""
    created = await client.post("/api/v1/players", json={"name": name})
    assert created.status_code == 422 and "format characters" in created.json()["detail"], created.text
    han = await new_player(client, "Han")
    renamed = await client.patch("/api/v1/players/me", json={"name": name}, headers=han["headers"])
    assert renamed.status_code == 422 and "format characters" in renamed.json()["detail"]
    assert (await client.get("/api/v1/players/me", headers=han["headers"])).json()["name"] == "Han"
    schemas = (await client.get("/openapi.json")).json()["components"]["schemas"]
    pattern = re.compile(schemas["NewPlayer"]["properties"]["name"]["pattern"])
    assert pattern.search(name) is None and pattern.search("@everyone [win](x) Ñandú 🐉")


async def test_rulesets_list_their_options_as_json_schema(client):
    rulesets = {r["id"]: r for r in (await client.get("/api/v1/rulesets")).json()}
    assert "kelly" in rulesets
    kelly = rulesets["kelly"]
    assert kelly["seats"] == 2 and kelly["name"]
    option = kelly["options"]["properties"]["turns_without_kill"]
    assert option["default"] == 100 and option["minimum"] == 0


@pytest.mark.both_databases  # it names the database
async def test_health_reports_the_database(client, database_url):
    health = await client.get("/healthz")
    assert health.status_code == 200
    assert health.json()["database"] == ("sqlite" if database_url.startswith("sqlite") else "postgresql")


async def test_the_openapi_schema_documents_the_contract(client):
    paths = (await client.get("/openapi.json")).json()["paths"]
    for path in (
        "/api/v1/players",
        "/api/v1/rulesets",
        "/api/v1/matches",
        "/api/v1/matches/{match_id}/actions",
    ):
        assert path in paths
    assert (await client.get("/docs")).status_code == 200
