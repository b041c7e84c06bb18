"""Schemathesis hooks of tests/api/test_schemathesis.py (its configuration loads this file).

shared/API.md answers some schema-valid requests 422 for what only the server's state
decides, which no JSON Schema sees: an action that is not legal in the match's position,
a bot of another ruleset than the match's, a webhook whose host does not resolve or is
private. Schemathesis's ``positive_data_acceptance`` is told to accept a 422 from those
operations; :func:`refused_by_the_state_not_the_schema` keeps it strict about every other
422 there: the request's validation (which names the fields, ``errors``), or any refusal
that the schema could have said, is still a schema-valid request refused."""

from __future__ import annotations

import re

import schemathesis
from schemathesis.specs.openapi.checks import is_unexpected_http_status_case

STATE_REFUSALS = {
    # "422 the action is not legal": anything the game says, but that an action has no "type".
    "POST /api/v1/matches/{match_id}/actions": re.compile(r"(?!an action must be a JSON object)"),
    # "422 bot unknown or not for this ruleset": "bot: kelly-club plays kelly, not simeone".
    "POST /api/v1/matches/{match_id}/bots": re.compile(r"bot: \S+ plays \S+, not \S+$"),
    # Leagues (issue 32): the same, for a league's ruleset.
    "POST /api/v1/leagues/{league_id}/bots": re.compile(r"bot: \S+ plays \S+, not \S+$"),
    # README's "422 for private or loopback addresses", and hosts DNS does not know.
    "PUT /api/v1/players/me/notifications": re.compile(
        r"That address cannot be reached.*(no host called|private)"
    ),
    # Web Push (issue 33): the same host checks, and a key of the right length that is no P-256 point.
    "POST /api/v1/players/me/push-subscriptions": re.compile(
        r"That address cannot be reached.*(no host called|private)|keys\.p256dh is not a P-256 public key"
    ),
}
"""Each operation, and the refusals by the server's state it may answer schema-valid data."""


@schemathesis.check
def refused_by_the_state_not_the_schema(ctx, response, case) -> bool | None:
    """A schema-valid request to those operations refused 422 only by the server's state."""
    refusals = STATE_REFUSALS.get(case.operation.label)
    if refusals is None or response.status_code != 422:
        return None
    if case.meta is None or not case.meta.generation.mode.is_positive or is_unexpected_http_status_case(case):
        return None
    body = response.json()
    if "errors" in body or not refusals.match(body["detail"]):
        raise AssertionError(f"Valid data should have been accepted, or refused by the state: {body}")
    return None
