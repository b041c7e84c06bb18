"""Every response says what a page may load and that no other site may frame it (the
audit's L12: the match page could be framed, and Resign clickjacked from a sibling site).
``tests/browser/test_security_headers.py`` checks that the pages work under the policy."""

from __future__ import annotations

from app.api.docs import SAME_ORIGIN_ONLY
from app.api.headers import CONTENT_SECURITY_POLICY
from tests.api.helpers import start_match

FIXED = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
}


async def test_l12_pages_and_answers_carry_the_security_headers(client):
    match, _players = await start_match(client)
    for path in (
        "/",
        f"/matches/{match['id']}",
        f"/matches/{match['id']}/table",
        f"/matches/{match['id']}/replay",
        "/rules/kelly",
        f"/api/v1/matches/{match['id']}",
        "/static/js/net.js",
        "/matches/no-such-match",
        "/no/such/page",
    ):
        response = await client.get(path)
        assert response.status_code < 500, path
        for name, value in FIXED.items():
            assert response.headers.get(name) == value, (path, name)
        policy = response.headers["content-security-policy"]
        assert policy == CONTENT_SECURITY_POLICY, path
    directives = dict(d.split(" ", 1) for d in CONTENT_SECURITY_POLICY.split("; "))
    assert directives["default-src"] == "'self'" and directives["frame-ancestors"] == "'none'"
    assert "'unsafe-inline'" not in directives.get("script-src", directives["default-src"])


async def test_the_api_docs_keep_their_own_policy(client):
    for path in ("/docs", "/redoc"):
        response = await client.get(path)
        assert response.headers["content-security-policy"] == SAME_ORIGIN_ONLY, path
        assert response.headers["x-frame-options"] == "DENY"


async def test_refusals_before_the_app_carry_them_too(client):
    response = await client.post("/api/v1/players", content=b"x" * 70_000)
    assert response.status_code == 413
    assert response.headers["x-frame-options"] == "DENY"
