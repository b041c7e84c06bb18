"""Webhook delivery against hostile receivers (the security audit's H2, M1 and M6): a
huge reply, a slow receiver beside another player's, and addresses that hide a private
IPv4 or change between the check and the connection. Real receivers on loopback
(``tests/api/receivers.py``) take what the server sends; the attacker's notices are
written into the outbox as the turns that owe them would write them."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from sqlalchemy import insert, select

from app.config import Settings
from app.db import make_engine
from app.migrate import upgrade
from app.models import Outbox, Player, utcnow
from app.services.errors import Invalid
from app.services.notifier import Notifier, check_webhook_url
from app.services.store import store_for
from tests.api.receivers import StreamingReceiver, WebhookReceiver, arrives
from tests.conftest import LiveServer, free_port, new_player, postgres_database

OUTBOX = Outbox.__table__


@pytest.fixture(params=["sqlite", "postgresql"])
def each_database(request, tmp_path) -> Iterator[str]:
    """A database of its own (every server on a database delivers its outbox)."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'dejarik.db'}"
    else:
        yield from postgres_database()


@pytest.fixture
def sqlite_database(tmp_path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'dejarik.db'}"


def serving(database_url: str, **settings: Any) -> LiveServer:
    """A server that allows webhooks to 127.0.0.1 and retries and polls quickly."""
    fast = {"notify_retry_s": 0.2, "notify_poll_s": 0.2, **settings}
    return LiveServer(Settings(database_url=database_url, webhook_allow_private=True, **fast)).start()


async def with_webhook(http: httpx.AsyncClient, name: str, url: str) -> dict:
    player = await new_player(http, name)
    settings = {"webhook_url": url, "email": None}
    response = await http.put("/api/v1/players/me/notifications", json=settings, headers=player["headers"])
    assert response.status_code == 200, response.text
    return player


async def owe(database_url: str, player_id: str, versions: range) -> None:
    """The "your turn" notices of as many turns (one a version), due now."""
    engine = make_engine(database_url, pool_size=1)
    rows = [
        {
            "player_id": player_id,
            "channel": "webhook",
            "event": "your_turn",
            "match_id": "attack",
            "ruleset": "kelly",
            "version": version,
            "text": "Your turn",
        }
        for version in versions
    ]
    try:
        async with engine.begin() as connection:
            await connection.execute(insert(OUTBOX), rows)
    finally:
        await engine.dispose()


async def settled(database_url: str, player_id: str, within: float) -> list[Any]:
    """The player's outbox rows once every one is done (at most ``within`` seconds)."""
    engine = make_engine(database_url, pool_size=1)
    deadline = time.monotonic() + within
    try:
        while True:
            async with engine.connect() as connection:
                rows = list(await connection.execute(select(OUTBOX).where(OUTBOX.c.player_id == player_id)))
            if all(row.done_at is not None for row in rows):
                return rows
            assert time.monotonic() < deadline, f"not settled within {within} s: {rows}"
            await asyncio.sleep(0.2)
    finally:
        await engine.dispose()


async def test_h2_a_huge_webhook_reply_is_not_read(sqlite_database):
    """The audit's 300 MB reply grew the server by 630 MB: now a few KB of a reply are
    read and the connection is closed, and the notice is delivered at once."""
    huge = StreamingReceiver(size=128 * 2**20)
    server = serving(sqlite_database)
    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            player = await with_webhook(http, "Jabba", f"{huge.url}/hook")
        await owe(sqlite_database, player["id"], range(1, 2))
        (row,) = await settled(sqlite_database, player["id"], within=5)
        assert (row.outcome, row.attempts) == ("delivered", 1)
        assert len(huge.bodies) == 1
        # What the receiver got rid of: what the client read plus the sockets' buffers.
        assert huge.sent < 16 * 2**20, f"{huge.sent} bytes of the reply were taken"
    finally:
        server.stop()
        huge.close()


async def test_m1_a_slow_receiver_holds_up_only_its_own_notices_and_gives_up_in_time(each_database):
    """A receiver that trickles one byte at a time: its deliveries end at the deadline
    (never re-claimed while running, never past the try limit, two at a time), while
    another player's notice, owed after all of them, arrives at once."""
    slow = StreamingReceiver(size=None, every_s=0.05)
    quick = WebhookReceiver(host="127.0.0.2")  # another destination
    tries = 3
    server = serving(each_database, notify_lease_s=4, notify_max_attempts=tries, webhooks_per_host=2)
    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            attacker = await with_webhook(http, "Greedo", f"{slow.url}/slow")
            victim = await with_webhook(http, "Han", f"{quick.url}/quick")
        await owe(each_database, attacker["id"], range(1, 111))  # more than httpx's 100 connections
        await owe(each_database, victim["id"], range(1, 2))
        await arrives(lambda: quick.bodies("/quick", status=204), within=5)
        assert slow.bodies, "the slow receiver was reached"
        rows = await settled(each_database, attacker["id"], within=60)
        assert {row.outcome for row in rows} == {"failed"}
        assert all(row.last_error.startswith("TimeoutError") for row in rows)  # the deadline ended each
        assert max(row.attempts for row in rows) == tries
        per_notice = Counter(body["match"]["version"] for body in slow.bodies)
        assert max(per_notice.values()) <= tries  # never re-claimed while a try ran
        # Two at a time. The receiver sees a connection closed only when a later write of
        # its own fails, which a loaded machine delays: a few more may still count as open
        # here, where the code before M1's fix held every one of the 110 open at once.
        assert slow.most_open <= 8, slow.most_open
        (row,) = await settled(each_database, victim["id"], within=5)
        assert (row.outcome, row.attempts) == ("delivered", 1)
    finally:
        server.stop()
        slow.close()
        quick.close()


AUDIT_URLS = (
    "http://[64:ff9b::a9fe:a9fe]/latest/meta-data/",  # NAT64 of 169.254.169.254
    "http://[64:ff9b::a00:1]/",  # NAT64 of 10.0.0.1
    "http://[::a9fe:a9fe]/latest/meta-data/",  # IPv4-compatible
    "http://[::127.0.0.1]:18799/",
    "http://[2002:a9fe:a9fe::]/",  # 6to4
    "http://[64:ff9b:1::a00:1]/",  # local-use NAT64
    "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",  # Teredo
    "http://[::ffff:10.0.0.1]/",  # IPv4-mapped
)


@pytest.mark.parametrize("url", AUDIT_URLS)
async def test_m6_ipv6_forms_of_an_ipv4_address_are_refused(url):
    with pytest.raises(Invalid, match="private"):
        await check_webhook_url(url, allow_private=False)


@pytest.mark.parametrize("url", ["http://8.8.8.8/hook", "https://[2606:4700:4700::1111]:8443/hook"])
async def test_m6_public_addresses_are_still_taken(url):
    assert await check_webhook_url(url, allow_private=False) == url


async def test_m6_a_webhook_goes_to_the_address_that_was_checked(sqlite_database, monkeypatch):
    """DNS rebinding: a name whose first answer is public and whose next is private (TTL
    0) once passed the check and was then looked up again to connect. Here 127.0.0.2
    stands for a public host and 127.0.0.1 for a private one; each receiver keeps the
    Host header it was sent."""
    port = free_port()
    public, private = WebhookReceiver(host="127.0.0.2", port=port), WebhookReceiver(port=port)
    global_ = ipaddress.IPv4Address.is_global
    monkeypatch.setattr(
        ipaddress.IPv4Address,
        "is_global",
        property(lambda ip: str(ip) == "127.0.0.2" or global_.fget(ip)),  # type: ignore[attr-defined]
    )
    lookups: list[str] = []
    resolve = socket.getaddrinfo

    def rebinding(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in ("rebind.test", b"rebind.test"):  # anyio asks in IDNA bytes
            return resolve(host, *args, **kwargs)
        lookups.append("rebind.test")
        answer = "127.0.0.2" if len(lookups) == 1 else "127.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (answer, port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    url = f"http://rebind.test:{port}/hook"
    engine = make_engine(sqlite_database, pool_size=1)
    await upgrade(engine)
    player_id = uuid.uuid4().hex
    async with engine.begin() as connection:
        values = {"id": player_id, "name": "Boba", "token_hash": uuid.uuid4().hex, "created_at": utcnow()}
        await connection.execute(insert(Player.__table__).values(webhook_url=url, **values))
    store = store_for(engine)
    notifier = Notifier(store, Settings(database_url=sqlite_database, notify_retry_s=0.2, notify_poll_s=0.2))
    await notifier.start()
    try:
        await owe(sqlite_database, player_id, range(1, 2))
        notifier.poke()
        (row,) = await settled(sqlite_database, player_id, within=10)
        assert private.received == []
        assert [path for path, _, _ in public.received] == ["/hook"]
        assert public.host_headers == [f"rebind.test:{port}"]
        assert (row.outcome, lookups) == ("delivered", ["rebind.test"])  # looked up once
    finally:
        await notifier.stop()
        await store.close()
        await engine.dispose()
        public.close()
        private.close()


async def test_m6_a_webhook_at_a_name_keeps_its_host_header(sqlite_database):
    """Connecting to the checked address still names the host: ``localhost``, resolved
    once, is reached with ``Host: localhost:<port>``."""
    receiver = WebhookReceiver()
    port = receiver.url.rsplit(":", 1)[1]
    server = serving(sqlite_database)
    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            player = await with_webhook(http, "Bossk", f"http://localhost:{port}/named")
        await owe(sqlite_database, player["id"], range(1, 2))
        await arrives(lambda: receiver.bodies("/named", status=204), within=5)
        assert receiver.host_headers == [f"localhost:{port}"]
    finally:
        server.stop()
        receiver.close()


async def test_l1_a_name_pings_nobody_and_links_nowhere_on_discord(sqlite_database):
    """The audit's opponent renamed itself "@everyone …": the victim's webhook got the
    name verbatim and no ``allowed_mentions``, so Discord pinged the whole server."""
    receiver = WebhookReceiver()
    server = serving(sqlite_database)
    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            victim = await with_webhook(http, "Han", f"{receiver.url}/hook")
            rogue = await new_player(http, "Rogue")
            renamed = await http.patch(
                "/api/v1/players/me",
                json={"name": "@everyone [win](https://evil.example/x)"},
                headers=rogue["headers"],
            )
            assert renamed.status_code == 200, renamed.text
            created = await http.post(
                "/api/v1/matches", json={"ruleset": "kelly", "seat": 1}, headers=rogue["headers"]
            )
            assert created.status_code == 201, created.text
            match_id = created.json()["id"]
            joined = await http.post(
                f"/api/v1/matches/{match_id}/join", json={"seat": 0}, headers=victim["headers"]
            )
            assert joined.status_code == 200, joined.text
            url = f"/api/v1/matches/{match_id}"
            while (match := (await http.get(url, headers=rogue["headers"])).json())["to_act"] == [1]:
                # The dice let the rogue start: its turn played, it is Han's.
                move = next(a for a in match["legal_actions"] if a["type"] == "move")
                body = {"action": move, "version": match["version"]}
                played = await http.post(f"{url}/actions", json=body, headers=rogue["headers"])
                assert played.status_code == 200, played.text
        await arrives(lambda: receiver.bodies("/hook"), within=10)
        (body,) = receiver.bodies("/hook")
        assert body["allowed_mentions"] == {"parse": []}
        assert r"against \@everyone \[win\]\(https\://evil.example/x\)." in body["content"]
    finally:
        server.stop()
        receiver.close()


class Redirecting:
    """Answers every POST with a 302 to ``target``."""

    def __init__(self, target: str) -> None:
        self.posts = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                receiver.posts += 1
                self.send_response(302)
                self.send_header("Location", target)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize(
    ("receiver", "tries", "error"),
    [("failing", 8, "HTTPStatusError"), ("redirecting", 3, "HTTPStatusError"), ("silent", 2, "TimeoutError")],
)
async def test_held_a_bad_receiver_is_retried_with_doubling_backoff_up_to_the_limit(
    sqlite_database, receiver, tries, error
):
    """The audit's held cases: a 500 receiver is retried with doubling waits and at most
    ``NOTIFY_MAX_ATTEMPTS`` tries; a 302 is not followed; a receiver that never answers
    is given up at the deadline. The notifier's clock is set to each retry's time in
    turn, so nothing waits for the backoff."""
    target = WebhookReceiver(port=free_port())  # where the redirect points
    hooks = {"failing": WebhookReceiver(fail_first=100), "silent": WebhookReceiver()}
    if receiver == "redirecting":
        hook: Any = Redirecting(f"{target.url}/stolen")
    else:
        hook = hooks[receiver]
    hooks["silent"].hold.set()
    retry_s = 2.0
    settings = Settings(
        database_url=sqlite_database,
        webhook_allow_private=True,
        notify_retry_s=retry_s,
        notify_max_attempts=tries,
        notify_deadline_s=0.3 if receiver == "silent" else 5.0,
        notify_poll_s=3600,  # only the test's calls deliver
    )
    engine = make_engine(sqlite_database, pool_size=1)
    await upgrade(engine)
    player_id = uuid.uuid4().hex
    async with engine.begin() as connection:
        values = {"id": player_id, "name": "Boba", "token_hash": uuid.uuid4().hex, "created_at": utcnow()}
        await connection.execute(insert(Player.__table__).values(webhook_url=f"{hook.url}/hook", **values))
    clock = {"now": utcnow() - timedelta(hours=1)}  # nothing is due for the notifier's own first look
    store = store_for(engine)
    notifier = Notifier(store, settings, now=lambda: clock["now"])
    await notifier.start()

    async def the_row() -> Any:
        async with engine.connect() as connection:
            return (await connection.execute(select(OUTBOX).where(OUTBOX.c.player_id == player_id))).one()

    try:
        await asyncio.sleep(0.2)
        await owe(sqlite_database, player_id, range(1, 2))
        clock["now"] = (await the_row()).next_at
        for attempt in range(1, tries + 1):
            await notifier.deliver_due()
            deadline = time.monotonic() + 10
            while (row := await the_row()).attempts < attempt or row.lease_until is not None:
                assert time.monotonic() < deadline, row
                await asyncio.sleep(0.02)
            assert row.last_error.startswith(error), row.last_error
            if attempt < tries:
                assert row.done_at is None
                assert row.next_at - clock["now"] == timedelta(seconds=retry_s * 2 ** (attempt - 1))
                clock["now"] = row.next_at
        assert (row.outcome, row.attempts) == ("failed", tries)
        clock["now"] += timedelta(days=1)
        await notifier.deliver_due()
        await asyncio.sleep(0.2)
        assert (await the_row()).attempts == tries, "never tried again"
        sent = hook.posts if receiver == "redirecting" else len(hook.received)
        assert sent == tries
        assert target.received == [], "the redirect was not followed"
    finally:
        await notifier.stop()
        await store.close()
        await engine.dispose()
        for each in (target, hook, *hooks.values()):
            each.close()
