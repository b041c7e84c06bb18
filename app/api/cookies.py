"""The browser's cookie holding its player's token (HttpOnly: page scripts never see it)."""

from __future__ import annotations

from fastapi.responses import Response

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
