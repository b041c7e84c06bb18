"""/docs and /redoc work with no network: every asset comes from the server itself."""

from __future__ import annotations

from urllib.parse import urlparse

import httpx
import pytest

LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def offline_page(new_context, web_server):
    """A page on which every request to another host is aborted (and recorded)."""
    context = new_context()
    blocked: list[str] = []

    def route(route):
        url = route.request.url
        if urlparse(url).hostname in LOCAL_HOSTS or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            blocked.append(url)
            route.abort()

    context.route("**/*", route)
    return context.new_page(), blocked


def operations(web_server) -> list[tuple[str, str, dict]]:
    spec = httpx.get(f"{web_server.url}/openapi.json", timeout=30).json()
    return [(method, path, op) for path, ops in spec["paths"].items() for method, op in ops.items()]


def test_swagger_ui_renders_every_operation_offline(new_context, web_server, artifacts):
    page, blocked = offline_page(new_context, web_server)
    page.goto(f"{web_server.url}/docs")
    every = operations(web_server)
    page.wait_for_selector(".opblock", timeout=30_000)  # 50 operations: seconds on a busy machine
    for method, path, _ in every:
        block = page.locator(f".opblock-{method}:has([data-path='{path}'])")
        assert block.count() == 1, f"{method.upper()} {path} is not rendered"
    # Authorize (the bearer scheme) and the link to the websocket's description.
    assert page.locator("button.authorize").count() == 1
    assert page.locator("a[href='/asyncapi.json']").count() >= 1
    page.screenshot(path=artifacts / "docs-offline.png")
    assert blocked == [], f"/docs asked another host for {blocked}"


def test_redoc_renders_every_operation_offline(new_context, web_server, artifacts):
    page, blocked = offline_page(new_context, web_server)
    page.goto(f"{web_server.url}/redoc")
    page.wait_for_selector("[data-section-id^='tag/']", timeout=30_000)
    every = operations(web_server)
    text = page.inner_text("body")
    for method, path, op in every:
        assert op["summary"] in text, f"{method.upper()} {path} ({op['summary']}) is not rendered"
    assert page.locator("a[href='/asyncapi.json']").count() >= 1
    page.screenshot(path=artifacts / "redoc-offline.png")
    assert blocked == [], f"/redoc asked another host for {blocked}"


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_docs_pages_name_no_other_host(web_server, page):
    html = httpx.get(f"{web_server.url}{page}", timeout=30).text
    assert "http://" not in html and "https://" not in html, html
