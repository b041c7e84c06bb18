"""GM table sessions: a host who does not play runs the match with controls that
are the host's own legal_actions (issue 6), through REST alone."""

from __future__ import annotations

import random

from app.rules import get_ruleset
from app.rules.base import COMMON_ACTION_TYPES
from app.rules.dice import verify_roll
from app.rules.log import Entry, replay
from tests.api.helpers import PLAYER_SEED, Table, dice_for_a_reroll, view
from tests.conftest import new_player


async def test_the_gm_starts_the_match_once_the_seats_are_filled(client):
    table = await Table.open(client)
    waiting = await table.view(table.host)
    assert waiting["status"] == "waiting" and waiting["you"]["gm"]
    assert {"gm_start", "gm_set_options"} <= {a["type"] for a in waiting["legal_actions"]}
    assert (await table.view(table.players[0]))["legal_actions"] == []
    started = await table.control("gm_start")
    assert started.status_code == 200
    after = await table.view()
    assert after["status"] == "active" and len(after["to_act"]) == 1
    log = (await client.get(f"/api/v1/matches/{table.id}/events")).json()["events"]
    assert [e["action"]["type"] for e in log] == ["join", "join", "start"]


async def test_while_paused_no_player_action_is_accepted(client):
    table = await Table.open(client)
    await table.control("gm_start")
    assert (await table.control("gm_pause")).status_code == 200
    paused = await table.view()
    assert paused["paused"] is True
    seat = paused["to_act"][0]
    mine = await table.view(table.players[seat])
    assert [a for a in mine["legal_actions"] if not a["type"].startswith("gm_")] == []
    refused = await table.send(table.players[seat], {"type": "resign"})
    assert refused.status_code == 409 and "paused" in refused.json()["detail"]
    assert (await table.view())["version"] == paused["version"]
    assert (await table.control("gm_resume")).status_code == 200
    assert (await table.view())["paused"] is False
    await table.play()


async def test_undo_is_its_own_entry_and_the_undone_dice_stay_in_the_history(client):
    table = await Table.open(client)
    await table.control("gm_start")
    before = await table.view()
    seat, action, applied = await table.play()
    assert (await table.view())["state"] != before["state"]
    undo = next(a for a in (await table.view(table.host))["legal_actions"] if a["type"] == "gm_undo")
    assert undo["version"] == applied["version"]
    assert (await table.send(table.host, undo)).status_code == 200
    after = await table.view()
    assert after["state"] == before["state"], "the position is as it was"
    assert after["version"] == applied["version"] + 1, "undo adds an entry; nothing is rewritten"
    log = (await client.get(f"/api/v1/matches/{table.id}/events")).json()["events"]
    assert log[-2]["action"] == action and log[-1]["action"]["type"] == "gm_undo"
    undone = log[-1]["events"][0]
    assert {k: v for k, v in undone.items() if k != "text"} == {
        "type": "undone",
        "version": applied["version"],
        "seat": seat,
        "action": action,
    }
    # Its words name the undone action in the log's own words (app/services/gm.py).
    lines = [e["text"] for e in log[-2]["events"] if " rolled " not in e["text"]]
    rolled = any(e["type"] == "roll" for e in log[-2]["events"])
    who = f"{get_ruleset('kelly').seat_name(seat)} ({table.players[seat]['name']})"
    kind = action["type"].replace("_", " ")
    assert undone["text"] == (
        f"The game master undid #{applied['version']}, {who}'s {kind}: {lines[0]}"
        + (". Its dice stay in the log" if rolled else "")
    )
    assert not any(a["type"] == "gm_undo" for a in (await table.view(table.host))["legal_actions"]), (
        "the start cannot be undone"
    )


async def test_an_undone_attack_rolls_fresh_dice_when_played_again(client):
    table = await Table.open(client)
    await table.control("gm_start")
    rng = random.Random(7)
    for _ in range(300):  # play until an attack is possible, then attack
        current = await table.view()
        mine = await table.view(table.players[current["to_act"][0]])
        if any(a["type"] == "attack" for a in mine["legal_actions"]):
            break
        await table.play(rng)
    before = await table.view()
    seat, attack, first = await table.play(kind="attack")
    await table.control("gm_undo", version=first["version"])
    assert (await table.view())["state"] == before["state"]
    again = await table.send(table.players[seat], attack)
    assert again.status_code == 200
    dice = lambda events: [d["n"] for e in events if e["type"] == "roll" for d in e["dice"]]  # noqa: E731
    assert dice(first["events"]) and set(dice(first["events"])).isdisjoint(dice(again.json()["events"])), (
        "the dice never rewind: nobody can replay a roll they did not like"
    )
    # The cached state is exactly what replaying the log without the undone entry gives,
    # each entry's dice starting where they first did (checked once the seed is revealed).
    await table.send(table.players[0], {"type": "resign"})
    finished = await table.view()
    log = (await client.get(f"/api/v1/matches/{table.id}/events")).json()["events"]
    kelly = get_ruleset("kelly")
    entries = [Entry.from_json(e) for e in log]
    state = replay(
        kelly, finished["options"], finished["seed"], entries, player_seeds=finished["dice"]["player_seeds"]
    )
    assert kelly.view(state, None) == finished["state"]


async def test_the_gm_plays_a_seat_as_an_npc_and_hands_it_back(client):
    table = await Table.open(client)
    await table.control("gm_take_seat", seat=1)
    await table.control("gm_start")
    current = await table.view()
    npc_turn = current["to_act"][0] == 1
    assert (await table.view(table.players[1]))["legal_actions"] == [], "its player watches"
    gm_view = await table.view(table.host)
    assert gm_view["you"]["seat"] == 1 and gm_view["seats"][1]["npc"] is True
    if npc_turn:
        move = next(a for a in gm_view["legal_actions"] if a["type"] == "move")
        assert (await table.send(table.host, move)).status_code == 200
    await table.control("gm_release_seat", seat=1)
    assert (await table.view(table.host))["you"]["seat"] is None
    assert (await table.view(table.players[1]))["you"]["seat"] == 1


async def test_the_gm_replaces_a_seats_player(client):
    table = await Table.open(client)
    await table.control("gm_start")
    await table.control("gm_open_seat", seat=0)
    assert (await table.view())["seats"][0]["player"] is None
    newcomer = await new_player(client, "Vex")
    joined = await client.post(
        f"/api/v1/matches/{table.id}/join", json={"seat": 0}, headers=newcomer["headers"]
    )
    assert joined.status_code == 200 and joined.json()["you"]["seat"] == 0
    assert (await table.view(table.players[0]))["you"]["seat"] is None, "the old player now watches"
    table.players[0] = newcomer
    await table.play()


async def test_only_the_host_of_a_gm_run_match_has_controls(client):
    table = await Table.open(client)
    refused = await table.send(table.players[0], {"type": "gm_start"})
    assert refused.status_code == 403 and "host" in refused.json()["detail"]
    playing_host = await new_player(client, "Han")
    match = (
        await client.post(
            "/api/v1/matches", json={"ruleset": "kelly", "seat": 0}, headers=playing_host["headers"]
        )
    ).json()
    response = await client.post(
        f"/api/v1/matches/{match['id']}/actions",
        json={"action": {"type": "gm_pause"}, "version": match["version"]},
        headers=playing_host["headers"],
    )
    assert response.status_code == 403 and "seat null" in response.json()["detail"]
    bogus = await table.send(table.host, {"type": "gm_undo", "version": 1})
    assert bogus.status_code == 422, "nothing to undo before the start"


async def test_another_seats_hidden_setting_stays_hidden_in_the_log(client):
    table = await Table.open(client, "eote")
    await table.control("gm_start")
    seat, _, _ = await table.play(kind="set_piece")
    url = f"/api/v1/matches/{table.id}/events"
    own = (await client.get(url, headers=table.players[seat]["headers"])).json()["events"]
    other = (await client.get(url, headers=table.players[1 - seat]["headers"])).json()["events"]
    anyone = (await client.get(url)).json()["events"]
    assert own[-1]["action"]["type"] == "set_piece"
    assert other[-1]["action"] == {"type": "hidden"} and anyone[-1]["action"] == {"type": "hidden"}
    undo = await table.control("gm_undo")
    assert undo.status_code == 200, undo.text
    own, other, anyone = [
        (await client.get(url, headers=who)).json()["events"][-1]["events"][0]
        for who in (table.players[seat]["headers"], table.players[1 - seat]["headers"], {})
    ]
    assert own["type"] == "undone" and own["action"]["type"] == "set_piece"
    assert other["action"] == {"type": "hidden"} and anyone["action"] == {"type": "hidden"}, (
        "the undo does not reveal the undone hidden setting"
    )


async def test_the_gm_edits_character_sheets_before_the_start_and_bad_values_are_refused(client):
    table = await Table.open(client, "eote")
    waiting = await table.view(table.host)
    edit = next(a for a in waiting["legal_actions"] if a["type"] == "gm_set_options")
    sheets = edit["options"]["sheets"]
    sheets[0]["intellect"] = 5
    sheets[1]["strain_threshold"] = 14
    accepted = await table.send(table.host, {**edit, "options": {**edit["options"], "sheets": sheets}})
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["events"][0]["changes"] == [
        {"option": "sheets.0.intellect", "from": 2, "to": 5},
        {"option": "sheets.1.strain_threshold", "from": 12, "to": 14},
    ]
    after = await table.view()
    assert (
        after["options"]["sheets"][0]["intellect"] == 5
        and after["options"]["sheets"][1]["strain_threshold"] == 14
    )
    sheets[0]["intellect"] = 9
    refused = await table.send(table.host, {**edit, "options": {**edit["options"], "sheets": sheets}})
    assert refused.status_code == 422 and "options.sheets.0.intellect" in refused.json()["detail"]
    assert (await table.view())["version"] == after["version"], "the refused edit changed nothing"
    await table.control("gm_start")
    started = await table.view(table.host)
    assert not any(a["type"] == "gm_set_options" for a in started["legal_actions"]), "only before the start"
    light, dark = started["state"]["characters"]
    assert light["sheet"]["intellect"] == 5 and dark["strain_threshold"] == 14, (
        "the game uses the edited sheets"
    )


# --- eote: the GM grants or refuses the initial-ranks re-roll (RULINGS §9) ----------------

RANKS_CHECK = {"initial_ranks_check": True, "sheets": [{"name": "Han"}, {"name": "Greedo"}]}


async def asked_for_a_reroll(client, monkeypatch):
    """A GM-hosted eote match whose seat 0 failed its check with a re-roll offered, and
    asked the GM for it. Returns the table, the match's seed and the view as asked."""
    seed = dice_for_a_reroll(monkeypatch, RANKS_CHECK)
    table = await Table.open(client, "eote", RANKS_CHECK)
    await table.control("gm_start")
    await table.play(kind="choose_difficulty")
    han = await table.view(table.players[0])
    assert [a["type"] for a in han["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES] == [
        "ask_reroll",
        "decline_reroll",
    ], "the player asks; the re-roll is not theirs to take"
    await table.play(kind="ask_reroll")
    return table, seed, await table.view()


def game_actions(view):
    return [a for a in view["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES]


async def test_a_reroll_asked_for_waits_for_the_gm_who_grants_it_with_the_matchs_dice(client, monkeypatch):
    table, seed, asked = await asked_for_a_reroll(client, monkeypatch)
    assert asked["to_act"] == [] and asked["state"]["ranks_check"]["step"] == "asked"
    for player in table.players:
        theirs = await table.view(player)
        assert game_actions(theirs) == [], "nobody plays while the GM decides"
        assert theirs["state"]["gm_decision"] == (
            "Han (Light) asked for a re-roll: waiting for the game master to grant or refuse it"
        )
    controls = {a["type"]: a for a in (await table.view(table.host))["legal_actions"]}
    assert controls["gm_grant_reroll"]["label"].startswith("Grant Han (Light) a re-roll (upgraded: ")
    assert controls["gm_refuse_reroll"]["label"] == "Refuse Han (Light) a re-roll: the roll stands"

    granted = await table.control("gm_grant_reroll", seat=0)
    assert granted.status_code == 200, granted.text
    events = granted.json()["events"]
    assert [e["type"] for e in events[:3]] == ["reroll_granted", "reroll", "roll"]
    assert events[0]["text"] == "The game master granted Han (Light) a re-roll"
    roll = events[2]
    assert roll["purpose"] == "initial ranks check" and roll["rerolls"] == 1
    assert verify_roll(bytes.fromhex(seed), roll, [PLAYER_SEED, PLAYER_SEED]), "the match's own dice"
    log = (await client.get(f"/api/v1/matches/{table.id}/events")).json()["events"]
    assert log[-1]["seat"] is None and log[-1]["action"]["type"] == "gm_grant_reroll"
    # The log shows each event with its words: the applied events, worded for the viewer.
    assert [{k: v for k, v in e.items() if k != "text"} for e in log[-1]["events"]] == [
        {k: v for k, v in e.items() if k != "text"} for e in events
    ]
    assert log[-1]["events"][0]["text"] == events[0]["text"]
    assert log[-1]["events"][1]["text"] == "Han (Light, Kyla) re-rolls (upgraded 1 time)"
    for player in table.players:  # both players see the re-roll's dice and the decision gone
        theirs = await table.view(player)
        unworded = {k: v for k, v in roll.items() if k != "text"}  # the state's roll has no words
        assert theirs["state"]["last_roll"] == unworded and theirs["state"]["gm_decision"] is None
    assert "gm_grant_reroll" not in {a["type"] for a in (await table.view(table.host))["legal_actions"]}


async def test_a_refused_reroll_leaves_the_roll_standing(client, monkeypatch):
    table, _, asked = await asked_for_a_reroll(client, monkeypatch)
    refused = await table.control("gm_refuse_reroll", seat=0)
    assert refused.status_code == 200, refused.text
    assert refused.json()["events"][:2] == [
        {"type": "reroll_refused", "seat": 0, "text": "The game master refused Han (Light) a re-roll"},
        {
            "type": "ranks",
            "seat": 0,
            "attack": 0,
            "defence": 0,
            "reason": "re-roll refused",
            "text": "Han (Light, Kyla) has Dejarik Attack 0, Defence 0 (re-roll refused)",
        },
    ]
    after = await table.view()
    assert after["state"]["last_roll"] == asked["state"]["last_roll"], "no die was rolled"
    assert after["to_act"] == [1] and after["state"]["ranks_check"]["seat"] == 1
    assert after["state"]["characters"][0]["attack_ranks"] == 0


async def test_only_the_gm_decides_and_bad_decisions_change_nothing(client, monkeypatch):
    table, _, asked = await asked_for_a_reroll(client, monkeypatch)
    grant = {"type": "gm_grant_reroll", "seat": 0}
    for player in table.players:
        refused = await table.send(player, grant, asked["version"])
        assert refused.status_code == 403 and "host" in refused.json()["detail"]
    stale = await table.send(table.host, grant, asked["version"] - 1)
    assert stale.status_code == 409 and stale.json()["version"] == asked["version"]
    for bad in (
        {"type": "gm_grant_reroll", "seat": 1},
        {"type": "gm_grant_reroll", "seat": "0"},
        {"type": "gm_grant_reroll"},
        {"type": "gm_refuse_reroll", "seat": None},
        {"type": "gm_grant_everything"},
    ):
        response = await table.send(table.host, bad, asked["version"])
        assert response.status_code == 422, (bad, response.text)
    bad_version = await client.post(
        f"/api/v1/matches/{table.id}/actions",
        json={"action": grant, "version": "latest"},
        headers=table.host["headers"],
    )
    assert bad_version.status_code == 422
    after = await table.view()
    assert after["version"] == asked["version"] and after["state"] == asked["state"], "the match is untouched"
    await table.control("gm_pause")
    paused = await table.send(table.host, grant)
    assert paused.status_code == 422, "resume play first"
    await table.control("gm_resume")
    assert (await table.control("gm_grant_reroll", seat=0)).status_code == 200


async def test_the_gm_undoes_a_grant_and_decides_again(client, monkeypatch):
    table, _, asked = await asked_for_a_reroll(client, monkeypatch)
    granted = (await table.control("gm_grant_reroll", seat=0)).json()
    undo = next(a for a in (await table.view(table.host))["legal_actions"] if a["type"] == "gm_undo")
    assert undo["version"] == granted["version"], "the GM's decision is the move to undo"
    assert (await table.send(table.host, undo)).status_code == 200
    again = await table.view()
    assert again["state"]["ranks_check"] == asked["state"]["ranks_check"] and again["to_act"] == []
    assert (await table.control("gm_refuse_reroll", seat=0)).status_code == 200


async def test_with_no_gm_the_player_rerolls_on_their_own(client, monkeypatch):
    dice_for_a_reroll(monkeypatch, RANKS_CHECK)
    host, guest = await new_player(client, "Han"), await new_player(client, "Greedo")
    created = await client.post(
        "/api/v1/matches",
        json={"ruleset": "eote", "options": RANKS_CHECK, "seat": 0},
        headers=host["headers"],
    )
    match_id = created.json()["id"]
    await client.post(f"/api/v1/matches/{match_id}/join", headers=guest["headers"])
    mine = await view(client, match_id, host)
    choose = next(a for a in mine["legal_actions"] if a["type"] == "choose_difficulty")
    await client.post(
        f"/api/v1/matches/{match_id}/actions",
        json={"action": choose, "version": mine["version"]},
        headers=host["headers"],
    )
    offered = await view(client, match_id, host)
    assert [a["type"] for a in game_actions(offered)] == ["reroll", "decline_reroll"]
    rerolled = await client.post(
        f"/api/v1/matches/{match_id}/actions",
        json={"action": {"type": "reroll"}, "version": offered["version"]},
        headers=host["headers"],
    )
    assert rerolled.status_code == 200 and rerolled.json()["events"][0] == {
        "type": "reroll",
        "seat": 0,
        "rerolls": 1,
        "text": "Han (Light, Han) re-rolls (upgraded 1 time)",
    }
