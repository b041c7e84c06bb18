"""The player page: a player's matches, filtered, a page at a time, with results and replays."""

from __future__ import annotations

import re

from tests.api.helpers import play_to_the_end, start_match
from tests.conftest import new_player


def rows(html: str) -> list[tuple[str, str, str]]:
    """(match id, status, ruleset) of each row, in order."""
    return re.findall(r'<tr data-match="([^"]+)" data-status="([^"]+)" data-ruleset="([^"]+)">', html)


async def test_a_players_matches_filtered_paged_with_results_and_replays(client):
    match, players = await start_match(client, "kelly", {"turns_without_kill": 12})
    finished = await play_to_the_end(client, match["id"], players)
    blue = players[0]
    made = []
    for _ in range(21):
        created = await client.post("/api/v1/matches", json={"ruleset": "simeone"}, headers=blue["headers"])
        made.append(created.json()["id"])

    first = await client.get(f"/players/{blue['id']}")
    assert first.status_code == 200 and "Chewie's matches" in first.text
    assert [r[0] for r in rows(first.text)] == made[::-1][:20]
    older = re.search(r'data-next-page href="([^"]+)"', first.text).group(1).replace("&amp;", "&")
    second = await client.get(f"/players/{blue['id']}{older}")
    assert [r[0] for r in rows(second.text)] == [made[0], match["id"]]
    assert "data-next-page" not in second.text

    kelly = await client.get(f"/players/{blue['id']}", params={"ruleset": "kelly", "status": "finished"})
    assert rows(kelly.text) == [(match["id"], "finished", "kelly")]
    winner = finished["result"]["winner"]
    outcome = "draw" if winner is None else "won" if winner == 0 else "lost"
    assert re.search(rf"<td data-outcome>{outcome}", kelly.text)
    assert f'href="/matches/{match["id"]}/replay"' in kelly.text
    waiting = await client.get(f"/players/{blue['id']}", params={"status": "waiting", "ruleset": "kelly"})
    assert rows(waiting.text) == [] and "No matches with these filters" in waiting.text


async def test_home_links_to_the_player_page_and_bad_filters_are_clear(client):
    player = await new_player(client, "Linked")
    await client.post("/api/v1/matches", json={"ruleset": "kelly"}, headers=player["headers"])
    client.cookies.set("dejarik_token", player["token"])
    home = await client.get("/")
    client.cookies.clear()
    assert f'href="/players/{player["id"]}" data-player-page' in home.text
    assert (await client.get("/players/nobody")).status_code == 404
    bad = await client.get(f"/players/{player['id']}", params={"ruleset": "chess"})
    assert bad.status_code == 422 and "is not one of" in bad.text
    assert (await client.get(f"/players/{player['id']}", params={"status": "over"})).status_code == 422
    assert (await client.get(f"/players/{player['id']}", params={"cursor": "!!"})).status_code == 422
