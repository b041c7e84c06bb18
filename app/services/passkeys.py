"""Passkeys (WebAuthn, with the ``webauthn`` package): a player registers one on a
device, then signs in with it on any device, long after the cookies are gone.

Each ceremony's challenge is stored (``webauthn_challenges``) and used once, so any
server process can finish a ceremony another one began.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url, options_to_json_dict
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from app.models import Passkey, Player, WebAuthnChallenge, utcnow
from app.services.errors import Conflict, Forbidden, ServiceError, Unauthorized
from app.services.players import as_utc

CEREMONY_LIFETIME = timedelta(minutes=5)
ALREADY_REGISTERED = "this passkey is already registered here: sign in with it instead"
RP_NAME = "Dejarik"


@dataclass(frozen=True)
class RelyingParty:
    """Who the passkeys belong to: the site's host name and the origin pages run at."""

    id: str
    origin: str


async def _remember(session: AsyncSession, challenge: bytes, purpose: str, player_id: str | None) -> None:
    now = utcnow()
    await session.execute(delete(WebAuthnChallenge).where(WebAuthnChallenge.expires_at < now))
    session.add(
        WebAuthnChallenge(
            challenge=bytes_to_base64url(challenge),
            purpose=purpose,
            player_id=player_id,
            expires_at=now + CEREMONY_LIFETIME,
        )
    )
    await session.commit()


def _challenge_of(credential: dict[str, Any], refused: type[ServiceError]) -> str:
    """The challenge the browser signed, read from the credential's clientDataJSON.

    The request's shape is checked by the API's model (422); a credential of that
    shape that this server cannot accept is ``refused`` (401 signing in, 403 adding).
    """
    try:
        client_data = json.loads(base64url_to_bytes(credential["response"]["clientDataJSON"]))
        challenge = client_data["challenge"]
    except (KeyError, TypeError, ValueError) as error:
        raise refused("the credential is not a WebAuthn response (response.clientDataJSON)") from error
    if not isinstance(challenge, str) or len(challenge) > 128:
        raise refused("the credential's challenge is not one this server gave")
    return challenge


async def _spend(
    session: AsyncSession, credential: dict[str, Any], purpose: str, player_id: str | None
) -> bytes:
    """The stored challenge the credential answers, deleted so it works once."""
    refused = Forbidden if purpose == "register" else Unauthorized
    challenge = _challenge_of(credential, refused)
    row = await session.get(WebAuthnChallenge, challenge)
    if (
        row is None
        or row.purpose != purpose
        or row.player_id != player_id
        or as_utc(row.expires_at) < utcnow()
    ):
        raise refused("the passkey challenge is unknown, used or expired: start again")
    await session.delete(row)
    await session.flush()
    return base64url_to_bytes(challenge)


async def registration_options(session: AsyncSession, player: Player, rp: RelyingParty) -> dict[str, Any]:
    existing = await session.scalars(select(Passkey.credential_id).where(Passkey.player_id == player.id))
    options = generate_registration_options(
        rp_id=rp.id,
        rp_name=RP_NAME,
        user_id=player.id.encode(),
        user_name=player.name,
        user_display_name=player.name,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,  # sign-in needs no name typed
            # A passkey is the only factor: the device must check who holds it (PIN, biometrics).
            user_verification=UserVerificationRequirement.REQUIRED,
        ),
        exclude_credentials=[PublicKeyCredentialDescriptor(id=base64url_to_bytes(c)) for c in existing],
    )
    await _remember(session, options.challenge, "register", player.id)
    return options_to_json_dict(options)


async def register(
    session: AsyncSession, player: Player, credential: dict[str, Any], rp: RelyingParty
) -> Passkey:
    challenge = await _spend(session, credential, "register", player.id)
    try:
        verified = verify_registration_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=rp.id,
            expected_origin=rp.origin,
            require_user_verification=True,
        )
    except WebAuthnException as error:
        await session.commit()  # the challenge stays spent
        raise Forbidden(f"the passkey was not accepted: {error}") from error
    credential_id = bytes_to_base64url(verified.credential_id)
    if await session.get(Passkey, credential_id) is not None:
        await session.commit()
        raise Conflict(ALREADY_REGISTERED)
    passkey = Passkey(
        credential_id=credential_id,
        player_id=player.id,
        public_key=verified.credential_public_key,
        sign_count=verified.sign_count,
    )
    session.add(passkey)
    try:
        await session.commit()
    except IntegrityError:  # registered at the same moment by another request
        await session.rollback()
        raise Conflict(ALREADY_REGISTERED) from None
    return passkey


async def login_options(session: AsyncSession, rp: RelyingParty) -> dict[str, Any]:
    options = generate_authentication_options(
        rp_id=rp.id, user_verification=UserVerificationRequirement.REQUIRED
    )
    await _remember(session, options.challenge, "login", None)
    return options_to_json_dict(options)


async def login(session: AsyncSession, credential: dict[str, Any], rp: RelyingParty) -> Player:
    """The player whose passkey signed the login challenge."""
    challenge = await _spend(session, credential, "login", None)
    credential_id = credential.get("id") if isinstance(credential.get("id"), str) else ""
    passkey = await session.get(Passkey, credential_id) if 0 < len(credential_id) <= 1400 else None
    if passkey is None:
        await session.commit()
        raise Unauthorized("this passkey is not known here: it may have been made for another site")
    try:
        verified = verify_authentication_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=rp.id,
            expected_origin=rp.origin,
            credential_public_key=passkey.public_key,
            credential_current_sign_count=passkey.sign_count,
            require_user_verification=True,
        )
    except WebAuthnException as error:
        await session.commit()
        raise Unauthorized(f"the passkey did not sign in: {error}") from error
    passkey.sign_count = verified.new_sign_count
    player = await session.get(Player, passkey.player_id)
    assert player is not None
    await session.commit()
    return player


async def count(session: AsyncSession, player: Player) -> int:
    return len(
        (await session.scalars(select(Passkey.credential_id).where(Passkey.player_id == player.id))).all()
    )
