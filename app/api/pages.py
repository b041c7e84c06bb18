"""Browser pages: home (name, your matches, new match), invites and the match page.

The forms post to page routes that call the same services the REST API uses; the
player's token lives in the HttpOnly cookie ``dejarik_token``, which the REST API
and the websocket also accept.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from app.api.deps import ServiceDep, SessionDep, SettingsDep
from app.api.option_form import option_fields, options_from_form, with_values
from app.api.rulesets import ruleset_json
from app.config import ROOT, Settings
from app.models import Player
from app.rules import registry
from app.services.errors import ServiceError
from app.services.matches import MatchService, seat_of
from app.services.players import create_player, player_by_token

router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=ROOT / "templates")
COOKIE_MAX_AGE = 400 * 24 * 3600  # the longest browsers keep a cookie


async def page_player(request: Request, session: Any, settings: Settings) -> Player | None:
    """The player of the browser's cookie; a stale or unknown cookie counts as none."""
    token = request.cookies.get(settings.cookie_name)
    return await player_by_token(session, token) if token else None


def set_token_cookie(response: Response, settings: Settings, token: str) -> None:
    response.set_cookie(
        settings.cookie_name,
        token,
        max_age=COOKIE_MAX_AGE,
        httponly=True,
        samesite="lax",
        secure=settings.cookie_secure,
        path="/",
    )


def safe_next(url: str | None) -> str:
    """Only a local path may be a redirect target."""
    if not url:
        return "/"
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or not url.startswith("/") or url.startswith("//"):
        return "/"
    return url


def group_matches(matches: list[dict[str, Any]], player_id: str) -> dict[str, list[dict[str, Any]]]:
    """Your matches: waiting for you first, then the rest in play, then the finished."""
    groups: dict[str, list[dict[str, Any]]] = {"yours": [], "playing": [], "finished": []}
    for match in matches:
        seat = next((s["seat"] for s in match["seats"] if (s["player"] or {}).get("id") == player_id), None)
        match["your_seat"] = seat
        open_seats = [s for s in match["seats"] if s["player"] is None]
        match["open_seats"] = open_seats
        if match["status"] == "finished":
            groups["finished"].append(match)
        elif match["status"] == "active" and seat is not None and seat in match["to_act"]:
            groups["yours"].append(match)
        else:
            groups["playing"].append(match)
    return groups


def ruleset_choices() -> list[dict[str, Any]]:
    choices = []
    for ruleset in registry().values():
        info = ruleset_json(ruleset)
        info["fields"] = option_fields(info["options"], f"options.{ruleset.id}")
        choices.append(info)
    return choices


def page(request: Request, name: str, context: dict[str, Any], status_code: int = 200) -> HTMLResponse:
    return templates.TemplateResponse(request, name, context, status_code=status_code)


@router.get("/", response_class=HTMLResponse)
async def home(request: Request, session: SessionDep, settings: SettingsDep, service: ServiceDep) -> Response:
    player = await page_player(request, session, settings)
    groups = None
    if player is not None:
        matches, _ = await service.history(player=player.id, limit=100)
        groups = group_matches(matches, player.id)
    return page(request, "home.html", {"player": player, "groups": groups, "rulesets": ruleset_choices()})


@router.post("/name")
async def choose_name(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    """Create the browser's player and keep its token in the cookie."""
    form = await request.form()
    target = safe_next(str(form.get("next") or "/"))
    try:
        _, token = await create_player(session, str(form.get("name") or ""))
    except ServiceError as error:
        return page(request, "error.html", {"message": error.message, "back": target}, error.status)
    response = RedirectResponse(target, status_code=303)
    set_token_cookie(response, settings, token)
    return response


@router.post("/matches")
async def new_match(
    request: Request, session: SessionDep, settings: SettingsDep, service: ServiceDep
) -> Response:
    player = await page_player(request, session, settings)
    if player is None:
        return RedirectResponse("/", status_code=303)
    form = await request.form()
    ruleset_id = str(form.get("ruleset") or "")
    ruleset = registry().get(ruleset_id)
    if ruleset is None:
        return page(request, "error.html", {"message": f"unknown ruleset {ruleset_id!r}", "back": "/"}, 422)
    schema = ruleset.options_schema.model_json_schema()
    options = options_from_form(schema, f"options.{ruleset_id}", form)
    seat_raw = str(form.get("seat") or "0")
    seat = None if seat_raw == "host" else int(seat_raw) if seat_raw.isdigit() else 0
    try:
        match = await service.create(player, ruleset_id, options, seat)
    except ServiceError as error:
        return page(request, "error.html", {"message": error.message, "back": "/"}, error.status)
    return RedirectResponse(f"/matches/{match.id}", status_code=303)


@router.get("/matches/{match_id}", response_class=HTMLResponse)
async def match_page(
    match_id: str, request: Request, session: SessionDep, settings: SettingsDep, service: ServiceDep
) -> Response:
    player = await page_player(request, session, settings)
    try:
        match = await service.get(match_id)
    except ServiceError as error:
        return page(request, "error.html", {"message": error.message, "back": "/"}, error.status)
    view = await service.view(match, player)
    context = {"player": player, "view": view, "match_id": match.id, "gm_fields": gm_option_fields(view)}
    return page(request, "match.html", context)


def gm_option_fields(view: dict[str, Any]) -> list[Any]:
    """The options form of a GM-run match's host while it waits (its gm_set_options
    control), prefilled with the match's current options; named ``options.…`` as
    the server's validation messages name them."""
    ruleset = registry().get(view["ruleset"])
    if ruleset is None or not view["you"]["gm"] or view["status"] != "waiting":
        return []
    schema = ruleset.options_schema.model_json_schema()
    return with_values(option_fields(schema, "options"), "options", view["options"])


@router.get("/matches/{match_id}/table", response_class=HTMLResponse)
async def table_view(match_id: str, request: Request, service: ServiceDep) -> Response:
    """The big screen at the physical table: the match as an anonymous spectator sees it,
    drawn large, no controls; it follows the match live over the websocket."""
    try:
        match = await service.get(match_id)
    except ServiceError as error:
        return page(request, "error.html", {"message": error.message, "back": "/"}, error.status)
    view = await service.view(match, None)
    ruleset = registry().get(match.ruleset)
    name = ruleset.name if ruleset is not None else match.ruleset
    return page(request, "table.html", {"view": view, "ruleset_name": name})


@router.get("/matches/{match_id}/join/{seat}", response_class=HTMLResponse)
async def invite(
    match_id: str,
    seat: int,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    service: ServiceDep,
) -> Response:
    """An invite link: name yourself (if new) and sit in the seat, in one step."""
    player = await page_player(request, session, settings)
    try:
        match = await service.get(match_id)
    except ServiceError as error:
        return page(request, "error.html", {"message": error.message, "back": "/"}, error.status)
    if player is not None and seat_of(match, player.id) is not None:
        return RedirectResponse(f"/matches/{match.id}", status_code=303)
    view = await service.view(match, player)
    target = next((s for s in view["seats"] if s["seat"] == seat), None)
    return page(request, "join.html", {"player": player, "view": view, "seat": target})


@router.post("/matches/{match_id}/join/{seat}")
async def take_seat(
    match_id: str, seat: int, request: Request, session: SessionDep, settings: SettingsDep
) -> Response:
    form = await request.form()
    player = await page_player(request, session, settings)
    token = None
    try:
        if player is None:
            player, token = await create_player(session, str(form.get("name") or ""))
        service = MatchService(session, request.app.state.hub.publish)
        await service.join(match_id, player, seat)
    except ServiceError as error:
        context = {"message": error.message, "back": f"/matches/{quote(match_id)}"}
        response: Response = page(request, "error.html", context, error.status)
    else:
        response = RedirectResponse(f"/matches/{quote(match_id)}", status_code=303)
    if token is not None:  # the new player keeps their name even when the seat was gone
        set_token_cookie(response, settings, token)
    return response
