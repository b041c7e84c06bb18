"""The published descriptions: ``/docs`` (Swagger UI), ``/redoc`` and ``/asyncapi.json``.

Swagger UI and ReDoc are served from ``static/vendor/``, fetched from their npm
packages by ``make vendor`` (``make run`` and ``make test`` depend on it): no page
loads anything from another host.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse

from app.api.asyncapi import asyncapi_document

router = APIRouter(include_in_schema=False)

VENDOR = "/static/vendor"
FAVICON = f"{VENDOR}/swagger-ui/favicon-32x32.png"
SAME_ORIGIN_ONLY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self' 'unsafe-inline'",  # the pages' own inline start-up script
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",  # ReDoc's footer would fetch a logo from cdn.redoc.ly
        "font-src 'self' data:",
        "worker-src 'self' blob:",  # ReDoc's search
        "connect-src 'self'",
    )
)
"""The docs pages may load nothing from another host, whatever their bundles would like."""


def same_origin_only(page: HTMLResponse) -> HTMLResponse:
    page.headers["Content-Security-Policy"] = SAME_ORIGIN_ONLY
    return page


@router.get("/docs")
async def swagger_ui(request: Request) -> HTMLResponse:
    page = get_swagger_ui_html(
        openapi_url=request.app.openapi_url,
        title=f"{request.app.title} — API",
        swagger_js_url=f"{VENDOR}/swagger-ui/swagger-ui-bundle.js",
        swagger_css_url=f"{VENDOR}/swagger-ui/swagger-ui.css",
        swagger_favicon_url=FAVICON,
        swagger_ui_parameters={"persistAuthorization": True},
    )
    return same_origin_only(page)


@router.get("/redoc")
async def redoc(request: Request) -> HTMLResponse:
    page = get_redoc_html(
        openapi_url=request.app.openapi_url,
        title=f"{request.app.title} — API",
        redoc_js_url=f"{VENDOR}/redoc/redoc.standalone.js",
        redoc_favicon_url=FAVICON,
        with_google_fonts=False,
    )
    return same_origin_only(page)


@router.get("/asyncapi.json")
async def asyncapi(request: Request) -> dict[str, Any]:
    return asyncapi_document(request.app)
