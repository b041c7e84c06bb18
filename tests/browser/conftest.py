"""Browser fixtures: one SQLite-backed live server and Debian's Chromium driven by Playwright.

A browser is never downloaded: Playwright launches Debian's ``chromium-headless-shell``, the
same Chromium (engine and version) as ``/usr/bin/chromium`` built as the headless shell that
Playwright runs by default when headless; a page costs it half the CPU (docs/performance.md).
``CHROMIUM=/usr/bin/chromium`` runs the suite in the full browser instead.
Screenshots go to ``test-artifacts/`` (gitignored).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from http.cookiejar import CookieJar, DefaultCookiePolicy
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.config import Settings
from tests.conftest import IDLE_CONNECTIONS, LiveServer

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium-headless-shell")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
# The screenshots the tests save for people to look at (test-artifacts/: every ruleset at
# every screen size, the tutorial's steps...) cost Chromium about 0.5 s of CPU each, twice
# what opening a match page costs (bench/page_load_cpu.py --shot). `TEST_SCREENSHOTS=1`
# saves them; a run without skips only the saving (the pages, and what the tests assert of
# them, are the same).
SAVE_SCREENSHOTS = os.environ.get("TEST_SCREENSHOTS", "").lower() in ("1", "true", "yes")
SERVICE_WORKERS = os.environ.get("TEST_SERVICE_WORKERS", "block")  # see new_context

# The tests' own REST calls (players, matches, actions) share one client: a client made for
# each call costs about 27 ms of CPU for its TLS context, and the play loops make thousands.
# It keeps no cookies, so every call is made as the player whose token it sends.
REST = httpx.Client(
    timeout=30, cookies=CookieJar(DefaultCookiePolicy(allowed_domains=[])), limits=IDLE_CONNECTIONS
)


@pytest.fixture(scope="session")
def web_server(tmp_path_factory) -> Iterator[LiveServer]:
    """A live server on SQLite only: the browser tests exercise pages, not databases."""
    database = tmp_path_factory.mktemp("browser-db") / "dejarik.db"
    server = LiveServer(Settings(database_url=f"sqlite+aiosqlite:///{database}", bot_delay_ms=0)).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser():
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    if not SAVE_SCREENSHOTS:
        skip_saved_screenshots()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def skip_saved_screenshots() -> None:
    """``page.screenshot(path=...)`` into test-artifacts/ draws nothing; any other
    screenshot (bytes a test compares, a file elsewhere) is taken as asked."""
    from playwright.sync_api import Page

    take = Page.screenshot

    def screenshot(self: Page, *arguments: Any, path: str | Path | None = None, **options: Any) -> bytes:
        if path is not None and Path(path).resolve().is_relative_to(ARTIFACTS):
            return b""
        return take(self, *arguments, path=path, **options)

    Page.screenshot = screenshot  # type: ignore[method-assign]


@pytest.fixture
def new_context(browser):
    """Make fresh browser contexts (separate cookie jars: separate players); closed afterwards.

    A context prefers reduced motion unless a test asks otherwise: the pages then show
    each change at once (a real setting of players', which the pages honour), instead of
    every test waiting out the dice's tumble and the pieces' slides. The animations have
    tests of their own (``test_art_and_motion.py``), which ask for motion.

    Likewise a context blocks the service worker unless a test asks for it: installing it
    (fetching and storing every static file and the offline pages) in every context made
    the browser tests a fifth slower. Its own tests (``test_installable.py``) allow it, and
    ``TEST_SERVICE_WORKERS=allow`` runs every browser test with it."""
    contexts = []

    def make(**options):
        options.setdefault("reduced_motion", "reduce")
        options.setdefault("service_workers", SERVICE_WORKERS)
        context = browser.new_context(**options)
        context.set_default_timeout(10_000)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def new_player(server: LiveServer, name: str) -> dict[str, str]:
    response = REST.post(f"{server.url}/api/v1/players", json={"name": name})
    assert response.status_code == 201, response.text
    return response.json()


def new_match(server: LiveServer, host: dict[str, str], ruleset: str = "kelly", seat: int | None = 0) -> str:
    response = REST.post(
        f"{server.url}/api/v1/matches",
        json={"ruleset": ruleset, "options": {}, "seat": seat},
        headers=auth(host),
    )
    assert response.status_code == 201, response.text
    return response.json()["id"]


def join_match(server: LiveServer, player: dict[str, str], match_id: str) -> dict:
    response = REST.post(
        f"{server.url}/api/v1/matches/{match_id}/join",
        json={},
        headers=auth(player),
    )
    assert response.status_code == 200, response.text
    return response.json()


def signed_in(context, server: LiveServer, player: dict[str, str]):
    """Give a browser context the player's cookie, as the name form would."""
    context.add_cookies(
        [
            {
                "name": "dejarik_token",
                "value": player["token"],
                "url": server.url,
                "httpOnly": True,
                "sameSite": "Lax",
            }
        ]
    )
    return context


def auth(player: dict[str, str]) -> dict[str, str]:
    return {"Authorization": f"Bearer {player['token']}"}


def rest_view(server: LiveServer, match_id: str, player: dict[str, str] | None = None) -> dict[str, Any]:
    """The match as ``player`` (or a spectator) gets it over REST."""
    response = REST.get(f"{server.url}/api/v1/matches/{match_id}", headers=auth(player) if player else {})
    assert response.status_code == 200, response.text
    return response.json()


def rest_act(
    server: LiveServer, match_id: str, player: dict[str, str], action: dict[str, Any], version: int
) -> None:
    """``player`` sends ``action`` over REST, as from a phone at the table; it must apply."""
    response = REST.post(
        f"{server.url}/api/v1/matches/{match_id}/actions",
        json={"action": action, "version": version},
        headers=auth(player),
    )
    assert response.status_code == 200, response.text
