"""The OpenAPI schema documents the error bodies the server really sends."""

from __future__ import annotations

from app.api.errors import ErrorBody
from tests.api.helpers import start_match


async def test_documented_error_shapes_match_the_real_ones(client):
    spec = (await client.get("/openapi.json")).json()
    action = spec["paths"]["/api/v1/matches/{match_id}/actions"]["post"]["responses"]
    for status in ("400", "422", "429", "503"):
        assert action[status]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/ErrorBody"
        }
    for status in ("429", "503"):
        assert "Retry-After" in action[status]["headers"]
    assert "HTTPValidationError" not in spec["components"]["schemas"], (
        "FastAPI's default 422 shape is not sent"
    )

    match, players = await start_match(client)
    url = f"/api/v1/matches/{match['id']}/actions"
    headers = {**players[0]["headers"], "content-type": "application/json"}
    for body in (b'{"action": {}, "version": "two"}', b'{"action": {"x": NaN}, "version": 1}', b"{"):
        response = await client.post(url, content=body, headers=headers)
        assert response.status_code == 422
        error = ErrorBody.model_validate(response.json())
        assert error.detail and error.errors and error.errors[0].loc[0] == "body", response.json()
    stale = await client.post(url, json={"action": {}, "version": 0}, headers=headers)
    assert stale.status_code == 409 and ErrorBody.model_validate(stale.json()).version == match["version"]
