from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.rules import registry

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


@router.get("")
async def list_rulesets() -> list[dict[str, Any]]:
    """Every installed ruleset, with its match options as JSON Schema (defaults included)."""
    return [ruleset_json(r) for r in registry().values()]
