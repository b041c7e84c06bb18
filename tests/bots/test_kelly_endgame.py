"""kelly's endgame: a piece that no attack takes at fair odds (the Ng'ok's fortress) is
hemmed in until it must attack, and a lead is not thrown away for a fresh count of quiet
turns (app/bots/kelly.py, app/bots/search.py; docs/bots.md, "Hemming in a fortress")."""

from __future__ import annotations

import random
from dataclasses import replace

from app.bots import kelly
from app.bots.search import Game, ScriptedDice, pick_searched
from app.rules import get_ruleset
from app.rules.base import COMMON_ACTION_TYPES
from app.rules.kelly import Piece, move_paths

RULESET = get_ruleset("kelly")
WITHOUT_ENDGAME = replace(kelly.FAMILY, evaluate=kelly.evaluate)


def position(pieces: dict[str, tuple[int, str]], quiet_turns: int = 10):
    return RULESET.state_type(
        options=RULESET.options({}),
        pieces={kind: Piece(id=kind, kind=kind, owner=owner, at=at) for kind, (owner, at) in pieces.items()},
        turn=0,
        actions_left=2,
        quiet_turns=quiet_turns,
    )


def masters_turn(state, family=kelly.FAMILY) -> tuple[list[dict], object]:
    """Blue's whole turn as the master plays it, its own turn searched (depth 1, so the
    answer does not depend on the machine's speed): the actions and the position after."""
    played = []
    while state.turn == 0 and state.push is None:
        legal = [a for a in RULESET.legal_actions(state, 0) if a["type"] not in COMMON_ACTION_TYPES]
        action = pick_searched(Game(RULESET, family, 0, random.Random(0)), state, legal, 10.0, 1)
        played.append(action)
        state, _ = RULESET.apply_legal(state, 0, action, ScriptedDice([], random.Random(0)))
    return played, state


def ngok_moves(state) -> int:
    taken = frozenset(p.at for p in state.pieces.values() if p.at is not None)
    return len(move_paths(state.pieces["ngok"].at, 1, taken))


# Red's lone Ng'ok on A6; Blue's Strider on B6, its Savrip two steps from A5, its Monnok
# three from A7. No Blue piece attacks a Ng'ok at fair odds.
FORTRESS = {"savrip": (0, "A3"), "monnok": (0, "A10"), "strider": (0, "B6"), "ngok": (1, "A6")}


def test_the_master_hems_a_lone_ngok_in_so_that_it_must_attack():
    """With its three pieces on the Ng'ok's three neighbours, Red's turn has no move in
    it: both its actions must be attacks, on a Monnok, a Savrip or a Strider (counter-
    killed 54 %, 78 %, 92 % of the time). Without the endgame the master walks away."""
    played, after = masters_turn(position(FORTRESS))
    assert [a["type"] for a in played] == ["move", "move"]
    assert ngok_moves(after) == 0
    assert RULESET.legal_actions(after, 1) and all(
        a["type"] == "attack" for a in RULESET.legal_actions(after, 1) if a["type"] not in COMMON_ACTION_TYPES
    )
    _, without = masters_turn(position(FORTRESS), WITHOUT_ENDGAME)
    assert ngok_moves(without) > 0


def test_the_evaluation_prefers_the_enemy_hemmed_in_and_its_lead_convertible():
    ruleset, seat = RULESET, 0
    hemmed = position({**FORTRESS, "savrip": (0, "A5"), "monnok": (0, "A7")})
    hemmed.turn = 1  # Red to move, with no move: it must attack
    loose = position({**FORTRESS, "savrip": (0, "B3"), "monnok": (0, "B9")})
    loose.turn = 1
    assert kelly.evaluate_kelly(ruleset, hemmed, seat) > kelly.evaluate_kelly(ruleset, loose, seat) + 0.1
    # Two pieces without a Molator cannot take a lone Ng'ok: the lead is worth less than with three.
    two = position({"savrip": (0, "B3"), "monnok": (0, "B9"), "ngok": (1, "A6")})
    three = position({"savrip": (0, "B3"), "monnok": (0, "B9"), "strider": (0, "B12"), "ngok": (1, "A6")})
    drop = kelly.evaluate_kelly(ruleset, three, seat) - kelly.evaluate_kelly(ruleset, two, seat)
    assert drop > kelly.evaluate(ruleset, three, seat) - kelly.evaluate(ruleset, two, seat)


def test_the_master_does_not_throw_a_piece_away_for_a_fresh_count():
    """80 of the 100 quiet turns gone, three pieces against a lone Ng'ok on ring B (four
    neighbours: not to be hemmed in this turn). A Ghhhk attacking the Ng'ok is counter-
    killed 90 % of the time and never kills; the loss would set the count back to 0, and a
    lead that fades near the draw made that look like a gain (``Game.fade``)."""
    state = position({"savrip": (0, "B3"), "monnok": (0, "A10"), "ghhhk": (0, "B5"), "ngok": (1, "B4")}, 80)
    played, _ = masters_turn(state)
    assert not any(a["type"] == "attack" and a["piece"] == "ghhhk" for a in played)


def test_the_master_does_not_leave_its_molator_where_the_answer_kills_it(monkeypatch):
    """Blue's Molator can step to B7 and attack Red's Monnok (a kill 74 % of the time),
    but there Red's K'lor'slug, two steps away, kills it in its turn 99 % of the time. The
    opponent's best attack, to move, counts like material (``kelly.DANGER``): the master
    keeps its Molator. Counted at the 0.3 of the side's own threats, it made the trade."""

    def molator_attacks() -> bool:
        pieces = {
            "molator": (0, "B1"),
            "savrip": (0, "A2"),
            "ghhhk": (0, "A3"),
            "houjix": (0, "A4"),
            "monnok": (1, "A7"),
            "klorslug": (1, "A8"),
            "ngok": (1, "A9"),
            "strider": (1, "A10"),
        }
        played, _ = masters_turn(position(pieces))
        return any(a["type"] == "attack" and a["piece"] == "molator" for a in played)

    assert not molator_attacks()
    monkeypatch.setattr(kelly, "DANGER", kelly.THREATS)
    assert molator_attacks()


def test_a_lone_piece_hemmed_in_is_the_game_not_its_material(monkeypatch):
    """Red's lone Ng'ok on A6; Blue can take its three neighbours this turn. Hemmed in, its
    two actions must be attacks, the least bad one on the Ghhhk (a kill or a counter-kill
    6 % each; a push has nowhere to go): the game ends in Blue's favour 11 % of the time,
    which ``kelly.last_stand`` counts as the game it is. Counted as the Ng'ok's material
    alone, the chance was worth less than the Savrip on the core, and the Ng'ok stayed loose."""
    pieces = {
        "savrip": (0, "A3"),
        "monnok": (0, "A10"),
        "ghhhk": (0, "B6"),
        "houjix": (0, "A12"),
        "ngok": (1, "A6"),
    }
    _, after = masters_turn(position(pieces))
    assert ngok_moves(after) == 0
    monkeypatch.setattr(kelly, "last_stand", lambda *args: 0.0)
    _, loose = masters_turn(position(pieces))
    assert ngok_moves(loose) > 0
