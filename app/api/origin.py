"""Cross-site request forgery: only the server's own pages may use the browser's cookie.

A browser sends ``Origin`` with every form post, every ``fetch`` that changes
something and every websocket handshake. A request that changes something and
does not authenticate with an ``Authorization`` header (so the cookie would sign
it in) is refused when its ``Origin`` is another site's, or another port of this
host. Requests with no ``Origin`` come from scripts, not pages (a script holds the
token itself, so there is nothing to forge); on the websocket, where the cookie is
the credential, a handshake without ``Origin`` that relies on the cookie is refused.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.errors import refuse
from app.config import Settings

SAFE_METHODS = {b"GET", b"HEAD", b"OPTIONS"}


def same_origin(origin: str, host: str | None, settings: Settings) -> bool:
    """Whether a page at ``origin`` belongs to this server (seen as ``host``) or to
    one of ``settings.allowed_origins``."""
    origin = origin.strip().rstrip("/").lower()
    if origin in {o.strip().rstrip("/").lower() for o in settings.allowed_origins}:
        return True
    parts = urlsplit(origin)
    return bool(host) and parts.scheme in ("http", "https") and parts.netloc == (host or "").lower()


def origin_refusal(origin: str) -> str:
    shown = origin if origin.isprintable() and len(origin) <= 200 else "(unreadable)"
    return f"a page at {shown} may not act on this server (cross-site request refused)"


class OriginCheck:
    """Refuse state-changing requests that a foreign page sent with the cookie (403)."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"].encode() not in SAFE_METHODS:
            headers = dict(scope["headers"])
            origin = headers.get(b"origin")
            if origin is not None and b"authorization" not in headers:
                text = origin.decode("latin-1")
                if not same_origin(text, headers.get(b"host", b"").decode("latin-1"), self.settings):
                    await refuse(send, 403, origin_refusal(text))
                    return
        await self.app(scope, receive, send)
