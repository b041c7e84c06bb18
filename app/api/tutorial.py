"""The guided tutorial: a real `kelly` match through the real server against a scripted
opponent (``app/tutorial.py``).

``POST /tutorial`` creates the match (the browser's player as Blue, the Tutor as Red:
one player for every tutorial, which the server plays, like the bots) with the
tutorial's seeds, so the learner moves first and the lessons come up; the tutorial page
asks ``POST /tutorial/{id}/opponent`` whenever the tutor is to act, and the server makes
the tutor's scripted choice through ``MatchService.act``. Creating a tutorial costs a
match token of the caller's address, and a player token when it creates the player.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from app.api.cookies import set_token_cookie
from app.api.deps import DeviceNameDep, ServiceDep, SessionDep, SettingsDep
from app.api.limits import client_address, rate_limit
from app.api.pages import ShownMatch, match_context, page, page_player
from app.bots.seating import server_player
from app.services.errors import ServiceError
from app.services.matches import seat_of
from app.services.players import create_player
from app.tutorial import (
    LESSON_PLAN,
    STUDENT_DICE_SEED,
    STUDENT_SEAT,
    TUTOR_DICE_SEED,
    TUTOR_NAME,
    TUTOR_PLAYER_ID,
    TUTOR_SEAT,
    TUTORIAL_RULESET,
    TUTORIAL_SEED,
    tutor_choice,
)

router = APIRouter(prefix="/tutorial", include_in_schema=False)


@router.get("", response_class=HTMLResponse)
async def tutorial_start(request: Request, session: SessionDep, settings: SettingsDep) -> HTMLResponse:
    player = await page_player(request, session, settings)
    return page(request, "tutorial.html", {"player": player})


@router.post("", dependencies=[rate_limit("matches")])
async def tutorial_new(
    request: Request, session: SessionDep, settings: SettingsDep, service: ServiceDep, device: DeviceNameDep
) -> Response:
    player = await page_player(request, session, settings)
    token = None
    try:
        if player is None:
            await request.app.state.limiter.take("players", client_address(request))
            form = await request.form()
            player, token = await create_player(session, str(form.get("name") or ""), device)
        tutor = await server_player(session, TUTOR_PLAYER_ID, TUTOR_NAME)
        match = await service.create(
            player, TUTORIAL_RULESET, {}, STUDENT_SEAT, STUDENT_DICE_SEED, seed=TUTORIAL_SEED
        )
        await service.join(match.id, tutor, TUTOR_SEAT, player_seed=TUTOR_DICE_SEED)
    except ServiceError as error:
        return page(request, "error.html", {"message": error.message, "back": "/tutorial"}, error.status)
    response = RedirectResponse(f"/tutorial/{match.id}", status_code=303)
    if token is not None:
        set_token_cookie(response, settings, token)
    return response


@router.get("/{match_id}", response_class=HTMLResponse)
async def tutorial_match(request: Request, shown: ShownMatch, service: ServiceDep) -> Response:
    """The match page with the tutorial's lessons beside it (and the plan they advise)."""
    context = await match_context(service, shown.match, shown.player)
    return page(request, "match.html", {**context, "tutorial": True, "tutorial_plan": LESSON_PLAN})


@router.post("/{match_id}/opponent")
async def tutor_acts(
    match_id: str, request: Request, session: SessionDep, settings: SettingsDep, service: ServiceDep
) -> Response:
    """The tutor makes its scripted choice, if it is the tutor's turn; one action per call.
    Only the student of that tutorial (the browser's player, in the student's seat) asks."""
    student = await page_player(request, session, settings)
    try:
        match = await service.get(match_id)
        if (
            student is None
            or seat_of(match, student.id) != STUDENT_SEAT
            or seat_of(match, TUTOR_PLAYER_ID) != TUTOR_SEAT
            or match.ruleset != TUTORIAL_RULESET
        ):
            message = "this browser has no tutor in that match"
            return JSONResponse({"error": "forbidden", "message": message}, 403)
        tutor = await server_player(session, TUTOR_PLAYER_ID, TUTOR_NAME)
        view = await service.view(match, tutor)
        if view["status"] != "active" or TUTOR_SEAT not in view["to_act"]:
            message = "the tutor is not to act now"
            return JSONResponse({"error": "conflict", "message": message, "version": view["version"]}, 409)
        action = tutor_choice(view)
        if action is None:
            return JSONResponse({"error": "conflict", "message": "the tutor has no legal action"}, 409)
        applied = await service.act(match.id, tutor, action, view["version"])
    except ServiceError as error:
        return JSONResponse({"error": type(error).__name__.lower(), "message": error.message}, error.status)
    return JSONResponse({"version": applied.version, "action": action})
