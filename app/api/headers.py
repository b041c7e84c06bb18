"""Security headers on every HTTP response: what a page may load, and who may frame it.

The pages load only their own scripts, styles and images (``/static``), talk only to this
server (``fetch``; the websocket: ``'self'`` covers ``ws:``/``wss:`` of the same host in
CSP 3) and may not be framed, so another site (or another port of this host) cannot
clickjack Resign or Accept the draw; only the read-only embedded board (``/embed/``) may
be framed, by any site. Inline style attributes are allowed: the board
sets a few (``static/js/render.js``, ``art.js``); inline scripts are not. A response
that sets its own policy keeps it (``/docs`` and ``/redoc``, ``app/api/docs.py``).
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "img-src 'self' data:",  # the empty favicon (``data:,``) that spares a 404
        "style-src 'self'",
        "style-src-attr 'unsafe-inline'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
FRAMEABLE_PREFIX = "/embed/"
"""The read-only embedded board (``app/api/sharing.py``): any site may frame it. It has
no controls and acts for nobody (it watches as an anonymous spectator), so there is
nothing to clickjack; everything else stays unframeable."""
FRAMEABLE_POLICY = CONTENT_SECURITY_POLICY.replace("frame-ancestors 'none'", "frame-ancestors *")
FRAMEABLE_HEADERS = {name: value for name, value in HEADERS.items() if name != "X-Frame-Options"}


class SecurityHeaders:
    """Add the headers above to every HTTP response (never overriding one it set)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                frameable = scope["path"].startswith(FRAMEABLE_PREFIX)
                policy = FRAMEABLE_POLICY if frameable else CONTENT_SECURITY_POLICY
                headers.setdefault("Content-Security-Policy", policy)
                for name, value in (FRAMEABLE_HEADERS if frameable else HEADERS).items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)
