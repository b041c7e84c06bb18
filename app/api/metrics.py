"""``GET /metrics``: this process's figures in Prometheus's text format (``app/metrics.py``,
docs/operations.md). Not in the OpenAPI schema: it is for the operator's scraper, and
belongs behind the proxy, off the public internet."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

router = APIRouter(include_in_schema=False)


@router.get("/metrics")
async def metrics(request: Request) -> Response:
    figures = request.app.state.metrics
    await figures.refresh(request.app)
    body, content_type = figures.exposition(request.headers.get("accept"))
    return Response(body, media_type=content_type)
