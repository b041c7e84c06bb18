from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy import text

from app.api.deps import SessionDep

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz(session: SessionDep) -> JSONResponse:
    """200 when the server can reach its database, 503 when it cannot."""
    try:
        await session.execute(text("SELECT 1"))
    except Exception as error:  # any failure to reach the database is "unhealthy"
        return JSONResponse({"status": "unavailable", "detail": str(error)[:200]}, status_code=503)
    return JSONResponse({"status": "ok", "database": session.bind.dialect.name})
