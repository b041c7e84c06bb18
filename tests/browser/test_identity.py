"""One identity on every device, in real browsers: rename, a device link with its QR
code (which asks before it signs in), the devices list and signing one out, a passkey
made and used with Chromium's virtual authenticator, and signing out one browser while
another stays signed in. (tests/api/test_identity.py runs the same rules over HTTP.)"""

from __future__ import annotations

import segno
from playwright.sync_api import Page, expect

from tests.browser.conftest import REST, auth, new_player, signed_in


def settings_page(context, server) -> Page:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors  # type: ignore[attr-defined]
    page.goto(f"{server.url}/settings")
    expect(page.locator("#name-title")).to_be_visible()
    return page


def use_link(page: Page, url: str, name: str) -> None:
    """Open a device link and confirm it on its page."""
    page.goto(url)
    expect(page.get_by_role("heading", name=f"Sign in as {name}?")).to_be_visible()
    page.locator("[data-use-device-link]").click()
    expect(page.locator("header .who")).to_contain_text(name)


def device_link(server, player: dict[str, str]) -> str:
    response = REST.post(f"{server.url}/api/v1/players/me/device-links", headers=auth(player))
    assert response.status_code == 201, response.text
    return response.json()["url"]


def test_a_player_renames_themselves(web_server, new_context):
    chewie = new_player(web_server, "Chewie")
    page = settings_page(signed_in(new_context(), web_server, chewie), web_server)
    page.fill("#rename-input", "")
    page.fill("#rename-input", "Chewbacca")
    page.get_by_role("button", name="Rename").click()
    expect(page.locator("[data-renamed]")).to_contain_text("Chewbacca")
    expect(page.locator("header .who")).to_contain_text("Chewbacca")
    page.fill("#rename-input", "   ")
    page.evaluate("document.querySelector('#rename-input').removeAttribute('required')")
    page.get_by_role("button", name="Rename").click()
    expect(page.locator(".settings [role=alert]")).to_contain_text("cannot be empty")
    page.goto(f"{web_server.url}/")
    expect(page.locator("header .who")).to_contain_text("Chewbacca")
    assert page.js_errors == []


def test_a_device_link_signs_a_second_browser_in_once(web_server, new_context, artifacts):
    chewie = new_player(web_server, "Chewie")
    laptop = settings_page(signed_in(new_context(), web_server, chewie), web_server)
    laptop.get_by_role("button", name="Show a sign-in link and QR code").click()
    expect(laptop.locator(".qr svg")).to_be_visible()
    url = laptop.input_value("[data-device-link-url]")
    assert url.startswith(f"{web_server.url}/link/")
    # The QR code encodes exactly this link: its modules are those segno draws for it.
    drawn = laptop.get_attribute(".qr path.qrline", "d")
    assert drawn and drawn in segno.make(url, error="m").svg_inline(border=4, omitsize=True)
    laptop.screenshot(path=artifacts / "identity-device-link.png")

    phone = new_context(viewport={"width": 375, "height": 812}, has_touch=True, is_mobile=True).new_page()
    phone.goto(url)
    expect(phone.get_by_role("heading", name="Sign in as Chewie?")).to_be_visible()
    expect(phone.locator("header .who")).to_have_count(0)  # opening it signed nobody in
    phone.get_by_role("button", name="Sign in as Chewie").click()
    expect(phone.locator("header .who")).to_contain_text("Chewie")
    assert phone.url == f"{web_server.url}/"
    me = phone.evaluate("fetch('/api/v1/players/me').then(r => r.json())")
    assert me == {"id": chewie["id"], "name": "Chewie"}

    stranger = new_context().new_page()
    response = stranger.goto(url)
    assert response is not None and response.status == 410
    expect(stranger.locator("[role=alert]")).to_contain_text("already used")
    expect(stranger.locator("header .who")).to_have_count(0)


def test_signing_out_asks_first_and_ends_only_this_browser(web_server, new_context):
    chewie = new_player(web_server, "Chewie")
    laptop = settings_page(signed_in(new_context(), web_server, chewie), web_server)
    laptop.get_by_role("button", name="Show a sign-in link and QR code").click()
    phone = new_context().new_page()
    use_link(phone, laptop.input_value("[data-device-link-url]"), "Chewie")

    laptop.goto(f"{web_server.url}/settings")
    laptop.get_by_role("button", name="Sign out…").click()
    dialog = laptop.locator("[data-sign-out-dialog]")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("You have no passkey")
    dialog.get_by_role("button", name="Stay signed in").click()
    expect(dialog).to_be_hidden()
    laptop.reload()
    expect(laptop.locator("header .who")).to_contain_text("Chewie")  # cancelling changed nothing

    laptop.get_by_role("button", name="Sign out…").click()
    dialog.get_by_role("button", name="Sign out", exact=True).click()
    expect(laptop.locator("#name-input")).to_be_visible()  # home, asking for a name
    expect(laptop.locator("header .who")).to_have_count(0)
    old = laptop.request.get(
        f"{web_server.url}/api/v1/players/me", headers={"Authorization": f"Bearer {chewie['token']}"}
    )
    assert old.status == 401

    phone.reload()
    expect(phone.locator("header .who")).to_contain_text("Chewie")
    assert laptop.js_errors == []


def test_a_passkey_signs_the_player_in_again_after_signing_out(web_server, new_context, artifacts):
    # WebAuthn wants a host name, not an IP address: the same server, reached as localhost.
    origin = f"http://localhost:{web_server.port}"
    chewie = new_player(web_server, "Chewie")
    context = new_context()
    context.add_cookies(
        [
            {
                "name": "dejarik_token",
                "value": chewie["token"],
                "url": origin,
                "httpOnly": True,
                "sameSite": "Lax",
            }
        ]
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    page.goto(f"{origin}/settings")
    page.get_by_role("button", name="Add a passkey").click()
    expect(page.locator("[data-passkey-status]")).to_contain_text("You have 1 passkey")
    page.screenshot(path=artifacts / "identity-passkey.png")

    page.get_by_role("button", name="Sign out…").click()
    dialog = page.locator("[data-sign-out-dialog]")
    expect(dialog).to_contain_text("with your passkey")
    dialog.get_by_role("button", name="Sign out", exact=True).click()
    expect(page.locator("#name-input")).to_be_visible()
    assert context.cookies(origin) == []

    page.get_by_role("button", name="Sign in with a passkey").click()
    expect(page.locator("header .who")).to_contain_text("Chewie")
    me = page.evaluate("fetch('/api/v1/players/me').then(r => r.json())")
    assert me == {"id": chewie["id"], "name": "Chewie"}
    assert errors == []


def test_m2_a_link_sent_to_a_signed_in_browser_asks_before_forgetting_its_player(web_server, new_context):
    """The audit's login CSRF (M2): a link of someone else's player, opened in a browser
    that plays as Leia, says what would happen and changes nothing unless confirmed."""
    leia, boba = new_player(web_server, "Leia"), new_player(web_server, "Boba")
    url = device_link(web_server, boba)
    page = settings_page(signed_in(new_context(), web_server, leia), web_server)
    page.goto(url)
    expect(page.get_by_role("heading", name="Sign in as Boba?")).to_be_visible()
    warning = page.locator("[data-forgotten]")
    expect(warning).to_contain_text("This browser now plays as Leia, who will be signed out and forgotten")
    expect(warning).to_contain_text("Leia has no passkey and no other device")
    expect(page.locator("header .who")).to_contain_text("Leia")

    page.get_by_role("link", name="Keep playing as Leia").click()
    expect(page.locator("header .who")).to_contain_text("Leia")
    page.goto(url)  # not spent by opening it: it still asks
    page.get_by_role("button", name="Forget Leia and sign in as Boba").click()
    expect(page.locator("header .who")).to_contain_text("Boba")
    old = REST.get(f"{web_server.url}/api/v1/players/me", headers=auth(leia))
    assert old.status_code == 401
    assert page.js_errors == []


def test_m3_a_player_signs_another_device_out_without_scripts(web_server, new_context):
    chewie = new_player(web_server, "Chewie")
    laptop = new_context(java_script_enabled=False)  # the list is plain forms
    laptop_page = settings_page(signed_in(laptop, web_server, chewie), web_server)
    phone = new_context().new_page()
    use_link(phone, device_link(web_server, chewie), "Chewie")
    tablet = new_context().new_page()
    use_link(tablet, device_link(web_server, chewie), "Chewie")

    laptop_page.reload()
    rows = laptop_page.locator("[data-devices] li")
    expect(rows).to_have_count(3)
    expect(rows.first).to_contain_text("this browser")
    expect(rows.first.get_by_role("button")).to_have_count(0)
    expect(rows.nth(1)).to_contain_text("Chrome on Linux")
    expect(rows.nth(1)).to_contain_text("last used")

    rows.nth(1).get_by_role("button", name="Sign out").click()
    expect(laptop_page.locator("[data-devices-status]")).to_contain_text("Signed out")
    expect(rows).to_have_count(2)

    signed_out = [
        p for p in (phone, tablet) if p.request.get(f"{web_server.url}/api/v1/players/me").status == 401
    ]
    assert len(signed_out) == 1  # the device signed out: its next request is refused
    signed_out[0].goto(f"{web_server.url}/settings")
    expect(signed_out[0].get_by_role("heading", name="This browser is signed out")).to_be_visible()
    expect(signed_out[0].locator("[data-signed-out]")).to_contain_text(
        "signed out from another of your devices"
    )
    expect(signed_out[0].locator("header .who")).to_have_count(0)

    laptop_page.get_by_role("button", name="Sign out every other device").click()
    expect(laptop_page.locator("[data-devices-status]")).to_contain_text("Signed out")
    expect(rows).to_have_count(1)
    still_kept = tablet if signed_out[0] is phone else phone
    still_kept.goto(f"{web_server.url}/")
    expect(still_kept.locator("[data-signed-out]")).to_contain_text("This browser was signed out")
    for page in (phone, tablet):
        page.goto(f"{web_server.url}/")
        expect(page.locator("header .who")).to_have_count(0)
        expect(page.locator("#name-input")).to_be_visible()
    expect(laptop_page.locator("header .who")).to_contain_text("Chewie")
