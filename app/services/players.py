"""Players and their bearer tokens, one per device (stored only as SHA-256 hashes),
and the one-time links that sign another device in."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
import unicodedata
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import DeviceLink, EmailSent, Outbox, Player, PlayerToken, utcnow
from app.services.devices import touch
from app.services.errors import Conflict, Gone, Invalid
from app.services.notifier import WEBHOOK_TEST, check_email, check_webhook_url

MAX_NAME = 40
DEVICE_LINK_LIFETIME = timedelta(minutes=10)
CONFIRM_WITHIN = timedelta(days=7)
"""How long an e-mail's confirmation link works."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def as_utc(moment: datetime) -> datetime:
    """SQLite hands datetimes back without their zone; every one stored is UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def clean_name(name: str) -> str:
    name = " ".join(name.split())
    if not name:
        raise Invalid("name: a display name cannot be empty")
    if len(name) > MAX_NAME:
        raise Invalid(f"name: at most {MAX_NAME} characters")
    if any(unicodedata.category(c) == "Cc" for c in name):
        raise Invalid("name: must not contain control characters")
    if any(unicodedata.category(c) == "Cf" for c in name):
        raise Invalid(
            "name: must not contain invisible format characters "
            "(bidi controls such as U+202E, zero-width spaces, soft hyphens)"
        )
    return name


def _new_device_token(player_id: str, device: str | None) -> tuple[PlayerToken, str]:
    """A token for a device named ``device`` (``describe_device`` of its user agent)."""
    token = secrets.token_urlsafe(32)
    now = utcnow()
    row = PlayerToken(
        token_hash=hash_token(token),
        player_id=player_id,
        device_name=device,
        created_at=now,
        last_used_at=now,
    )
    return row, token


async def create_player(session: AsyncSession, name: str, device: str | None = None) -> tuple[Player, str]:
    """A new player and their first device's token; the token is shown only this once."""
    player_id = secrets.token_hex(8)
    row, token = _new_device_token(player_id, device)
    player = Player(id=player_id, name=clean_name(name), token_hash=row.token_hash)
    session.add(player)
    await session.flush()  # the player row first: the token row refers to it
    session.add(row)
    await session.commit()
    return player, token


async def issue_token(session: AsyncSession, player_id: str, device: str | None = None) -> str:
    """A token for one more device of ``player_id`` (committed)."""
    row, token = _new_device_token(player_id, device)
    session.add(row)
    await session.commit()
    return token


async def player_by_token(session: AsyncSession, token: str) -> Player | None:
    """The token's player (``None``: unknown or signed out); records that it was used."""
    if not token or len(token) > 200:
        return None
    token_hash = hash_token(token)
    found = (
        await session.execute(
            select(Player, PlayerToken.last_used_at)
            .join(PlayerToken, PlayerToken.player_id == Player.id)
            .where(PlayerToken.token_hash == token_hash)
        )
    ).first()
    if found is None:
        return None
    await touch(session, token_hash, found.last_used_at)
    return found.Player


async def rename(session: AsyncSession, player: Player, name: str) -> Player:
    player.name = clean_name(name)
    await session.commit()
    return player


async def sign_out(session: AsyncSession, token: str) -> None:
    """This device's token stops working; the player's other devices keep theirs."""
    await session.execute(delete(PlayerToken).where(PlayerToken.token_hash == hash_token(token)))
    await session.commit()


async def create_device_link(session: AsyncSession, player: Player) -> tuple[str, datetime]:
    """A one-time secret for a link that signs another browser in; and when it expires."""
    secret = secrets.token_urlsafe(24)
    now = utcnow()
    expires_at = now + DEVICE_LINK_LIFETIME
    # Links a day past their expiry only need to say "not valid" now: let them go.
    await session.execute(delete(DeviceLink).where(DeviceLink.expires_at < now - timedelta(days=1)))
    session.add(DeviceLink(token_hash=hash_token(secret), player_id=player.id, expires_at=expires_at))
    await session.commit()
    return secret, expires_at


async def _valid_link(session: AsyncSession, secret: str) -> DeviceLink:
    """The unspent, unexpired link of ``secret``; ``Gone`` when it was used, has expired,
    or never existed."""
    link = await session.get(DeviceLink, hash_token(secret)) if 0 < len(secret) <= 200 else None
    if link is None:
        raise Gone("this sign-in link is not valid: ask your other device for a new one")
    if link.used_at is not None:
        raise Gone("this sign-in link was already used: ask your other device for a new one")
    if as_utc(link.expires_at) <= utcnow():
        raise Gone(
            "this sign-in link has expired (links last 10 minutes): ask your other device for a new one"
        )
    return link


async def device_link_player(session: AsyncSession, secret: str) -> Player:
    """Whom the link would sign in, without spending it (``Gone`` like ``use_device_link``)."""
    link = await _valid_link(session, secret)
    player = await session.get(Player, link.player_id)
    assert player is not None  # the link's foreign key keeps its player
    await session.commit()
    return player


async def use_device_link(
    session: AsyncSession, secret: str, device: str | None = None
) -> tuple[Player, str]:
    """Spend the link: its player and a new token for this device, named ``device``.
    ``Gone`` when it was used, has expired, or never existed."""
    link = await _valid_link(session, secret)
    # Two browsers opening the link at once: only the one whose update lands signs in.
    spent = await session.execute(
        update(DeviceLink)
        .where(DeviceLink.token_hash == link.token_hash, DeviceLink.used_at.is_(None))
        .values(used_at=utcnow())
    )
    if spent.rowcount != 1:
        await session.rollback()
        raise Gone("this sign-in link was already used: ask your other device for a new one")
    player = await session.get(Player, link.player_id)
    assert player is not None  # the link's foreign key keeps its player
    row, token = _new_device_token(player.id, device)
    session.add(row)
    await session.commit()
    return player, token


async def set_notifications(
    session: AsyncSession,
    player: Player,
    webhook_url: str | None,
    email: str | None,
    allow_private: bool,
    sends_email: bool = True,
) -> Player:
    """Where ``player`` hears of their turns; ``None`` (or empty) turns a channel off.
    A new address is pending: it is sent a confirmation link (when the server
    ``sends_email``) and nothing else until the link is opened. Saving a pending
    address again sends another (the caps keep that from becoming a flood)."""
    webhook_url = (webhook_url or "").strip() or None
    email = (email or "").strip() or None
    player.webhook_url = await check_webhook_url(webhook_url, allow_private) if webhook_url else None
    email = check_email(email) if email else None
    if email != player.email:
        player.email, player.email_confirmed_at = email, None
    if email and sends_email and player.email_confirmed_at is None:
        now = utcnow()  # the confirmation goes through the outbox, like every notice
        session.add(
            Outbox(
                player_id=player.id,
                channel="email",
                event="confirm_email",
                match_id="",
                ruleset="",
                version=0,
                text="",
                created_at=now,
                next_at=now,
                attempts=0,
            )
        )
    await session.commit()
    return player


def email_status(player: Player, sends_email: bool) -> str | None:
    """``None`` (no address), ``pending``, ``confirmed``, or ``no_mail``: this server
    sends no e-mail (``SMTP_URL`` unset), so the address is not used."""
    if not player.email:
        return None
    if not sends_email:
        return "no_mail"
    return "confirmed" if player.email_confirmed_at is not None else "pending"


TEST_NOTICE = "A test from Dejarik: when it is your turn, or a match of yours ends, the notice comes here."


async def send_webhook_test(session: AsyncSession, player: Player, max_attempts: int) -> int:
    """Owe a test notice to ``player``'s saved webhook: an outbox row the notifier delivers
    like every notice, but tried once only (``attempts`` starts at the last try), so that
    its outcome answers the test. The row's id."""
    if not player.webhook_url:
        raise Conflict("Save a webhook address first: the test goes to the saved one.")
    now = utcnow()
    notice = Outbox(
        player_id=player.id,
        channel="webhook",
        event=WEBHOOK_TEST,
        match_id="",
        ruleset="",
        version=0,
        text=TEST_NOTICE,
        created_at=now,
        next_at=now,
        attempts=max(0, max_attempts - 1),
    )
    session.add(notice)
    await session.commit()
    return notice.id


async def notice_outcome(
    session: AsyncSession, notice_id: int, within_s: float
) -> tuple[str | None, str | None]:
    """The outbox row's ``outcome`` and ``last_error`` once a notifier (of any process) has
    settled it, or as they stand after ``within_s`` seconds (``outcome`` ``None``: not yet)."""
    deadline = time.monotonic() + within_s
    query = select(Outbox.outcome, Outbox.last_error, Outbox.done_at).where(Outbox.id == notice_id)
    while True:
        await session.commit()  # a new read transaction: it sees the notifier's write
        row = (await session.execute(query)).one()
        if row.done_at is not None or time.monotonic() >= deadline:
            return row.outcome, row.last_error
        await asyncio.sleep(0.1)


async def _sent(session: AsyncSession, secret: str) -> EmailSent | None:
    if not 0 < len(secret) <= 200:
        return None
    return await session.scalar(select(EmailSent).where(EmailSent.token_hash == hash_token(secret)))


async def email_link(session: AsyncSession, secret: str) -> EmailSent:
    """The e-mail whose link holds ``secret``; ``Gone`` when there is none."""
    sent = await _sent(session, secret)
    if sent is None:
        raise Gone("this e-mail link is not valid")
    return sent


async def confirm_email(session: AsyncSession, secret: str) -> Player:
    """The confirmation link of a pending address was opened: notices go there from now."""
    sent = await email_link(session, secret)
    if sent.event != "confirm_email":
        raise Gone("this e-mail link is not a confirmation link")
    if as_utc(sent.sent_at) + CONFIRM_WITHIN <= utcnow():
        raise Gone("this confirmation link has expired (links last 7 days): set the address again")
    player = await session.get(Player, sent.player_id)
    assert player is not None  # the row's foreign key keeps its player
    if (player.email or "").lower() != sent.address:
        raise Gone("this address is no longer the one set for notices: nothing was changed")
    if player.email_confirmed_at is None:
        player.email_confirmed_at = utcnow()
        await session.commit()
    return player


async def unsubscribe_email(session: AsyncSession, secret: str) -> str:
    """An e-mail's unsubscribe link (RFC 8058 one-click): its address hears no more,
    whoever set it. The address; unsubscribing twice changes nothing."""
    sent = await email_link(session, secret)
    await session.execute(
        update(Player)
        .where(func.lower(Player.email) == sent.address)
        .values(email=None, email_confirmed_at=None)
    )
    await session.commit()
    return sent.address
