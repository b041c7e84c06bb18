"""Sharing a match (issue 33): the board as a spectator sees it as a link preview's PNG,
the match as an animated GIF, the Open Graph tags that point at them, and the embedded
board other sites may frame. ``tests/browser/test_sharing.py`` frames it in Chromium."""

from __future__ import annotations

import io
import random
import re

import pytest
from PIL import Image, ImageChops

from app import sharing
from app.rules import registry
from tests.api.helpers import play_one, start_match, view
from tests.conftest import new_player
from tests.test_sharing import bluer, pixel


def opened(response) -> Image.Image:
    assert response.status_code == 200, response.text
    return Image.open(io.BytesIO(response.content))


async def act(client, match_id: str, player: dict, action_type: str) -> None:
    mine = await view(client, match_id, player)
    action = next(a for a in mine["legal_actions"] if a["type"] == action_type)
    response = await client.post(
        f"/api/v1/matches/{match_id}/actions",
        json={"action": action, "version": mine["version"]},
        headers=player["headers"],
    )
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("ruleset", sorted(registry()))
async def test_every_ruleset_shares_its_board_as_a_1200_by_630_png(client, ruleset):
    match, _players = await start_match(client, ruleset)
    response = await client.get(f"/matches/{match['id']}/board.png")
    image = opened(response)
    assert (image.format, image.size) == ("PNG", (1200, 630))
    assert response.headers["content-type"] == "image/png"
    # Not a blank canvas: the board (or eote's table) is drawn.
    assert len(image.convert("RGB").getcolors(1_000_000) or []) > 20
    gif = opened(await client.get(f"/matches/{match['id']}/replay.gif"))
    assert (gif.format, gif.size) == ("GIF", (600, 315))


async def test_the_picture_follows_the_match_and_is_cheap_to_fetch_again(client):
    match, players = await start_match(client)
    first = await client.get(f"/matches/{match['id']}/board.png")
    again = await client.get(
        f"/matches/{match['id']}/board.png", headers={"If-None-Match": first.headers["etag"]}
    )
    assert again.status_code == 304 and not again.content
    await play_one(client, match["id"], players, random.Random(3))
    moved = await client.get(f"/matches/{match['id']}/board.png")
    assert moved.headers["etag"] != first.headers["etag"]
    assert ImageChops.difference(opened(first).convert("RGB"), opened(moved).convert("RGB")).getbbox()
    # The position before the move, by its version, is the first picture again.
    before = await client.get(f"/matches/{match['id']}/board.png?v={match['version']}")
    assert before.content == first.content
    assert "immutable" in before.headers["cache-control"]


async def test_the_version_asked_for_is_bounded_and_unknown_matches_are_404(client):
    match, _players = await start_match(client)
    for asked in ("-1", "x", "1e9", "²", "", str(match["version"] + 1), "99999999999999999999"):
        response = await client.get(f"/matches/{match['id']}/board.png", params={"v": asked})
        assert response.status_code == 422, asked
        assert f"from 0 to {match['version']}" in response.text
    assert opened(await client.get(f"/matches/{match['id']}/board.png?v=0")).size == (1200, 630)
    for path in ("/matches/no-such-match/board.png", "/matches/no-such-match/replay.gif"):
        assert (await client.get(path)).status_code == 404
    assert (await client.get("/embed/matches/no-such-match")).status_code == 404
    # A match nobody has joined yet: its empty board, a one-frame GIF.
    host = await new_player(client, "Rey")
    created = {"ruleset": "kelly", "seat": 0}
    waiting = await client.post("/api/v1/matches", json=created, headers=host["headers"])
    assert opened(await client.get(f"/matches/{waiting.json()['id']}/replay.gif")).n_frames == 1


async def test_an_eote_setting_stays_secret_in_the_picture(client):
    """Two matches at the same version: one setter set two pieces, the other set one and took
    it back. A spectator cannot tell them apart, and neither can the pictures."""
    pictures, setters = [], []
    for second in ("set_piece", "unset_piece"):
        # The first attacker is rolled: the second match is the first that rolled the same.
        for _ in range(20):
            match, players = await start_match(client, "eote")
            setter = (await view(client, match["id"]))["to_act"][0]
            if not setters or setter == setters[0]:
                break
        setters.append(setter)
        await act(client, match["id"], players[setter], "set_piece")
        await act(client, match["id"], players[setter], second)
        pictures.append(await client.get(f"/matches/{match['id']}/board.png"))
    assert setters[0] == setters[1]
    assert pictures[0].content == pictures[1].content
    assert opened(pictures[0]).size == (1200, 630)


async def test_the_picture_and_the_gif_mark_the_last_move(client):
    """The route reads the last move from the log as a spectator does: where it started and
    ended are tinted on the board picture and on the GIF's frame, not before the move."""
    match, players = await start_match(client)
    player = players[match["to_act"][0]]
    mine = await view(client, match["id"], player)
    move = next(a for a in mine["legal_actions"] if a["type"] == "move")
    start = next(p["at"] for p in mine["state"]["pieces"] if p["id"] == move["piece"])
    played = await client.post(
        f"/api/v1/matches/{match['id']}/actions",
        json={"action": move, "version": mine["version"]},
        headers=player["headers"],
    )
    assert played.status_code == 200, played.text
    before = opened(await client.get(f"/matches/{match['id']}/board.png?v={mine['version']}"))
    after = opened(await client.get(f"/matches/{match['id']}/board.png"))
    gif = opened(await client.get(f"/matches/{match['id']}/replay.gif"))
    frames = []
    for index in (0, gif.n_frames - 1):
        gif.seek(index)
        frames.append(gif.convert("RGB"))
    half = sharing.GIF_SIZE[0] / sharing.PREVIEW_SIZE[0]
    for space in (start, move["to"]):
        assert bluer(pixel(after, space), pixel(before, space)) > 20, space
        assert bluer(pixel(frames[1], space, half), pixel(frames[0], space, half)) > 20, space


async def test_match_and_replay_pages_carry_link_preview_tags(client):
    match, _players = await start_match(client)
    for path in (f"/matches/{match['id']}", f"/matches/{match['id']}/replay"):
        html = (await client.get(path)).text
        tags = dict(re.findall(r'<meta (?:property|name)="([^"]+)" content="([^"]*)"', html))
        image = f"{str(client.base_url).rstrip('/')}/matches/{match['id']}/board.png?v={match['version']}"
        assert tags["og:image"] == tags["twitter:image"] == image, path
        assert (tags["og:image:width"], tags["og:image:height"]) == ("1200", "630")
        assert tags["twitter:card"] == "summary_large_image"
        assert "Chewie" in tags["og:title"] and "R2-D2" in tags["og:title"]
        assert "Chewie (Blue) vs R2-D2 (Red)" in tags["og:description"]
        assert (await client.get(image)).status_code == 200


async def test_the_replay_gif_has_a_frame_an_action_and_holds_the_last(client):
    match, players = await start_match(client)
    rng = random.Random(5)
    for _ in range(6):
        await play_one(client, match["id"], players, rng)
    response = await client.get(f"/matches/{match['id']}/replay.gif")
    gif = opened(response)
    assert gif.format == "GIF" and gif.size == (600, 315)
    # The starting position, then one frame for each of the six actions.
    assert gif.n_frames == 7 and gif.is_animated
    durations = []
    for frame in range(gif.n_frames):
        gif.seek(frame)
        durations.append(gif.info["duration"])
    assert durations[-1] > durations[0]
    assert gif.info.get("loop") == 0
    cached = await client.get(
        f"/matches/{match['id']}/replay.gif", headers={"If-None-Match": response.headers["etag"]}
    )
    assert cached.status_code == 304


async def test_only_the_embedded_board_may_be_framed_by_other_sites(client):
    match, _players = await start_match(client)
    embed = await client.get(f"/embed/matches/{match['id']}")
    assert embed.status_code == 200
    assert "x-frame-options" not in embed.headers
    assert "frame-ancestors *" in embed.headers["content-security-policy"]
    assert 'src="/static/js/table.js"' in embed.text and "<button" not in embed.text
    page = await client.get(f"/matches/{match['id']}")
    assert page.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
