from __future__ import annotations

import itertools
import unicodedata
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from app.api.cookies import clear_token_cookie, set_token_cookie
from app.api.deps import (
    CurrentPlayer,
    DeviceNameDep,
    RelyingPartyDep,
    SessionDep,
    SettingsDep,
    TokenDep,
)
from app.api.errors import ErrorBody, error_responses
from app.api.json_input import NO_NUL, SPACE, documented_pattern, storable_fields, storable_json_schema
from app.api.limits import WEBHOOK_TEST, RateLimited, rate_limit
from app.config import Settings
from app.models import Player
from app.services import devices, passkeys
from app.services.notifier import EMAIL_SPEC, outcome_words
from app.services.players import (
    create_device_link,
    create_player,
    email_status,
    hash_token,
    issue_token,
    notice_outcome,
    rename,
    send_webhook_test,
    set_notifications,
    sign_out,
)

router = APIRouter(prefix="/api/v1/players", tags=["players"], responses=error_responses(401, 404, 410, 413))
passkey_router = APIRouter(prefix="/api/v1/passkeys", tags=["players"])


def category_class(category: str) -> str:
    """The characters of a Unicode general category, as a pattern's character class
    contents: ``\\uXXXX`` ranges, astral ones as themselves (ECMA-262 and Python alike).
    Planes 4 to 13 hold no characters and 15 and 16 private use only: skipping them makes
    this (run at every start of the server) four times quicker."""
    ranges: list[list[int]] = []
    for code in itertools.chain(range(0x40000), range(0xE0000, 0xF0000)):
        if unicodedata.category(chr(code)) == category:
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1][1] = code
            else:
                ranges.append([code, code])

    def char(code: int) -> str:
        return f"\\u{code:04x}" if code <= 0xFFFF else chr(code)

    return "".join(char(a) if a == b else f"{char(a)}-{char(b)}" for a, b in ranges)


CONTROL = r"\x00-\x1f\x7f-\x9f"
FORMAT = category_class("Cf")
"""Unicode's format characters: bidi controls (U+202E …), zero-width ones, soft hyphens."""
NAME_PATTERN = rf"^[^{CONTROL}{FORMAT}]*[^\s{CONTROL}{FORMAT}][^{CONTROL}{FORMAT}]*$"
"""Something to show, and no control characters (tabs, newlines, NUL …) nor format
characters (which reorder or hide text)."""


class NewPlayer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(
        min_length=1,
        max_length=40,
        description="The display name others see: something to show, no control characters, "
        "no format characters (Unicode category Cf: bidi controls, zero-width spaces …).",
        # Documented for clients; checked by clean_name, whose refusals say what is wrong.
        json_schema_extra={"pattern": NAME_PATTERN},
    )


class Rename(NewPlayer):
    pass


class PlayerOut(BaseModel):
    id: str
    name: str


class PlayerWithToken(PlayerOut):
    token: str = Field(description="The bearer credential. Shown only in this response; stored hashed.")


class DeviceLinkOut(BaseModel):
    url: str = Field(
        description="Opened in any browser within 10 minutes, it asks whether to sign that browser in "
        "(and forget whom it played as); confirmed, it does, once."
    )
    expires_at: datetime


class DeviceOut(BaseModel):
    id: str = Field(description="The device's id, for DELETE /api/v1/players/me/devices/{id}.")
    name: str | None = Field(
        description='What the device is, from its browser when it signed in ("Firefox Mobile on Android"); '
        "null: unknown."
    )
    created_at: datetime = Field(description="When it signed in.")
    last_used_at: datetime | None = Field(
        description="When it was last used, to the minute or so; null: not recorded yet."
    )
    current: bool = Field(description="Whether this is the device asking.")


class DevicesOut(BaseModel):
    devices: list[DeviceOut] = Field(description="The one asking first, then the most recently used.")


class SignedOutOut(BaseModel):
    signed_out: int = Field(description="How many devices were signed out.")


DeviceId = Annotated[
    str,
    Path(pattern="^[0-9a-f]{16}$", description="A device's id, as GET /api/v1/players/me/devices gives it."),
]
THIS_DEVICE = {
    409: {
        "model": ErrorBody,
        "description": "That is the device asking: sign it out with POST /api/v1/players/me/sign-out.",
    }
}


def device_link_url(request: Request, settings: Settings, secret: str) -> str:
    """A device link on the site's public address when ``PUBLIC_URL`` names it (not on
    whatever ``Host`` the request came with); else on the address the request used."""
    if settings.public_url:
        return settings.site_url() + request.app.url_path_for("use_device_link", secret=secret)
    return str(request.url_for("use_device_link", secret=secret))


# The fields a credential carries beyond those named pass through to the WebAuthn check.
PASS_THROUGH = ConfigDict(extra="allow", json_schema_extra=storable_fields(storable_json_schema(2)))


class CredentialResponse(BaseModel):
    model_config = PASS_THROUGH
    clientDataJSON: str = Field(description="base64url, as the browser gives it", pattern=NO_NUL)


class Credential(BaseModel):
    """A ``PublicKeyCredential`` in its JSON form (``toJSON()``); the rest of its
    fields (``attestationObject`` or ``authenticatorData`` and ``signature``) pass through."""

    model_config = PASS_THROUGH
    id: str = Field(min_length=1, max_length=1400, pattern=NO_NUL)
    rawId: str = Field(min_length=1, max_length=1400, pattern=NO_NUL)
    type: Literal["public-key"]
    response: CredentialResponse


@router.post("", status_code=201, response_model=PlayerWithToken, dependencies=[rate_limit("players")])
async def register(body: NewPlayer, session: SessionDep, device: DeviceNameDep) -> PlayerWithToken:
    """Create a player and its bearer token."""
    player, token = await create_player(session, body.name, device)
    return PlayerWithToken(id=player.id, name=player.name, token=token)


@router.get("/me", response_model=PlayerOut)
async def me(player: CurrentPlayer) -> PlayerOut:
    """The player the token belongs to."""
    return PlayerOut(id=player.id, name=player.name)


@router.patch("/me", response_model=PlayerOut)
async def rename_me(body: Rename, player: CurrentPlayer, session: SessionDep) -> PlayerOut:
    """Change the display name (on every device, and in every match)."""
    player = await rename(session, player, body.name)
    return PlayerOut(id=player.id, name=player.name)


@router.post("/me/device-links", status_code=201, response_model=DeviceLinkOut)
async def new_device_link(
    request: Request, player: CurrentPlayer, session: SessionDep, settings: SettingsDep
) -> DeviceLinkOut:
    """A one-time link that signs another browser in as this player (valid 10 minutes),
    once that browser confirms it."""
    secret, expires_at = await create_device_link(session, player)
    return DeviceLinkOut(url=device_link_url(request, settings, secret), expires_at=expires_at)


@router.get("/me/devices", response_model=DevicesOut)
async def my_devices(player: CurrentPlayer, token: TokenDep, session: SessionDep) -> DevicesOut:
    """Every device signed in as the caller, this one marked ``current``."""
    assert token is not None  # CurrentPlayer needs one
    found = await devices.list_devices(session, player, hash_token(token))
    return DevicesOut(devices=[DeviceOut(**vars(d)) for d in found])


@router.delete("/me/devices/{device_id}", status_code=204, responses=THIS_DEVICE)
async def sign_device_out(
    device_id: DeviceId, player: CurrentPlayer, token: TokenDep, session: SessionDep
) -> Response:
    """Sign another of the caller's devices out: its token stops working (its next request: 401)."""
    assert token is not None
    await devices.sign_out_device(session, player, device_id, hash_token(token))
    return Response(status_code=204)


@router.post("/me/sign-out-others", response_model=SignedOutOut)
async def sign_others_out(player: CurrentPlayer, token: TokenDep, session: SessionDep) -> SignedOutOut:
    """Sign out every device of the caller but this one (a lost phone, a link sent astray)."""
    assert token is not None
    return SignedOutOut(signed_out=await devices.sign_out_others(session, player, hash_token(token)))


@router.post("/me/sign-out", status_code=204)
async def sign_me_out(
    player: CurrentPlayer, token: TokenDep, session: SessionDep, settings: SettingsDep
) -> Response:
    """This device's token stops working; the player's other devices keep theirs."""
    assert token is not None  # CurrentPlayer needs one
    await sign_out(session, token)
    response = Response(status_code=204)
    clear_token_cookie(response, settings)
    return response


@router.post("/me/passkeys/options")
async def passkey_registration_options(
    player: CurrentPlayer, session: SessionDep, rp: RelyingPartyDep
) -> dict[str, Any]:
    """WebAuthn registration options (``challenge``, …) for ``navigator.credentials.create``."""
    return await passkeys.registration_options(session, player, rp)


@router.post("/me/passkeys", status_code=201, responses=error_responses(403, 409))
async def register_passkey(
    credential: Credential, player: CurrentPlayer, session: SessionDep, rp: RelyingPartyDep
) -> dict[str, Any]:
    """Keep the passkey the browser created (its JSON form, as ``PublicKeyCredential.toJSON()``).
    The device must have verified its user (PIN, biometrics); a credential already
    registered here, by anyone, is a 409."""
    passkey = await passkeys.register(session, player, credential.model_dump(), rp)
    return {"id": passkey.credential_id, "created_at": passkey.created_at.isoformat()}


# Anyone may start a ceremony, and each keeps a challenge row: limited per address.
@passkey_router.post("/login/options", dependencies=[rate_limit("passkeys")])
async def passkey_login_options(session: SessionDep, rp: RelyingPartyDep) -> dict[str, Any]:
    """WebAuthn assertion options for ``navigator.credentials.get`` (any of this site's passkeys)."""
    return await passkeys.login_options(session, rp)


@passkey_router.post(
    "/login",
    response_model=PlayerWithToken,
    responses=error_responses(401),
    dependencies=[rate_limit("passkeys")],
)
async def passkey_login(
    credential: Credential,
    session: SessionDep,
    settings: SettingsDep,
    rp: RelyingPartyDep,
    device: DeviceNameDep,
    response: Response,
) -> PlayerWithToken:
    """Sign in with a passkey: a new token for this device, also set as the browser's cookie."""
    player = await passkeys.login(session, credential.model_dump(), rp)
    token = await issue_token(session, player.id, device)
    set_token_cookie(response, settings, token)
    return PlayerWithToken(id=player.id, name=player.name, token=token)


EMAIL_PATTERN = rf"^[{SPACE}]*({EMAIL_SPEC}[{SPACE}]*)?$"
"""One address as ``check_email`` takes it (``name@host.domain``; no list, display name
or comment), blanks around it stripped; blank alone (or "") turns email off, like null."""


WEBHOOK_PATTERN = (
    rf"^[{SPACE}]*([hH][tT][tT][pP][sS]?://([!$-.0-9:;=A-Z_a-z~]*@)?[!$-.0-9;=A-Z_a-z~]+"
    r"(:(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})?)?"
    rf"([/?#][^\x00]*)?[{SPACE}]*)?$"
)
"""An http(s) URL as ``check_webhook_url`` reads it, blanks around it stripped; blank
alone (or "") turns the webhook off, like null. Whether its host is public is for DNS to
say, when it is set and at each delivery."""


class Notifications(BaseModel):
    model_config = ConfigDict(extra="forbid")
    webhook_url: str | None = Field(
        None,
        max_length=2000,
        description="An http(s) URL on a public host, POSTed Discord-compatible JSON; null (or blank): "
        "no webhook.",
        # Documented for clients; checked by check_webhook_url, whose refusals say what is wrong.
        json_schema_extra=documented_pattern(WEBHOOK_PATTERN),
    )
    email: str | None = Field(
        None,
        max_length=320,
        description="One address, name@host.domain; null (or blank): no email. A new address "
        "is sent a link to confirm it, and hears nothing else until it is confirmed.",
        # Documented for clients; checked by check_email, whose refusal says what is wrong.
        json_schema_extra=documented_pattern(EMAIL_PATTERN),
    )


class NotificationsOut(BaseModel):
    webhook_url: str | None
    email: str | None
    email_status: Literal["pending", "confirmed", "no_mail"] | None = Field(
        description="null: no email; pending: a confirmation link was sent to it, and it hears "
        "nothing else until that link is opened; confirmed: notices go there; no_mail: this "
        "server sends no email (no SMTP server set up), so the address is not used."
    )


def notifications_out(player: Player, settings: Settings) -> NotificationsOut:
    status = email_status(player, bool(settings.smtp_url))
    return NotificationsOut(webhook_url=player.webhook_url, email=player.email, email_status=status)


@router.get("/me/notifications", response_model=NotificationsOut)
async def my_notifications(player: CurrentPlayer, settings: SettingsDep) -> NotificationsOut:
    """Where the caller hears that it is their turn, or that a match of theirs ended."""
    return notifications_out(player, settings)


@router.put("/me/notifications", response_model=NotificationsOut)
async def set_my_notifications(
    body: Notifications, request: Request, player: CurrentPlayer, session: SessionDep, settings: SettingsDep
) -> NotificationsOut:
    """Set both addresses (null turns one off). A webhook must be an http(s) URL on a
    public host (422 for private or loopback addresses, unless the server allows them).
    A new email address is pending until its owner opens the link sent to it."""
    sends_email = bool(settings.smtp_url)
    player = await set_notifications(
        session, player, body.webhook_url, body.email, settings.webhook_allow_private, sends_email
    )
    notifier = getattr(request.app.state, "notifier", None)
    if notifier is not None:
        notifier.poke()  # the confirmation goes now, not at the next poll
    return notifications_out(player, settings)


class WebhookTestOut(BaseModel):
    outcome: Literal["sent", "failed", "waiting"] = Field(
        description="sent: the webhook took the test notice (a 2xx); failed: it did not (an error "
        "status, no answer, an address that cannot be reached); waiting: not delivered yet "
        "(the server is busy), it still goes out once."
    )
    message: str = Field(
        description='What happened, for people: "Sent — check your channel: …", '
        '"Your webhook answered 404 (Not Found) …".'
    )


NO_WEBHOOK = {409: {"model": ErrorBody, "description": "No webhook address is saved: save one first."}}


@router.post(
    "/me/notifications/test",
    response_model=WebhookTestOut,
    responses={**NO_WEBHOOK, **error_responses(429)},
)
async def test_my_webhook(
    request: Request, player: CurrentPlayer, session: SessionDep, settings: SettingsDep
) -> WebhookTestOut:
    """Send a test notice to the caller's saved webhook, through the outbox and the notifier
    like every notice (the same address checks, deadline and reply limits), tried once, and
    answer what became of it. ``WEBHOOK_TESTS_PER_MINUTE`` a player (429 past it)."""
    try:
        await request.app.state.limiter.take(WEBHOOK_TEST, player.id)
    except RateLimited as limited:  # answered 429 with Retry-After, in these words
        per_minute = settings.webhook_tests_per_minute
        limited.message = f"At most {per_minute} tests a minute: try again in a moment."
        raise
    notice_id = await send_webhook_test(session, player, settings.notify_max_attempts)
    notifier = getattr(request.app.state, "notifier", None)
    if notifier is not None:
        notifier.poke()
        deadline_s = notifier.deadline_s()
    else:
        deadline_s = min(settings.notify_deadline_s, settings.notify_lease_s / 2)
    outcome, last_error = await notice_outcome(session, notice_id, deadline_s + 2 * settings.notify_poll_s)
    if outcome is None:
        waiting = "The test is queued: this server is busy, and it goes out in a moment."
        return WebhookTestOut(outcome="waiting", message=waiting)
    sent = outcome == "delivered"
    return WebhookTestOut(
        outcome="sent" if sent else "failed", message=outcome_words(outcome, last_error, deadline_s)
    )
