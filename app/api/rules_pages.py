"""The rules pages: how to play each ruleset, for players (``/rules``, ``/rules/{id}``)."""

from __future__ import annotations

from html import escape

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.api.deps import ServiceDep, SessionDep, SettingsDep
from app.api.pages import page, page_player
from app.guides import rules_page
from app.rules import registry
from app.services import ratings

router = APIRouter(include_in_schema=False)


@router.get("/rules", response_class=HTMLResponse)
async def rules_index(request: Request, session: SessionDep, settings: SettingsDep) -> HTMLResponse:
    player = await page_player(request, session, settings)
    return page(request, "rules_index.html", {"player": player, "rulesets": list(registry().values())})


@router.get("/rules/{ruleset_id}", response_class=HTMLResponse)
async def rules_for(
    request: Request, ruleset_id: str, session: SessionDep, settings: SettingsDep
) -> HTMLResponse:
    player = await page_player(request, session, settings)
    if ruleset_id not in registry():
        known = ", ".join(registry())
        message = f"There is no ruleset {ruleset_id!r}. Known rulesets: {known}."
        return page(request, "error.html", {"player": player, "message": message, "back": "/rules"}, 404)
    return page(request, "rules.html", {"player": player, **rules_page(ruleset_id)})


@router.get("/rules/{ruleset_id}/leaderboard", response_class=HTMLResponse)
async def leaderboard(
    request: Request, ruleset_id: str, session: SessionDep, settings: SettingsDep, service: ServiceDep
) -> HTMLResponse:
    """The ruleset's established ratings, best first."""
    player = await page_player(request, session, settings)
    ruleset = registry().get(ruleset_id)
    if ruleset is None:
        message = f"There is no ruleset {ruleset_id!r}. Known rulesets: {', '.join(registry())}."
        return page(request, "error.html", {"player": player, "message": message, "back": "/rules"}, 404)
    rows = await ratings.leaderboard(session, ruleset.id, service.now())
    return page(request, "leaderboard.html", {"player": player, "ruleset": ruleset, "rows": rows})


@router.get("/rules/{ruleset_id}/guide", response_class=HTMLResponse)
async def guide_fragment(request: Request, ruleset_id: str) -> HTMLResponse:
    """The rules of one ruleset as an HTML fragment, for the match page's drawer."""
    if ruleset_id not in registry():
        return HTMLResponse(f"<p>There is no ruleset {escape(repr(ruleset_id))}.</p>", status_code=404)
    return page(request, "_guide.html", rules_page(ruleset_id))
