"""The pages work under their Content-Security-Policy (``app/api/headers.py``): a page
whose script, style, image or socket the policy blocks breaks silently, so each main page
is opened, used a little, and must report no violation at all (``securitypolicyviolation``
events and Chromium's console both listened to)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.conftest import join_match, new_match, new_player, signed_in
from tests.browser.helpers import (
    acting_page,
    match_page_ready,
    play_any,
    random_play,
    table_ready,
    wait_for_version,
)

LISTEN = """document.addEventListener('securitypolicyviolation', e => {
  (window.__violations = window.__violations || []).push(`${e.violatedDirective} ${e.blockedURI}`);
});"""


def watched(context) -> list[str]:
    """Every CSP violation of the context's pages: the event, and the console's words."""
    seen: list[str] = []
    context.add_init_script(LISTEN)

    def on_page(page: Page) -> None:
        page.on(
            "console",
            lambda m: seen.append(m.text) if "Content Security Policy" in m.text else None,
        )

    context.on("page", on_page)
    return seen


def violations(page: Page, console: list[str]) -> list[str]:
    return page.evaluate("window.__violations || []") + console


def test_l12_the_main_pages_run_under_their_policy(web_server, new_context):
    site = web_server.url
    host, guest = new_player(web_server, "Jyn"), new_player(web_server, "Cassian")
    match_id = new_match(web_server, host)
    join_match(web_server, guest, match_id)
    contexts = [signed_in(new_context(), web_server, p) for p in (host, guest)]
    consoles = [watched(c) for c in contexts]
    pages = [c.new_page() for c in contexts]
    for page in pages:
        page.goto(f"{site}/matches/{match_id}")
        match_page_ready(page)  # live: the websocket is allowed
    acting = acting_page(pages)
    before = play_any(acting)  # a board action: selection, odds, dice, animations
    for page in pages:
        wait_for_version(page, before + 1)
        assert violations(page, consoles[pages.index(page)]) == [], page.url

    page, console = pages[0], consoles[0]
    page.locator("summary:has-text('How to play')").first.click()  # the guide, fetched
    expect(page.locator(".howto-body")).not_to_be_empty()
    assert violations(page, console) == []

    random_play(web_server, match_id, [host, guest], steps=6, seed=5)
    visits = {
        "/": "main",
        f"/matches/{match_id}/table": "#tv-connection",
        f"/matches/{match_id}/replay": "#replay[data-version]",
        "/rules/kelly": ".diagram svg",
        "/rules/eote": "main",
        f"/players/{host['id']}": "main",
        "/settings": "[data-new-device-link]",
        "/docs": ".swagger-ui .opblock",
    }
    for path, ready in visits.items():
        page.goto(site + path)
        page.wait_for_selector(ready, state="attached", timeout=30_000)  # /docs renders 50 operations
        if path.endswith("/table"):
            table_ready(page, web_server, match_id)
        assert violations(page, console) == [], path
    page.goto(f"{site}/settings")
    page.click("[data-new-device-link]")  # the QR code, inline SVG
    page.wait_for_selector("svg.segno, .qr svg", state="attached")
    assert violations(page, console) == []


def test_l12_a_newcomer_s_pages_run_under_their_policy(web_server, new_context):
    """Signed out: the name form, then a tutorial against the Tutor."""
    context = new_context()
    console = watched(context)
    page = context.new_page()
    page.goto(f"{web_server.url}/")
    page.click("[data-learn='tutorial']")
    if page.locator("#tutorial-name").count():
        page.fill("#tutorial-name", "Bodhi")
    page.click("text=Start the tutorial")
    expect(page.locator("#connection")).to_have_text("Live")
    expect(page.locator(".tutorial-panel [data-step]")).to_have_count(5)
    assert violations(page, console) == []
