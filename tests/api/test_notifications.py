"""Notifications: "your turn" and "match finished" by webhook and email, from the
outbox the match service writes with each change. A real webhook receiver and a
real SMTP server (aiosmtpd) on 127.0.0.1 take what the server sends.

Email (security audit H1): one address per player, confirmed by a link sent to it
before anything else goes there; a one-click unsubscribe link in every mail; at most
one "your turn" per match and address in a quiet period, and a daily ceiling."""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from jsonschema import Draft202012Validator

from app.config import Settings
from tests.api.helpers import play_one, view
from tests.api.receivers import SmtpSink, WebhookReceiver, arrives
from tests.conftest import LiveServer, free_port, new_player, postgres_database, serving

SITE = "https://dejarik.example"


@pytest.fixture(scope="module")
def smtp():
    sink = SmtpSink()
    yield sink
    sink.close()


def own_database(kind: str, folder) -> Iterator[str]:
    """A database of its own: every server on a database delivers its outbox, and the
    session's other servers refuse webhooks to 127.0.0.1."""
    if kind == "sqlite":
        yield f"sqlite+aiosqlite:///{folder / 'dejarik.db'}"
    else:
        yield from postgres_database()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def notify_database(request, tmp_path_factory) -> Iterator[str]:
    yield from own_database(request.param, tmp_path_factory.mktemp("notify"))


@pytest.fixture(params=["sqlite", "postgresql"])
def restart_database(request, tmp_path) -> Iterator[str]:
    yield from own_database(request.param, tmp_path)


@pytest.fixture(scope="module")
def notifying_server(notify_database, smtp):
    """A server that sends email to the local SMTP server and allows webhooks to 127.0.0.1."""
    settings = Settings(
        database_url=notify_database,
        smtp_url=smtp.url,
        webhook_allow_private=True,
        notify_retry_s=0.2,
        notify_email_quiet_s=0,  # every turn's email (the quiet period has a test of its own)
        public_url=SITE,
    )
    server = LiveServer(settings).start()
    yield server
    server.stop()


@pytest.fixture
def receiver():
    webhook = WebhookReceiver()
    yield webhook
    webhook.close()


CONFIRM_SUBJECT = "Confirm your address for Dejarik"


async def listening(
    http: httpx.AsyncClient,
    name: str,
    receiver: WebhookReceiver,
    smtp: SmtpSink | None = None,
    status: str = "pending",
) -> dict:
    """A new player whose webhook is ``receiver``/<their id> and email <their id>@example.org,
    confirmed through the link mailed to it when ``smtp`` is given (``status`` otherwise:
    ``pending``, or ``no_mail`` on a server without SMTP)."""
    player = await new_player(http, name)
    player["email"], player["path"] = f"{player['id']}@example.org", f"/{player['id']}"
    settings = {"webhook_url": receiver.url + player["path"], "email": player["email"]}
    response = await http.put("/api/v1/players/me/notifications", json=settings, headers=player["headers"])
    assert response.status_code == 200, response.text
    assert response.json() == {**settings, "email_status": status}
    mine = await http.get("/api/v1/players/me/notifications", headers=player["headers"])
    assert mine.json() == {**settings, "email_status": status}
    if smtp is not None:
        confirmed = await http.post(await mailed_link(smtp, player["email"], "confirm"))
        assert confirmed.status_code == 200 and "Address confirmed" in confirmed.text, confirmed.text
        mine = await http.get("/api/v1/players/me/notifications", headers=player["headers"])
        assert mine.json() == {**settings, "email_status": "confirmed"}
    return player


async def mailed_link(smtp: SmtpSink, address: str, kind: str, subject: str = CONFIRM_SUBJECT) -> str:
    """The path of the ``kind`` link (``confirm``, ``unsubscribe``) in the last mail to
    ``address`` with ``subject``, once it has arrived."""
    await arrives(lambda: any(m["Subject"] == subject for m in smtp.to(address)))
    mail = [m for m in smtp.to(address) if m["Subject"] == subject][-1]
    found = re.search(rf"{re.escape(SITE)}(/email/{kind}/[A-Za-z0-9_-]+)", mail.get_content())
    assert found, mail.get_content()
    return found.group(1)


def turn_mails(smtp: SmtpSink, address: str) -> list:
    return [m for m in smtp.to(address) if m["Subject"] != CONFIRM_SUBJECT]


async def new_match(http: httpx.AsyncClient, players: list[dict]) -> dict:
    created = await http.post(
        "/api/v1/matches", json={"ruleset": "kelly", "seat": 0}, headers=players[0]["headers"]
    )
    joined = await http.post(f"/api/v1/matches/{created.json()['id']}/join", headers=players[1]["headers"])
    assert joined.status_code == 200, joined.text
    return joined.json()


async def test_one_your_turn_per_turn_and_one_match_finished(notifying_server, smtp, receiver):
    async with httpx.AsyncClient(base_url=notifying_server.url) as http:
        players = [await listening(http, name, receiver, smtp) for name in ("Han", "Greedo")]
        match = await new_match(http, players)
        owed: dict[int, list[tuple[str, int]]] = {0: [], 1: []}  # seat -> (event, version)

        async def delivered() -> None:
            def complete() -> bool:
                return all(
                    len(receiver.bodies(players[s]["path"])) == len(owed[s])
                    and len(turn_mails(smtp, players[s]["email"])) == len(owed[s])
                    for s in (0, 1)
                )

            await arrives(complete)

        for seat in match["to_act"]:
            owed[seat].append(("your_turn", match["version"]))
        await delivered()
        rng, same_turn = random.Random(11), 0
        before = match
        for _ in range(7):
            await play_one(http, match["id"], players, rng)
            after = await view(http, match["id"])
            newly = set(after["to_act"]) - set(before["to_act"])
            same_turn += not newly
            for seat in newly:
                owed[seat].append(("your_turn", after["version"]))
            await delivered()
            before = after
        assert same_turn, "a turn of several actions was played (it owes one message, not one per action)"

        quitter = before["to_act"][0]
        resigned = await http.post(
            f"/api/v1/matches/{match['id']}/actions",
            json={"action": {"type": "resign"}, "version": before["version"]},
            headers=players[quitter]["headers"],
        )
        assert resigned.status_code == 200
        for seat in (0, 1):
            owed[seat].append(("match_finished", before["version"] + 1))
        await delivered()
        await asyncio.sleep(0.5)  # and nothing more comes: each was sent exactly once

        for seat, player in enumerate(players):
            bodies = receiver.bodies(player["path"])
            assert [(b["event"], b["match"]["version"]) for b in bodies] == owed[seat]
            url = f"{SITE}/matches/{match['id']}"
            about = {"id": match["id"], "url": url, "ruleset": "kelly"}
            assert all(b["match"] == {**b["match"], **about} for b in bodies)
            assert all(b["content"].endswith(url) for b in bodies)
            assert ("you lost" if seat == quitter else "you won") in bodies[-1]["content"]
            mails = turn_mails(smtp, player["email"])
            subject = {"your_turn": "Your turn: kelly", "match_finished": "Match finished: kelly"}
            subjects = [subject[event] for event, _ in owed[seat]]
            assert [m["Subject"] for m in mails] == subjects
            texts = [m.get_content().replace("\r\n", "\n").split("\n\n--\n")[0] for m in mails]
            assert texts == [b["content"] for b in bodies]
            assert all(r == [player["email"]] for r in smtp.rcpt_to(player["email"]))


async def test_a_webhook_that_fails_is_retried_until_it_succeeds(notifying_server):
    failing = WebhookReceiver(fail_first=2)
    try:
        async with httpx.AsyncClient(base_url=notifying_server.url) as http:
            players = [await listening(http, name, failing) for name in ("Bossk", "Dengar")]
            match = await new_match(http, players)
            path = players[match["to_act"][0]]["path"]
            await arrives(lambda: failing.bodies(path, status=204), within=30)
            statuses = [s for p, _, s in failing.received if p == path]
            assert statuses == [500, 500, 204]
            first, *again = failing.bodies(path)
            assert all(body == first for body in again) and first["event"] == "your_turn"
    finally:
        failing.close()


async def test_private_webhook_targets_and_bad_addresses_are_refused(client):
    """The default server (WEBHOOK_ALLOW_PRIVATE off) takes public hosts only."""
    player = await new_player(client, "Zuckuss")
    for body, problem in (
        ({"webhook_url": "http://127.0.0.1:8080/hook", "email": None}, "private"),
        ({"webhook_url": "http://10.1.2.3/hook", "email": None}, "private"),
        ({"webhook_url": "http://[::1]/hook", "email": None}, "private"),
        ({"webhook_url": "http://localhost/hook", "email": None}, "private"),
        ({"webhook_url": "ftp://example.org/hook", "email": None}, "http"),
        ({"webhook_url": None, "email": "not an address"}, "email"),
        ({"webhook_url": None, "email": "victim@example.org,root,postmaster,abuse"}, "one address"),
        ({"webhook_url": None, "email": "Victim <victim@example.org>"}, "one address"),
        ({"webhook_url": None, "email": "victim@example.org (me)"}, "one address"),
        ({"webhook_url": None, "email": "victim@example.org;root@example.org"}, "one address"),
        ({"webhook_url": None, "email": '"root,abuse"@example.org'}, "one address"),
        ({"webhook_url": None, "email": None, "sms": "555"}, "sms"),
    ):
        response = await client.put("/api/v1/players/me/notifications", json=body, headers=player["headers"])
        assert response.status_code == 422 and problem in response.json()["detail"], response.text
    mine = await client.get("/api/v1/players/me/notifications", headers=player["headers"])
    assert mine.json() == {"webhook_url": None, "email": None, "email_status": None}  # nothing changed
    anonymous = await client.put("/api/v1/players/me/notifications", json={"email": None})
    assert anonymous.status_code == 401


@pytest.mark.parametrize("url", ["http://[::1/", "http://]/", "http://[/x"])
async def test_l10_a_malformed_webhook_url_is_a_clear_422_not_a_500(client, url):
    player = await new_player(client, "Zam")
    body = {"webhook_url": url, "email": None}
    response = await client.put("/api/v1/players/me/notifications", json=body, headers=player["headers"])
    assert response.status_code == 422 and "not a URL" in response.json()["detail"], response.text
    mine = await client.get("/api/v1/players/me/notifications", headers=player["headers"])
    assert mine.json()["webhook_url"] is None


async def test_the_schema_says_which_addresses_the_server_takes(client):
    """The schemas of the email and of the webhook (Schemathesis generates from them:
    tests/api/test_schemathesis.py) say what the server takes for an address and for an
    http(s) URL, blanks around them stripped; no more and no less. Whether a URL's host
    is public is DNS's to say (a 422 no schema can foresee). Nothing is a 500."""
    fields = (await client.get("/openapi.json")).json()["components"]["schemas"]["Notifications"]
    email, webhook = (
        Draft202012Validator(next(k for k in fields["properties"][name]["anyOf"] if k["type"] == "string"))
        for name in ("email", "webhook_url")
    )
    player = await new_player(client, "Dengar")
    for sample in (
        *("", " \u3000", "a@b.c", " a@b.c\n", "\x1ca@b.c\u2028", "name+tag@host.example.org"),
        *("not an address", "a@b", "@b.c", "a@b.", "a@@b.c", "a b@c.d", "a@b.c\x00"),
        *("a@b.c,root", "A <a@b.c>", "<a@b.c>", "a@b.c (x)", "a(x)@b.c", '"a b"@c.d', "a@b.c;d@e.f"),
    ):
        body = {"email": sample, "webhook_url": None}
        response = await client.put("/api/v1/players/me/notifications", json=body, headers=player["headers"])
        assert response.status_code == (200 if email.is_valid(sample) else 422), (sample, response.text)
    for sample in (
        *("", "http://8.8.8.8/hook", " HTTPS://user:pw@8.8.8.8:8443/a?b=c#d\t", "http://8.8.8.8:0"),
        *("ftp://8.8.8.8/", "http://", "8.8.8.8", "http://8.8.8.8:65536/", "http://8.8.8.8:x/"),
        *("http://[zz/", "http://[::1", "http://[db4776]/", "http://a\uff03b/", "http://8.8.8.8/\x00"),
    ):
        body = {"email": None, "webhook_url": sample}
        response = await client.put("/api/v1/players/me/notifications", json=body, headers=player["headers"])
        assert response.status_code == (200 if webhook.is_valid(sample) else 422), (sample, response.text)


def serve(database_url: str, port: int) -> subprocess.Popen:
    """``dejarik serve`` in a process of its own."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "PORT": str(port),
        "WEBHOOK_ALLOW_PRIVATE": "true",
        "NOTIFY_LEASE_S": "1",
        "PRESENCE_BEAT_S": "60",
    }
    dejarik = Path(sys.executable).with_name("dejarik")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    return subprocess.Popen([str(dejarik), "serve"], env=env, **quiet)


async def test_a_server_killed_before_delivering_delivers_after_restart(restart_database):
    database_url = restart_database
    hook = WebhookReceiver()
    hook.hold.set()  # the first delivery is read but never answered
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = serve(database_url, port)
    try:
        await serving(url, server)
        async with httpx.AsyncClient(base_url=url) as http:
            players = [await listening(http, name, hook, status="no_mail") for name in ("IG-88", "4-LOM")]
            match = await new_match(http, players)
        path = players[match["to_act"][0]]["path"]
        await arrives(lambda: hook.bodies(path), within=30)
        server.send_signal(signal.SIGKILL)  # mid-delivery: nothing was marked delivered
        server.wait()
        hook.hold.clear()
        server = serve(database_url, port)
        await serving(url, server)
        await arrives(lambda: hook.bodies(path, status=204), within=30)
        (unanswered,), (delivered,) = hook.bodies(path, status=0), hook.bodies(path, status=204)
        assert delivered == unanswered and delivered["match"]["url"] == f"{url}/matches/{match['id']}"
        assert delivered["event"] == "your_turn"
    finally:
        server.kill()
        server.wait()
        hook.close()


# --- email (security audit H1) ---------------------------------------------------


async def test_h1_one_recipient_per_mail_and_nothing_but_the_confirmation_before_it(
    notifying_server, smtp, receiver
):
    """The report's attack: a list in the email field reached the SMTP server as 4
    recipients, and an address nobody confirmed got every turn. Now the list is refused,
    and an unconfirmed address gets one mail, the confirmation, sent to it alone."""
    async with httpx.AsyncClient(base_url=notifying_server.url) as http:
        attacker = await new_player(http, "Boba")
        listed = {"webhook_url": None, "email": "victim@example.org,root,postmaster,abuse"}
        refused = await http.put("/api/v1/players/me/notifications", json=listed, headers=attacker["headers"])
        assert refused.status_code == 422 and "one address" in refused.json()["detail"], refused.text

        players = [await listening(http, name, receiver) for name in ("Jabba", "Bib")]  # never confirmed
        match = await new_match(http, players)
        rng = random.Random(5)
        for _ in range(40):  # until each has had a turn (the webhooks heard them)
            if all(receiver.bodies(p["path"]) for p in players):
                break
            await play_one(http, match["id"], players, rng)
            await asyncio.sleep(0.05)
        await arrives(lambda: all(receiver.bodies(p["path"]) for p in players))
        await asyncio.sleep(1.0)  # an email owed would have arrived by now
        for player in players:
            mails = smtp.to(player["email"])
            assert [m["Subject"] for m in mails] == [CONFIRM_SUBJECT], [m["Subject"] for m in mails]
            assert smtp.rcpt_to(player["email"]) == [[player["email"]]]
            assert "Boba" not in mails[0].get_content() and "Jabba" not in mails[0].get_content()
    assert not any("root" in r or "postmaster" in r for rs in smtp.recipients for r in rs)


async def test_h1_confirmation_by_the_mailed_link_then_one_click_unsubscribe(
    notifying_server, smtp, receiver
):
    """Double opt-in end to end, through the real SMTP server: the link in the mail shows a
    page (opening it, as a mail scanner does, confirms nothing); its button confirms; turns
    are then mailed, each with RFC 8058 headers whose one-click POST, without signing in,
    stops them. A player's name reads as a name, not a link. A new address is pending again."""
    async with httpx.AsyncClient(base_url=notifying_server.url) as http:
        players = [await listening(http, name, receiver) for name in ("Leia", "Win at evil.example/x")]
        leia = players[0]
        link = await mailed_link(smtp, leia["email"], "confirm")
        (mail,) = smtp.to(leia["email"])
        assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        one_click_url = rf"<{re.escape(SITE)}/email/unsubscribe/[A-Za-z0-9_-]+>"
        assert re.fullmatch(one_click_url, mail["List-Unsubscribe"].strip())

        shown = await http.get(link)  # a scanner's fetch, or the player's first look
        assert shown.status_code == 200 and '<form method="post">' in shown.text
        assert leia["email"] in shown.text
        mine = await http.get("/api/v1/players/me/notifications", headers=leia["headers"])
        assert mine.json()["email_status"] == "pending"
        assert (await http.post(link)).status_code == 200
        mine = await http.get("/api/v1/players/me/notifications", headers=leia["headers"])
        assert mine.json()["email_status"] == "confirmed"
        assert (await http.post("/email/confirm/not-a-link")).status_code == 410

        match = await new_match(http, players)
        rng = random.Random(3)
        while 0 not in (await view(http, match["id"]))["to_act"]:  # a coin chose who starts
            await play_one(http, match["id"], players, rng)
        await arrives(lambda: len(turn_mails(smtp, leia["email"])) == 1)
        (turn,) = turn_mails(smtp, leia["email"])
        assert turn["Subject"] == "Your turn: kelly" and smtp.rcpt_to(leia["email"])[-1] == [leia["email"]]
        assert "against Win at evil[.]example/x." in turn.get_content()  # a name, not a link
        assert "evil.example" not in turn.get_content()
        unsubscribe = turn["List-Unsubscribe"].strip().strip("<>")
        assert turn["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert unsubscribe in turn.get_content()

        one_click = await http.post(
            unsubscribe.replace(SITE, ""),
            content="List-Unsubscribe=One-Click",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert one_click.status_code == 200 and "Unsubscribed" in one_click.text
        mine = await http.get("/api/v1/players/me/notifications", headers=leia["headers"])
        assert mine.json()["email"] is None and mine.json()["email_status"] is None
        while 0 not in (await view(http, match["id"]))["to_act"]:
            await play_one(http, match["id"], players, rng)
        while 0 in (await view(http, match["id"]))["to_act"]:
            await play_one(http, match["id"], players, rng)
        before = len(receiver.bodies(leia["path"]))
        while 0 not in (await view(http, match["id"]))["to_act"]:
            await play_one(http, match["id"], players, rng)
        await arrives(lambda: len(receiver.bodies(leia["path"])) > before)  # her turn again
        await asyncio.sleep(0.5)
        assert len(turn_mails(smtp, leia["email"])) == 1  # and no email of it

        # A new address is pending again, and is sent its own confirmation.
        other = f"{leia['id']}.new@example.org"
        body = {"webhook_url": None, "email": other}
        again = await http.put("/api/v1/players/me/notifications", json=body, headers=leia["headers"])
        assert again.json()["email_status"] == "pending"
        await mailed_link(smtp, other, "confirm")
        assert (await http.post(link)).status_code == 410  # the old address's link confirms nothing


@pytest.fixture(params=["sqlite", "postgresql"])
def capped_server(request, tmp_path, smtp):
    """A server with the default quiet period and a daily ceiling of 4 emails an address."""
    database = own_database(request.param, tmp_path)
    settings = Settings(
        database_url=next(database),
        smtp_url=smtp.url,
        notify_email_daily_max=4,
        public_url=SITE,
    )
    server = LiveServer(settings).start()
    yield server
    server.stop()
    next(database, None)


async def test_h1_a_flood_from_two_players_reaches_the_smtp_server_capped(capped_server, smtp):
    """The report's flood: two players set one address and play fast. Unconfirmed, it gets
    one confirmation (a second, from the other player, waits out the quiet period).
    Confirmed, it gets one "your turn" per match in the quiet period, and no more than the
    daily ceiling over every match."""
    target = f"spam-target-{os.urandom(4).hex()}@example.org"
    async with httpx.AsyncClient(base_url=capped_server.url) as http:
        players = [await new_player(http, name) for name in ("Dengar", "Bossk")]
        for player in players:
            body = {"webhook_url": None, "email": target}
            response = await http.put(
                "/api/v1/players/me/notifications", json=body, headers=player["headers"]
            )
            assert response.status_code == 200, response.text
        first = await new_match(http, players)
        rng = random.Random(7)
        for _ in range(30):
            if (await view(http, first["id"]))["status"] != "active":
                break
            await play_one(http, first["id"], players, rng)
        await asyncio.sleep(1.5)
        assert [m["Subject"] for m in smtp.to(target)] == [CONFIRM_SUBJECT]

        assert (await http.post(await mailed_link(smtp, target, "confirm"))).status_code == 200  # Dengar's
        matches = [await new_match(http, players) for _ in range(5)]
        for match in matches:  # Dengar's turn in each (a coin chose who starts)
            while 0 not in (await view(http, match["id"]))["to_act"]:
                await play_one(http, match["id"], players, rng)
        for _ in range(20):  # and many more turns in one match
            if (await view(http, matches[0]["id"]))["status"] != "active":
                break
            await play_one(http, matches[0]["id"], players, rng)
        await arrives(lambda: len(smtp.to(target)) >= 4, within=10)
        await asyncio.sleep(1.5)
        mails = smtp.to(target)
        assert len(mails) == 4, [m["Subject"] for m in mails]  # the daily ceiling
        turns = [m for m in mails if m["Subject"] == "Your turn: kelly"]
        about = [re.search(r"/matches/([A-Za-z0-9_-]+)", m.get_content()).group(1) for m in turns]
        assert len(about) == len(set(about)) == 3  # one per match in the quiet period
        assert all(r == [target] for r in smtp.rcpt_to(target))


async def test_m1_a_mail_cut_off_by_the_deadline_is_not_sent_twice(tmp_path):
    """A mail server slower than the delivery's deadline: the try is cut off while the
    mail is on its way (and it arrives). The retry must not send it again."""
    slow = SmtpSink(delay_s=1.5)
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'dejarik.db'}",
        smtp_url=slow.url,
        notify_deadline_s=0.5,
        notify_retry_s=0.2,
        public_url=SITE,
    )
    server = LiveServer(settings).start()
    try:
        address = f"slow-{os.urandom(4).hex()}@example.org"
        async with httpx.AsyncClient(base_url=server.url) as http:
            player = await new_player(http, "Greedo")
            body = {"webhook_url": None, "email": address}
            saved = await http.put("/api/v1/players/me/notifications", json=body, headers=player["headers"])
            assert saved.status_code == 200, saved.text
        await arrives(lambda: len(slow.to(address)) >= 1, within=10)
        await asyncio.sleep(3)  # the retries' time, and a second mail's 1.5 s on the way
        assert [m["Subject"] for m in slow.to(address)] == [CONFIRM_SUBJECT]
    finally:
        server.stop()
        slow.close()


# --- "Send a test" and plain refusals (issue 31, item 9) ------------------------------


async def test_a_test_notice_reaches_the_webhook_through_the_outbox_and_says_it_was_sent(
    notifying_server, receiver
):
    async with httpx.AsyncClient(base_url=notifying_server.url, timeout=30) as http:
        player = await listening(http, "Kessa", receiver)
        answer = await http.post("/api/v1/players/me/notifications/test", headers=player["headers"])
        assert answer.status_code == 200, answer.text
        assert answer.json()["outcome"] == "sent"
        assert answer.json()["message"].startswith("Sent — check your channel")
        (notice,) = receiver.bodies(player["path"], status=204)  # there when the answer came
        assert notice["event"] == "webhook_test" and notice["match"] is None
        assert notice["content"].startswith("A test from Dejarik") and notice["content"].endswith(SITE)
        assert notice["allowed_mentions"] == {"parse": []}


async def test_a_test_to_a_webhook_that_refuses_it_says_what_it_answered_and_is_tried_once(
    notifying_server,
):
    missing = WebhookReceiver(fail_first=100, fail_status=404)
    try:
        async with httpx.AsyncClient(base_url=notifying_server.url, timeout=30) as http:
            player = await listening(http, "Rook", missing)
            answer = await http.post("/api/v1/players/me/notifications/test", headers=player["headers"])
            assert answer.status_code == 200, answer.text
            assert answer.json()["outcome"] == "failed"
            assert answer.json()["message"].startswith("Your webhook answered 404 (Not Found)")
            await asyncio.sleep(1.0)  # past the first retry's wait (0.2 s): a test is not retried
            assert [status for _, _, status in missing.received] == [404]

            nobody = {"webhook_url": f"http://127.0.0.1:{free_port()}/hook", "email": None}
            saved = await http.put("/api/v1/players/me/notifications", json=nobody, headers=player["headers"])
            assert saved.status_code == 200, saved.text
            answer = await http.post("/api/v1/players/me/notifications/test", headers=player["headers"])
            assert answer.json()["outcome"] == "failed"
            assert answer.json()["message"].startswith("That address cannot be reached")
    finally:
        missing.close()


async def test_a_test_needs_a_saved_webhook_and_is_rate_limited(notifying_server, receiver):
    async with httpx.AsyncClient(base_url=notifying_server.url, timeout=30) as http:
        player = await new_player(http, "Lando")
        test = "/api/v1/players/me/notifications/test"
        refused = await http.post(test, headers=player["headers"])
        assert refused.status_code == 409 and "Save a webhook address first" in refused.json()["detail"]
        assert (await http.post(test)).status_code == 401
        player = await listening(http, "Lobot", receiver)
        for _ in range(3):  # WEBHOOK_TESTS_PER_MINUTE
            assert (await http.post(test, headers=player["headers"])).json()["outcome"] == "sent"
        limited = await http.post(test, headers=player["headers"])
        assert limited.status_code == 429 and int(limited.headers["Retry-After"]) >= 1
        assert limited.json()["detail"] == "At most 3 tests a minute: try again in a moment."
        assert len(receiver.bodies(player["path"])) == 3


async def test_a_refused_webhook_address_is_said_in_plain_words(client):
    """The settings page shows the refusal as it comes: words, not ``webhook_url: …``."""
    player = await new_player(client, "Kessa")
    unreachable = "That address cannot be reached"
    for url, words in (
        (
            "https://no-such-host.invalid/hook",
            f"{unreachable}: no host called 'no-such-host.invalid'",
        ),
        (
            "http://127.0.0.1:8080/hook",
            f"{unreachable} from this server: '127.0.0.1' is a private",
        ),
        ("ftp://example.org/hook", "A webhook address starts with https:// (or http://)"),
    ):
        body = {"webhook_url": url, "email": None}
        response = await client.put("/api/v1/players/me/notifications", json=body, headers=player["headers"])
        assert response.status_code == 422, response.text
        assert response.json()["detail"].startswith(words), response.text
        assert response.json()["field"] == "webhook_url"
