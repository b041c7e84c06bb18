"""Web Push in Chromium (issue 33): the settings page offers "Notifications on this device",
and a push delivered to the service worker (through the DevTools protocol, as a push
service would deliver it) shows a notification with the match's words and link, whose
click opens the match."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM_ARGS, new_player, signed_in
from tests.browser.helpers import open_page

FULL_CHROMIUM = "/usr/bin/chromium"


def test_the_settings_page_offers_notifications_on_this_device(web_server, new_context):
    context = signed_in(new_context(), web_server, new_player(web_server, "Mon Mothma"))
    page = open_page(context, f"{web_server.url}/settings")
    switch = page.get_by_label("Notifications on this device")
    expect(switch).to_be_visible()
    expect(switch).not_to_be_checked()
    assert page.js_errors == []  # type: ignore[attr-defined]


@pytest.fixture
def full_browser(browser):
    """Debian's full Chromium: the headless shell refuses every site notifications."""
    if not Path(FULL_CHROMIUM).exists():
        pytest.skip(f"no full Chromium at {FULL_CHROMIUM}: the headless shell shows no notifications")
    full = browser.browser_type.launch(executable_path=FULL_CHROMIUM, args=CHROMIUM_ARGS)
    yield full
    full.close()


def test_a_push_to_the_worker_shows_a_notification(web_server, full_browser):
    context = full_browser.new_context()
    context.grant_permissions(["notifications"], origin=web_server.url)
    page = open_page(context, f"{web_server.url}/")
    page.wait_for_function("() => navigator.serviceWorker.ready.then(() => true)")
    session = context.new_cdp_session(page)
    registrations: list[dict] = []
    session.on(
        "ServiceWorker.workerRegistrationUpdated", lambda event: registrations.extend(event["registrations"])
    )
    session.send("ServiceWorker.enable")
    deadline = time.monotonic() + 10
    while not registrations and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    (registration,) = [
        r for r in registrations if r["scopeURL"] == f"{web_server.url}/" and not r["isDeleted"]
    ]

    url = f"{web_server.url}/matches/m1"
    notice = {
        "title": "Your turn",
        "body": "Your turn (blue) in Kelly against Greedo.",
        "url": url,
        "event": "your_turn",
        "match": {"id": "m1", "url": url, "ruleset": "kelly", "version": 3},
    }
    session.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": web_server.url,
            "registrationId": registration["registrationId"],
            "data": json.dumps(notice),
        },
    )
    shown: list = []
    deadline = time.monotonic() + 10
    while not shown and time.monotonic() < deadline:
        page.wait_for_timeout(50)
        shown = page.evaluate(
            """() => navigator.serviceWorker.ready
                .then((r) => r.getNotifications())
                .then((all) => all.map((n) => ({title: n.title, body: n.body, data: n.data})))"""
        )
    assert shown == [{"title": "Your turn", "body": notice["body"], "data": {"url": url}}]

    # A click on it opens the match. No browser here has a screen to click the
    # notification on, and Chromium lets a worker open a window only for a click a
    # person made, so the worker is handed the event its click fires, and the one
    # call the browser would refuse (clients.openWindow) records where it would go.
    (worker,) = context.service_workers
    opened = worker.evaluate(
        """async () => {
            const opened = [];
            self.clients.openWindow = async (url) => { opened.push(url); return null; };
            const [notification] = await self.registration.getNotifications();
            const click = new NotificationEvent("notificationclick", { notification });
            self.dispatchEvent(click);
            await new Promise((resolve) => setTimeout(resolve, 200));
            const left = await self.registration.getNotifications();
            return { opened, left: left.length };
        }"""
    )
    assert opened == {"opened": [url], "left": 0}  # the match opens; the notification is gone
