from __future__ import annotations

from functools import cache
from typing import Annotated, Any

from fastapi import APIRouter, Path

from app.api.errors import error_responses
from app.api.json_input import NO_NUL
from app.api.schemas import RulesetInfo
from app.rules import UnknownRuleset, get_ruleset, registry
from app.services import gm
from app.services.errors import NotFound

router = APIRouter(prefix="/api/v1/rulesets", tags=["rulesets"])


def ruleset_json(ruleset: Any) -> dict[str, Any]:
    """What a ruleset publishes about itself, as a dict of the caller's own."""
    return dict(published(ruleset))


@cache
def published(ruleset: Any) -> dict[str, Any]:
    """Built once per ruleset: the answer never changes (read it, never change it)."""
    return {
        "id": ruleset.id,
        "name": ruleset.name,
        "description": ruleset.description,
        "seats": ruleset.seats,
        "seat_names": list(ruleset.seat_names),
        "view_kind": ruleset.view_kind,
        "options": ruleset.options_schema.model_json_schema(),
        "actions_schema": ruleset.actions_schema(extra=gm.CONTROLS),
        "state_schema": ruleset.state_schema(),
    }


@router.get("", response_model=list[RulesetInfo])
async def list_rulesets() -> list[dict[str, Any]]:
    """Every installed ruleset, with the JSON Schemas of its match options (defaults included),
    of its actions and of its state as a seat sees it."""
    return [ruleset_json(r) for r in registry().values()]


@router.get("/{ruleset_id}", response_model=RulesetInfo, responses=error_responses(404, 422))
async def one_ruleset(ruleset_id: Annotated[str, Path(pattern=NO_NUL)]) -> dict[str, Any]:
    """One ruleset, with JSON Schemas (draft 2020-12) of:

    - ``options``: the match options, defaults included;
    - ``actions_schema``: one action a client may send in its matches, a variant per ``type``
      (every entry of a match view's ``legal_actions`` is one);
    - ``state_schema``: the match view's ``state`` as a seat or a spectator sees it.
    """
    try:
        return ruleset_json(get_ruleset(ruleset_id))
    except UnknownRuleset as unknown:
        raise NotFound(str(unknown)) from None
