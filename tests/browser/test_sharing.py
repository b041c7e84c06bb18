"""The embedded board (issue 33) framed by a page of another origin in Chromium: it loads,
follows the match live, and offers nothing to press. ``tests/api/test_sharing.py``
checks its headers and the pictures."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

from app.rules.base import COMMON_ACTION_TYPES
from tests.browser.conftest import join_match, new_match, new_player, rest_act, rest_view
from tests.browser.helpers import open_page


@pytest.fixture
def other_site() -> Iterator[tuple[ThreadingHTTPServer, dict[str, str]]]:
    """A second web server, another origin than the app's (``localhost`` and another port
    against ``127.0.0.1``): it answers every GET with ``page["html"]``."""
    page = {"html": ""}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = page["html"].encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, page
    server.shutdown()
    server.server_close()


def test_another_site_frames_the_live_board(web_server, new_context, other_site):
    host, guest = new_player(web_server, "Lando"), new_player(web_server, "Leia")
    match_id = new_match(web_server, host)
    join_match(web_server, guest, match_id)
    server, served = other_site
    served["html"] = (
        "<!doctype html><title>A fan blog</title><h1>Watch this match</h1>"
        f'<iframe src="{web_server.url}/embed/matches/{match_id}" width="640" height="520"></iframe>'
    )
    blog = open_page(new_context(), f"http://localhost:{server.server_address[1]}/")
    board = blog.frame_locator("iframe")
    expect(board.locator("#tv-connection")).to_have_text("Live")
    match = rest_view(web_server, match_id)
    expect(board.locator("#tv")).to_have_attribute("data-version", str(match["version"]))
    expect(board.locator("[data-piece]")).to_have_count(8)
    expect(board.locator("button:visible")).to_have_count(0)

    # A move made elsewhere (over REST) shows in the frame without a reload.
    seat = match["to_act"][0]
    mover = [host, guest][seat]
    mine = rest_view(web_server, match_id, mover)
    action = next(a for a in mine["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES)
    rest_act(web_server, match_id, mover, action, mine["version"])
    expect(board.locator("#tv")).to_have_attribute("data-version", str(mine["version"] + 1))
    assert blog.js_errors == []
