"""The league pages (issue 32): ``/leagues/new`` (the form), ``/leagues/{id}`` (invite link,
join, the host's controls, rounds, results and standings, kept live by
``static/js/league.js`` over ``WS /ws/leagues/{id}``), and the forms they post."""

from __future__ import annotations

from functools import partial
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.api.deps import SessionDep, SettingsDep
from app.api.leagues import TWO_SEATS, league_service
from app.api.limits import rate_limit
from app.api.option_form import clock_refusal, options_from_form
from app.api.pages import page, page_player, ruleset_choices, templates
from app.bots import all_bots
from app.bots.seating import bot_player
from app.rules import registry
from app.services.errors import Forbidden, Invalid, ServiceError
from app.services.leagues import MAX_SWISS_ROUNDS, RESULTS

router = APIRouter(include_in_schema=False)


def score(value: float) -> str:
    """Points as a results table writes them (1, ½, 2½); a tiebreak's other fractions as decimals."""
    whole, rest = divmod(value, 1)
    return f"{int(whole) or ''}½" if rest == 0.5 else f"{value:g}"


templates.env.globals["score"] = score


def error_page(request: Request, error: ServiceError, back: str) -> HTMLResponse:
    return page(request, "error.html", {"message": error.message, "back": back}, error.status)


@router.get("/leagues/new", response_class=HTMLResponse)
async def new_league_page(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    player = await page_player(request, session, settings)
    two_seats = {r.id for r in TWO_SEATS}
    context = {
        "player": player,
        "rulesets": [r for r in ruleset_choices() if r["id"] in two_seats],
        "max_rounds": MAX_SWISS_ROUNDS,
    }
    return page(request, "league_new.html", context)


@router.post("/leagues", dependencies=[rate_limit("matches")])
async def create_league_page(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    player = await page_player(request, session, settings)
    if player is None:
        return RedirectResponse("/leagues/new", status_code=303)
    form = await request.form()
    back = "/leagues/new"
    try:
        ruleset_id = str(form.get("ruleset") or "")
        ruleset = registry().get(ruleset_id)
        if ruleset is None:
            raise Invalid(f"ruleset: unknown ruleset {ruleset_id!r}")
        options = options_from_form(ruleset.options_schema.model_json_schema(), f"options.{ruleset_id}", form)
        if refusal := clock_refusal(options):
            raise Invalid(refusal)
        format_ = str(form.get("format") or "round-robin")
        rounds_raw = str(form.get("rounds") or "").strip()
        if format_ == "swiss" and not rounds_raw.isdecimal():
            raise Invalid(f"rounds: a Swiss league needs a number of rounds, 1 to {MAX_SWISS_ROUNDS}")
        rounds = int(rounds_raw) if format_ == "swiss" else None
        league = await league_service(request.app).create(
            player,
            str(form.get("name") or ""),
            ruleset_id,
            options,
            format_,
            rounds,
            form.get("double") is not None and format_ == "round-robin",
            form.get("rated") is not None,
            form.get("play") != "run",
        )
    except ServiceError as error:
        return error_page(request, error, back)
    return RedirectResponse(f"/leagues/{league.id}", status_code=303)


async def league_context(request: Request, league_id: str, player: Any) -> dict[str, Any]:
    service = league_service(request.app)
    league = await service.load(league_id)
    view = service.view(league)
    entrant = league.entrant(player.id if player else None)
    return {
        "player": player,
        "league": view,
        "is_host": player is not None and player.id == league.host.id,
        "entrant": entrant,
        "invite": f"{request.base_url}leagues/{league.id}",
        "bots": [b for b in all_bots().values() if b.ruleset == league.ruleset],
        "results": RESULTS,
        "tiebreak": "Sonneborn–Berger" if league.format == "round-robin" else "Buchholz",
        "tiebreak_short": "SB" if league.format == "round-robin" else None,  # the phone's column
    }


@router.get("/leagues/{league_id}", response_class=HTMLResponse)
async def league_page(
    league_id: str, request: Request, session: SessionDep, settings: SettingsDep
) -> Response:
    player = await page_player(request, session, settings)
    try:
        context = await league_context(request, league_id, player)
    except ServiceError as error:
        return error_page(request, error, "/")
    return page(request, "league.html", context)


@router.get("/leagues/{league_id}/live", response_class=HTMLResponse)
async def league_live(
    league_id: str, request: Request, session: SessionDep, settings: SettingsDep
) -> Response:
    """The league page's changing part, for its live updates."""
    player = await page_player(request, session, settings)
    try:
        context = await league_context(request, league_id, player)
    except ServiceError as error:
        return HTMLResponse(error.message, status_code=error.status)
    return page(request, "_league_live.html", context)


@router.post("/leagues/{league_id}/{control}", dependencies=[rate_limit("actions")])
async def league_control(
    league_id: str, control: str, request: Request, session: SessionDep, settings: SettingsDep
) -> Response:
    """The page's forms: join, bots, start, withdraw, adjudicate."""
    player = await page_player(request, session, settings)
    back = f"/leagues/{quote(league_id)}"
    form = await request.form()
    service = league_service(request.app)
    try:
        if player is None:
            raise Forbidden("choose a name first (on this page, or the home page)")
        if control == "join":
            await service.join(league_id, player)
        elif control == "bots":
            await service.add_bot(league_id, player, str(form.get("bot") or ""), partial(bot_player, session))
        elif control == "start":
            await service.start(league_id, player)
        elif control == "withdraw":
            await service.withdraw(league_id, player, str(form.get("player") or "") or None)
        elif control == "adjudicate":
            round_raw, pairing_raw = str(form.get("round") or ""), str(form.get("pairing") or "")
            if not (round_raw.isdecimal() and pairing_raw.isdecimal()):
                raise Invalid("choose the game to adjudicate")
            await service.adjudicate(
                league_id, player, int(round_raw), int(pairing_raw), str(form.get("result"))
            )
        else:
            return error_page(request, Invalid(f"no such league control: {control}"), back)
    except ServiceError as error:
        return error_page(request, error, back)
    return RedirectResponse(back, status_code=303)
