"""The cross-site check (``app/api/origin.py``) without a server: which ``Origin`` is
this server's own page or a listed one, and which requests the middleware refuses
before the app sees them. ``tests/api/test_origin.py`` tries forms, REST and the
websocket from foreign pages through a live server."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.types import Message

from app.api.origin import OriginCheck, origin_refusal, same_origin
from app.config import Settings

HOST = "127.0.0.1:8000"
OWN = f"http://{HOST}"
PROXY = "https://dejarik.example"
SETTINGS = Settings(allowed_origins=[PROXY])


@pytest.mark.parametrize(
    "origin",
    [
        OWN,
        f"{OWN}/",
        "HTTP://127.0.0.1:8000",
        f"https://{HOST}",  # behind a proxy that ends TLS and keeps the Host
        PROXY,
        "https://Dejarik.Example/",
        f" {PROXY} ",
    ],
)
def test_this_servers_own_pages_and_the_listed_origins_are_accepted(origin: str):
    assert same_origin(origin, HOST, SETTINGS)


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example",
        "http://127.0.0.1:1",  # another port of this host: another site
        "http://127.0.0.1",
        "http://localhost:8000",  # the same machine by another name
        "null",  # a sandboxed frame, a file:// page
        "",
        f"{PROXY}:8443",  # a listed origin's other port
        "http://dejarik.example",  # a listed origin without TLS
        "https://dejarik.example.evil.example",  # a listed origin as a prefix
        "https://evil-dejarik.example",
        f"ftp://{HOST}",  # not a web page
        f"ws://{HOST}",
        f"http://mallory@{HOST}",
    ],
)
def test_other_sites_and_other_ports_are_refused(origin: str):
    assert not same_origin(origin, HOST, SETTINGS), origin


def test_a_request_without_a_host_matches_no_page_of_this_server():
    for host in (None, ""):
        assert not same_origin("http://", host, SETTINGS)
        assert not same_origin(OWN, host, SETTINGS)
    assert same_origin(PROXY, None, SETTINGS), "a listed origin needs no Host"


def test_the_host_is_compared_whatever_its_case():
    assert same_origin("http://dejarik.example", "Dejarik.Example", Settings())


def test_the_refusal_names_the_origin_only_when_it_is_readable():
    assert origin_refusal("http://evil.example") == (
        "a page at http://evil.example may not act on this server (cross-site request refused)"
    )
    for unreadable in ("http://evil.example\r\nSet-Cookie: x", "http://\x00", "http://" + "a" * 300):
        refusal = origin_refusal(unreadable)
        assert "(unreadable)" in refusal and unreadable not in refusal


class Downstream:
    """The app behind the check: answers 204 and remembers that it was reached."""

    def __init__(self) -> None:
        self.reached = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.reached = True
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})


async def answer(method: str, headers: dict[str, str], kind: str = "http") -> tuple[int | None, Any, bool]:
    """(status, JSON body, whether the app was reached) for a request through the check."""
    app = Downstream()
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in {"host": HOST, **headers}.items()]
    scope = {"type": kind, "method": method, "path": "/matches", "headers": raw}
    await OriginCheck(app, SETTINGS)(scope, receive, send)
    start = next((m for m in sent if m["type"] == "http.response.start"), None)
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return (start and start["status"]), (json.loads(body) if body else None), app.reached


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
async def test_a_foreign_page_changing_something_with_the_cookie_gets_a_403(method: str):
    status, body, reached = await answer(
        method, {"origin": "http://evil.example", "cookie": "dejarik_token=t"}
    )
    assert (status, reached) == (403, False)
    assert body == {"detail": origin_refusal("http://evil.example")}


async def test_a_foreign_page_may_read():
    for method in ("GET", "HEAD", "OPTIONS"):
        status, _, reached = await answer(method, {"origin": "http://evil.example"})
        assert (status, reached) == (204, True), method


async def test_scripts_and_this_servers_pages_pass():
    for headers in (
        {},  # no Origin: a script, not a page
        {"origin": "http://evil.example", "authorization": "Bearer t"},  # its own token: nothing to forge
        {"origin": OWN},
        {"origin": PROXY},
    ):
        status, _, reached = await answer("POST", headers)
        assert (status, reached) == (204, True), headers


async def test_the_websocket_handshake_is_left_to_the_websocket():
    """The websocket refuses a foreign origin itself, with a frame the client can read."""
    app = Downstream()
    scope = {"type": "websocket", "path": "/ws", "headers": [(b"origin", b"http://evil.example")]}

    async def nothing(*_: Any) -> Any:
        return {"type": "websocket.connect"}

    await OriginCheck(app, SETTINGS)(scope, nothing, nothing)
    assert app.reached
