"""Browser pages: home (name, your matches, new match), invites and the match page.

The forms post to page routes that call the same services the REST API uses; the
player's token lives in the HttpOnly cookie ``dejarik_token``, which the REST API
and the websocket also accept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import quote, urlsplit

import segno
from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from app.api.cookies import clear_token_cookie, set_token_cookie
from app.api.deps import DeviceNameDep, ServiceDep, SessionDep, SettingsDep, device_name
from app.api.limits import client_address, rate_limit
from app.api.option_form import (
    CLOCK_PRESETS,
    CLOCK_UNITS,
    clock_refusal,
    option_fields,
    options_from_form,
    with_values,
)
from app.api.players import device_link_url
from app.api.rulesets import ruleset_json
from app.bots import LEVELS, all_bots
from app.bots.seating import check_bot_quota, check_bot_seats, seat_bot
from app.config import ROOT, Settings
from app.models import Player
from app.rules import registry
from app.services import chat, devices, passkeys, ratings
from app.services.errors import Conflict, Forbidden, Invalid, ServiceError
from app.services.leagues import LeagueService
from app.services.matches import STATUSES, MatchService, seat_of
from app.services.players import (
    confirm_email,
    create_device_link,
    create_player,
    device_link_player,
    email_link,
    email_status,
    hash_token,
    player_by_token,
    rename,
    sign_out,
    unsubscribe_email,
    use_device_link,
)
from app.services.store import MatchRecord
from app.sharing import share_words

router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=ROOT / "templates")


def ruleset_name(ruleset_id: str) -> str:
    """A ruleset as players know it ("Dejarik (Kelly)"), for every page that names one."""
    ruleset = registry().get(ruleset_id)
    return ruleset.name if ruleset is not None else ruleset_id


templates.env.globals["ruleset_name"] = ruleset_name
templates.env.globals["share_words"] = share_words
templates.env.globals["clock_presets"] = CLOCK_PRESETS
templates.env.globals["clock_units"] = CLOCK_UNITS


async def page_player(request: Request, session: Any, settings: Settings) -> Player | None:
    """The player of the browser's cookie; a stale or unknown cookie counts as none."""
    token = request.cookies.get(settings.cookie_name)
    if not token:
        return None
    player = await player_by_token(session, token)
    # End the read, as the API's ``optional_player`` does: the page's match reads and
    # changes take connections of their own, and a request holding two at once could wait
    # forever for the second when as many requests as the pool holds each had a first.
    await session.commit()
    return player


def signed_out_here(request: Request, settings: Settings, player: Player | None) -> bool:
    """Whether the browser holds a cookie that no longer signs anyone in (signed out from
    another device): its page says so once, and the cookie goes."""
    return player is None and bool(request.cookies.get(settings.cookie_name))


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


def own_seed(form: Any) -> str | None:
    """The dice seed the browser drew for its seat (static/js/seed.js); none: the server draws one."""
    return str(form.get("seed") or "") or None


def ruleset_choices() -> list[dict[str, Any]]:
    choices = []
    for ruleset in registry().values():
        info = ruleset_json(ruleset)
        info["fields"] = option_fields(info["options"], f"options.{ruleset.id}", ruleset.seat_names)
        choices.append(info)
    return choices


def page(request: Request, name: str, context: dict[str, Any], status_code: int = 200) -> HTMLResponse:
    return templates.TemplateResponse(request, name, context, status_code=status_code)


@router.get("/", response_class=HTMLResponse)
async def home(request: Request, session: SessionDep, settings: SettingsDep, service: ServiceDep) -> Response:
    player = await page_player(request, session, settings)
    signed_out = signed_out_here(request, settings, player)
    context = {
        "player": player,
        "signed_out": signed_out,
        "groups": await my_groups(service, player) if player is not None else None,
        "leagues": await my_leagues(request, player) if player is not None else None,
        "rulesets": ruleset_choices(),
        "bot_levels": LEVELS.values(),
    }
    response = page(request, "home.html", context)
    if signed_out:
        clear_token_cookie(response, settings)
    return response


def reading_leagues(request: Request) -> LeagueService:
    """The league service, for a page that only reads leagues."""
    state = request.app.state
    return LeagueService(state.store, state.publish, lambda: state.now())


async def my_leagues(request: Request, player: Player) -> dict[str, list[dict[str, Any]]]:
    """Leagues (issue 32): the player's leagues, and a line per unfinished league match."""
    leagues = reading_leagues(request)
    return {
        "matches": await leagues.active_matches(player.id),
        "leagues": await leagues.player_leagues(player.id),
    }


async def my_groups(service: MatchService, player: Player) -> dict[str, list[dict[str, Any]]]:
    matches, _ = await service.history(player=player.id, limit=100)
    return group_matches(matches, player.id)


@router.get("/home/matches", response_class=HTMLResponse)
async def my_matches(
    request: Request, session: SessionDep, settings: SettingsDep, service: ServiceDep
) -> Response:
    """The home page's list of the caller's matches, for its live updates."""
    player = await page_player(request, session, settings)
    if player is None:
        return HTMLResponse("", status_code=401)
    return page(request, "_my_matches.html", {"player": player, "groups": await my_groups(service, player)})


@router.post("/name", dependencies=[rate_limit("players")])
async def choose_name(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    """Create the browser's player and keep its token in the cookie. A browser that
    already plays as someone switches only once the player confirms it (the old
    token is forgotten with the cookie)."""
    form = await request.form()
    target = safe_next(str(form.get("next") or "/"))
    current = await page_player(request, session, settings)
    if current is not None and form.get("switch") != "confirmed":
        name = str(form.get("name") or "")
        return page(request, "switch_player.html", {"current": current, "name": name, "next": target})
    try:
        _, token = await create_player(session, str(form.get("name") or ""), device_name(request))
    except ServiceError as error:
        return page(request, "error.html", {"message": error.message, "back": target}, error.status)
    response = RedirectResponse(target, status_code=303)
    set_token_cookie(response, settings, token)
    return response


@router.post("/matches", dependencies=[rate_limit("matches")])
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
    if refusal := clock_refusal(options):
        return page(request, "error.html", {"message": refusal, "back": "/"}, 422)
    seat_raw = str(form.get("seat") or "0")
    seat = None if seat_raw == "host" else int(seat_raw) if seat_raw.isdecimal() else 0
    quota = settings.bot_matches_per_player
    try:
        bots = []
        if form.get("opponent") == "computer":  # "Play the computer": a bot in the other seat
            if seat is None:
                raise Invalid("to play the computer, choose the seat you play")
            level = str(form.get("level") or "club")
            bots = check_bot_seats(ruleset_id, ruleset.seats, seat, [(1 - seat, f"{ruleset_id}-{level}")])
            await check_bot_quota(session, player, quota)  # before the match is made
        rated = form.get("rated") is not None  # the "Rated" checkbox
        match = await service.create(player, ruleset_id, options, seat, own_seed(form), rated=rated)
        for bot_seat, bot in bots:
            await seat_bot(service, session, match.id, player, bot_seat, bot.id, quota)
    except ServiceError as error:
        return page(request, "error.html", {"message": error.message, "back": "/"}, error.status)
    return RedirectResponse(f"/matches/{match.id}", status_code=303)


@router.post("/matches/{match_id}/bots")
async def seat_bot_page(
    match_id: str, request: Request, session: SessionDep, settings: SettingsDep, service: ServiceDep
) -> Response:
    """The GM's seats panel: seat a bot in an open or NPC seat."""
    player = await page_player(request, session, settings)
    form = await request.form()
    back = f"/matches/{quote(match_id)}"
    try:
        if player is None:
            raise Forbidden("only the match's host seats a bot")
        seat_raw = str(form.get("seat") or "")
        if not seat_raw.isdecimal():
            raise Invalid("seat: choose a seat")
        bot, quota = str(form.get("bot") or ""), settings.bot_matches_per_player
        await seat_bot(service, session, match_id, player, int(seat_raw), bot, quota)
    except ServiceError as error:
        return page(request, "error.html", {"message": error.message, "back": back}, error.status)
    return RedirectResponse(back, status_code=303)


class PageError(Exception):
    """A page that cannot be shown: answered with templates/error.html (see ``page_error``)."""

    def __init__(self, message: str, status: int, back: str) -> None:
        super().__init__(message)
        self.message, self.status, self.back = message, status, back


async def page_error(request: Request, error: Exception) -> HTMLResponse:
    assert isinstance(error, PageError)
    return page(request, "error.html", {"message": error.message, "back": error.back}, error.status)


@dataclass(frozen=True)
class Shown:
    """What a match's pages start from: the signed-in player, if any, and the match."""

    player: Player | None
    match: MatchRecord


async def shown_match(
    match_id: str, request: Request, session: SessionDep, settings: SettingsDep, service: ServiceDep
) -> Shown:
    player = await page_player(request, session, settings)
    try:
        return Shown(player, await service.get(match_id))
    except ServiceError as error:
        back = "/tutorial" if request.url.path.startswith("/tutorial") else "/"
        raise PageError(error.message, error.status, back) from None


ShownMatch = Annotated[Shown, Depends(shown_match)]


@router.get("/matches/{match_id}", response_class=HTMLResponse)
async def match_page(request: Request, shown: ShownMatch, service: ServiceDep) -> Response:
    context = await match_context(service, shown.match, shown.player)
    if shown.match.league_id:
        context["league"] = await reading_leagues(request).of_match(shown.match.id)
    return page(request, "match.html", context)


async def match_context(service: MatchService, match: MatchRecord, player: Player | None) -> dict[str, Any]:
    """What templates/match.html shows of ``match`` to ``player`` (also the tutorial's page)."""
    view = await service.view(match, player)
    return {
        "player": player,
        "view": view,
        "match_id": match.id,
        "gm_fields": gm_option_fields(view),
        "bots": [b for b in all_bots().values() if b.ruleset == match.ruleset],
        "chat": chat_panel(match, player),
    }


def chat_panel(match: MatchRecord, player: Player | None) -> dict[str, Any]:
    """What the chat panel offers this viewer: the channels it reads, the one it writes."""
    player_id = player.id if player else None
    reads = [c for c in chat.CHANNELS if chat.may_read(match, player_id, c)]
    writes = chat.channel_of_writer(match, player_id) if player_id else None
    playing = writes == "players"
    return {
        "reads": reads,
        "writes": writes,
        "shown": writes or "players",
        "mute_label": "Mute the other side" if playing else "Mute the others",
    }


def gm_option_fields(view: dict[str, Any]) -> list[Any]:
    """The options form of a GM-run match's host while it waits (its gm_set_options
    control), prefilled with the match's current options; named ``options.…`` as
    the server's validation messages name them."""
    ruleset = registry().get(view["ruleset"])
    if ruleset is None or not view["you"]["gm"] or view["status"] != "waiting":
        return []
    schema = ruleset.options_schema.model_json_schema()
    return with_values(option_fields(schema, "options", ruleset.seat_names), "options", view["options"])


PLAYER_PAGE_SIZE = 20


def outcome_for(match: dict[str, Any], player_id: str) -> str:
    """How a match went for the player: won, lost, drawn, or where it stands."""
    seat = next((s["seat"] for s in match["seats"] if (s["player"] or {}).get("id") == player_id), None)
    if match["status"] != "finished":
        return "waiting for players" if match["status"] == "waiting" else "in play"
    result = match["result"] or {}
    if result.get("winner") is None:
        return "draw"
    if seat is None:
        return f"{match['seats'][result['winner']]['name']} won"
    return "won" if result["winner"] == seat else "lost"


@router.get("/players/{player_id}", response_class=HTMLResponse)
async def player_page(
    player_id: str, request: Request, session: SessionDep, settings: SettingsDep, service: ServiceDep
) -> Response:
    """A player's matches, newest first, filtered by ruleset and status, a page at a time."""
    viewer = await page_player(request, session, settings)
    shown = await session.get(Player, player_id[:64])
    await session.commit()  # end the read: the history takes a connection of its own
    if shown is None:
        return page(request, "error.html", {"message": "no player with that id", "back": "/"}, 404)
    query = request.query_params
    ruleset = query.get("ruleset") or None
    status = query.get("status") or None
    if ruleset is not None and ruleset not in registry():
        message = f"ruleset: {ruleset[:40]!r} is not one of {', '.join(registry())}"
        return page(request, "error.html", {"message": message, "back": f"/players/{shown.id}"}, 422)
    try:
        matches, next_cursor = await service.history(
            shown.id, ruleset, status, PLAYER_PAGE_SIZE, query.get("cursor") or None
        )
    except ServiceError as error:
        return page(
            request, "error.html", {"message": error.message, "back": f"/players/{shown.id}"}, error.status
        )
    for match in matches:
        match["outcome"] = outcome_for(match, shown.id)
        match["opponents"] = [
            s["player"]["name"] for s in match["seats"] if s["player"] and s["player"]["id"] != shown.id
        ]
    context = {
        "player": viewer,
        "shown": shown,
        "matches": matches,
        "next_cursor": next_cursor,
        "ruleset": ruleset,
        "status": status,
        "rulesets": [{"id": r.id, "name": r.name} for r in registry().values()],
        "statuses": STATUSES,
        "ratings": await player_ratings(session, shown.id, service),
    }
    return page(request, "player.html", context)


async def player_ratings(session: Any, player_id: str, service: MatchService) -> list[dict[str, Any]]:
    """The player page's ratings: each ruleset played rated, with its history's chart."""
    history = await ratings.rating_history(session, player_id)
    return [
        {"ruleset": ruleset_id, **rating, "chart": ratings.chart(history.get(ruleset_id, []))}
        for ruleset_id, rating in (await ratings.player_ratings(session, player_id, service.now())).items()
    ]


@router.get("/matches/{match_id}/replay", response_class=HTMLResponse)
async def replay_page(request: Request, shown: ShownMatch, service: ServiceDep) -> Response:
    """Any version of a match, finished or running, as a spectator saw it; ``?v=N`` opens version N,
    and without it the replay opens on the latest position (a finished match's end)."""
    player, match = shown.player, shown.match
    asked = request.query_params.get("v", "")
    start = min(int(asked), match.version) if asked.isdecimal() else match.version
    view = await service.view(match, None)
    ruleset = registry().get(match.ruleset)
    name = ruleset.name if ruleset is not None else match.ruleset
    context = {"player": player, "view": view, "start": start, "ruleset_name": name}
    return page(request, "replay.html", context)


def seated(summary: dict[str, Any]) -> dict[int, str]:
    return {s["seat"]: s["player"]["id"] for s in summary["seats"] if s["player"]}


@router.post("/matches/{match_id}/again", dependencies=[rate_limit("matches")])
async def new_match_again(
    match_id: str, request: Request, session: SessionDep, settings: SettingsDep, service: ServiceDep
) -> Response:
    """After a GM-run match: its game master starts a new one with the same ruleset,
    options and players, the seats swapped. The players themselves ask each other
    through the rematch (app/services/rematch.py), which seats nobody without their yes."""
    player = await page_player(request, session, settings)
    if player is None:
        return RedirectResponse(f"/matches/{quote(match_id)}", status_code=303)
    try:
        match = await service.get(match_id)
        players = {s.seat: s.player for s in match.seats if s.player is not None}
        if match.status != "finished" or (
            player.id not in {p.id for p in players.values()} and match.host.id != player.id
        ):
            raise Conflict("only the players and the host of a finished match can start the next one")
        if seat_of(match, player.id) is not None:
            # A player asks through the rematch on the match page: never seated without their yes.
            return RedirectResponse(f"/matches/{quote(match_id)}", status_code=303)
        last = len(match.seats) - 1
        swapped = {last - seat: p for seat, p in players.items()}
        wanted = {seat: p.id for seat, p in swapped.items()}
        newer, _ = await service.history(player=player.id, ruleset=match.ruleset, limit=20)
        for summary in newer:
            later = summary["created_at"] > match.created_at.isoformat()
            if later and summary["status"] != "finished" and seated(summary) == wanted:
                return RedirectResponse(f"/matches/{summary['id']}", status_code=303)
        mine = next((seat for seat, p in swapped.items() if p.id == player.id), None)
        again = await service.create(player, match.ruleset, match.options, mine, rated=match.rated)
        for seat, other in swapped.items():
            if other.id != player.id:
                await service.join(again.id, other, seat)
    except ServiceError as error:
        back = f"/matches/{quote(match_id)}"
        return page(request, "error.html", {"message": error.message, "back": back}, error.status)
    return RedirectResponse(f"/matches/{again.id}", status_code=303)


@router.get("/matches/{match_id}/table", response_class=HTMLResponse)
async def table_view(match_id: str, request: Request, service: ServiceDep) -> Response:
    """The big screen at the physical table: the match as an anonymous spectator sees it,
    drawn large, no controls; it follows the match live over the websocket."""
    try:
        match = await service.get(match_id)
    except ServiceError as error:
        return page(request, "error.html", {"message": error.message, "back": "/"}, error.status)
    view = await service.view(match, None)
    invites = [table_invite(request, match.id, seat) for seat in view["seats"]]
    context = {"view": view, "ruleset_name": ruleset_name(match.ruleset), "invites": invites}
    return page(request, "table.html", context)


def table_invite(request: Request, match_id: str, seat: dict[str, Any]) -> dict[str, Any]:
    """A seat's invite link with its QR code (inline SVG), for the big screen to show
    while the seat is open: a phone at the table scans it and sits down."""
    url = f"{request.base_url}matches/{quote(match_id)}/join/{seat['seat']}"
    qr = segno.make(url, error="m").svg_inline(
        border=2, omitsize=True, dark="#000", light="#fff", title=f"QR code: sit as {seat['name']}"
    )
    return {"seat": seat["seat"], "name": seat["name"], "url": url, "qr": qr}


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
            await request.app.state.limiter.take("players", client_address(request))
            player, token = await create_player(session, str(form.get("name") or ""), device_name(request))
        state = request.app.state
        service = MatchService(state.store, state.publish, lambda: state.now())
        await service.join(match_id, player, seat, player_seed=own_seed(form))
    except ServiceError as error:
        context = {"message": error.message, "back": f"/matches/{quote(match_id)}"}
        response: Response = page(request, "error.html", context, error.status)
    else:
        response = RedirectResponse(f"/matches/{quote(match_id)}", status_code=303)
    if token is not None:  # the new player keeps their name even when the seat was gone
        set_token_cookie(response, settings, token)
    return response


@router.get("/settings", response_class=HTMLResponse)
async def settings_page(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    """Your name, when it is your turn (webhook, e-mail), another device, your devices, a
    passkey, signing out."""
    player = await page_player(request, session, settings)
    if signed_out_here(request, settings, player):
        return signed_out_page(request, settings)
    if player is None:
        return RedirectResponse("/", status_code=303)
    return await render_settings(request, session, player)


def signed_out_page(request: Request, settings: Settings) -> HTMLResponse:
    """What a browser signed out from another device sees on a page that needs a player."""
    response = page(request, "signed_out.html", {}, 401)
    clear_token_cookie(response, settings)
    return response


async def render_settings(
    request: Request, session: Any, player: Player, status_code: int = 200, **extra: Any
) -> HTMLResponse:
    settings = request.app.state.settings
    token_hash = hash_token(request.cookies.get(settings.cookie_name, ""))
    context = {
        "player": player,
        "sends_email": bool(settings.smtp_url),
        "email_status": email_status(player, bool(settings.smtp_url)),
        "passkeys": await passkeys.count(session, player),
        "devices": await devices.list_devices(session, player, token_hash),
        **extra,
    }
    return page(request, "settings.html", context, status_code)


@router.post("/settings/name")
async def rename_page(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    player = await page_player(request, session, settings)
    if player is None:
        return RedirectResponse("/", status_code=303)
    form = await request.form()
    try:
        await rename(session, player, str(form.get("name") or ""))
    except ServiceError as error:  # refused before anything changed
        return await render_settings(request, session, player, error.status, name_error=error.message)
    return RedirectResponse("/settings?renamed=1", status_code=303)


@router.post("/settings/device-link", response_class=HTMLResponse)
async def device_link_page(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    """A one-time link for another device, with its QR code drawn here as inline SVG."""
    player = await page_player(request, session, settings)
    if player is None:
        return RedirectResponse("/", status_code=303)
    secret, expires_at = await create_device_link(session, player)
    url = device_link_url(request, settings, secret)
    qr = segno.make(url, error="m").svg_inline(
        border=4, omitsize=True, dark="#000", light="#fff", title="QR code"
    )
    link = {"url": url, "expires_at": expires_at, "qr": qr}
    return await render_settings(request, session, player, link=link)


@router.post("/settings/devices/{device_id}/sign-out")
async def sign_device_out_page(
    device_id: str, request: Request, session: SessionDep, settings: SettingsDep
) -> Response:
    """The devices list's "Sign out" button: another device's token stops working."""
    player = await page_player(request, session, settings)
    if player is None:
        return RedirectResponse("/", status_code=303)
    current = hash_token(request.cookies.get(settings.cookie_name, ""))
    try:
        await devices.sign_out_device(session, player, device_id, current)
    except ServiceError as error:
        return await render_settings(request, session, player, error.status, devices_error=error.message)
    return RedirectResponse("/settings?signed_out=1#devices-title", status_code=303)


@router.post("/settings/devices/sign-out-others")
async def sign_others_out_page(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    """Sign out every device but this browser."""
    player = await page_player(request, session, settings)
    if player is None:
        return RedirectResponse("/", status_code=303)
    current = hash_token(request.cookies.get(settings.cookie_name, ""))
    count = await devices.sign_out_others(session, player, current)
    return RedirectResponse(f"/settings?signed_out={count}#devices-title", status_code=303)


@router.get("/link/{secret}", name="use_device_link")
async def device_link_question(
    secret: str, request: Request, session: SessionDep, settings: SettingsDep
) -> Response:
    """A device link opened: ask before signing in. Opening it changes nothing (a link
    previewer, or a page that sends a browser here, cannot spend it or switch players)."""
    try:
        linked = await device_link_player(session, secret)
    except ServiceError as error:
        return page(request, "error.html", {"message": error.message, "back": "/"}, error.status)
    current = await page_player(request, session, settings)
    context: dict[str, Any] = {"player": current, "linked": linked, "current": current}
    if current is not None and current.id != linked.id:
        context["passkeys"] = await passkeys.count(session, current)
        # This browser's own token is signed out on the switch, so it is not counted.
        context["other_devices"] = len(await devices.list_devices(session, current, "")) - 1
    response = page(request, "device_link.html", context)
    response.headers["Cache-Control"] = "no-store"
    return response


@router.post("/link/{secret}")
async def use_device_link_page(
    secret: str, request: Request, session: SessionDep, settings: SettingsDep, device: DeviceNameDep
) -> Response:
    """The link's page confirmed (a same-origin form: app/api/origin.py refuses a foreign
    page's): this browser is now the link's player, once, within 10 minutes. The player
    it played as before is signed out here, as its cookie is replaced."""
    previous = request.cookies.get(settings.cookie_name)
    try:
        _, token = await use_device_link(session, secret, device)
    except ServiceError as error:
        return page(request, "error.html", {"message": error.message, "back": "/"}, error.status)
    if previous:
        await sign_out(session, previous)
    response = RedirectResponse("/", status_code=303)
    set_token_cookie(response, settings, token)
    return response


@router.get("/email/confirm/{secret}", name="confirm_email")
async def confirm_email_page(secret: str, request: Request, session: SessionDep) -> Response:
    """A confirmation link opened: a button confirms (a mail scanner fetching the link
    confirms nothing)."""
    try:
        sent = await email_link(session, secret)
    except ServiceError as error:
        return page(request, "error.html", {"message": error.message, "back": "/"}, error.status)
    return page(request, "email.html", {"step": "confirm", "address": sent.address})


@router.post("/email/confirm/{secret}")
async def confirm_email_done(secret: str, request: Request, session: SessionDep) -> Response:
    """The address of the link's mail hears of its player's turns from now on."""
    try:
        player = await confirm_email(session, secret)
    except ServiceError as error:
        return page(request, "error.html", {"message": error.message, "back": "/"}, error.status)
    return page(request, "email.html", {"step": "confirmed", "address": player.email})


@router.get("/email/unsubscribe/{secret}", name="unsubscribe_email")
async def unsubscribe_email_page(secret: str, request: Request, session: SessionDep) -> Response:
    """An unsubscribe link opened: a button unsubscribes."""
    try:
        sent = await email_link(session, secret)
    except ServiceError as error:
        return page(request, "error.html", {"message": error.message, "back": "/"}, error.status)
    return page(request, "email.html", {"step": "unsubscribe", "address": sent.address})


@router.post("/email/unsubscribe/{secret}")
async def unsubscribe_email_done(secret: str, request: Request, session: SessionDep) -> Response:
    """Unsubscribe, without signing in: the page's button, or a mail client's RFC 8058
    one-click POST (``List-Unsubscribe=One-Click``)."""
    try:
        address = await unsubscribe_email(session, secret)
    except ServiceError as error:
        return page(request, "error.html", {"message": error.message, "back": "/"}, error.status)
    return page(request, "email.html", {"step": "unsubscribed", "address": address})
