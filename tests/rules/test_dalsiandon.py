"""`dalsiandon`: Don Thomas's revised Dejarik, seed 004, as RULINGS §5 reads it."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import pytest
from pydantic import ValidationError

from app.rules import board, get_ruleset
from app.rules.base import COMMON_ACTION_TYPES, IllegalAction
from app.rules.dalsiandon import DRAFT_NUMBERS, CombatRay, DalsiandonOptions, DalsiandonState, Draft
from app.rules.dice import Dice
from app.rules.kelly import Piece
from app.rules.odds import attack_odds
from tests.rules.helpers import play_randomly
from tests.rules.scripted import ScriptedDice

dals = get_ruleset("dalsiandon")
ADVANCED = ("king_of_the_center", "death_push", "nowhere_is_safe", "twenty_sides_of_terror", "rays_of_death")


def position(pieces: dict[str, tuple[int, str]], turn: int = 0, **options) -> DalsiandonState:
    """A position in play from ``{kind: (owner, space)}``; the piece id is its kind."""
    return DalsiandonState(
        options=DalsiandonOptions(**options),
        pieces={k: Piece(id=k, kind=k, owner=o, at=s) for k, (o, s) in pieces.items()},
        turn=turn,
        phase="play",
    )


def rolls(events: list[dict]) -> list[tuple[str, list[int], int, int]]:
    return [
        (e["purpose"], [d["sides"] for d in e["dice"]], e["bonus"], e["total"])
        for e in events
        if e["type"] == "roll"
    ]


def attacks(state: DalsiandonState, seat: int | None = None) -> set[tuple[str, str]]:
    seat = state.turn if seat is None else seat
    return {(a["piece"], a["target"]) for a in dals.legal_actions(state, seat) if a["type"] == "attack"}


def attack(state, attacker, target, faces, seat=None):
    seat = state.pieces[attacker].owner if seat is None else seat
    return dals.apply(
        state, seat, {"type": "attack", "piece": attacker, "target": target}, ScriptedDice(faces)
    )


def game_actions(state, seat):
    return [a for a in dals.legal_actions(state, seat) if a["type"] not in COMMON_ACTION_TYPES]


# --- options ----------------------------------------------------------------------------


def test_defaults_draft_teams_and_no_advanced_option():
    options = dals.options(None)
    assert options.teams == "draft"
    assert not any(getattr(options, name) for name in ADVANCED)


@pytest.mark.parametrize("r", range(len(ADVANCED) + 1))
def test_every_combination_of_advanced_options_is_accepted(r):
    for combo in itertools.combinations(ADVANCED, r):
        options = dals.options({name: True for name in combo} | {"teams": "random"})
        assert all(getattr(options, name) for name in combo)


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"teams": "swiss"}, "teams"),
        ({"king_of_the_centre": True}, "king_of_the_centre"),
        ({"death_push": "sometimes"}, "death_push"),
        ({"turns_without_kill": -1}, "turns_without_kill"),
        ({"twenty_sides": True}, "twenty_sides"),
    ],
)
def test_bad_options_are_refused_naming_the_field(raw, field):
    with pytest.raises(ValidationError) as refused:
        dals.options(raw)
    assert field in str(refused.value)
    assert [e["loc"][0] for e in refused.value.errors()] == [field]


# --- the dice -----------------------------------------------------------------------------


@pytest.mark.parametrize(("rating", "die"), [(8, 4), (7, 4), (6, 6), (5, 6), (4, 8), (3, 8), (2, 10)])
def test_secondary_die_by_rating_and_the_maximum_score_of_31_or_32(rating, die):
    pool = dals.rated_pool(position({}), rating)
    assert (pool.bonus, pool.sides) == (rating, (10, 10, die))
    # "Possible Max score 31 or 32"
    assert pool.bonus + sum(pool.sides) in (31, 32)


def test_the_klorslug_rolls_a_d4_attacking_and_a_d8_defending():
    # Seed 004: "the Klorslug has a +7 attack and would roll the two D10's and the D4 … if
    # the Klorslug is defending it would roll the 2 D10's with a D8 and … its base defense".
    state = position({"klorslug": (0, "B1"), "savrip": (1, "B2"), "houjix": (1, "C")})
    _, events = attack(state, "klorslug", "savrip", [5, 5, 2, 5, 5, 3])
    assert rolls(events) == [("attack", [10, 10, 4], 7, 19), ("defense", [10, 10, 6], 6, 19)]
    state = position({"klorslug": (1, "B1"), "savrip": (0, "B2")})
    _, events = attack(state, "savrip", "klorslug", [5, 5, 2, 5, 5, 3])
    assert rolls(events) == [("attack", [10, 10, 6], 6, 18), ("defense", [10, 10, 8], 3, 16)]


def test_the_houjix_always_rolls_two_d10_and_a_d8_plus_four():
    state = position({"houjix": (0, "B1"), "ngok": (1, "B2")})
    _, events = attack(state, "houjix", "ngok", [1, 1, 1, 1, 1, 1])
    assert rolls(events)[0] == ("attack", [10, 10, 8], 4, 7)
    state = position({"houjix": (1, "B1"), "ngok": (0, "B2")})
    _, events = attack(state, "ngok", "houjix", [1, 1, 1, 1, 1, 1])
    assert rolls(events)[1] == ("defense", [10, 10, 8], 4, 7)


def test_twenty_sides_of_terror_replaces_two_d10_by_one_d20():
    state = position({"molator": (0, "B1"), "strider": (1, "B2")}, twenty_sides_of_terror=True)
    _, events = attack(state, "molator", "strider", [20, 4, 1, 1])
    assert rolls(events) == [("attack", [20, 4], 8, 32), ("defense", [20, 4], 7, 9)]
    assert dals.view(state, None)["combat_dice"] == "rating + d20 + secondary die"


def test_chewie_24_r2_31_the_savrip_kills_the_strider():
    # Seed 004's example game: R2's Savrip attacks Chewie's Strider; Chewie 24, R2 31.
    state = position({"savrip": (0, "B3"), "strider": (1, "B2"), "houjix": (0, "C"), "monnok": (1, "A8")})
    # Savrip 6 + 10 + 9 + 6 = 31; Strider 7 + 8 + 8 + 1 = 24.
    after, events = attack(state, "savrip", "strider", [10, 9, 6, 8, 8, 1])
    assert [r[3] for r in rolls(events)] == [31, 24]
    assert next(e for e in events if e["type"] == "combat")["result"] == "kill"
    assert after.pieces["strider"].at is None and after.pieces["savrip"].at == "B3"


@pytest.mark.parametrize(
    ("defense_faces", "result"),
    [
        ([1, 4, 1], "kill"),  # 20 - 13 = 7
        ([1, 5, 1], "push"),  # 20 - 14 = 6
        ([5, 7, 1], "counter-push"),  # 20 - 20: a tie is a counter-push
        ([10, 8, 1], "counter-push"),  # 20 - 26 = -6
        ([10, 8, 2], "counter-kill"),  # 20 - 27 = -7
    ],
)
def test_the_if_then_chart(defense_faces, result):
    state = position({"molator": (0, "B1"), "strider": (1, "B2"), "ngok": (1, "A7")})
    # Molator 8 + 5 + 5 + 2 = 20 against Strider 7 + 2d10 + d4.
    after, events = attack(state, "molator", "strider", [5, 5, 2, *defense_faces])
    assert next(e for e in events if e["type"] == "combat")["result"] == result
    if result == "push":
        assert after.push.chooser == 0 and after.push.piece == "strider"
    if result == "counter-push":
        assert after.push.chooser == 1 and after.push.piece == "molator"


def test_to_the_death_uses_the_higher_rating_with_its_die():
    state = position({"molator": (0, "B1"), "houjix": (1, "B2"), "ngok": (1, "A7")})
    # Kill: 8 + 10 + 10 + 4 = 32 against 4 + 1 + 1 + 1 = 7. To-The-Death: Molator 8 + 2d10 + d4,
    # Ng'ok 8 + 2d10 + d4 (its defense 8 is higher): 8+10+10+4 = 32 against 8+1+1+1 = 11.
    after, events = attack(state, "molator", "houjix", [10, 10, 4, 1, 1, 1, 10, 10, 4, 1, 1, 1])
    fight = [r for r in rolls(events) if r[0] == "to the death"]
    assert fight == [("to the death", [10, 10, 4], 8, 32), ("to the death", [10, 10, 4], 8, 11)]
    assert after.result.winner == 0


# --- the safe zone and the advanced attack rules ------------------------------------------


def test_ring_a_is_a_safe_zone():
    state = position({"savrip": (0, "B1"), "strider": (1, "A1"), "ngok": (1, "B2"), "ghhhk": (0, "A2")})
    # Savrip B1 touches A1 (safe) and B2; the Ghhhk on A2 touches B2 but stands in the safe zone.
    assert attacks(state) == {("savrip", "ngok")}
    assert dals.view(state, None)["safe_zone"] == list(board.RING_A)


def test_nowhere_is_safe_opens_every_ring():
    state = position(
        {"savrip": (0, "B1"), "strider": (1, "A1"), "ngok": (1, "B2"), "ghhhk": (0, "A2")},
        nowhere_is_safe=True,
    )
    assert attacks(state) == {
        ("savrip", "ngok"),
        ("savrip", "strider"),
        ("ghhhk", "strider"),
        ("ghhhk", "ngok"),
    }
    assert dals.view(state, None)["safe_zone"] == []


def test_king_of_the_center_allows_only_attacks_into_or_out_of_the_core():
    pieces = {"savrip": (0, "B1"), "ngok": (1, "B2"), "molator": (0, "C"), "strider": (1, "B7")}
    assert attacks(position(pieces)) == {("savrip", "ngok"), ("molator", "ngok"), ("molator", "strider")}
    state = position(pieces, king_of_the_center=True)
    assert attacks(state) == {("molator", "ngok"), ("molator", "strider")}
    assert dals.legal_actions(state, 1) == [
        {"type": "offer_draw", "label": "Offer a draw"},
        {"type": "resign", "label": "Resign"},
    ]
    # Red, on its turn, may attack into the core from B2 but the B1–B2 attack is gone.
    state.turn = 1
    assert attacks(state) == {("ngok", "molator"), ("strider", "molator")}


def test_king_of_the_center_with_nowhere_is_safe_still_keeps_every_attack_on_the_core():
    state = position(
        {"savrip": (0, "A1"), "ngok": (1, "A2"), "molator": (0, "C"), "strider": (1, "B7")},
        king_of_the_center=True,
        nowhere_is_safe=True,
    )
    assert attacks(state) == {("molator", "strider")}


ENCLOSED = {
    "savrip": (0, "C"),
    "ghhhk": (0, "B1"),
    "houjix": (0, "B3"),
    "strider": (1, "B2"),
    "ngok": (1, "A2"),
}
# The Strider on B2 has neighbours B1, B3, A2 and C, all occupied.
A_PUSH = [5, 5, 3, 4, 4, 2]  # Savrip 6+5+5+3 = 19 against Strider 7+4+4+2 = 17: a push


def test_without_death_push_a_push_with_no_room_does_nothing():
    after, events = attack(position(ENCLOSED), "savrip", "strider", A_PUSH)
    assert {"type": "push_blocked", "piece": "strider"} in events
    assert after.pieces["strider"].at == "B2" and after.push is None


def test_death_push_kills_a_pushed_creature_with_no_room():
    state = position(ENCLOSED, death_push=True)
    entries = [a for a in dals.legal_actions(state, 0) if a["type"] == "attack" and a["target"] == "strider"]
    assert {a["piece"] for a in entries} == {"savrip", "ghhhk", "houjix"}
    for entry in entries:  # the odds show the death push as a kill, in words
        outcomes = entry["odds"]["outcomes"]
        assert [o["key"] for o in outcomes] == ["kill", "counter-push", "counter-kill"]
        assert (
            outcomes[0]["text"].startswith("Kintan Strider is killed") and "death push" in outcomes[0]["text"]
        )
        pools = dals.attack_pools(state, state.pieces[entry["piece"]], state.pieces["strider"])
        plain = attack_odds(*pools)
        assert outcomes[0]["exact"] == str(plain["kill"] + plain["push"])
        assert sum(Fraction(o["exact"]) for o in outcomes) == 1
    after, events = attack(state, "savrip", "strider", A_PUSH)
    assert {"type": "death_push", "piece": "strider", "by": "savrip", "at": "B2"} in events
    assert after.pieces["strider"].at is None
    assert after.quiet_turns == 0


def test_death_push_never_on_a_counter_push():
    # The Ghhhk on B2 is enclosed (B1, B3, A2, C) and attacks the Ng'ok on C; it loses.
    pieces = {
        "ghhhk": (0, "B2"),
        "savrip": (0, "B1"),
        "houjix": (0, "B3"),
        "ngok": (1, "C"),
        "strider": (1, "A2"),
    }
    state = position(pieces, death_push=True)
    # Ghhhk 4 + 1 + 1 + 1 = 7 against Ng'ok 8 + 1 + 1 + 1 = 11: a counter-push, no room.
    after, events = attack(state, "ghhhk", "ngok", [1, 1, 1, 1, 1, 1])
    assert next(e for e in events if e["type"] == "combat")["result"] == "counter-push"
    assert {"type": "push_blocked", "piece": "ghhhk"} in events
    assert after.pieces["ghhhk"].at == "B2"


def test_death_push_with_room_is_an_ordinary_push():
    pieces = {"savrip": (0, "C"), "strider": (1, "B2"), "ngok": (1, "A2")}
    after, _ = attack(position(pieces, death_push=True), "savrip", "strider", A_PUSH)
    assert after.push is not None and set(after.push.options) == {"B1", "B3"}


# --- rays of death -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("d4", "d12", "ring", "spaces"),
    [(1, 7, "C", ["C"]), (4, 3, "C", ["C"]), (2, 7, "B", ["A7", "B7"]), (3, 12, "A", ["A12", "B12"])],
)
def test_the_combat_ray_roll(d4, d12, ring, spaces):
    state = position({}, rays_of_death=True)
    events: list[dict] = []
    dals.roll_combat_ray(state, ScriptedDice([d4, d12]), events)
    assert rolls(events) == [("combat ray", [4, 12], 0, d4 + d12)]
    assert state.combat_ray.ring == ring and state.combat_ray.spaces == spaces
    assert dals.view(state, None)["combat_ray"]["spaces"] == spaces


def test_every_attack_must_involve_a_piece_on_the_ray():
    pieces = {"savrip": (0, "B1"), "ngok": (1, "B2"), "molator": (0, "C"), "strider": (1, "B7")}
    state = position(pieces, rays_of_death=True)
    state.combat_ray = CombatRay(ring="B", ray=7, spaces=["A7", "B7"])
    assert attacks(state) == {("molator", "strider")}
    state.combat_ray = CombatRay(ring="A", ray=2, spaces=["A2", "B2"])
    assert attacks(state) == {("savrip", "ngok"), ("molator", "ngok")}
    state.combat_ray = CombatRay(ring="C", ray=None, spaces=["C"])
    assert attacks(state) == {("molator", "ngok"), ("molator", "strider")}


def test_each_creature_acts_once_per_cycle_and_the_ray_is_rolled_after_both_cycles():
    state = position(
        {"houjix": (0, "A1"), "ngok": (0, "A3"), "strider": (1, "A7"), "molator": (1, "A9")},
        rays_of_death=True,
    )
    state.combat_ray = CombatRay(ring="C", ray=None, spaces=["C"])
    state, events = dals.apply(state, 0, {"type": "move", "piece": "houjix", "to": "A2"}, Dice(b"x"))
    assert {a["piece"] for a in game_actions(state, 0)} == {"ngok"}, "the Houjix waits for the Ng'ok"
    state, events = dals.apply(state, 0, {"type": "move", "piece": "ngok", "to": "A4"}, Dice(b"x"))
    assert {"type": "cycle_complete", "seat": 0, "pieces": ["houjix", "ngok"]} in events
    assert not any(e.get("purpose") == "combat ray" for e in events), "Red has not completed a cycle"
    assert dals.view(state, None)["cycle"] == {"used": [[], []], "done": [True, False]}
    state, _ = dals.apply(state, 1, {"type": "move", "piece": "strider", "to": "A8"}, Dice(b"x"))
    state, events = dals.apply(
        state, 1, {"type": "move", "piece": "molator", "to": "A11"}, ScriptedDice([2, 5])
    )
    assert rolls(events) == [("combat ray", [4, 12], 0, 7)]
    assert state.combat_ray.spaces == ["A5", "B5"]
    assert state.cycle_done == [False, False]


def test_a_player_with_fewer_creatures_cycles_faster():
    # Blue has one creature, Red three: Blue's cycle is complete after every action.
    state = position(
        {"houjix": (0, "A1"), "strider": (1, "A7"), "molator": (1, "A9"), "ngok": (1, "A11")},
        rays_of_death=True,
    )
    state, _ = dals.apply(state, 0, {"type": "move", "piece": "houjix", "to": "A2"}, Dice(b"x"))
    assert state.cycle_done == [True, False]
    state, _ = dals.apply(state, 0, {"type": "move", "piece": "houjix", "to": "A3"}, Dice(b"x"))
    state, _ = dals.apply(state, 1, {"type": "move", "piece": "strider", "to": "A8"}, Dice(b"x"))
    state, _ = dals.apply(state, 1, {"type": "move", "piece": "ngok", "to": "A12"}, Dice(b"x"))
    assert {a["piece"] for a in game_actions(state, 0)} == {"houjix"}
    state, _ = dals.apply(state, 0, {"type": "move", "piece": "houjix", "to": "A2"}, Dice(b"x"))
    state, _ = dals.apply(state, 0, {"type": "move", "piece": "houjix", "to": "A1"}, Dice(b"x"))
    assert {a["piece"] for a in game_actions(state, 1)} == {"molator"}
    state, events = dals.apply(
        state, 1, {"type": "move", "piece": "molator", "to": "B8"}, ScriptedDice([1, 1])
    )
    assert any(e["type"] == "combat_ray" and e["ring"] == "C" for e in events)


def test_a_cycle_whose_remaining_creatures_cannot_act_starts_again():
    # The Ng'ok (movement 1) on A2 is walled in by A1, A3 and B2 and has no attack: after the
    # Houjix has acted, the cycle's rest cannot act, so every creature may act again.
    pieces = {
        "houjix": (0, "C"),
        "ngok": (0, "A2"),
        "ghhhk": (0, "A1"),
        "savrip": (0, "A3"),
        "strider": (1, "B2"),
    }
    state = position(pieces, rays_of_death=True)
    state.cycle_used = [["ghhhk", "savrip"], []]
    state, _ = dals.apply(state, 0, {"type": "move", "piece": "houjix", "to": "B5"}, Dice(b"x"))
    assert state.cycle_used[0] == ["ghhhk", "savrip", "houjix"]
    pieces_now = {a["piece"] for a in game_actions(state, 0)}
    assert pieces_now == {"houjix", "ghhhk", "savrip"}, "the walled-in Ng'ok is skipped"
    state, events = dals.apply(state, 0, {"type": "move", "piece": "savrip", "to": "A5"}, Dice(b"x"))
    assert any(e["type"] == "cycle_complete" and e.get("skipped") for e in events)
    assert state.cycle_used[0] == ["savrip"]


def test_play_starts_with_a_combat_ray_roll():
    state, events = dals.new_game(dals.options({"teams": "random", "rays_of_death": True}), Dice(b"r"))
    for _ in range(8):
        seat = dals.to_act(state)[0]
        state, events = dals.apply(state, seat, game_actions(state, seat)[0], Dice(b"r"))
    assert state.phase == "play"
    assert any(e.get("purpose") == "combat ray" for e in events)
    assert dals.view(state, 0)["combat_ray"] is not None


# --- the draft -------------------------------------------------------------------------------


def final_two(numbers: dict[int, str], remaining: tuple[int, int]) -> DalsiandonState:
    """A draft with six creatures taken, three each, and the two ``remaining`` numbers left."""
    order = [numbers[n] for n in range(1, 9)]
    taken = [n for n in range(1, 9) if n not in remaining]
    state = DalsiandonState(options=DalsiandonOptions(), pieces={}, phase="draft", draft=Draft(numbers=order))
    for i, n in enumerate(taken):
        state.draft.taken[numbers[n]] = i % 2
        state.teams[i % 2].append(numbers[n])
    return state


EXAMPLE_NUMBERS = {
    # Examples A and B renumber the creatures: Molator #4, Ghhk #8 (A); Strider #7, Ng'ok #3 (B).
    1: "savrip",
    2: "monnok",
    3: "ngok",
    4: "molator",
    5: "klorslug",
    6: "houjix",
    7: "strider",
    8: "ghhhk",
}


def test_draft_example_a():
    # "The Molator is #4 and has not yet been drafted by roll. The other, a Ghhk, is #8 …
    # Player A rolls a 5 and Player B rolls a 4. Player B drafts the Molater with the dice
    # roll and Player A claims the Ghhk by default."
    state = final_two(EXAMPLE_NUMBERS, (4, 8))
    events: list[dict] = []
    dice = ScriptedDice([5, 4])
    dals.run_draft(state, dice, events)
    assert dice.used_up
    picks = [e for e in events if e["type"] == "draft_pick"]
    assert picks == [
        {"type": "draft_pick", "seat": 1, "creature": "molator", "number": 4, "how": "roll"},
        {"type": "draft_pick", "seat": 0, "creature": "ghhhk", "number": 8, "how": "default"},
    ]
    assert [(r["purpose"], r["seat"], r["total"]) for r in events if r["type"] == "roll"][:2] == [
        ("draft", 0, 5),
        ("draft", 1, 4),
    ]
    assert state.phase == "arrange", "the draft is over: the setup roll follows"


def test_draft_example_b_and_the_higher_roll_chooses():
    # "The two remaining undrafted creatures are the Strider #7 and the Ngok, #3. Player A
    # rolls a 6, a 2 and a 4. Player B rolls a 5, a 1 and an 8. Player B then chooses…"
    state = final_two(EXAMPLE_NUMBERS, (7, 3))
    events: list[dict] = []
    dals.run_draft(state, ScriptedDice([6, 5, 2, 1, 4, 8]), events)
    assert [r["total"] for r in events if r["type"] == "roll"] == [6, 5, 2, 1, 4, 8]
    assert state.draft.chooser == 1 and dals.to_act(state) == [1]
    assert [r.outcome for r in state.draft.rolls] == ["miss", "miss", "choice"]
    choices = game_actions(state, 1)
    assert [(a["type"], a.get("creature")) for a in choices] == [
        ("draft", "ngok"),
        ("draft", "strider"),
        ("defer", None),
    ]
    assert choices[0]["label"] == "Draft #3 Ng'ok"
    assert game_actions(state, 0) == []
    after, events = dals.apply(state, 1, {"type": "draft", "creature": "strider"}, Dice(b"x"))
    assert [(e["seat"], e["creature"], e["how"]) for e in events if e["type"] == "draft_pick"] == [
        (1, "strider", "choice"),
        (0, "ngok", "default"),
    ]
    assert after.phase == "arrange"
    assert sorted(map(len, after.teams)) == [4, 4]


def test_draft_example_b_deferred():
    # "Player B can also defer the draft to Player A and let that player draft a creature."
    state = final_two(EXAMPLE_NUMBERS, (7, 3))
    dals.run_draft(state, ScriptedDice([6, 5, 2, 1, 4, 8]), [])
    state, events = dals.apply(state, 1, {"type": "defer"}, Dice(b"x"))
    assert events == [{"type": "draft_defer", "seat": 1, "to": 0}]
    assert dals.to_act(state) == [0]
    assert [a["type"] for a in game_actions(state, 0)] == ["draft", "draft"], "no deferring back"
    with pytest.raises(IllegalAction):
        dals.apply(state, 0, {"type": "defer"}, Dice(b"x"))
    state, events = dals.apply(state, 0, {"type": "draft", "creature": "ngok"}, Dice(b"x"))
    assert state.draft.taken["ngok"] == 0 and state.draft.taken["strider"] == 1


def test_final_round_ties_are_rerolled_and_do_not_count_as_misses():
    state = final_two(EXAMPLE_NUMBERS, (7, 3))
    # miss, tie (on a drafted number), miss, tie (on an undrafted one), then the third miss.
    dals.run_draft(state, ScriptedDice([6, 5, 2, 2, 1, 2, 7, 7, 8, 4]), [])
    assert [r.outcome for r in state.draft.rolls] == ["miss", "tie", "miss", "tie", "choice"]
    assert state.draft.chooser == 0, "8 beats 4: player A chooses"


def test_final_round_both_hit():
    state = final_two(EXAMPLE_NUMBERS, (7, 3))
    events: list[dict] = []
    dals.run_draft(state, ScriptedDice([3, 7]), events)
    assert state.draft.taken["ngok"] == 0 and state.draft.taken["strider"] == 1


def test_a_whole_draft_with_ties_and_taken_rerolls():
    # Numbers as in seed 004: Savrip #1, Monnok #2, Ghhk #3, Houjix #4, Klorslug #5,
    # Molator #6, Strider #7, Ng'ok #8.
    assert DRAFT_NUMBERS == ("savrip", "monnok", "ghhhk", "houjix", "klorslug", "molator", "strider", "ngok")
    faces = [
        1, 1,  # a tie: both reroll
        1, 2,  # A drafts the Savrip, B the Monnok
        1, 3,  # A rolled the drafted Savrip: A rerolls alone, B's 3 waits …
        3,  # … A rolls B's number: a tie, both reroll
        4, 5,  # A the Houjix, B the Klorslug
        6, 6,  # tie
        7, 6,  # A the Strider, B the Molator
        # last two: Ghhhk #3 and Ng'ok #8
        1, 8,  # B hits the Ng'ok, A gets the Ghhhk by default
    ]  # fmt: skip
    dice = ScriptedDice([*faces, 4, 9])  # then the setup roll: A 4, B 9
    state, events = dals.new_game(dals.options(None), dice)
    assert dice.used_up
    draft_rolls = [e for e in events if e["type"] == "roll" and e["purpose"] == "draft"]
    assert [(r["seat"], r["total"]) for r in draft_rolls] == [
        (0, 1), (1, 1), (0, 1), (1, 2), (0, 1), (1, 3), (0, 3), (0, 4), (1, 5),
        (0, 6), (1, 6), (0, 7), (1, 6), (0, 1), (1, 8),
    ]  # fmt: skip
    assert all(len(r["dice"]) == 1 and r["dice"][0]["sides"] == 8 for r in draft_rolls)
    assert [r.outcome for r in state.draft.rolls] == [
        "tie", "drafted", "taken", "tie", "drafted", "tie", "drafted", "drafted",
    ]  # fmt: skip
    assert state.teams == [
        ["savrip", "houjix", "strider", "ghhhk"],
        ["monnok", "klorslug", "molator", "ngok"],
    ]
    view = dals.view(state, None)
    assert [n["taken_by"] for n in view["draft"]["numbers"]] == [0, 1, 0, 0, 1, 1, 0, 1]
    assert view["draft"]["rolls"][2] == {"faces": [1, 3], "rolled": [0, 1], "outcome": "taken"}
    # The setup roll: A 4, B 9: A arranges first and moves first.
    assert [(e["purpose"], e["seat"], e["total"]) for e in events if e.get("purpose") == "setup"] == [
        ("setup", 0, 4),
        ("setup", 1, 9),
    ]
    assert state.phase == "arrange" and dals.to_act(state) == [0]
    assert view["setup"]["first_arranger"] == 0 and view["setup"]["first_mover"] == 0


def test_random_teams_deal_four_each_then_the_setup_roll():
    state, events = dals.new_game(dals.options({"teams": "random"}), Dice(b"random teams"))
    assert state.draft is None and [e["type"] for e in events[:2]] == ["roll", "teams"]
    shuffle = events[0]  # the shuffle's seven draws are a roll event, dice 0 to 6
    assert [(d["n"], d["sides"]) for d in shuffle["dice"]] == [(n, 8 - n) for n in range(7)]
    assert shuffle["shuffled"] == sorted(DRAFT_NUMBERS)
    assert sorted(state.teams[0] + state.teams[1]) == sorted(DRAFT_NUMBERS)
    assert len(state.teams[0]) == 4 and state.phase == "arrange"
    assert not any(e.get("purpose") == "draft" for e in events)


# --- setting up ------------------------------------------------------------------------------


def test_setup_ties_are_rerolled_and_the_lower_roll_arranges_and_moves_first():
    # teams="random" draws seven dice for the shuffle; then the d10s: 5 and 5 (a tie), 9 and 2.
    state, events = dals.new_game(dals.options({"teams": "random"}), ScriptedDice([1] * 7 + [5, 5, 9, 2]))
    assert {"type": "setup_reroll", "faces": [5, 5]} in events
    assert state.setup.rolls == [[5, 5], [9, 2]]
    assert state.setup.first_arranger == 1 and state.setup.first_mover == 1
    assert dals.to_act(state) == [1]
    # Each placement is its own decision: four pieces on four home spaces.
    actions = game_actions(state, 1)
    assert {a["type"] for a in actions} == {"place"} and len(actions) == 16
    assert {a["to"] for a in actions} == set(board.HOME[1])
    for i in range(4):
        piece = state.teams[1][i]
        state, _ = dals.apply(state, 1, {"type": "place", "piece": piece, "to": board.HOME[1][i]}, Dice(b"x"))
        if i < 3:
            assert len(game_actions(state, 1)) == (3 - i) ** 2, "the pieces left × the spaces left"
    # Blue arranges second, seeing Red's arrangement in the view.
    assert dals.to_act(state) == [0]
    view = dals.view(state, 0)
    assert {p["at"] for p in view["pieces"]} == set(board.HOME[1])
    assert view["unplaced"] == [state.teams[0], []]
    with pytest.raises(IllegalAction):
        dals.apply(state, 0, {"type": "place", "piece": state.teams[0][0], "to": "A7"}, Dice(b"x"))
    for i in range(4):
        state, events = dals.apply(
            state, 0, {"type": "place", "piece": state.teams[0][i], "to": board.HOME[0][i]}, Dice(b"x")
        )
    assert state.phase == "play" and state.turn == 1 and dals.to_act(state) == [1]
    assert {"type": "first_player", "seat": 1} in events
    assert {a["type"] for a in game_actions(state, 1)} == {"move"}, "no attack from the safe zone"


def test_nowhere_is_safe_lets_the_higher_roller_choose_to_move_first_or_second():
    options = dals.options({"teams": "random", "nowhere_is_safe": True})
    state, events = dals.new_game(options, ScriptedDice([1] * 7 + [3, 8]))
    assert state.phase == "order" and dals.to_act(state) == [1]
    assert [a["move"] for a in game_actions(state, 1)] == ["first", "second"]
    assert game_actions(state, 0) == []
    state, events = dals.apply(state, 1, {"type": "choose_order", "move": "first"}, Dice(b"x"))
    assert events == [{"type": "order_chosen", "seat": 1, "moves_first": 1}]
    # The lower roll still arranges first.
    assert state.phase == "arrange" and dals.to_act(state) == [0]
    for seat in (0, 1):
        for i in range(4):
            state, events = dals.apply(
                state,
                seat,
                {"type": "place", "piece": state.teams[seat][i], "to": board.HOME[seat][i]},
                Dice(b"x"),
            )
    assert state.phase == "play" and state.turn == 1


def test_the_view_during_the_draft_choice_and_placement_is_json():
    state = final_two(EXAMPLE_NUMBERS, (7, 3))
    dals.run_draft(state, ScriptedDice([6, 5, 2, 1, 4, 8]), [])
    view = dals.view(state, 0)
    json.dumps(view)
    assert view["phase"] == "draft" and view["draft"]["chooser"] == 1 and view["draft"]["misses"] == 3
    assert view["turn"] == 1
    for key in ("pieces", "legend", "turn", "actions_left", "push"):
        assert key in view


# --- whole games ---------------------------------------------------------------------------------

COMBINATIONS = [
    {},
    {"teams": "random"},
    *({name: True} for name in ADVANCED),
    {"king_of_the_center": True, "death_push": True},
    {"nowhere_is_safe": True, "death_push": True, "twenty_sides_of_terror": True},
    {"rays_of_death": True, "king_of_the_center": True},
    {"rays_of_death": True, "nowhere_is_safe": True, "teams": "random"},
    {name: True for name in ADVANCED},
]


def check_attack_was_legal(state: DalsiandonState, action: dict) -> None:
    """What the options say of every attack, checked against the position it was made in."""
    options = state.options
    spaces = {state.pieces[action["piece"]].at, state.pieces[action["target"]].at}
    if not options.nowhere_is_safe:
        assert not any(board.ring(s) == "A" for s in spaces)
    if options.king_of_the_center:
        assert board.CORE in spaces
    if options.rays_of_death:
        assert spaces & set(state.combat_ray.spaces)


@pytest.mark.parametrize(
    "options", COMBINATIONS, ids=lambda o: "+".join(f"{k}={v}" for k, v in o.items()) or "default"
)
def test_seeded_games_with_options_play_to_a_finish(options):
    attacks_seen = 0
    for game in range(4):
        _, log, states = play_randomly(dals, 500 + game, options)
        final = states[-1]
        assert dals.outcome(final) is not None, f"game {game} did not finish"
        for (_, action, events), before in zip(log, states, strict=False):
            if action["type"] == "attack":
                attacks_seen += 1
                check_attack_was_legal(before, action)
                main = [
                    r["dice"][0]["sides"] for r in events if r["type"] == "roll" and r["purpose"] == "attack"
                ]
                assert main == ([20] if options.get("twenty_sides_of_terror") else [10])
            if action["type"] == "move" and options.get("rays_of_death") and before.phase == "play":
                used = before.cycle_used[before.turn]
                fresh = [p for p in dals.living(before, before.turn) if p.id not in used]
                if action["piece"] in used:
                    # Only when no creature left in the cycle could act.
                    assert not any(dals.piece_actions(before, p, dals.occupied(before)) for p in fresh)
            json.dumps(events)
    assert attacks_seen > 0


def test_replaying_a_game_with_every_option_gives_the_same_states_and_dice():
    options = {name: True for name in ADVANCED}
    seed, log, states = play_randomly(dals, 77, options)
    dice = Dice(seed)
    state, _ = dals.new_game(dals.options(options), dice)
    assert dals.dump_state(state) == dals.dump_state(states[0])
    for (seat, action, events), expected in zip(log, states[1:], strict=True):
        state, replayed = dals.apply(state, seat, action, dice)
        assert replayed == events
        assert dals.dump_state(state) == dals.dump_state(expected)
    assert dals.load_state(json.loads(json.dumps(dals.dump_state(state)))) == state
