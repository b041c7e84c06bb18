"""Delivering the outbox: "your turn" and "match finished" by webhook and email.

The match service writes what a change owes into the ``outbox`` table in the same
transaction as the change (:mod:`app.services.notices`), so a notification owed is
in the database before the action's response returns. A :class:`Notifier` in each
server process then delivers it, never on the action's path:

- it claims due rows with a lease (another process skips them; a process killed
  mid-delivery lets the lease run out, and the row is delivered after all);
- it reads the player's address at delivery time, re-checks a webhook's host
  against DNS (no private or loopback targets unless ``WEBHOOK_ALLOW_PRIVATE``),
  POSTs Discord-compatible JSON, or sends an email through ``SMTP_URL``;
- a failure is retried with exponential backoff, up to ``NOTIFY_MAX_ATTEMPTS``;
  a delivered row is marked, never sent again.

Delivery is at least once: a process killed after the receiver got a message but
before it marked the row sends it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import re
import smtplib
import socket
from datetime import timedelta
from email.message import EmailMessage
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import httpx

from app.config import Settings
from app.services.clock import Now, system_now
from app.services.errors import Invalid
from app.services.store import Store

log = logging.getLogger(__name__)

EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
SUBJECTS = {"your_turn": "Your turn", "match_finished": "Match finished"}


async def check_webhook_url(url: str, allow_private: bool) -> str:
    """``url`` if it is an http(s) URL whose host resolves only to public
    addresses (any address when ``allow_private``); :class:`Invalid` says why not."""
    try:
        parts = urlsplit(url)
    except ValueError as error:  # an unclosed "[", a host that NFKC normalisation changes
        raise Invalid(f"webhook_url: not a URL ({error})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Invalid("webhook_url: must be an http:// or https:// URL with a host")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise Invalid("webhook_url: the port is not a number from 0 to 65535") from None
    if allow_private:
        return url
    loop = asyncio.get_running_loop()
    try:
        found = await loop.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise Invalid(f"webhook_url: the host {parts.hostname!r} does not resolve") from None
    for *_, address in found:
        ip = ipaddress.ip_address(address[0])
        if not ip.is_global:
            raise Invalid(
                f"webhook_url: {parts.hostname!r} is a private, loopback or reserved address ({ip}); "
                "webhooks go to public hosts only"
            )
    return url


def check_email(email: str) -> str:
    if len(email) > 320 or not EMAIL.match(email):
        raise Invalid("email: not an email address (name@example.org)")
    return email


def payload(row: dict[str, Any], site_url: str) -> dict[str, Any]:
    """The JSON a webhook receives (Discord shows ``content``)."""
    url = f"{site_url}/matches/{row['match_id']}"
    return {
        "content": f"{row['text']} {url}",
        "event": row["event"],
        "match": {"id": row["match_id"], "url": url, "ruleset": row["ruleset"], "version": row["version"]},
    }


def send_email(smtp_url: str, sender: str, to: str, subject: str, text: str) -> None:
    """One email through ``smtp_url`` (blocking: run it in a thread)."""
    parts = urlsplit(smtp_url)
    tls = parts.scheme == "smtps"
    starttls = parse_qs(parts.query).get("starttls", ["0"])[0] in ("1", "true", "yes")
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, subject
    message.set_content(text)
    kind = smtplib.SMTP_SSL if tls else smtplib.SMTP
    with kind(parts.hostname or "localhost", parts.port or (465 if tls else 25), timeout=20) as smtp:
        if starttls:
            smtp.starttls()
        if parts.username:
            smtp.login(unquote(parts.username), unquote(parts.password or ""))
        smtp.send_message(message)


class Notifier:
    """Delivers the outbox of one database from one process (any number may run)."""

    def __init__(self, store: Store, settings: Settings, now: Now = system_now) -> None:
        self.store = store
        self.settings = settings
        self.now = now
        self._wake = asyncio.Event()
        self._loop: asyncio.Task[None] | None = None
        self._sending: set[asyncio.Task[None]] = set()
        self._http: httpx.AsyncClient | None = None

    async def start(self) -> None:
        self._http = httpx.AsyncClient(timeout=10, follow_redirects=False)
        self._loop = asyncio.create_task(self._run())

    async def stop(self) -> None:
        for task in (self._loop, *self._sending):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self._http is not None:
            await self._http.aclose()

    def poke(self) -> None:
        """Something was written to the outbox: look now, not at the next poll."""
        self._wake.set()

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                await self.deliver_due()
            except Exception:  # the database is away: try again at the next poll
                log.exception("reading the notification outbox failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.settings.notify_poll_s)

    async def deliver_due(self) -> None:
        """Claim the rows due now and deliver each in a task of its own (a slow
        receiver holds up nobody else)."""
        for row in await self.store.claim_notices(self.now(), self.settings.notify_lease_s):
            task = asyncio.create_task(self._deliver(row))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def _deliver(self, row: dict[str, Any]) -> None:
        address = row["address"]
        try:
            if not address or (row["channel"] == "email" and not self.settings.smtp_url):
                await self.store.settle_notice(row["id"], done_at=self.now(), outcome="skipped")
                return
            try:
                await self._send(row, address)
            except Exception as error:
                await self._failed(row, f"{type(error).__name__}: {error}"[:500])
            else:
                await self.store.settle_notice(
                    row["id"], done_at=self.now(), outcome="delivered", last_error=None
                )
        except Exception:  # settling failed: the lease runs out and the row is tried again
            log.exception("settling outbox row %s failed", row["id"])

    async def _send(self, row: dict[str, Any], address: str) -> None:
        body = payload(row, self.settings.site_url())
        if row["channel"] == "webhook":
            await check_webhook_url(address, self.settings.webhook_allow_private)
            assert self._http is not None
            response = await self._http.post(address, json=body)
            response.raise_for_status()
        else:
            subject = f"{SUBJECTS.get(row['event'], 'Dejarik')}: {row['ruleset']}"
            await asyncio.to_thread(
                send_email, self.settings.smtp_url, self.settings.smtp_from, address, subject, body["content"]
            )

    async def _failed(self, row: dict[str, Any], error: str) -> None:
        if row["attempts"] >= self.settings.notify_max_attempts:
            log.warning("giving up on outbox row %s after %s tries: %s", row["id"], row["attempts"], error)
            await self.store.settle_notice(row["id"], done_at=self.now(), outcome="failed", last_error=error)
            return
        wait = self.settings.notify_retry_s * 2 ** (row["attempts"] - 1)
        await self.store.settle_notice(
            row["id"], next_at=self.now() + timedelta(seconds=wait), last_error=error
        )
