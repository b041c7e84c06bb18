"""Real receivers for notifications: an HTTP server taking webhooks, an SMTP server
(aiosmtpd) taking email and a Web Push service, all on 127.0.0.1, started by the test."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import threading
import time
import uuid
from email import message_from_bytes, policy
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from aiosmtpd.controller import Controller
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

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


class PushService:
    """A Web Push service on 127.0.0.1, as a browser's push service takes pushes: each POST
    to a subscription's endpoint must carry a VAPID JWT (RFC 8292) signed with
    ``public_key`` (the key the server published: set it before pushes come) for this
    service's own origin and not expired; its body is decrypted (RFC 8291, ``aes128gcm``,
    by ``http_ece``) with the subscription's private key and auth secret, made by
    :meth:`subscription`, and kept in ``received`` as (endpoint path, JSON). An endpoint
    in ``gone`` is answered 410; a push that fails a check, 400 (kept in ``refused``).
    :meth:`down` refuses connections until :meth:`up`."""

    def __init__(self) -> None:
        self.public_key = ""
        self.received: list[tuple[str, dict[str, Any]]] = []
        self.refused: list[str] = []
        self.gone: set[str] = set()
        self._keys: dict[str, tuple[ec.EllipticCurvePrivateKey, bytes]] = {}
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server: ThreadingHTTPServer | None = None
        self.up()

    def subscription(self) -> dict[str, Any]:
        """A browser's ``PushSubscription.toJSON()``: a new endpoint here, with a real
        P-256 key pair and a 16-byte auth secret."""
        path = f"/push/{uuid.uuid4().hex}"
        private_key, secret = ec.generate_private_key(ec.SECP256R1()), os.urandom(16)
        self._keys[path] = (private_key, secret)
        point = private_key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        keys = {"p256dh": b64url(point), "auth": b64url(secret)}
        return {"endpoint": self.url + path, "keys": keys}

    def to(self, endpoint: str) -> list[dict[str, Any]]:
        """What was pushed to ``endpoint`` (a subscription's), decrypted."""
        return [body for path, body in self.received if self.url + path == endpoint]

    def check(self, path: str, headers: Any, body: bytes) -> dict[str, Any]:
        scheme, _, params = headers.get("Authorization", "").partition(" ")
        fields = dict(part.split("=", 1) for part in params.split(",") if "=" in part)
        assert scheme == "vapid" and fields.get("k") == self.public_key, "not signed with the published key"
        signed, _, signature = fields["t"].rpartition(".")
        raw = unb64url(signature)
        key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(self.public_key))
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        key.verify(der, signed.encode(), ec.ECDSA(hashes.SHA256()))  # InvalidSignature if not
        header, claims = (json.loads(unb64url(part)) for part in signed.split("."))
        assert header["alg"] == "ES256", header
        assert claims["aud"] == self.url and claims["exp"] > time.time(), claims
        assert headers["Content-Encoding"] == "aes128gcm" and int(headers["TTL"]) > 0
        private_key, secret = self._keys[path]
        plain = http_ece.decrypt(body, private_key=private_key, auth_secret=secret, version="aes128gcm")
        return json.loads(plain)

    def up(self) -> None:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.path in service.gone:
                    status = 410
                else:
                    try:
                        service.received.append((self.path, service.check(self.path, self.headers, body)))
                        status = 201
                    except Exception as error:
                        service.refused.append(f"{type(error).__name__}: {error}")
                        status = 400
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def down(self) -> None:
        """Nothing listens at the port: connections are refused."""
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    close = down


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


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
