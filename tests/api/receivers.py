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
    """Takes JSON POSTs on any path, at ``host`` (any 127.x address) and ``port`` (a
    free one unless given), and keeps each request's ``Host`` header. ``fail_first``
    requests are answered ``fail_status`` (500); while ``hold`` is set, requests are read
    and then left unanswered."""

    def __init__(
        self, fail_first: int = 0, host: str = "127.0.0.1", port: int | None = None, fail_status: int = 500
    ) -> None:
        self.received: list[tuple[str, dict[str, Any], int]] = []  # (path, body, status answered)
        self.host_headers: list[str] = []
        self.fail_first = fail_first
        self.hold = threading.Event()
        self.release = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                receiver.host_headers.append(self.headers["Host"])
                if receiver.hold.is_set():
                    receiver.received.append((self.path, body, 0))
                    receiver.release.wait(60)
                    return
                status = fail_status if receiver.fail_first > 0 else 204
                receiver.fail_first -= status == fail_status
                receiver.received.append((self.path, body, status))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer((host, port or free_port()), Handler)
        self.server.daemon_threads = True
        self.url = f"http://{host}:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def bodies(self, path: str, status: int | None = None) -> list[dict[str, Any]]:
        return [b for p, b, s in self.received if p == path and (status is None or s == status)]

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


class StreamingReceiver:
    """Takes JSON POSTs and answers 200 with a reply it streams: ``size`` bytes as fast
    as the client takes them (a huge reply), or, with ``size=None``, a chunked reply of
    one byte every ``every_s`` seconds that never ends (a slow receiver). It counts the
    bytes the client took, the requests, and the most connections it had open at once."""

    def __init__(self, size: int | None, every_s: float = 0.5) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.sent = 0
        self.open = self.most_open = 0
        lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with lock:
                    receiver.bodies.append(body)
                    receiver.open += 1
                    receiver.most_open = max(receiver.most_open, receiver.open)
                try:
                    self.send_response(200)
                    if size is None:
                        self.send_header("Transfer-Encoding", "chunked")
                        self.end_headers()
                        while True:
                            self.wfile.write(b"1\r\nx\r\n")
                            self.wfile.flush()
                            time.sleep(every_s)
                    self.send_header("Content-Length", str(size))
                    self.end_headers()
                    chunk, left = b"x" * 65536, size
                    while left > 0:
                        self.wfile.write(chunk[:left])
                        with lock:
                            receiver.sent += min(left, len(chunk))
                        left -= len(chunk)
                except OSError:  # the client closed the connection
                    pass
                finally:
                    with lock:
                        receiver.open -= 1
                self.close_connection = True

            def log_message(self, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            request_queue_size = 256  # many connections at once, as a real server takes them
            daemon_threads = True

        self.server = Server(("127.0.0.1", free_port()), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class SmtpSink:
    """A real SMTP server (aiosmtpd) that keeps every message it is sent, and the
    recipients each was sent to (``RCPT TO``)."""

    def __init__(self, delay_s: float = 0.0) -> None:
        """``delay_s``: how long it takes to answer a message's DATA (a slow mail server)."""
        self.messages: list[Any] = []
        self.recipients: list[list[str]] = []
        sink = self

        class Handler:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
                await asyncio.sleep(delay_s)
                sink.recipients.append(list(envelope.rcpt_tos))
                sink.messages.append(message_from_bytes(envelope.content, policy=policy.default))
                return "250 OK"

        self.controller = Controller(Handler(), hostname="127.0.0.1", port=free_port())
        self.controller.start()
        self.url = f"smtp://127.0.0.1:{self.controller.port}"

    def to(self, address: str) -> list[Any]:
        return [m for m in self.messages if m["To"] == address]

    def rcpt_to(self, address: str) -> list[list[str]]:
        """The envelope recipients of each message whose ``To`` is ``address``."""
        return [r for m, r in zip(self.messages, self.recipients, strict=True) if m["To"] == address]

    def close(self) -> None:
        self.controller.stop()


async def arrives(check: Any, within: float = DELIVERY_WITHIN_S) -> None:
    """Wait until ``check()`` holds, at most ``within`` seconds."""
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not delivered within {within} s")
        await asyncio.sleep(0.02)
