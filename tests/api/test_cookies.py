"""The sign-in cookie is ``Secure`` whenever the request came over HTTPS (directly, or
through a trusted proxy's ``X-Forwarded-Proto``), or always with ``COOKIE_SECURE``; the
audit's L13 found it never was behind TLS."""

from __future__ import annotations

import httpx
import pytest

from app.config import Settings
from tests.api.hostile import serve


@pytest.fixture
def behind_tls_proxy(database_url):
    """nginx on the same host terminates TLS: ``TRUSTED_PROXIES=["127.0.0.1"]``."""
    yield from serve(Settings(database_url=database_url, trusted_proxies=["127.0.0.1"]))


@pytest.fixture
def always_secure(database_url):
    yield from serve(Settings(database_url=database_url, cookie_secure=True))


async def set_cookie(server, headers: dict[str, str] | None = None) -> str:
    """The ``Set-Cookie`` of choosing a name on the home page's form."""
    async with httpx.AsyncClient(base_url=server.url) as client:
        response = await client.post("/name", data={"name": "Wedge"}, headers=headers or {})
    assert response.status_code == 303, response.text
    return response.headers["set-cookie"]


def secure(cookie: str) -> bool:
    return "secure" in {part.strip().lower() for part in cookie.split(";")[1:]}


async def test_l13_the_cookie_is_secure_over_https_through_a_trusted_proxy(behind_tls_proxy):
    cookie = await set_cookie(behind_tls_proxy, {"X-Forwarded-Proto": "https"})
    assert cookie.startswith("dejarik_token=") and secure(cookie)
    assert "httponly" in cookie.lower() and "samesite=lax" in cookie.lower(), "the rest is kept"
    assert not secure(await set_cookie(behind_tls_proxy)), "plain HTTP: a Secure cookie would be lost"


async def test_l13_an_untrusted_peer_cannot_claim_https(live_server):
    assert not secure(await set_cookie(live_server, {"X-Forwarded-Proto": "https"}))


async def test_l13_cookie_secure_marks_it_secure_even_over_http(always_secure):
    assert secure(await set_cookie(always_secure))
