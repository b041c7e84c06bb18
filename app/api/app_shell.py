"""The installable app (issue 33): the web manifest, the service worker and its offline page.

The worker (``templates/sw.js``) is served from the root, ``/sw.js``, so that its scope is
the whole site. It is rendered once, when the app is made, with the list of static files
it keeps and a version hashed over their contents: a deploy that changes any of them
changes the worker's bytes, so browsers install the new worker, which keeps its files in
a new cache and deletes the old one. The strict Content-Security-Policy
(``app/api/headers.py``) needs nothing more: ``default-src 'self'`` is what
``worker-src`` and ``manifest-src`` fall back to.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse

from app.api.deps import SessionDep, SettingsDep
from app.api.pages import page, page_player, templates
from app.config import ROOT
from app.rules import registry

router = APIRouter(include_in_schema=False)

STATIC = ROOT / "static"
NOT_KEPT = {"vendor"}  # the API docs' bundles: large, and /docs is no page for a phone
OFFLINE_PAGE = "/offline"
BACKGROUND = "#0b1220"  # --bg in static/style.css
NO_CACHE = {"Cache-Control": "no-cache"}  # a deploy's new worker and manifest are seen at once

MANIFEST: dict[str, Any] = {
    "id": "/",
    "name": "Dejarik",
    "short_name": "Dejarik",
    "description": "The holochess of the films, with every fan ruleset: play your friends or the computer.",
    "start_url": "/",
    "scope": "/",
    "display": "standalone",
    "background_color": BACKGROUND,
    "theme_color": BACKGROUND,
    "icons": [
        {"src": "/static/icons/icon-192.png", "sizes": "192x192", "type": "image/png", "purpose": "any"},
        {"src": "/static/icons/icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any"},
        {
            "src": "/static/icons/icon-maskable-512.png",
            "sizes": "512x512",
            "type": "image/png",
            "purpose": "maskable",
        },
    ],
}


def static_files(directory: Path = STATIC) -> list[Path]:
    """The static files the worker keeps, in a stable order."""
    return sorted(
        path
        for path in directory.rglob("*")
        if path.is_file()
        and path.relative_to(directory).parts[0] not in NOT_KEPT
        and not any(part.startswith(".") for part in path.relative_to(directory).parts)
    )


def offline_pages() -> list[str]:
    """The pages that open without the network: the rules of each ruleset, and the tutorial."""
    return ["/rules", *(f"/rules/{ruleset_id}" for ruleset_id in registry()), "/tutorial"]


def service_worker_script(directory: Path = STATIC) -> str:
    """``templates/sw.js`` with the version of the static files and what to keep."""
    files = static_files(directory)
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(directory).as_posix().encode() + b"\0" + path.read_bytes())
    return templates.get_template("sw.js").render(
        version=digest.hexdigest()[:16],
        static_urls=[f"/static/{path.relative_to(directory).as_posix()}" for path in files],
        offline_pages=offline_pages(),
        offline_page=OFFLINE_PAGE,
    )


@router.get("/manifest.webmanifest")
async def manifest() -> JSONResponse:
    return JSONResponse(MANIFEST, media_type="application/manifest+json", headers=NO_CACHE)


@router.get("/sw.js")
async def service_worker(request: Request) -> Response:
    return Response(
        request.app.state.service_worker, media_type="text/javascript; charset=utf-8", headers=NO_CACHE
    )


@router.get(OFFLINE_PAGE, response_class=HTMLResponse)
async def offline(request: Request, session: SessionDep, settings: SettingsDep) -> HTMLResponse:
    """What the worker shows for a page it can neither fetch nor find in its cache."""
    player = await page_player(request, session, settings)
    return page(request, "offline.html", {"player": player})
