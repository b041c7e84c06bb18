"""Delivering the outbox: "your turn" and "match finished" by webhook, email and Web Push.

The match service writes what a change owes into the ``outbox`` table in the same
transaction as the change (:mod:`app.services.notices`), so a notification owed is
in the database before the action's response returns. A :class:`Notifier` in each
server process then delivers it, never on the action's path:

- it claims due rows with a lease (another process skips them; a process killed
  mid-delivery lets the lease run out, and the row is delivered after all);
- it reads the player's address at delivery time, re-checks a webhook's host
  against DNS (no private or loopback targets unless ``WEBHOOK_ALLOW_PRIVATE``)
  and connects to the address it checked, POSTs Discord-compatible JSON and reads
  no more than a few KB of the reply, or sends an email through ``SMTP_URL``, or
  pushes to each browser the player subscribed (:mod:`app.services.push`; checked and
  read the same way, public hosts only unless ``PUSH_ALLOW_PRIVATE``);
- each delivery has one deadline (``NOTIFY_DEADLINE_S``, within half the lease),
  and a destination has a few deliveries at once at most (``WEBHOOKS_PER_HOST``):
  a slow receiver holds up only its own notices;
- a failure is retried with exponential backoff, up to ``NOTIFY_MAX_ATTEMPTS``
  (a row tried that often is never claimed again); a delivered row is marked,
  never sent again.

Delivery is at least once: a process killed after the receiver got a message but
before it marked the row sends it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import ipaddress
import logging
import re
import secrets
import smtplib
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from email.errors import HeaderParseError
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import getaddresses
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import httpx
from py_vapid import Vapid

from app.config import Settings
from app.services import push as web_push
from app.services.clock import Now, system_now
from app.services.errors import Invalid
from app.services.store import Store

log = logging.getLogger(__name__)

ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
EMAIL_SPEC = rf"{ATEXT}+(\.{ATEXT}+)*@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+"
"""One bare addr-spec (RFC 5322 dot-atom, ASCII): no list, display name, comment,
quotes or angle brackets, so the address is the message's one recipient."""
EMAIL = re.compile(rf"^{EMAIL_SPEC}$")
WEBHOOK_TEST = "webhook_test"
"""The event of a test notice a player sends their own webhook (the settings page)."""
SUBJECTS = {
    "your_turn": "Your turn",
    "match_finished": "Match finished",
    "league_round": "A new league round",
    "confirm_email": "Confirm your address for Dejarik",
}


class Skipped(Exception):
    """An e-mail not to send (the caps, a pending address): settled with ``outcome``, not retried."""

    def __init__(self, outcome: str) -> None:
        super().__init__(outcome)
        self.outcome = outcome


WEBHOOK_FIELD = "webhook_url"
"""The request field a refused webhook address names, beside the refusal's plain words."""
REPLY_BYTES = 4096
"""How much of a webhook's reply is read; the rest is never received (H2)."""
EMBEDS_IPV4 = tuple(
    ipaddress.IPv6Network(prefix)
    for prefix in ("64:ff9b::/96", "64:ff9b:1::/48", "2002::/16", "2001::/32", "::/96", "::ffff:0:0/96")
)
"""IPv6 prefixes that carry an IPv4 address (NAT64, 6to4, Teredo, IPv4-compatible and
-mapped): a gateway may take them to a private IPv4, so webhooks never go there."""


def is_public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether a webhook may go to ``ip``: a global address outside :data:`EMBEDS_IPV4`."""
    if isinstance(ip, ipaddress.IPv6Address) and any(ip in prefix for prefix in EMBEDS_IPV4):
        return False
    return ip.is_global


async def webhook_addresses(
    url: str, allow_private: bool, resolve: bool = True, field: str = WEBHOOK_FIELD, kind: str = "webhook"
) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """The addresses ``url``'s host resolves to, each of them public (any address when
    ``allow_private``); :class:`Invalid` says why not. Without ``resolve`` and with
    ``allow_private``, only the URL's form is checked (no lookup: nothing is returned).
    ``field`` and ``kind`` name the address in the refusal (a push endpoint's too)."""
    try:
        parts = urlsplit(url)
    except ValueError as error:  # an unclosed "[", a host that NFKC normalisation changes
        raise Invalid(f"That {kind} address is not a URL ({error}).", field=field) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Invalid(
            f"A {kind} address starts with https:// (or http://) and a host name, "
            "like https://discord.com/api/webhooks/…",
            field=field,
        )
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise Invalid(
            f"That {kind} address's port (after the colon) is not a number from 0 to 65535.",
            field=field,
        ) from None
    if allow_private and not resolve:
        return []
    loop = asyncio.get_running_loop()
    try:
        found = await loop.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise Invalid(
            f"That address cannot be reached: no host called {parts.hostname!r} was found "
            "(check the spelling).",
            field=field,
        ) from None
    addresses = list(dict.fromkeys(ipaddress.ip_address(info[4][0].partition("%")[0]) for info in found))
    for ip in addresses:
        if not allow_private and not is_public(ip):
            raise Invalid(
                f"That address cannot be reached from this server: {parts.hostname!r} is a private, "
                f"loopback or reserved address ({ip}), and {kind}s go to public hosts only.",
                field=field,
            )
    return addresses


def destination(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    """Whose slots a delivery to ``ip`` takes: the IPv4 address, or the IPv6 /64 (one
    host's usual share), whatever names or ports point there."""
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


async def check_webhook_url(url: str, allow_private: bool) -> str:
    """``url`` if it is an http(s) URL whose host resolves only to public
    addresses (any address when ``allow_private``); :class:`Invalid` says why not."""
    await webhook_addresses(url, allow_private, resolve=False)
    return url


ONE_ADDRESS = "That email address is not one address like name@example.org (no list, name or comment)."


def check_email(email: str) -> str:
    """``email`` if it is exactly one address (``name@example.org``); :class:`Invalid`
    for anything else, a list (``a@b.org,root``) or a display name among them."""
    if len(email) > 320 or not EMAIL.match(email):
        raise Invalid(ONE_ADDRESS, field="email")
    try:
        parsed = Address(addr_spec=email)
    except (ValueError, IndexError, HeaderParseError):
        raise Invalid(ONE_ADDRESS, field="email") from None
    if parsed.addr_spec != email or getaddresses([email]) != [("", email)]:
        raise Invalid(ONE_ADDRESS, field="email")
    return email


def defanged(text: str) -> str:
    """``text`` with nothing a mail client would show as a link (names are chosen by
    players): ``evil.example/x`` reads ``evil[.]example/x``, ``http://`` ``http[:]//``."""
    return re.sub(r"(?<=\w)\.(?=\w)", "[.]", text.replace("://", "[:]//"))


def payload(row: dict[str, Any], site_url: str) -> dict[str, Any]:
    """The JSON a webhook receives (Discord shows ``content``). A test notice is about
    no match (``"match": null``)."""
    if row["event"] == WEBHOOK_TEST:
        content = f"{row['text']} {site_url}"
        return {"content": content, "allowed_mentions": {"parse": []}, "event": WEBHOOK_TEST, "match": None}
    url = f"{site_url}/matches/{row['match_id']}"
    return {
        "content": f"{row['text']} {url}",
        "allowed_mentions": {"parse": []},  # names are players' words: "@everyone" pings nobody
        "event": row["event"],
        "match": {"id": row["match_id"], "url": url, "ruleset": row["ruleset"], "version": row["version"]},
    }


def send_email(smtp_url: str, sender: str, to: str, subject: str, text: str, unsubscribe: str = "") -> None:
    """One email to the one address ``to`` through ``smtp_url`` (blocking: run it in a
    thread), with RFC 8058 one-click ``unsubscribe`` headers when given."""
    to = check_email(to)
    parts = urlsplit(smtp_url)
    tls = parts.scheme == "smtps"
    starttls = parse_qs(parts.query).get("starttls", ["0"])[0] in ("1", "true", "yes")
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, subject
    if unsubscribe:
        message["List-Unsubscribe"] = f"<{unsubscribe}>"
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message.set_content(text)
    kind = smtplib.SMTP_SSL if tls else smtplib.SMTP
    with kind(parts.hostname or "localhost", parts.port or (465 if tls else 25), timeout=20) as smtp:
        if starttls:
            smtp.starttls()
        if parts.username:
            smtp.login(unquote(parts.username), unquote(parts.password or ""))
        smtp.send_message(message, to_addrs=[to])


STATUS_IN_ERROR = re.compile(r"'(\d{3}) ([^']*)'")
"""The status an ``httpx.HTTPStatusError``'s message quotes: "Client error '404 Not Found' …"."""


def outcome_words(outcome: str | None, last_error: str | None, deadline_s: float) -> str:
    """What became of a test notice, in a player's words."""
    if outcome == "delivered":
        return "Sent — check your channel: the test notice should be there now."
    if outcome == "skipped":
        return "Nothing was sent: no webhook address is saved."
    error = last_error or ""
    kind, _, detail = error.partition(": ")
    if kind == "HTTPStatusError" and (status := STATUS_IN_ERROR.search(detail)):
        return (
            f"Your webhook answered {status[1]} ({status[2]}) and did not take the notice: "
            "check the address, or make a new webhook and paste its address here."
        )
    if kind == "Invalid":
        return detail
    if kind in ("ConnectError", "ConnectTimeout"):
        return "That address cannot be reached: nothing answered there. Check the address."
    if kind in ("TimeoutError", "ReadTimeout", "WriteTimeout", "PoolTimeout"):
        return f"Your webhook did not answer within {deadline_s:g} seconds, so the notice was given up."
    return f"The test notice could not be sent ({error or 'no answer'})."


async def nobody_watching(player_id: str, match_id: str) -> bool:
    return False


class Notifier:
    """Delivers the outbox of one database from one process (any number may run)."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        now: Now = system_now,
        watching: Callable[[str, str], Awaitable[bool]] = nobody_watching,
    ) -> None:
        self.store = store
        self.settings = settings
        self.now = now
        self.watching = watching
        """Whether a player has a match open now, on any process (``Presence.has_open``):
        their "your turn" is not pushed."""
        self._vapid: Vapid | None = None
        self._wake = asyncio.Event()
        self._loop: asyncio.Task[None] | None = None
        self._sending: set[asyncio.Task[None]] = set()
        self._http: httpx.AsyncClient | None = None
        self._posting = asyncio.Semaphore(settings.webhooks_in_flight)
        self._hosts: dict[str, tuple[asyncio.Semaphore, int]] = {}  # destination -> (its slots, users)

    def deadline_s(self) -> float:
        """How long one delivery may take in all, well within its lease (so a row is
        settled before anyone may claim it again)."""
        return min(self.settings.notify_deadline_s, self.settings.notify_lease_s / 2)

    async def start(self) -> None:
        limits = httpx.Limits(max_connections=self.settings.webhooks_in_flight, max_keepalive_connections=0)
        self._http = httpx.AsyncClient(timeout=10, follow_redirects=False, limits=limits)
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
        settings = self.settings
        for row in await self.store.claim_notices(
            self.now(), settings.notify_lease_s, max_attempts=settings.notify_max_attempts
        ):
            task = asyncio.create_task(self._deliver(row))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def _deliver(self, row: dict[str, Any]) -> None:
        address = row["address"]
        try:
            no_address = not address and row["channel"] != "push"  # push: read when sent
            if no_address or (row["channel"] == "email" and not self.settings.smtp_url):
                await self.store.settle_notice(row["id"], done_at=self.now(), outcome="skipped")
                return
            try:
                async with asyncio.timeout(self.deadline_s()):  # the whole delivery, not each read
                    await self._send(row, address)
            except Skipped as skip:
                await self.store.settle_notice(row["id"], done_at=self.now(), outcome=skip.outcome)
            except TimeoutError as error:  # the deadline's says nothing; a socket's says "timed out"
                await self._failed(row, f"TimeoutError: {error or f'not done in {self.deadline_s():g} s'}")
            except Exception as error:
                await self._failed(row, f"{type(error).__name__}: {error}"[:500])
            else:
                await self.store.settle_notice(
                    row["id"], done_at=self.now(), outcome="delivered", last_error=None
                )
        except Exception:  # settling failed: the lease runs out and the row is tried again
            log.exception("settling outbox row %s failed", row["id"])

    async def _post_webhook(self, url: str, body: dict[str, Any]) -> None:
        await self._post(url, self.settings.webhook_allow_private, {}, json=body)

    async def _post(self, url: str, allow_private: bool, headers: dict[str, str], **content: Any) -> None:
        """POST ``content`` (``json=`` or ``content=``) to ``url`` at an address its host was
        just checked to resolve to (httpx looks nothing up again), within its destination's
        slots and the process's; the reply's status counts, and no more than
        :data:`REPLY_BYTES` of it is read."""
        addresses = await webhook_addresses(url, allow_private)
        target = httpx.URL(url)
        headers = {**headers, "Host": target.netloc.decode("ascii")}
        extensions = {"sni_hostname": target.raw_host.decode("ascii")} if target.scheme == "https" else {}
        assert self._http is not None and addresses
        failure: httpx.ConnectError | None = None
        for ip in addresses:  # as httpx would: the next address when one refuses the connection
            async with self._slot(destination(ip)), self._posting:
                request = self._http.build_request(
                    "POST", target.copy_with(host=str(ip)), headers=headers, extensions=extensions, **content
                )
                try:
                    response = await self._http.send(request, stream=True)
                except httpx.ConnectError as error:
                    failure = error
                    continue
                try:
                    read = 0
                    async for chunk in response.aiter_raw():
                        read += len(chunk)
                        if read >= REPLY_BYTES:
                            break  # the rest is never read: closing drops the connection
                    response.raise_for_status()
                finally:
                    await response.aclose()
                return
        assert failure is not None
        raise failure

    @contextlib.asynccontextmanager
    async def _slot(self, where: str) -> AsyncIterator[None]:
        """One of the ``WEBHOOKS_PER_HOST`` deliveries one destination may have in flight."""
        slots, users = self._hosts.get(where, (asyncio.Semaphore(self.settings.webhooks_per_host), 0))
        self._hosts[where] = (slots, users + 1)
        try:
            async with slots:
                yield
        finally:
            slots, users = self._hosts[where]
            if users > 1:
                self._hosts[where] = (slots, users - 1)
            else:
                del self._hosts[where]

    async def _send(self, row: dict[str, Any], address: str) -> None:
        body = payload(row, self.settings.site_url())
        if row["channel"] == "webhook":
            await self._post_webhook(address, body)
        elif row["channel"] == "push":
            await self._push(row)
        else:
            await self._send_email(row, address)

    async def vapid(self) -> Vapid:
        """The server's VAPID key: the one in the database (this process's offer, if it
        was the first to ask), read once."""
        if self._vapid is None:
            pem = await self.store.vapid_private_pem(web_push.new_vapid_pem(), self.now())
            self._vapid = web_push.vapid_from_pem(pem)
        return self._vapid

    async def _push(self, row: dict[str, Any]) -> None:
        """The notice to every browser the player subscribed, unless it is their turn in a
        match they have open. A subscription whose push service says it is gone is
        forgotten; any other failure fails the row, retried like a webhook's."""
        if row["event"] == "your_turn" and await self.watching(row["player_id"], row["match_id"]):
            raise Skipped("watching")
        subscriptions = await self.store.push_subscriptions(row["player_id"])
        if not subscriptions:
            raise Skipped("skipped")
        vapid = await self.vapid()
        data = web_push.payload(row, self.settings.site_url())
        contact = web_push.vapid_contact(self.settings.site_url())
        failures: list[Exception] = []
        for subscription in subscriptions:
            body, headers = web_push.push_request(subscription, data, vapid, contact)
            try:
                await self._post(
                    subscription["endpoint"], self.settings.push_allow_private, headers, content=body
                )
            except httpx.HTTPStatusError as error:
                if error.response.status_code in (404, 410):
                    await self.store.forget_push_subscription(subscription["id"])
                else:
                    failures.append(error)
            except Exception as error:
                failures.append(error)
        if failures:
            raise failures[0]

    async def _send_email(self, row: dict[str, Any], address: str) -> None:
        """One e-mail to the player's one address, within the per-recipient caps, with its
        own secret for the links to confirm the address (a confirmation) and to unsubscribe."""
        try:
            address = check_email(address)  # set before addresses were checked as strictly
        except Invalid:
            raise Skipped("skipped") from None
        secret = secrets.token_urlsafe(24)
        token_hash = hashlib.sha256(secret.encode()).hexdigest()
        refusal = await self.store.reserve_email(
            row,
            token_hash,
            self.now(),
            self.settings.notify_email_quiet_s,
            self.settings.notify_email_daily_max,
        )
        if refusal is not None:
            raise Skipped(refusal)
        site = self.settings.site_url()
        unsubscribe = f"{site}/email/unsubscribe/{secret}"
        if row["event"] == "confirm_email":
            subject = SUBJECTS["confirm_email"]
            text = (
                f"Someone asked {site} to send Dejarik notices (your turn, match finished) to this "
                "address. If it was you, open this link and press Confirm:\n\n"
                f"{site}/email/confirm/{secret}\n\n"
                "If it was not you, ignore this e-mail: nothing else is sent to an address until it is "
                "confirmed."
            )
        else:
            subject = f"{SUBJECTS.get(row['event'], 'Dejarik')}: {row['ruleset']}"
            text = f"{defanged(row['text'])} {site}/matches/{row['match_id']}"  # the webhook's words
        text += f"\n\n--\nNo more e-mails from {site}, in one click: {unsubscribe}\n"
        # An error in the exchange means not sent: the record goes. Cut off by the deadline
        # instead (CancelledError), the thread runs on and the mail may still go out: the
        # record stays, counting for the caps, and a retry settles ``unsure``, never a second mail.
        try:
            settings = self.settings
            await asyncio.to_thread(
                send_email, settings.smtp_url, settings.smtp_from, address, subject, text, unsubscribe
            )
        except Exception:
            with contextlib.suppress(Exception):  # not sent: it counts for no cap
                await self.store.release_email(token_hash)
            raise

    async def _failed(self, row: dict[str, Any], error: str) -> None:
        if row["attempts"] >= self.settings.notify_max_attempts:
            log.warning("giving up on outbox row %s after %s tries: %s", row["id"], row["attempts"], error)
            await self.store.settle_notice(row["id"], done_at=self.now(), outcome="failed", last_error=error)
            return
        wait = self.settings.notify_retry_s * 2 ** (row["attempts"] - 1)
        await self.store.settle_notice(
            row["id"], next_at=self.now() + timedelta(seconds=wait), last_error=error
        )
