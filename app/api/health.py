"""``/healthz`` for load balancers (is this process able to serve?) and ``/readyz`` for
operators (the same verdict, with the details of each part)."""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import text

router = APIRouter(tags=["health"])


async def check(request: Request) -> tuple[bool, dict[str, Any]]:
    """Whether the database answers and the broker listens, with the details."""
    engine = request.app.state.engine
    database: dict[str, Any] = {"kind": engine.dialect.name}
    started = time.perf_counter()
    try:
        async with engine.connect() as connection:
            await connection.execute(text("SELECT 1"))
        database.update(available=True, latency_ms=round((time.perf_counter() - started) * 1000, 1))
    except Exception as error:  # any failure to reach the database is "unavailable"
        database.update(available=False, error=f"{type(error).__name__}: {error}"[:200])
    broker = request.app.state.hub.broker.status()
    return database["available"] and broker["connected"], {"database": database, "broker": broker}


@router.get("/healthz")
async def healthz(request: Request) -> JSONResponse:
    """200 when the server can reach its database and its broker, 503 when it cannot."""
    healthy, parts = await check(request)
    if not healthy:
        down = [name for name, part in parts.items() if not part.get("available", part.get("connected"))]
        return JSONResponse(
            {"status": "unavailable", "detail": f"unavailable: {', '.join(down)}", "broker": parts["broker"]},
            status_code=503,
            headers={"Retry-After": "1"},
        )
    return JSONResponse(
        {"status": "ok", "database": parts["database"]["kind"], "broker": parts["broker"]["kind"]}
    )


@router.get("/readyz")
async def readyz(request: Request) -> JSONResponse:
    """The database (kind, reachable, latency) and the broker (kind, connected,
    reconnects so far, last error): 200 when both work, else 503."""
    healthy, parts = await check(request)
    watch = request.app.state.database_watch
    parts["database"]["outage_noticed"] = not watch.available
    body = {"status": "ok" if healthy else "unavailable", **parts}
    return JSONResponse(
        body, status_code=200 if healthy else 503, headers={} if healthy else {"Retry-After": "1"}
    )
