"""The browser's cookie holding its player's token (HttpOnly: page scripts never see it).

It is ``Secure`` (sent back over HTTPS only) whenever the request that set it came over
HTTPS, directly or through a trusted proxy's ``X-Forwarded-Proto`` (``TRUSTED_PROXIES``),
or always with ``COOKIE_SECURE``. The routes set it through :func:`set_token_cookie`;
:class:`SecureCookies` adds ``Secure`` to the cookies of HTTPS responses.
"""

from __future__ import annotations

from fastapi.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import Settings

COOKIE_MAX_AGE = 400 * 24 * 3600  # the longest browsers keep a cookie


def set_token_cookie(response: Response, settings: Settings, token: str) -> None:
    response.set_cookie(
        settings.cookie_name,
        token,
        max_age=COOKIE_MAX_AGE,
        httponly=True,
        samesite="lax",
        secure=settings.cookie_secure,
        path="/",
    )


def clear_token_cookie(response: Response, settings: Settings) -> None:
    response.delete_cookie(
        settings.cookie_name, path="/", httponly=True, samesite="lax", secure=settings.cookie_secure
    )


def secure(set_cookie: bytes) -> bytes:
    """A ``Set-Cookie`` value marked ``Secure`` (unchanged if it is already)."""
    attributes = {part.strip().lower() for part in set_cookie.split(b";")[1:]}
    return set_cookie if b"secure" in attributes else set_cookie + b"; Secure"


class SecureCookies:
    """Mark every cookie of a response to an HTTPS request ``Secure``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("scheme") != "https":
            await self.app(scope, receive, send)
            return

        async def send_secure(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    (name, secure(value) if name.lower() == b"set-cookie" else value)
                    for name, value in message.get("headers", ())
                ]
            await send(message)

        await self.app(scope, receive, send_secure)
