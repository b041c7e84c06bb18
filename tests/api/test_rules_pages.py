"""The rules pages: one per ruleset, for players, with numbers from the rulesets' code."""

from __future__ import annotations

import html
import re

from app.api.option_form import option_fields
from app.rules import registry
from app.rules.creatures import KELLY_CREATURES
from app.rules.kelly import Piece
from app.rules.odds import RESULTS, attack_odds
from app.rules.simeone import CREATURES as SIMEONE_CREATURES
from app.rules.simeone import battle_chances


def cell(page: str, attacker: str, defender: str) -> list[str]:
    match = re.search(rf'data-cell="{attacker}:{defender}">(.*?)</td>', page, re.S)
    assert match, f"no odds cell for {attacker} against {defender}"
    return re.findall(r'data-result="([^"]+)">([0-9.]+)<', match.group(1))


async def test_every_ruleset_has_a_rules_page_with_its_aim_turn_and_options(client):
    index = await client.get("/rules")
    assert index.status_code == 200
    for ruleset in registry().values():
        assert f'href="/rules/{ruleset.id}"' in index.text
        page = await client.get(f"/rules/{ruleset.id}")
        assert page.status_code == 200, ruleset.id
        text = html.unescape(page.text)
        assert f"How to play {ruleset.name}" in text
        for part in ("The aim", "A turn, step by step", "Combat", "Winning", "Options"):
            assert part in text, (ruleset.id, part)
        # Every option of the ruleset's schema is explained, by the name the options
        # form gives it, with the form's description (the clock's in players' units, the
        # API's "null is untimed" kept for the API).
        schema = ruleset.options_schema.model_json_schema()
        fields = {f.name.rsplit(".", 1)[-1]: f for f in option_fields(schema, "", ruleset.seat_names)}
        for name in schema["properties"]:
            assert f"<dt>{fields[name].label}" in text, (ruleset.id, name)
            assert fields[name].description in text, (ruleset.id, name)
        options = re.search(r'<dl class="option-help".*?</dl>', text, re.S).group(0)
        assert not re.search(r"\bnull\b|default: |\b(True|False)\b", options), (ruleset.id, options)


async def test_the_creatures_and_their_numbers_come_from_the_code(client):
    text = html.unescape((await client.get("/rules/kelly")).text)
    for creature in KELLY_CREATURES.values():
        row = re.search(rf'<tr data-kind="{creature.id}">(.*?)</tr>', text, re.S)
        assert row, creature.id
        numbers = [int(n) for n in re.findall(r"<td[^>]*>(\d+)</td>", row.group(1))]
        assert numbers == [creature.attack, creature.defense, creature.movement]
        assert creature.name in row.group(1)
    d20 = html.unescape((await client.get("/rules/kelly-d20")).text)
    molator = r'<tr data-kind="molator">.*?<td>8</td><td>2</td><td>2</td><td>d4</td><td>d10</td>'
    assert re.search(molator, d20, re.S)


async def test_the_odds_tables_are_exact_for_every_pair(client):
    kelly = registry()["kelly"]
    page = (await client.get("/rules/kelly")).text
    for a in KELLY_CREATURES:
        for d in KELLY_CREATURES:
            pools = kelly.attack_pools(None, Piece(id=a, kind=a, owner=0), Piece(id=d, kind=d, owner=1))
            expected = attack_odds(*pools)
            shown = dict(cell(page, a, d))
            assert list(shown) == list(RESULTS)
            for result in RESULTS:
                assert shown[result] == f"{float(expected[result]) * 100:.1f}", (a, d, result)
    page = (await client.get("/rules/simeone")).text
    shown = dict(cell(page, "grimtaash", "ngok"))
    expected = battle_chances(SIMEONE_CREATURES["grimtaash"].die, SIMEONE_CREATURES["ngok"].die)
    assert shown == {r: f"{float(p) * 100:.1f}" for r, p in expected.items()}
    # Chess-like rulesets roll no dice: no odds table, and the page says so.
    chess = (await client.get("/rules/orbit-chess")).text
    assert "data-odds-table" not in chess and "No dice" in chess


async def test_an_unknown_ruleset_is_a_404_naming_the_known_ones(client):
    response = await client.get("/rules/holochess")
    assert response.status_code == 404
    assert "There is no ruleset" in html.unescape(response.text) and "kelly" in response.text


async def test_the_eote_rules_say_what_each_choice_does_and_why_one_might_pick_it(client):
    """Issue 31, item 10: the eote rules page explains its words (pieces, destiny points,
    setting) and each choice with its reason, not only the pools; and its dice in words."""
    text = html.unescape((await client.get("/rules/eote")).text)
    for words in (
        "pieces are their destiny points",
        "Each piece set makes that side's dice stronger",
        "set pieces are at stake",
        "A side that set nothing loses only one piece",
        "Primary: their Cunning and Dejarik Defence ranks",
        "better for a cunning or trained defender",
        "Secondary: their Presence alone (ranks do not count)",
        "better when Presence is their best",
        "Primary: their Intellect and Dejarik Attack ranks",
        "better when Willpower is their best",
        "green ability dice (d8)",
        "purple difficulty dice (d8)",
        "Successes (★) cancel failures (✖)",
        "beyond their threshold",
        "Setting pieces is a wager",
    ):
        assert words in text, words
