"""`simeone` (RULINGS §6, seed 001): the seed's own rules as examples."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from app.rules import registry
from app.rules.base import IllegalAction
from app.rules.dice import Dice
from app.rules.simeone import (
    CREATURES,
    OFF_BOARD,
    Simeone,
    SimeoneOptions,
    SimeonePiece,
    SimeoneState,
    battle_chances,
    battle_result,
)
from tests.rules.helpers import play_randomly

F = Fraction
RULES = Simeone()


class ScriptedDice(Dice):
    """Dice that show the given faces in order (a test's own sequence, nothing global)."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(b"scripted")
        self.faces = list(faces)
        self.sides_asked: list[int] = []

    def die(self, sides: int) -> dict[str, int]:
        assert self.faces, f"the rules asked for an unscripted d{sides}"
        face = self.faces.pop(0)
        assert 1 <= face <= sides, f"a d{sides} cannot show {face}"
        self.sides_asked.append(sides)
        rolled = {"sides": sides, "face": face, "n": self.count}
        self.count += 1
        return rolled


def position(
    at: dict[str, str],
    *,
    turn: int = 0,
    initiative: int = 0,
    stunned: tuple[str, ...] = (),
    scores: tuple[int, int] = (0, 0),
    **options,
) -> SimeoneState:
    """A game in play with the named creatures on the given spaces; the others defeated."""
    pieces = {}
    for c in CREATURES.values():
        pieces[c.id] = SimeonePiece(
            id=c.id,
            kind=c.id,
            owner=c.owner,
            at=at.get(c.id),
            stunned=c.id in stunned,
            defeated=c.id not in at,
        )
    return SimeoneState(
        options=SimeoneOptions(**options),
        pieces=pieces,
        phase="play",
        turn=turn,
        initiative=initiative,
        round=1,
        turn_in_round=0 if turn == initiative else 1,
        scores=list(scores),
    )


def play(state: SimeoneState, seat: int, action: dict, faces: list[int] = ()) -> tuple[SimeoneState, list]:
    dice = ScriptedDice(list(faces))
    state, events = RULES.apply(state, seat, action, dice)
    assert not dice.faces, f"dice left unrolled: {dice.faces}"
    return state, events


def of_type(events: list, kind: str) -> list:
    return [e for e in events if e["type"] == kind]


# --- the battle table ---------------------------------------------------------------

BOUNDARIES = [
    (7, 3, "defeated"),  # more than double
    (6, 3, "defeated"),  # exactly double
    (4, 3, "pushed"),  # more, but less than double
    (3, 3, "pushed"),  # a tie pushes
    (3, 6, "stunned"),  # the defender exactly doubles
    (3, 4, "nothing"),  # the defender more, but less than double
]


@pytest.mark.parametrize(("attack", "defense", "result"), BOUNDARIES)
def test_battle_table_at_its_boundaries(attack, defense, result):
    assert battle_result(attack, defense) == result


@pytest.mark.parametrize(("attack", "defense", "result"), BOUNDARIES)
def test_battle_table_in_play(attack, defense, result):
    # The Kintan Strider (d12) on B1 attacks the Mantellian Savrip (d12) on B2.
    state = position({"strider": "B1", "savrip": "B2", "monnok": "A7", "houjix": "A1"})
    after, events = play(
        state, 0, {"type": "attack", "piece": "strider", "target": "savrip"}, [attack, defense]
    )
    battle = of_type(events, "battle")[0]
    assert (battle["attack"], battle["defense"], battle["result"]) == (attack, defense, result)
    strider, savrip = after.pieces["strider"], after.pieces["savrip"]
    assert strider.at == "B1", "the attacker stays in its own space"
    if result == "defeated":
        assert savrip.defeated and savrip.at is None
        assert after.scores == [8, 0]
        assert after.push is None
    elif result == "pushed":
        assert savrip.at == "B2" and after.push is not None
        assert sorted(after.push.options) == ["A2", "B3", "C"]
        assert RULES.to_act(after) == [0]
    elif result == "stunned":
        assert strider.stunned and not savrip.stunned and savrip.at == "B2"
    else:
        assert not strider.stunned and savrip.at == "B2" and after.push is None
    # The strider has one action: whatever happened, the turn passes to Red once any push is done.
    if after.push is None:
        assert after.turn == 1


def test_attack_rolls_each_creatures_own_die():
    state = position({"ghhhk": "B1", "monnok": "B2", "savrip": "A7"})
    dice = ScriptedDice([1, 5])
    RULES.apply(state, 0, {"type": "attack", "piece": "ghhhk", "target": "monnok"}, dice)
    assert dice.sides_asked == [8, 6]


def test_a_stunned_houjix_defends_with_a_static_1():
    state = position(
        {"houjix": "B2", "ngok": "B1", "strider": "A1"}, turn=1, initiative=1, stunned=("houjix",)
    )
    dice = ScriptedDice([2])
    after, events = RULES.apply(state, 1, {"type": "attack", "piece": "ngok", "target": "houjix"}, dice)
    assert dice.sides_asked == [4], "only the attacker rolls; the stunned Houjix rolls nothing"
    defense = next(e for e in of_type(events, "roll") if e["purpose"] == "defense")
    assert defense["dice"] == [] and defense["total"] == 1 and defense["stunned"] is True
    assert of_type(events, "battle")[0]["result"] == "defeated"
    assert after.pieces["houjix"].defeated
    assert after.scores == [0, 2]


def test_a_stunned_creature_defends_with_its_stunned_die():
    state = position(
        {"grimtaash": "B2", "monnok": "B1", "strider": "A1"}, turn=1, initiative=1, stunned=("grimtaash",)
    )
    dice = ScriptedDice([3, 4])
    RULES.apply(state, 1, {"type": "attack", "piece": "monnok", "target": "grimtaash"}, dice)
    assert dice.sides_asked == [6, 4]


def test_the_odds_shown_with_an_attack_are_exact():
    assert battle_chances(4, None) == {"defeated": F(3, 4), "pushed": F(1, 4), "stunned": 0, "nothing": 0}
    assert sum(battle_chances(12, 12).values()) == 1
    state = position(
        {"ngok": "B1", "houjix": "B2", "strider": "A1"}, turn=1, initiative=1, stunned=("houjix",)
    )
    attack = next(a for a in RULES.legal_actions(state, 1) if a["type"] == "attack")
    assert attack["odds"] == {
        "outcomes": [
            {"key": "defeated", "probability": 0.75, "exact": "3/4", "text": "Houjix is defeated"},
            {"key": "pushed", "probability": 0.25, "exact": "1/4", "text": "Houjix is pushed"},
            {"key": "stunned", "probability": 0.0, "exact": "0", "text": "Ng'ok is stunned"},
            {"key": "nothing", "probability": 0.0, "exact": "0", "text": "nothing happens"},
        ]
    }


# --- pushes ---------------------------------------------------------------------------


def test_a_push_off_the_edge_defeats_the_creature_and_scores_its_value():
    state = position({"strider": "B2", "klorslug": "A2", "monnok": "A7"})
    after, _ = play(state, 0, {"type": "attack", "piece": "strider", "target": "klorslug"}, [5, 4])
    assert OFF_BOARD in after.push.options
    assert sorted(after.push.options) == sorted(["A1", "A3", OFF_BOARD])
    after, events = play(after, 0, {"type": "push", "piece": "klorslug", "to": OFF_BOARD})
    assert after.pieces["klorslug"].defeated and after.pieces["klorslug"].at is None
    assert after.scores == [6, 0]
    assert of_type(events, "defeat")[0] == {
        "type": "defeat",
        "piece": "klorslug",
        "by": "strider",
        "at": "A2",
    }
    assert after.pieces["strider"].at == "B2"


def test_a_push_moves_the_defender_one_step_and_the_attackers_player_chooses():
    state = position({"houjix": "B2", "klorslug": "B3", "monnok": "A7"})
    after, _ = play(state, 0, {"type": "attack", "piece": "houjix", "target": "klorslug"}, [2, 2])
    assert after.push.chooser == 0 and OFF_BOARD not in after.push.options
    with pytest.raises(IllegalAction):
        RULES.apply(after, 0, {"type": "push", "piece": "klorslug", "to": "B2"}, Dice(b"x"))
    after, _ = play(after, 0, {"type": "push", "piece": "klorslug", "to": "C"})
    assert after.pieces["klorslug"].at == "C"
    assert after.scores == [0, 0], "being pushed into the core scores nothing"
    assert after.active == "houjix" and after.actions_left == 2, "the activation goes on after the push"


def test_no_legal_push_means_nothing_happens():
    # Monnok on B2 is boxed in: B1 the attacker, B3, A2 and C all occupied.
    at = {"strider": "B1", "monnok": "B2", "ghhhk": "B3", "houjix": "A2", "grimtaash": "C"}
    state = position(at)
    after, events = play(state, 0, {"type": "attack", "piece": "strider", "target": "monnok"}, [6, 6])
    assert after.push is None and of_type(events, "push_blocked")
    assert after.pieces["monnok"].at == "B2"


# --- turns and activations -------------------------------------------------------------


def test_one_creature_is_activated_and_takes_up_to_its_actions():
    state = position({"houjix": "A1", "grimtaash": "A3", "monnok": "A7"})
    after, _ = play(state, 0, {"type": "move", "piece": "houjix", "to": "B1"})
    assert after.active == "houjix" and after.actions_left == 2
    legal = RULES.legal_actions(after, 0)
    assert {a.get("piece") for a in legal if a["type"] in ("move", "attack")} == {"houjix"}
    assert {"type": "end_activation", "label": "End the activation"} in legal
    after, _ = play(after, 0, {"type": "move", "piece": "houjix", "to": "C"})
    after, _ = play(after, 0, {"type": "move", "piece": "houjix", "to": "B2"})
    assert after.turn == 1 and after.active is None, "three actions spent: Red's turn"


def test_the_activation_may_end_early_but_not_before_it_starts():
    state = position({"strider": "A1", "savrip": "A7"})
    assert not [a for a in RULES.legal_actions(state, 0) if a["type"] == "end_activation"]
    state = position({"ghhhk": "A1", "savrip": "A7"})
    after, _ = play(state, 0, {"type": "move", "piece": "ghhhk", "to": "B1"})
    after, events = play(after, 0, {"type": "end_activation"})
    assert after.turn == 1 and of_type(events, "end_activation")


def test_a_stunned_creatures_only_action_is_unstun_and_it_costs_an_action():
    state = position({"ghhhk": "B1", "monnok": "B2", "savrip": "A7"}, stunned=("ghhhk",))
    assert [a for a in RULES.legal_actions(state, 0) if a["type"] not in ("offer_draw", "resign")] == [
        {"type": "unstun", "piece": "ghhhk"}
    ]
    after, _ = play(state, 0, {"type": "unstun", "piece": "ghhhk"})
    assert not after.pieces["ghhhk"].stunned and after.actions_left == 1
    # Stunned by the battle, the Ghhhk may spend its second action standing up again.
    state = position({"ghhhk": "B1", "monnok": "B2", "savrip": "A7"})
    after, _ = play(state, 0, {"type": "attack", "piece": "ghhhk", "target": "monnok"}, [1, 2])
    assert after.pieces["ghhhk"].stunned
    assert [a["type"] for a in RULES.game_actions(after, 0)] == ["unstun", "end_activation"]


def test_the_initiative_holder_takes_the_first_turn_of_every_round():
    state = position({"strider": "A1", "savrip": "A7"}, turn=1, initiative=1)
    state, _ = play(state, 1, {"type": "move", "piece": "savrip", "to": "A8"})
    assert (state.turn, state.round) == (0, 1)
    state, _ = play(state, 0, {"type": "move", "piece": "strider", "to": "A2"})
    assert (state.turn, state.round) == (1, 2)


def test_setup_alternates_blue_first_then_rolls_initiative_with_ties_rerolled():
    state, _ = RULES.new_game(RULES.options(None), Dice(b"s"))
    assert state.phase == "setup" and RULES.to_act(state) == [0]
    assert len(RULES.game_actions(state, 0)) == 16 and RULES.game_actions(state, 1) == []
    order = [
        (0, "grimtaash", "A1"), (1, "monnok", "A7"), (0, "strider", "A2"), (1, "klorslug", "A8"),
        (0, "ghhhk", "A3"), (1, "savrip", "A9"), (0, "houjix", "A4"), (1, "ngok", "A10"),
    ]  # fmt: skip
    for i, (seat, piece, to) in enumerate(order):
        assert RULES.to_act(state) == [seat]
        with pytest.raises(IllegalAction):
            RULES.apply(state, seat, {"type": "place", "piece": piece, "to": "A5"}, Dice(b"x"))
        faces = [3, 3, 2, 5] if i == len(order) - 1 else []
        state, events = play(state, seat, {"type": "place", "piece": piece, "to": to}, faces)
    assert of_type(events, "initiative_tie") and of_type(events, "initiative")[0]["seat"] == 1
    assert state.phase == "play" and state.initiative == 1 and state.turn == 1 and state.round == 1


# --- points and winning -------------------------------------------------------------------


def test_reaching_the_points_wins():
    state = position({"strider": "B1", "monnok": "B2", "savrip": "A7"}, scores=(10, 0))
    after, _ = play(state, 0, {"type": "attack", "piece": "strider", "target": "monnok"}, [12, 1])
    assert after.scores == [14, 0]
    assert after.result.winner == 0 and "14 points" in after.result.reason


def test_points_to_win_zero_means_annihilation_only():
    state = position({"strider": "B1", "monnok": "B2", "savrip": "A7"}, scores=(100, 0), points_to_win=0)
    after, _ = play(state, 0, {"type": "attack", "piece": "strider", "target": "monnok"}, [12, 1])
    assert after.result is None
    state = position({"strider": "B1", "monnok": "B2"}, points_to_win=0)
    after, _ = play(state, 0, {"type": "attack", "piece": "strider", "target": "monnok"}, [12, 1])
    assert after.result.winner == 0 and "every enemy creature" in after.result.reason


def test_defeating_every_enemy_wins_before_the_points():
    state = position({"strider": "B1", "ngok": "B2"})
    after, _ = play(state, 0, {"type": "attack", "piece": "strider", "target": "ngok"}, [2, 1])
    assert after.result.winner == 0 and after.scores == [2, 0]


# --- the core ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("variant", "points"), [("enter", 1), ("end_of_round", 0), ("off", 0)])
def test_moving_into_the_core(variant, points):
    state = position({"houjix": "B1", "savrip": "A7"}, center_point=variant)
    after, _ = play(state, 0, {"type": "move", "piece": "houjix", "to": "C"})
    assert after.scores == [points, 0]
    after, _ = play(after, 0, {"type": "move", "piece": "houjix", "to": "B2"})
    after, _ = play(after, 0, {"type": "move", "piece": "houjix", "to": "C"})
    assert after.scores == [2 * points, 0], "each entry scores again"


@pytest.mark.parametrize(("variant", "points"), [("enter", 0), ("end_of_round", 1), ("off", 0)])
def test_holding_the_core_at_the_end_of_a_round(variant, points):
    # Blue has the initiative and already holds the core; Red's turn ends the round.
    state = position({"strider": "C", "savrip": "A7"}, turn=1, initiative=0, center_point=variant)
    after, events = play(state, 1, {"type": "move", "piece": "savrip", "to": "A8"})
    assert of_type(events, "round_end")
    assert after.scores == [points, 0]
    assert after.round == 2 and after.turn == 0


def test_end_of_round_points_can_win():
    state = position({"strider": "C", "savrip": "A7"}, turn=1, initiative=0, center_point="end_of_round",
                     scores=(11, 0))  # fmt: skip
    after, _ = play(state, 1, {"type": "move", "piece": "savrip", "to": "A8"})
    assert after.result.winner == 0


def test_turns_without_a_defeat_end_the_match_as_a_draw():
    state = position({"strider": "A1", "savrip": "A7"}, turns_without_kill=3, center_point="off")
    for seat, piece, to in [(0, "strider", "A2"), (1, "savrip", "A8"), (0, "strider", "A3")]:
        assert state.result is None
        state, _ = play(state, seat, {"type": "move", "piece": piece, "to": to})
    assert state.result.winner is None and "3 turns" in state.result.reason


def test_a_turn_with_a_defeat_resets_the_quiet_count():
    state = position({"strider": "B1", "monnok": "B2", "savrip": "A7"})
    state.quiet_turns = 40
    after, _ = play(state, 0, {"type": "attack", "piece": "strider", "target": "monnok"}, [12, 1])
    assert after.quiet_turns == 0 and after.turn == 1


def test_a_core_point_at_the_round_end_wins_before_the_draw_count_ends_the_match():
    state = position({"strider": "C", "savrip": "A7"}, turn=1, initiative=0, center_point="end_of_round",
                     scores=(11, 0), turns_without_kill=5)  # fmt: skip
    state.quiet_turns = 4
    after, _ = play(state, 1, {"type": "move", "piece": "savrip", "to": "A8"})
    assert after.result.winner == 0


# --- the view and whole games ----------------------------------------------------------------


def test_the_view_shows_scores_stuns_actions_round_initiative_and_legend():
    state = position({"ghhhk": "B1", "monnok": "B2", "savrip": "A7"}, stunned=("monnok",), scores=(3, 1))
    state, _ = play(state, 0, {"type": "move", "piece": "ghhhk", "to": "A1"})
    view = RULES.view(state, None)
    json.dumps(view)
    assert view["scores"] == [3, 1] and view["round"] == 1 and view["initiative"] == 0
    assert view["active"] == "ghhhk" and view["actions_left"] == 1 and view["turn"] == 0
    monnok = next(p for p in view["pieces"] if p["id"] == "monnok")
    assert monnok["stunned"] is True and {"id", "kind", "owner", "at"} <= set(monnok)
    assert view["legend"]["houjix"] == {
        "name": "Houjix", "actions": 3, "value": 2, "die": "d4", "stunned_die": "1"
    }  # fmt: skip
    assert view["legend"]["strider"]["die"] == "d12" and view["legend"]["strider"]["stunned_die"] == "d8"
    assert {p["id"] for p in view["defeated"]} == set(CREATURES) - {"ghhhk", "monnok", "savrip"}


@pytest.mark.parametrize(
    "options",
    [
        {"center_point": "end_of_round", "points_to_win": 0},
        {"center_point": "off", "points_to_win": 30, "turns_without_kill": 20},
        {"center_point": "enter", "points_to_win": 5, "turns_without_kill": 0},
    ],
)
def test_random_play_finishes_under_other_options(options):
    ruleset = registry()["simeone"]
    for game in range(8):
        _, _, states = play_randomly(ruleset, 500 + game, options)
        outcome = ruleset.outcome(states[-1])
        assert outcome is not None
        final = states[-1]
        if outcome.winner is not None and options["points_to_win"]:
            target = options["points_to_win"]
            assert final.scores[outcome.winner] >= target or not RULES.living(final, 1 - outcome.winner)
        if not options["points_to_win"] and outcome.winner is not None:
            assert not RULES.living(final, 1 - outcome.winner)
