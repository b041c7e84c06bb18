from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.api.errors import error_responses
from app.api.schemas import RulesetInfo
from app.rules import UnknownRuleset, get_ruleset, registry
from app.services.errors import NotFound

router = APIRouter(prefix="/api/v1/rulesets", tags=["rulesets"])


def ruleset_json(ruleset: Any) -> dict[str, Any]:
    return {
        "id": ruleset.id,
        "name": ruleset.name,
        "description": ruleset.description,
        "seats": ruleset.seats,
        "seat_names": list(ruleset.seat_names),
        "view_kind": ruleset.view_kind,
        "options": ruleset.options_schema.model_json_schema(),
    }


@router.get("", response_model=list[RulesetInfo])
async def list_rulesets() -> list[dict[str, Any]]:
    """Every installed ruleset, with its match options as JSON Schema (defaults included)."""
    return [ruleset_json(r) for r in registry().values()]


@router.get("/{ruleset_id}", response_model=RulesetInfo, responses=error_responses(404, 422))
async def one_ruleset(ruleset_id: str) -> dict[str, Any]:
    """One ruleset, with its match options as JSON Schema (defaults included)."""
    try:
        return ruleset_json(get_ruleset(ruleset_id))
    except UnknownRuleset as unknown:
        raise NotFound(str(unknown)) from None
