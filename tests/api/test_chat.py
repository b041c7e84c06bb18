"""A match's chat: who writes and reads each channel, its limits, and live delivery
over the match's websocket."""

from __future__ import annotations

import asyncio

import httpx
from jsonschema import Draft202012Validator
from sqlalchemy import update
from websockets.asyncio.client import connect

from app.config import Settings
from app.db import make_engine
from app.models import ChatMessage
from tests.api.helpers import say, start_match
from tests.conftest import LiveServer, new_player
from tests.realtime.helpers import receive, socket_url


async def messages(client, match_id: str, player: dict | None = None, **params) -> httpx.Response:
    return await client.get(
        f"/api/v1/matches/{match_id}/chat", params=params, headers=player["headers"] if player else {}
    )


async def test_players_talk_and_the_chat_is_kept_with_the_match_oldest_first(client):
    match, (blue, red) = await start_match(client)
    first = await say(client, match["id"], blue, "Good luck!")
    assert first.status_code == 201
    posted = first.json()
    assert posted["player"] == {"id": blue["id"], "name": "Chewie"}
    assert posted["text"] == "Good luck!" and posted["channel"] == "players" and posted["at"]
    second = (await say(client, match["id"], red, "  You too  ")).json()
    assert second["text"] == "You too"

    kept = (await messages(client, match["id"])).json()["messages"]  # anyone may read the players'
    assert [m["text"] for m in kept] == ["Good luck!", "You too"]
    assert kept[0] == posted
    after = (await messages(client, match["id"], after=posted["id"])).json()["messages"]
    assert [m["id"] for m in after] == [second["id"]]


async def test_each_side_writes_only_to_its_own_channel(client):
    match, (blue, _red) = await start_match(client)
    watcher = await new_player(client, "Watcher")
    refused = await say(client, match["id"], watcher, "Move the Ghhhk!")
    assert refused.status_code == 403 and "spectators" in refused.json()["detail"]
    assert (await say(client, match["id"], blue, "psst", channel="spectators")).status_code == 403
    assert (await say(client, match["id"], watcher, "Nice opening", channel="spectators")).status_code == 201
    assert (await messages(client, match["id"])).json()["messages"] == []  # nothing reached the players'

    # The spectators' channel is hidden from the seated players while the match runs ...
    hidden = await messages(client, match["id"], blue, channel="spectators")
    assert hidden.status_code == 403
    for reader in (watcher, None):
        seen = await messages(client, match["id"], reader, channel="spectators")
        assert [m["text"] for m in seen.json()["messages"]] == ["Nice opening"]
    # ... and shown to them once it is over.
    resigned = await client.post(
        f"/api/v1/matches/{match['id']}/actions",
        json={"action": {"type": "resign", "label": "Resign"}, "version": match["version"]},
        headers=blue["headers"],
    )
    assert resigned.status_code == 200, resigned.text
    after = await messages(client, match["id"], blue, channel="spectators")
    assert [m["text"] for m in after.json()["messages"]] == ["Nice opening"]


async def test_the_gm_talks_with_the_players(client):
    gm = await new_player(client, "The GM")
    created = await client.post(
        "/api/v1/matches", json={"ruleset": "eote", "options": {}, "seat": None}, headers=gm["headers"]
    )
    assert created.status_code == 201, created.text
    welcome = await say(client, created.json()["id"], gm, "Welcome, rebels")
    assert welcome.status_code == 201 and welcome.json()["author_role"] == "gm"
    assert (await say(client, created.json()["id"], gm, "hi", channel="spectators")).status_code == 403


async def test_a_message_is_1_to_500_characters_and_a_refusal_keeps_nothing(client):
    match, (blue, _red) = await start_match(client)
    assert (await say(client, match["id"], blue, "a" * 500)).status_code == 201
    for text in ("a" * 501, "", "   \n "):
        refused = await say(client, match["id"], blue, text)
        assert refused.status_code == 422, refused.text
    too_long = await say(client, match["id"], blue, "é" * 501)
    assert "500" in too_long.json()["detail"]
    other = await client.post(
        f"/api/v1/matches/{match['id']}/chat",
        json={"text": "hi", "channel": "everyone"},
        headers=blue["headers"],
    )
    assert other.status_code == 422
    assert (await client.post(f"/api/v1/matches/{match['id']}/chat", json={"text": "hi"})).status_code == 401
    assert (await say(client, "no-such-match", blue, "hi")).status_code == 404
    assert [len(m["text"]) for m in (await messages(client, match["id"])).json()["messages"]] == [500]
    assert (await messages(client, match["id"], channel="everyone")).status_code == 422


async def test_the_schema_says_which_messages_the_server_takes(client):
    """A message's schema (Schemathesis generates from it: tests/api/test_schemathesis.py)
    says what the server refuses: 1 to 500 characters, not all blank (the blanks
    ``str.strip()`` removes, ECMA-262's ``\\s`` differs), no NUL; no more and no less."""
    schemas = (await client.get("/openapi.json")).json()["components"]["schemas"]
    text = schemas["NewMessage"]["properties"]["text"]
    assert (text["minLength"], text["maxLength"]) == (1, 500)
    schema = Draft202012Validator(text)
    match, (blue, _red) = await start_match(client)
    for sample in (
        *("", " ", "\u3000", "\x1c\x1f", "\t\n\x85\xa0", "\u2028\u200a", "a\x00b", "a" * 501),
        *("a", " a ", "\u3000x", "\x1cx", "é" * 500),
    ):
        posted = await say(client, match["id"], blue, sample)
        assert posted.status_code == (201 if schema.is_valid(sample) else 422), (sample, posted.text)
    read = await messages(client, match["id"], after=2**63)  # past the ids' 64 bits: refused, no 500
    assert read.status_code == 422 and "after" in read.json()["detail"], read.text


async def test_past_the_rate_limit_a_player_is_told_to_wait(database_url):
    server = LiveServer(Settings(database_url=database_url, chat_messages_per_minute=3)).start()
    try:
        async with httpx.AsyncClient(base_url=server.url) as client:
            match, (blue, red) = await start_match(client)
            for i in range(3):
                assert (await say(client, match["id"], blue, f"message {i}")).status_code == 201
            limited = await say(client, match["id"], blue, "one more")
            assert limited.status_code == 429 and "3 messages a minute" in limited.json()["detail"]
            assert (await say(client, match["id"], red, "my turn to talk")).status_code == 201
            texts = [m["text"] for m in (await messages(client, match["id"])).json()["messages"]]
            assert "one more" not in texts and len(texts) == 4
    finally:
        server.stop()


async def test_messages_arrive_live_on_each_connection_that_may_read_them(client, live_server):
    match, (blue, red) = await start_match(client)
    watcher = await new_player(client, "Watcher")
    async with (
        connect(socket_url(live_server, match["id"], red)) as red_socket,
        connect(socket_url(live_server, match["id"], watcher)) as watcher_socket,
        connect(socket_url(live_server, match["id"], spectator=1)) as anonymous_socket,
    ):
        for socket in (red_socket, watcher_socket, anonymous_socket):
            await receive(socket, "snapshot")
        posted = (await say(client, match["id"], blue, "Your move")).json()
        for socket in (red_socket, watcher_socket, anonymous_socket):
            assert await receive(socket, "chat") == {"type": "chat", **posted}

        aside = (await say(client, match["id"], watcher, "Red is winning", channel="spectators")).json()
        assert await receive(anonymous_socket, "chat") == {"type": "chat", **aside}
        assert (await receive(watcher_socket, "chat"))["text"] == "Red is winning"
        # Red never gets the spectators' message: the next chat frame it sees is the players' one.
        after = (await say(client, match["id"], blue, "Back soon")).json()
        assert (await receive(red_socket, "chat"))["id"] == after["id"]


async def test_l2_forty_posts_at_once_pass_no_more_than_the_limit(database_url):
    """The audit's burst: 40 concurrent posts by one player got 25 to 33 past a limit of
    20 (a count, then an insert). Now the player's count is taken atomically."""
    server = LiveServer(Settings(database_url=database_url, chat_messages_per_minute=20)).start()
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
            match, (blue, _red) = await start_match(client)
            posts = [say(client, match["id"], blue, f"spam {i}") for i in range(40)]
            statuses = [r.status_code for r in await asyncio.gather(*posts)]
            assert set(statuses) == {201, 429}
            assert statuses.count(201) <= 20
            kept = (await messages(client, match["id"])).json()["messages"]
            assert len(kept) == statuses.count(201)
    finally:
        server.stop()


async def test_l2_new_players_from_one_address_share_its_chat_limit(database_url):
    """The audit's 5 new players x 20 posts from one address all passed: players cost
    nothing. Now an address has a chat limit of its own besides each player's."""
    server = LiveServer(Settings(database_url=database_url, rate_limit_chat=10)).start()
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
            match, _players = await start_match(client)
            statuses = []
            for n in range(5):
                spammer = await new_player(client, f"Spammer {n}")
                for i in range(20):
                    posted = await say(client, match["id"], spammer, f"spam {i}", channel="spectators")
                    statuses.append(posted.status_code)
            assert statuses[:10] == [201] * 10
            assert statuses.count(201) < 20, "far fewer than the 100 the audit got through"
            limited = await say(client, match["id"], spammer, "one more", channel="spectators")
            assert limited.status_code == 429 and "chat from this address" in limited.json()["detail"]
    finally:
        server.stop()


async def test_l3_the_spectators_channel_is_public_reading_while_the_match_runs(client, live_server):
    """A seated player who does not say who they are reads the spectators' channel, as
    anyone does (docs/api.md says so: "no hints while it runs" is a courtesy)."""
    match, (blue, _red) = await start_match(client)
    watcher = await new_player(client, "Watcher")
    assert (
        await say(client, match["id"], watcher, "Blue should attack", channel="spectators")
    ).status_code == 201
    assert (await messages(client, match["id"], blue, channel="spectators")).status_code == 403
    anonymous = await messages(client, match["id"], channel="spectators")
    assert [m["text"] for m in anonymous.json()["messages"]] == ["Blue should attack"]


async def test_l4_a_message_keeps_its_authors_name_and_role_through_a_rename(client, live_server):
    """The audit renamed a player and their earlier messages showed the new name."""
    match, (blue, red) = await start_match(client)
    watcher = await new_player(client, "Watcher")
    first = (await say(client, match["id"], blue, "Good luck")).json()
    assert (first["author_name"], first["author_role"]) == ("Chewie", "blue")
    aside = (await say(client, match["id"], watcher, "Go Red", channel="spectators")).json()
    assert (aside["author_name"], aside["author_role"]) == ("Watcher", "spectator")
    renamed = await client.patch(
        "/api/v1/players/me", json={"name": "Renamed later"}, headers=blue["headers"]
    )
    assert renamed.status_code == 200
    (kept,) = (await messages(client, match["id"])).json()["messages"]
    assert (kept["author_name"], kept["author_role"]) == ("Chewie", "blue")
    assert kept["player"] == {"id": blue["id"], "name": "Renamed later"}, "who it is, by id, named now"

    # A message kept before the columns existed shows the current name and role.
    engine = make_engine(live_server.settings.database_url)
    try:
        async with engine.begin() as connection:
            await connection.execute(
                update(ChatMessage)
                .where(ChatMessage.id == first["id"])
                .values(author_name=None, author_role=None)
            )
    finally:
        await engine.dispose()
    (old,) = (await messages(client, match["id"])).json()["messages"]
    assert (old["author_name"], old["author_role"]) == ("Renamed later", "blue")
    red_says = (await say(client, match["id"], red, "Thanks")).json()
    assert red_says["author_role"] == "red"


async def test_l4_a_spectator_may_not_post_under_a_seated_players_name(client):
    """The audit's spectator renamed itself "Blue player" (the seated player's name) and
    posted "I resign next turn, GG" to the spectators' channel."""
    match, (_blue, _red) = await start_match(client)  # Chewie and R2-D2
    impostor = await new_player(client, "Watcher")
    for name in ("chewie", "R2-d2"):
        renamed = await client.patch("/api/v1/players/me", json={"name": name}, headers=impostor["headers"])
        assert renamed.status_code == 200
        refused = await say(client, match["id"], impostor, "I resign next turn, GG", channel="spectators")
        assert refused.status_code == 422, refused.text
        assert "name of a player in this match" in refused.json()["detail"]
    assert (await messages(client, match["id"], channel="spectators")).json()["messages"] == []
    await client.patch("/api/v1/players/me", json={"name": "Chewbacca fan"}, headers=impostor["headers"])
    assert (await say(client, match["id"], impostor, "GG", channel="spectators")).status_code == 201
