"""Web Push (issue 33): the server's VAPID key, and the browsers a player subscribed."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import CurrentPlayer, SessionDep, SettingsDep
from app.api.errors import error_responses
from app.api.json_input import MAX_SAFE_INT, documented_pattern
from app.models import utcnow
from app.services import push

router = APIRouter(prefix="/api/v1", tags=["push"])

ENDPOINT_PATTERN = (
    r"^https://[!$-.0-9;=A-Z_a-z~]+"
    r"(:(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})?)?"
    r"([/?#][^\x00]*)?$"
)
"""An https URL as ``check_endpoint`` reads it (plain http too when ``PUSH_ALLOW_PRIVATE``).
Whether its host is public is for DNS to say, when it is subscribed and at each push."""
P256DH_PATTERN = r"^B[A-Za-z0-9_-]{86}=?$"
"""65 bytes (an uncompressed P-256 point, so its first byte is 4: "B"), base64url."""
AUTH_PATTERN = r"^[A-Za-z0-9_-]{21}[AQgw](==)?$"
"""16 bytes, base64url."""


class PushKeyOut(BaseModel):
    public_key: str = Field(
        description="The server's VAPID public key (an uncompressed P-256 point, base64url): "
        "the applicationServerKey of PushManager.subscribe."
    )


class PushKeys(BaseModel):
    model_config = ConfigDict(extra="forbid")
    p256dh: str = Field(
        max_length=100,
        json_schema_extra=documented_pattern(P256DH_PATTERN),  # checked in app/services/push.py, in words
        description="The browser's P-256 public key, base64url (PushSubscription.toJSON().keys.p256dh).",
    )
    auth: str = Field(
        max_length=30,
        json_schema_extra=documented_pattern(AUTH_PATTERN),  # checked in app/services/push.py, in words
        description="The browser's 16-byte auth secret, base64url (PushSubscription.toJSON().keys.auth).",
    )


class NewPushSubscription(BaseModel):
    """A browser's ``PushSubscription.toJSON()``."""

    model_config = ConfigDict(extra="forbid")
    endpoint: str = Field(
        max_length=2000,
        json_schema_extra=documented_pattern(ENDPOINT_PATTERN),  # checked in app/services/push.py, in words
        description="The push service's https URL for this browser, on a public host.",
    )
    keys: PushKeys
    expirationTime: float | None = Field(  # the browser's own name
        None, ge=0, le=MAX_SAFE_INT, description="When the browser ends the subscription (ms); not used."
    )


class PushSubscriptionOut(BaseModel):
    id: str = Field(description="For DELETE /api/v1/players/me/push-subscriptions/{id}.")


SubscriptionId = Annotated[
    str, Path(max_length=64, pattern=r"^[0-9a-f]+$", description="The id the subscription was given.")
]


@router.get("/push/key", response_model=PushKeyOut)
async def push_key(request: Request) -> PushKeyOut:
    """The key browsers subscribe with; the server signs every push with its pair (one
    for every server process, kept in the database)."""
    return PushKeyOut(public_key=push.public_key(await request.app.state.notifier.vapid()))


@router.post(
    "/players/me/push-subscriptions",
    status_code=201,
    response_model=PushSubscriptionOut,
    responses=error_responses(401),
)
async def subscribe(
    body: NewPushSubscription, player: CurrentPlayer, session: SessionDep, settings: SettingsDep
) -> PushSubscriptionOut:
    """Push the caller's notices (your turn, match finished) to this browser too. At most
    5 a player: the oldest goes. 422 for an endpoint on a private or loopback host (unless
    the server allows them) and for keys that are not a browser's."""
    endpoint = await push.check_endpoint(body.endpoint, settings.push_allow_private)
    push.check_keys(body.keys.p256dh, body.keys.auth)
    subscription_id = await push.subscribe(
        session, player.id, endpoint, body.keys.p256dh, body.keys.auth, utcnow()
    )
    return PushSubscriptionOut(id=subscription_id)


@router.delete(
    "/players/me/push-subscriptions/{subscription_id}", status_code=204, responses=error_responses(401, 404)
)
async def unsubscribe(
    subscription_id: SubscriptionId, player: CurrentPlayer, session: SessionDep
) -> Response:
    """Stop pushing to that browser (404 if the caller has no subscription by that id)."""
    await push.unsubscribe(session, player.id, subscription_id)
    return Response(status_code=204)
