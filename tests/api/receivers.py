"""Real receivers for notifications: an HTTP server taking webhooks and an SMTP
server (aiosmtpd) taking email, both on 127.0.0.1, started by the test."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from email import message_from_bytes, policy
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from aiosmtpd.controller import Controller

from tests.conftest import free_port

DELIVERY_WITHIN_S = 2.0
"""Issue 11: each notification arrives within 2 s of the action that owes it."""


class WebhookReceiver:
    """Takes JSON POSTs on any path. ``fail_first`` requests are answered 500;
    while ``hold`` is set, requests are read and then left unanswered."""

    def __init__(self, fail_first: int = 0) -> None:
        self.received: list[tuple[str, dict[str, Any], int]] = []  # (path, body, status answered)
        self.fail_first = fail_first
        self.hold = threading.Event()
        self.release = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if receiver.hold.is_set():
                    receiver.received.append((self.path, body, 0))
                    receiver.release.wait(60)
                    return
                status = 500 if receiver.fail_first > 0 else 204
                receiver.fail_first -= status == 500
                receiver.received.append((self.path, body, status))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def bodies(self, path: str, status: int | None = None) -> list[dict[str, Any]]:
        return [b for p, b, s in self.received if p == path and (status is None or s == status)]

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


class SmtpSink:
    """A real SMTP server (aiosmtpd) that keeps every message it is sent."""

    def __init__(self) -> None:
        self.messages: list[Any] = []
        sink = self

        class Handler:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
                sink.messages.append(message_from_bytes(envelope.content, policy=policy.default))
                return "250 OK"

        self.controller = Controller(Handler(), hostname="127.0.0.1", port=free_port())
        self.controller.start()
        self.url = f"smtp://127.0.0.1:{self.controller.port}"

    def to(self, address: str) -> list[Any]:
        return [m for m in self.messages if m["To"] == address]

    def close(self) -> None:
        self.controller.stop()


async def arrives(check: Any, within: float = DELIVERY_WITHIN_S) -> None:
    """Wait until ``check()`` holds, at most ``within`` seconds."""
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not delivered within {within} s")
        await asyncio.sleep(0.02)
