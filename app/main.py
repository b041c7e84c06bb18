"""The FastAPI application."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.staticfiles import StaticFiles

from app.api import health, matches, pages, players, rulesets
from app.api.errors import BodyLimit, install_error_handlers
from app.config import ROOT, Settings, get_settings
from app.db import make_engine, make_sessionmaker
from app.migrate import upgrade
from app.realtime import ws
from app.realtime.broker import make_broker
from app.realtime.hub import Hub
from app.services.records import RecentMatches


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(settings.database_url, settings.db_pool_size)
        await upgrade(engine)  # migrations run on every start; a current schema is a no-op
        app.state.engine = engine
        app.state.sessionmaker = make_sessionmaker(engine)
        app.state.hub = Hub(app.state.sessionmaker, make_broker(settings.broker_url))
        app.state.recent = RecentMatches()
        await app.state.hub.start()
        try:
            yield
        finally:
            await app.state.hub.stop()
            await engine.dispose()

    app = FastAPI(
        title="Dejarik",
        version="1.0",
        summary="The authoritative match server for Dejarik, the holochess of Star Wars.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    install_error_handlers(app)
    for router in (players.router, rulesets.router, matches.router, health.router, ws.router, pages.router):
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=ROOT / "static"), name="static")
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    # Pages, modules and JSON compress to about a quarter (docs/performance.md).
    app.add_middleware(GZipMiddleware, minimum_size=1024)
    return app
