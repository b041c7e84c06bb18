"""The FastAPI application."""

from __future__ import annotations

import gc
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from app.access_log import install_redaction
from app.api import (
    app_shell,
    bots,
    chat,
    docs,
    health,
    league_pages,
    leagues,
    matches,
    metrics,
    pages,
    players,
    push,
    ratings,
    rematch,
    rules_pages,
    rulesets,
    sharing,
    tutorial,
)
from app.api.cookies import SecureCookies
from app.api.errors import ERROR_RESPONSES, BodyLimit, install_error_handlers
from app.api.exports import ExportGate
from app.api.headers import SecurityHeaders
from app.api.leagues import league_service
from app.api.limits import RateLimiter
from app.api.origin import OriginCheck
from app.bots.runner import BotRunner
from app.config import ROOT, Settings, get_settings
from app.db import make_engine, make_sessionmaker
from app.logs import use_json_logs
from app.metrics import HttpMetrics, Metrics, log_action
from app.migrate import upgrade
from app.realtime import ws
from app.realtime.broker import make_broker
from app.realtime.hub import Hub
from app.realtime.leagues import LeagueRooms
from app.realtime.outage import DatabaseWatch, resync_all
from app.realtime.presence import Presence
from app.services.clock import system_now
from app.services.leagues import LeagueRunner
from app.services.notifier import Notifier
from app.services.store import Committed, store_for

API_DESCRIPTION = """\
A client needs no rules: it sends back one of the `legal_actions` the server lists.
Sign in with `POST /api/v1/players`, then send `Authorization: Bearer <token>`.

The websocket `WS /ws/matches/{id}` (live snapshots and updates, actions in) is described
as an AsyncAPI 3 document: [/asyncapi.json](/asyncapi.json). How to check every die:
`docs/dice.md`.
"""


class DejarikApp(FastAPI):
    """FastAPI, with the match websocket served ahead of the middleware and the router.

    A websocket is an ASGI call that lasts as long as the socket: every layer it passes
    through keeps a frame (and the router its exit stacks) alive per connection. None
    of the HTTP middleware applies to a websocket (the handshake checks its own Origin),
    so ``/ws/matches/{id}`` is handed straight to ``app.realtime.ws.serve``: a crowd of
    idle spectators costs less memory and connects faster (docs/performance.md)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and ws.MATCH_SOCKET_PATH.fullmatch(scope["path"]):
            scope["app"] = self
            await ws.serve(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


def collect_garbage_less_often() -> None:
    """Python's default collector (a young collection every 700 allocations) promotes a
    crowd's per-update objects fast enough to run a full collection every few updates:
    with 5,000 spectators each took 0.3–0.5 s, paused the fan-out mid-way and was
    most of the worst update latency (docs/performance.md, "Garbage collection").
    Young collections every 10,000 allocations, and old ones a tenth as often, keep
    memory per idle spectator the same and remove those pauses."""
    gc.set_threshold(10_000, 10, 100)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    install_redaction()  # however the app is served: no credential in uvicorn's log

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        collect_garbage_less_often()
        if settings.log_format == "json":
            use_json_logs()  # after uvicorn configured its loggers
        engine = make_engine(settings.database_url, settings.db_pool_size)
        await upgrade(engine)  # migrations run on every start; a current schema is a no-op
        app.state.engine = engine
        app.state.sessionmaker = make_sessionmaker(engine)
        store = app.state.store = store_for(engine)
        broker = make_broker(settings.broker_url)
        hub = app.state.hub = Hub(store, broker, lambda: app.state.now(), app.state.metrics)
        presence = Presence(hub, store, settings.presence_beat_s, lambda: app.state.now())
        app.state.presence = presence
        notifier = app.state.notifier = Notifier(store, settings, lambda: app.state.now(), presence.has_open)

        async def publish(match_id: str, version: int, committed: Committed | None = None) -> None:
            """Every commit goes to the viewers; one that owes notifications wakes the notifier.
            An action's commit is counted, timed and logged (``app/metrics.py``)."""
            if committed is not None and committed.started is not None:
                app.state.metrics.action_applied(committed, time.perf_counter() - committed.started)
                log_action(committed)
            if committed is None or committed.notices:
                notifier.poke()
            await hub.publish(match_id, version, committed)
            if committed is not None and committed.after.league_id and committed.after.status == "finished":
                app.state.leagues.match_ended(committed.after.league_id)  # leagues (issue 32)

        app.state.publish = publish
        app.state.league_rooms = LeagueRooms(hub.broker)  # leagues (issue 32): WS /ws/leagues/{id}
        app.state.leagues = LeagueRunner(lambda: league_service(app), settings.league_sweep_s)
        app.state.database_watch = DatabaseWatch(hub, engine)
        hub.broker.on_reconnect = lambda: resync_all(hub)  # what the broker missed while away
        await hub.start()
        # Bots (issue 9): every committed change pokes the runner after the hub has
        # published it; routes, websockets and pages give MatchService this publish.
        app.state.bots = BotRunner(app.state.sessionmaker, settings, app.state.metrics)
        app.state.publish = app.state.bots.wrap(publish)
        await app.state.bots.start()
        await app.state.leagues.start()
        await notifier.start()
        await app.state.presence.start()
        # What start-up built lives as long as the process: no collection need walk it again.
        gc.collect()
        gc.freeze()
        try:
            yield
        finally:
            await app.state.presence.stop()
            await notifier.stop()
            await app.state.leagues.stop()
            await app.state.bots.stop()
            await app.state.database_watch.stop()
            await hub.stop()
            await store.close()
            await engine.dispose()
            await app.state.limiter.close()

    app = DejarikApp(
        title="Dejarik",
        version="1.0",
        summary="The authoritative match server for Dejarik, the holochess of Star Wars.",
        description=API_DESCRIPTION,
        docs_url=None,  # served by app/api/docs.py from the server's own copies
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.metrics = Metrics()  # this app's own registry (GET /metrics)
    app.state.limiter = RateLimiter(settings)
    app.state.now = system_now  # the time timed matches are judged at; a test may set its own
    app.state.export_gate = ExportGate(settings.export_streams_per_client)
    install_error_handlers(app)
    app.add_exception_handler(pages.PageError, pages.page_error)
    for router in (
        players.router,
        players.passkey_router,
        rulesets.router,
        matches.router,
        rematch.router,
        bots.router,
        chat.router,
        ratings.router,  # after players.router: /players/me is not a player's id
        push.router,
        leagues.router,
    ):
        app.include_router(router, responses=ERROR_RESPONSES)
    page_routers = (
        health.router,
        docs.router,
        pages.router,
        league_pages.router,  # /leagues/new, /leagues/{id}
        rules_pages.router,
        tutorial.router,
        sharing.router,  # board.png, replay.gif, /embed/
    )
    for router in page_routers:
        app.include_router(router)
    app.include_router(leagues.socket_router)  # WS /ws/leagues/{id}
    app.include_router(app_shell.router)  # the manifest, /sw.js and the offline page
    app.state.service_worker = app_shell.service_worker_script()  # versioned by the static files
    app.include_router(metrics.router)  # GET /metrics, outside the OpenAPI schema
    app.mount("/static", StaticFiles(directory=ROOT / "static"), name="static")
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    app.add_middleware(OriginCheck, settings=settings)
    # Pages, modules and JSON compress to about a quarter (docs/performance.md).
    app.add_middleware(GZipMiddleware, minimum_size=1024)
    app.add_middleware(SecureCookies)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(HttpMetrics)  # outermost: every request counted by its route, and logged
    return app
