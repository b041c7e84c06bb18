"""Web Push (issue 33): the server's VAPID key, players' push subscriptions, and what a
push carries.

A browser subscribes with the server's public key and hands over its
``PushSubscription`` (an endpoint on its push service, a P-256 public key and an auth
secret). Each notice a player is owed is then also written as a ``push`` outbox row
(:mod:`app.services.notices`), and the notifier encrypts it for every subscription of
the player (RFC 8291, ``aes128gcm``, by ``pywebpush``) and signs the request with the
VAPID key (RFC 8292, by ``py-vapid``). No cryptography is written here.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import secrets
import time
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid
from pywebpush import WebPusher
from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import PushSubscription
from app.services import notifier
from app.services.errors import Invalid, NotFound

MAX_SUBSCRIPTIONS = 5
"""Subscriptions a player keeps (their browsers); a new one past it replaces the oldest."""
TTL_S = 24 * 60 * 60
"""How long a push service keeps a notice for a browser that is offline."""
BASE64URL = re.compile(r"[A-Za-z0-9_-]+={0,2}")
TITLES = {"your_turn": "Your turn", "match_finished": "Match finished", "league_round": "A new league round"}


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def from_b64url(text: str) -> bytes:
    """``text`` (base64url, padded or not) decoded; ``ValueError`` if it is not base64url."""
    if not BASE64URL.fullmatch(text):
        raise ValueError("not base64url")
    bare = text.rstrip("=")
    try:
        return base64.urlsafe_b64decode(bare + "=" * (-len(bare) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not base64url") from None


def new_vapid_pem() -> str:
    """A fresh VAPID private key (P-256), PEM: a process offers it, the database keeps the first."""
    vapid = Vapid()
    vapid.generate_keys()
    return vapid.private_pem().decode("ascii")


def vapid_from_pem(pem: str) -> Vapid:
    return Vapid.from_pem(pem.encode("ascii"))


def public_key(vapid: Vapid) -> str:
    """The key browsers subscribe with (``applicationServerKey``): the uncompressed
    P-256 point, base64url."""
    point = vapid.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(point)


async def check_endpoint(endpoint: str, allow_private: bool) -> str:
    """``endpoint`` if a push may go there: https on a public host (http, and any host,
    when ``allow_private``); :class:`Invalid` says why not."""
    scheme = urlsplit(endpoint).scheme if "://" in endpoint else ""
    if scheme != "https" and not (allow_private and scheme == "http"):
        raise Invalid(
            "A push endpoint is an https:// address on the browser's push service "
            "(as PushSubscription.endpoint gives it).",
            field="endpoint",
        )
    await notifier.webhook_addresses(
        endpoint, allow_private, resolve=False, field="endpoint", kind="push endpoint"
    )
    return endpoint


def check_keys(p256dh: str, auth: str) -> None:
    """The browser's keys: a P-256 public key (65 bytes) and a 16-byte secret, base64url."""
    try:
        point = from_b64url(p256dh)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
        if len(point) != 65:
            raise ValueError("not an uncompressed point")
    except ValueError:
        raise Invalid(
            "keys.p256dh is not a P-256 public key: 65 bytes (an uncompressed point), "
            "base64url, as PushSubscription.getKey('p256dh') gives it.",
            field="keys.p256dh",
        ) from None
    try:
        secret = from_b64url(auth)
    except ValueError:
        secret = b""
    if len(secret) != 16:
        raise Invalid(
            "keys.auth is not a push auth secret: 16 bytes, base64url, as "
            "PushSubscription.getKey('auth') gives it.",
            field="keys.auth",
        )


async def subscribe(
    session: AsyncSession, player_id: str, endpoint: str, p256dh: str, auth: str, now: datetime
) -> str:
    """Keep a browser's subscription for ``player_id``; the id it has. An endpoint is one
    browser's: subscribed again (by anyone), it replaces the old one. Past
    :data:`MAX_SUBSCRIPTIONS`, the player's oldest go."""
    await session.execute(delete(PushSubscription).where(PushSubscription.endpoint == endpoint))
    subscription_id = secrets.token_hex(16)
    session.add(
        PushSubscription(
            id=subscription_id,
            player_id=player_id,
            endpoint=endpoint,
            p256dh=p256dh,
            auth=auth,
            created_at=now,
        )
    )
    await session.flush()
    newest_first = (
        select(PushSubscription.id)
        .where(PushSubscription.player_id == player_id)
        .order_by((PushSubscription.id == subscription_id).desc(), PushSubscription.created_at.desc())
    )
    extra = list((await session.execute(newest_first.offset(MAX_SUBSCRIPTIONS))).scalars())
    if extra:
        await session.execute(delete(PushSubscription).where(PushSubscription.id.in_(extra)))
    await session.commit()
    return subscription_id


async def unsubscribe(session: AsyncSession, player_id: str, subscription_id: str) -> None:
    """Forget one of the player's subscriptions; :class:`NotFound` if they have none by that id."""
    result = await session.execute(
        delete(PushSubscription).where(
            PushSubscription.id == subscription_id, PushSubscription.player_id == player_id
        )
    )
    if result.rowcount != 1:
        raise NotFound(f"you have no push subscription {subscription_id!r}")
    await session.commit()


def payload(row: dict[str, Any], site_url: str) -> bytes:
    """What a push carries, as JSON: the service worker shows ``title`` and ``body`` and
    opens ``url`` on a tap."""
    url = f"{site_url}/matches/{row['match_id']}"
    body = {
        "title": TITLES.get(row["event"], "Dejarik"),
        "body": row["text"],
        "url": url,
        "event": row["event"],
        "match": {"id": row["match_id"], "url": url, "ruleset": row["ruleset"], "version": row["version"]},
    }
    return json.dumps(body).encode()


def push_request(
    subscription: dict[str, Any], data: bytes, vapid: Vapid, contact: str
) -> tuple[bytes, dict[str, str]]:
    """The encrypted body (RFC 8291, ``aes128gcm``) and headers of one push to
    ``subscription``, signed for its push service's origin (RFC 8292)."""
    keys = {"p256dh": subscription["p256dh"], "auth": subscription["auth"]}
    body = WebPusher({"endpoint": subscription["endpoint"], "keys": keys}).encode(data, "aes128gcm")["body"]
    parts = urlsplit(subscription["endpoint"])
    claims = {
        "aud": f"{parts.scheme}://{parts.netloc}",
        "exp": int(time.time()) + 12 * 60 * 60,
        "sub": contact,
    }
    headers = {"Content-Encoding": "aes128gcm", "TTL": str(TTL_S), **vapid.sign(claims)}
    return body, headers


def vapid_contact(site_url: str) -> str:
    """VAPID's ``sub``: how a push service reaches the operator (the site, when it is
    https; else a mailbox of no one, which py-vapid's check accepts)."""
    return site_url if site_url.startswith("https://") else "mailto:push@dejarik.invalid"
