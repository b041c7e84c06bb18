"""The installable app in Chromium (issue 33): the service worker registers from the home
page and takes the pages over, the rules and the tutorial open with the network switched
off, a match page says the network is gone, and the manifest is one Chromium would install."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from app.rules import registry
from tests.browser.conftest import ARTIFACTS, CHROMIUM_ARGS, join_match, new_match, new_player, signed_in
from tests.browser.helpers import open_page

FULL_CHROMIUM = "/usr/bin/chromium"


def shots(artifacts: Path) -> Path:
    folder = artifacts / "issue33"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def controlled_home(context, server) -> Page:
    """The home page, once the service worker has installed (its cache filled) and controls it."""
    page = open_page(context, f"{server.url}/")
    page.wait_for_function("() => navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    return page


def test_the_worker_registers_and_the_rules_and_tutorial_open_offline(web_server, new_context, artifacts):
    context = new_context(service_workers="allow")
    page = controlled_home(context, web_server)
    scope = page.evaluate("() => navigator.serviceWorker.ready.then((r) => r.scope)")
    assert scope == f"{web_server.url}/"

    context.set_offline(True)
    for path in ["/rules", *(f"/rules/{ruleset}" for ruleset in registry()), "/tutorial"]:
        page.goto(f"{web_server.url}{path}")
        expect(page).to_have_title(re.compile(r" · Dejarik$"))  # the page, not the browser's error
        expect(page.locator("main h1")).not_to_have_text("You are offline — reconnecting")
        assert page.evaluate("() => document.styleSheets.length") >= 2, f"{path} lost its styles"
    expect(page.locator("#tutorial-name")).to_be_visible()

    # A page the worker does not keep: its own words, not the browser's error; it opens by
    # itself when the network is back.
    leaderboard = f"{web_server.url}/rules/kelly/leaderboard"
    page.goto(leaderboard)
    expect(page.locator("main h1")).to_have_text("You are offline — reconnecting")
    page.screenshot(path=shots(artifacts) / "offline-page.png")
    context.set_offline(False)
    expect(page.locator("main h1")).to_contain_text("leaderboard", ignore_case=True)
    assert page.url == leaderboard
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_a_match_page_says_so_when_the_network_goes(web_server, new_context, artifacts):
    blue, red = new_player(web_server, "Leia"), new_player(web_server, "Chewie")
    match_id = new_match(web_server, blue)
    join_match(web_server, red, match_id)
    context = signed_in(new_context(service_workers="allow"), web_server, blue)
    page = open_page(context, f"{web_server.url}/matches/{match_id}")
    connection = page.locator("#connection")
    expect(connection).to_have_text("Live")

    context.set_offline(True)
    expect(connection).to_have_text("You are offline — reconnecting…")
    page.screenshot(path=shots(artifacts) / "match-offline.png")
    context.set_offline(False)
    expect(connection).to_have_text("Live")


def test_chromium_finds_the_app_installable_and_the_home_page_offers_it(installing_chromium, web_server):
    page = installing_chromium.new_page()
    page.goto(f"{web_server.url}/")
    page.wait_for_function("() => navigator.serviceWorker.ready.then(() => true)")
    session = installing_chromium.new_cdp_session(page)
    manifest = session.send("Page.getAppManifest")
    assert manifest["errors"] == [] and manifest["url"] == f"{web_server.url}/manifest.webmanifest"
    assert session.send("Page.getInstallabilityErrors")["installabilityErrors"] == []

    offer = page.locator("[data-install-app]")
    expect(offer.get_by_role("button", name="Install the app")).to_be_visible()
    page.screenshot(path=shots(ARTIFACTS) / "home-install.png", full_page=True)
    offer.get_by_role("button").click()  # the browser's own question; asked once
    expect(offer).to_be_hidden()


@pytest.fixture
def installing_chromium(browser, tmp_path):
    """The full Chromium with a profile of its own: Chromium installs nothing from an
    incognito context (what Playwright's contexts are), and its headless shell never
    offers to install (no ``beforeinstallprompt``). The flag skips the wait for a
    visitor's engagement with the site before it offers."""
    if not Path(FULL_CHROMIUM).exists():
        pytest.skip(f"no Chromium at {FULL_CHROMIUM}")
    context = browser.browser_type.launch_persistent_context(
        tmp_path / "profile",
        executable_path=FULL_CHROMIUM,
        args=[*CHROMIUM_ARGS, "--bypass-app-banner-engagement-checks"],
    )
    yield context
    context.close()
