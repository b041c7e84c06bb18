"""Attacks that failed against the server in the security audit ("What held", mapped in
``docs/security-held.md``), kept failing: each test makes the attacker's request and
asserts what the attacker gets (the status, no leak, no side effect)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re
from urllib.parse import urlsplit

import httpx
import pytest
from websockets.asyncio.client import connect

from app.config import Settings
from app.services import matches
from app.services.errors import Invalid
from app.services.notifier import send_email
from tests.api.helpers import say, start_match, view
from tests.api.receivers import SmtpSink, arrives
from tests.conftest import LiveServer, new_player
from tests.realtime.helpers import receive, socket_url

# --- the webhook filter (SSRF) ------------------------------------------------------

REFUSED_WEBHOOKS = [
    "http://127.0.0.1/hook",
    "http://[::1]/hook",
    "http://169.254.169.254/latest/meta-data/",
    "http://localhost/hook",
    "http://127.1/hook",
    "http://2130706433/hook",  # 127.0.0.1 as one number
    "http://0.0.0.0/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://10.0.0.1/hook",
    "http://172.16.0.1/hook",
    "http://192.168.1.1/hook",
    "http://[fd00::1]/hook",
    "http://100.64.0.1/hook",  # carrier-grade NAT
    "http://[fe80::1]/hook",
    "http://[::]/hook",
    "http://255.255.255.255/hook",
    "http://evil.example@127.0.0.1/hook",  # userinfo that looks like the host
    "http://127.0.0.1#@evil.example/hook",  # a fragment that looks like userinfo
    "http://127.0.0.1:8080?@evil.example/hook",
    "file:///etc/passwd",
    "gopher://127.0.0.1:25/_HELO",
    "ftp://127.0.0.1/hook",
    "dict://127.0.0.1:11211/stats",
    "javascript:alert(1)",
]


async def test_held_the_webhook_filter_refuses_private_reserved_and_odd_scheme_urls(client):
    """The default server (``WEBHOOK_ALLOW_PRIVATE`` off) stores none of them."""
    assert len(REFUSED_WEBHOOKS) == 24
    player = await new_player(client, "Zam")
    for url in REFUSED_WEBHOOKS:
        body = {"webhook_url": url, "email": None}
        response = await client.put("/api/v1/players/me/notifications", json=body, headers=player["headers"])
        assert response.status_code == 422, (url, response.text)
        assert response.json()["field"] == "webhook_url", (url, response.text)
    mine = await client.get("/api/v1/players/me/notifications", headers=player["headers"])
    assert mine.json()["webhook_url"] is None, "nothing was stored"


# --- e-mail header injection --------------------------------------------------------

INJECTED = [
    "victim@example.org\r\nBcc: evil@example.org",
    "victim@example.org\nBcc: evil@example.org",
    "victim@example.org\u2028Bcc: evil@example.org",
    "victim@example.org\u0085Bcc: evil@example.org",
    "victim@example.org Bcc: evil@example.org",
]


async def test_held_email_header_injection_is_refused_and_from_is_always_smtp_from(tmp_path):
    smtp = SmtpSink()
    sender = "Dejarik <noreply@dejarik.example>"
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'mail.db'}",
        smtp_url=smtp.url,
        smtp_from=sender,
        notify_retry_s=0.2,
        notify_poll_s=0.2,
    )
    server = LiveServer(settings).start()
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            attacker = await new_player(http, "From: evil@example.org")
            for email in INJECTED:
                body = {"webhook_url": None, "email": email}
                refused = await http.put(
                    "/api/v1/players/me/notifications", json=body, headers=attacker["headers"]
                )
                assert refused.status_code == 422 and "email" in refused.json()["detail"], (
                    email,
                    refused.text,
                )
                # Nor does the sending itself take such an address (an old row's, say).
                with pytest.raises(Invalid):
                    await asyncio.to_thread(send_email, smtp.url, sender, email, "Your turn", "text")
            mine = await http.get("/api/v1/players/me/notifications", headers=attacker["headers"])
            assert mine.json()["email"] is None, "nothing was stored"

            address = "mallory@example.org"
            body = {"webhook_url": None, "email": address}
            saved = await http.put("/api/v1/players/me/notifications", json=body, headers=attacker["headers"])
            assert saved.status_code == 200, saved.text
            await arrives(lambda: smtp.to(address), within=10)
        (mail,) = smtp.messages
        assert mail.get_all("From") == [sender]
        assert mail["Bcc"] is None and mail["Cc"] is None
        assert smtp.recipients == [[address]]
        assert "evil@example.org" not in str(mail)
    finally:
        server.stop()
        smtp.close()


# --- signing out --------------------------------------------------------------------


def cookie_flags(set_cookie: str) -> set[str]:
    """A ``Set-Cookie`` header's flags, without its value and lifetime."""
    return {
        part.strip().lower()
        for part in set_cookie.split(";")[1:]
        if not part.strip().lower().startswith(("max-age", "expires"))
    }


async def test_held_signing_out_revokes_the_token_and_clears_the_cookie_with_the_same_flags(live_server):
    name = live_server.settings.cookie_name
    async with httpx.AsyncClient(base_url=live_server.url, headers={"Origin": live_server.url}) as browser:
        signed_in = await browser.post("/name", data={"name": "Han"})
        assert signed_in.status_code == 303
        token = browser.cookies[name]
        out = await browser.post("/api/v1/players/me/sign-out")
        assert out.status_code == 204, out.text
        cleared = out.headers["set-cookie"]
        assert cleared.startswith(f'{name}=""') or cleared.startswith(f"{name}=;")
        assert "max-age=0" in cleared.lower()
        assert cookie_flags(cleared) == cookie_flags(signed_in.headers["set-cookie"])
        assert {"httponly", "path=/", "samesite=lax"} <= cookie_flags(cleared)
    async with httpx.AsyncClient(base_url=live_server.url) as other:
        bearer = await other.get("/api/v1/players/me", headers={"Authorization": f"Bearer {token}"})
        assert bearer.status_code == 401
        other.cookies.set(name, token)
        assert (await other.get("/api/v1/players/me")).status_code == 401


# --- chat ---------------------------------------------------------------------------

PAYLOADS = [
    '<img src=x onerror="alert(1)">',
    "</script><script>alert(2)</script>",
    '"><svg onload=alert(3)>',
]


async def test_held_chat_payloads_reach_no_page_unescaped_and_length_counts_characters(client, live_server):
    match, (blue, red) = await start_match(client)
    renamed = await client.patch(
        "/api/v1/players/me", json={"name": "<i>Chewie</i>"}, headers=blue["headers"]
    )
    assert renamed.status_code == 200, renamed.text  # a name in markup: shown on every page, as text
    for payload in PAYLOADS:
        assert (await say(client, match["id"], blue, payload)).status_code == 201
    # 500 emoji (2,000 UTF-8 bytes) are 500 characters: taken; the 501st is refused.
    assert (await say(client, match["id"], red, "🐉" * 500)).status_code == 201
    assert (await say(client, match["id"], red, "🐉" * 501)).status_code == 422
    kept = (await client.get(f"/api/v1/matches/{match['id']}/chat")).json()["messages"]
    assert [m["text"] for m in kept] == [*PAYLOADS, "🐉" * 500]

    resigned = await client.post(
        f"/api/v1/matches/{match['id']}/actions",
        json={"action": {"type": "resign"}, "version": match["version"]},
        headers=blue["headers"],
    )
    assert resigned.status_code == 200
    async with httpx.AsyncClient(base_url=live_server.url) as browser:
        browser.cookies.set(live_server.settings.cookie_name, red["token"])
        for path in (
            f"/matches/{match['id']}",
            f"/matches/{match['id']}/replay",
            f"/matches/{match['id']}/table",
            f"/players/{blue['id']}",
        ):
            page = await browser.get(path)
            assert page.status_code == 200, path
            for payload in PAYLOADS:
                assert payload not in page.text, (path, payload)
            assert "<img src=x" not in page.text and "<svg onload" not in page.text, path
            assert "<i>Chewie" not in page.text, path
    # The page's script shows messages as text, never as markup.
    script = (await client.get("/static/js/chat.js")).text
    assert "textContent" in script
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"):
        assert sink not in script, sink


# --- hidden information and the dice commitment ------------------------------------

SERVER_SEED = hashlib.sha256(b"the audit's server seed").digest()
CHOSEN = re.compile(r"(\"|&#34;|&quot;)chosen(\"|&#34;|&quot;):\s*[1-9]")
"""A setter's choice, as JSON or as JSON in a page."""


def leaks(text: str) -> list[str]:
    found = []
    if CHOSEN.search(text):
        found.append("the setter's choice")
    if SERVER_SEED.hex() in text:
        found.append("the server's seed")
    if re.search(r"(\"|&#34;|&quot;)type(\"|&#34;|&quot;):\s*(\"|&#34;|&quot;)(un)?set_piece", text):
        found.append("a hidden action")
    return found


async def setting_in_progress(client, match_id: str, players: list[dict]) -> int:
    """Play until a setter has chosen pieces and not yet confirmed them; returns its seat."""
    rng = random.Random(3)
    for _ in range(300):
        seat = (await view(client, match_id))["to_act"][0]
        mine = await view(client, match_id, players[seat])
        kinds = {a["type"] for a in mine["legal_actions"]}
        if "set_piece" in kinds:
            for _ in range(2):
                mine = await view(client, match_id, players[seat])
                if not any(a["type"] == "set_piece" for a in mine["legal_actions"]):
                    break
                sent = await client.post(
                    f"/api/v1/matches/{match_id}/actions",
                    json={"action": {"type": "set_piece"}, "version": mine["version"]},
                    headers=players[seat]["headers"],
                )
                assert sent.status_code == 200, sent.text
            return seat
        skip = {"resign", "offer_draw", "accept_draw", "decline_draw", "done_setting", "unset_piece"}
        action = rng.choice([a for a in mine["legal_actions"] if a["type"] not in skip])
        sent = await client.post(
            f"/api/v1/matches/{match_id}/actions",
            json={"action": action, "version": mine["version"]},
            headers=players[seat]["headers"],
        )
        assert sent.status_code == 200, sent.text
    raise AssertionError("nobody came to set pieces")


async def test_held_a_setters_choice_and_the_server_seed_leak_nowhere_until_the_end(
    client, live_server, monkeypatch
):
    """Every capture the audit made, as the opponent, a spectator and nobody: views, logs
    (JSON and NDJSON), summaries, presence, every past version, websockets, pages."""
    monkeypatch.setattr(matches, "new_seed", lambda: SERVER_SEED)  # the server runs in this process
    blue, red, watcher = [await new_player(client, n) for n in ("Kyla", "Dorn", "Watcher")]
    created = await client.post(
        "/api/v1/matches",
        json={"ruleset": "eote", "options": {"turns_without_kill": 12}, "seat": 0},
        headers=blue["headers"],
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    # The joiner sees the commitment and the other seat's seed, and nothing is rolled yet.
    before = await view(client, match_id, red)
    assert before["dice"]["commitment"] == hashlib.sha256(SERVER_SEED).hexdigest()
    assert before["dice"]["seed"] is None and before["seed"] is None
    assert before["dice"]["player_seeds"][1] is None and before["dice"]["player_seeds"][0]
    assert (await client.get(f"/api/v1/matches/{match_id}/events")).json()["events"] == []
    joined = await client.post(f"/api/v1/matches/{match_id}/join", headers=red["headers"])
    assert joined.status_code == 200, joined.text
    players = [blue, red]

    setter = await setting_in_progress(client, match_id, players)
    own = await client.get(f"/api/v1/matches/{match_id}", headers=players[setter]["headers"])
    assert "the setter's choice" in leaks(own.text), "the setter sees its own choice (the check works)"
    own_log = await client.get(f"/api/v1/matches/{match_id}/events", headers=players[setter]["headers"])
    assert "a hidden action" in leaks(own_log.text), "and its own action in the log"
    opponent = players[1 - setter]
    latest = (await view(client, match_id))["version"]

    captures: dict[str, str] = {}
    ndjson = {"Accept": "application/x-ndjson"}
    for who, headers in (
        ("opponent", opponent["headers"]),
        ("spectator", watcher["headers"]),
        ("nobody", {}),
    ):
        captures[f"view as {who}"] = (await client.get(f"/api/v1/matches/{match_id}", headers=headers)).text
    for who, headers in (("opponent", opponent["headers"]), ("nobody", {})):
        events = f"/api/v1/matches/{match_id}/events"
        captures[f"events as {who}"] = (await client.get(events, headers=headers)).text
        captures[f"NDJSON events as {who}"] = (await client.get(events, headers={**headers, **ndjson})).text
    for who in (blue, red):
        listing = {"player": who["id"]}
        captures[f"summaries of {who['name']}"] = (await client.get("/api/v1/matches", params=listing)).text
        captures[f"NDJSON summaries of {who['name']}"] = (
            await client.get("/api/v1/matches", params=listing, headers=ndjson)
        ).text
    captures["presence"] = (await client.get(f"/api/v1/matches/{match_id}/presence")).text
    for version in range(latest + 1):
        captures[f"at/{version}"] = (await client.get(f"/api/v1/matches/{match_id}/at/{version}")).text
    for who, url in (
        ("opponent", socket_url(live_server, match_id, opponent)),
        ("spectator", socket_url(live_server, match_id, watcher, spectator=1)),
        ("nobody", socket_url(live_server, match_id, spectator=1)),
    ):
        async with connect(url) as socket:
            captures[f"websocket of {who}"] = json.dumps(await receive(socket, "snapshot"))
    async with httpx.AsyncClient(base_url=live_server.url) as browser:
        browser.cookies.set(live_server.settings.cookie_name, opponent["token"])
        for path in (
            f"/matches/{match_id}",
            f"/matches/{match_id}/replay?v={latest}",
            f"/matches/{match_id}/table",
            f"/players/{blue['id']}",
            f"/players/{red['id']}",
        ):
            page = await browser.get(path)
            assert page.status_code == 200, path
            captures[f"page {path}"] = page.text
    assert len(captures) >= 18 + 5
    leaked = {name: found for name, text in captures.items() if (found := leaks(text))}
    assert leaked == {}, leaked

    # At the end the seed is revealed, and it is the one committed to.
    resigned = await client.post(
        f"/api/v1/matches/{match_id}/actions",
        json={"action": {"type": "resign"}, "version": latest},
        headers=opponent["headers"],
    )
    assert resigned.status_code == 200, resigned.text
    finished = await view(client, match_id)
    assert finished["seed"] == SERVER_SEED.hex()
    assert hashlib.sha256(bytes.fromhex(finished["seed"])).hexdigest() == finished["seed_sha256"]


# --- paths, redirects, error pages, the API docs ------------------------------------

TRAVERSALS = [
    "/static/../app/config.py",
    "/static/../../etc/passwd",
    "/static/..%2fapp%2fconfig.py",
    "/static/%2e%2e/%2e%2e/etc/passwd",
    "/static/%2e%2e%2fpyproject.toml",
    "/static/....//....//etc/passwd",
    "/static/..\\..\\app\\config.py",
    "/static/%2e%2e%5capp%5cconfig.py",
    "/static/%252e%252e/pyproject.toml",
    "/static//etc/passwd",
    "/static/js/../../pyproject.toml",
    "/rules/../app/config.py",
    "/rules/..%2f..%2fetc%2fpasswd",
    "/rules/%2e%2e/%2e%2e/pyproject.toml",
]
SECRETS_OF_FILES = ("root:x:0:0", "[project]", "class Settings", "database_url")


async def raw_get(live_server: LiveServer, path: str) -> tuple[int, str]:
    """GET ``path`` exactly as written (an HTTP client would resolve its dot segments)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", live_server.port)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
        response = (await asyncio.wait_for(reader.read(), 10)).decode("utf-8", "replace")
    finally:
        writer.close()
    return int(response.split(" ", 2)[1]), response


async def test_held_no_raw_path_traversal_reaches_a_file_outside_static(live_server):
    assert len(TRAVERSALS) == 14
    for path in TRAVERSALS:
        status, response = await raw_get(live_server, path)
        assert status >= 400, (path, status)
        for secret in SECRETS_OF_FILES:
            assert secret not in response, (path, secret)
    status, response = await raw_get(live_server, "/static/js/chat.js")
    assert status == 200 and "textContent" in response, "the raw client reads what is served"


NEXT_TARGETS = [
    "//evil.example/",
    "/\\evil.example/",
    "\\\\evil.example/",
    "https://evil.example/",
    "http:evil.example",
    "javascript:alert(1)",
    " //evil.example/",
    "/%2F/evil.example/",
]


def stays_on_the_site(location: str) -> bool:
    as_browser = location.replace("\\", "/").strip()  # browsers read "\" in a URL as "/"
    parts = urlsplit(as_browser)
    return (
        as_browser.startswith("/")
        and not as_browser.startswith("//")
        and not parts.scheme
        and not parts.netloc
    )


async def test_held_next_targets_stay_on_the_site(live_server):
    assert not stays_on_the_site("//evil.example/") and not stays_on_the_site("/\\evil.example")
    for target in NEXT_TARGETS:
        async with httpx.AsyncClient(base_url=live_server.url, headers={"Origin": live_server.url}) as fresh:
            response = await fresh.post("/name", data={"name": "Greedo", "next": target})
        assert response.status_code == 303, (target, response.text)
        assert stays_on_the_site(response.headers["location"]), (target, response.headers["location"])


ERROR_PAYLOAD = "<img src=x onerror=alert(1)>"


async def test_held_error_pages_show_no_trace_and_no_unescaped_input(client, live_server):
    player = await new_player(client, "Bossk")
    client.cookies.set(live_server.settings.cookie_name, player["token"])
    pages = [
        await client.get(f"/matches/{ERROR_PAYLOAD}"),
        await client.get(f"/matches/{ERROR_PAYLOAD}/replay"),
        await client.get(f"/matches/{ERROR_PAYLOAD}/table"),
        await client.get(f"/players/{ERROR_PAYLOAD}"),
        await client.get(f"/rules/{ERROR_PAYLOAD}"),
        await client.post("/matches", data={"ruleset": ERROR_PAYLOAD, "seat": "0"}),
    ]
    for page in pages:
        where = f"{page.request.method} {page.request.url}"
        assert 400 <= page.status_code < 500, (where, page.status_code)
        assert page.headers["content-type"].startswith("text/html"), where
        assert ERROR_PAYLOAD not in page.text and "<img src=x" not in page.text, where
        for trace in ("Traceback", 'File "', "/app/", "site-packages"):
            assert trace not in page.text, (where, trace)


async def test_held_the_docs_pages_load_only_from_this_site_and_ignore_a_url_given(client):
    for path in ("/docs", "/redoc"):
        plain = await client.get(path)
        assert plain.status_code == 200
        policy = plain.headers["content-security-policy"]
        directives = dict(d.strip().split(" ", 1) for d in policy.split(";") if d.strip())
        assert directives["default-src"] == "'self'", policy
        for directive in ("default-src", "script-src", "connect-src", "style-src", "img-src", "font-src"):
            sources = directives.get(directive, directives["default-src"]).split()
            assert all(s in ("'self'", "'unsafe-inline'", "data:", "blob:") for s in sources), policy
        assert "http://" not in plain.text and "https://" not in plain.text
        asked = await client.get(
            path,
            params={"url": "http://evil.example/openapi.json", "configUrl": "http://evil.example/c.json"},
        )
        assert asked.text == plain.text and "evil.example" not in asked.text
        assert "queryConfigEnabled" not in asked.text  # Swagger UI's default: the query is ignored
