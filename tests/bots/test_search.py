"""The generic search: turns counted by whose turn it is, and the selective look at the
opponent's answer (app/bots/search.py, docs/bots.md)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

import pytest

from app.bots import kelly, simeone
from app.bots.search import Game, OutOfTime, pick_greedy, pick_searched, schedule
from app.rules import board, get_ruleset
from app.rules.base import COMMON_ACTION_TYPES
from app.rules.kelly import Piece
from app.rules.kelly_d20 import KellyD20State
from tests.bots.helpers import positions


def piece(kind: str, owner: int, at: str) -> Piece:
    return Piece(id=kind, kind=kind, owner=owner, at=at)


def material_and_ring_b(ruleset, state, seat) -> float:
    """A toy evaluation that cannot see a threat: material, and a little for each own
    piece on ring B. Only a search of the opponent's answer sees what ring B costs."""
    value = 0.0
    total = 0.0
    for p in state.pieces.values():
        if p.at is None:
            continue
        worth = kelly.piece_value(ruleset, p.kind)
        total += worth
        sign = 1 if p.owner == seat else -1
        value += sign * worth
        if board.ring(p.at) == "B":
            value += sign * 0.005 * 80
    return value / 80


def test_the_master_does_not_step_where_the_answer_kills_but_the_club_does():
    """kelly-d20, Blue's last action: any Blue piece stepping onto ring B earns the toy
    evaluation's bonus, but Red's Molator on the core can attack every ring B space
    (a kill about two times in five). The club takes the bonus; the master, whose
    search weighs Red's best answers, keeps its pieces on ring A. With the full-width
    search of before, the opponent's whole turn was out of reach and the master played
    like the club."""
    ruleset = get_ruleset("kelly-d20")
    state = KellyD20State(
        options=ruleset.options({}),
        pieces={
            p.id: p
            for p in (
                piece("houjix", 0, "A1"),
                piece("ghhhk", 0, "A2"),
                piece("klorslug", 0, "A3"),
                piece("monnok", 0, "A4"),
                piece("molator", 1, board.CORE),
                piece("ngok", 1, "A8"),
                piece("strider", 1, "A9"),
                piece("savrip", 1, "A10"),
            )
        },
        turn=0,
        actions_left=1,
        turn_number=5,
    )
    family = replace(kelly.DICE_FAMILY, evaluate=material_and_ring_b)
    actions = [a for a in ruleset.legal_actions(state, 0) if a["type"] not in COMMON_ACTION_TYPES]
    assert all(a["type"] == "move" for a in actions)
    for seed in range(3):
        club = pick_greedy(Game(ruleset, family, 0, random.Random(seed)), state, actions)
        assert board.ring(club["to"]) == "B", club
        master = pick_searched(Game(ruleset, family, 0, random.Random(seed)), state, actions, 1.0, 12)
        assert board.ring(master["to"]) == "A", master


def test_a_push_chosen_by_the_defender_stays_inside_the_attackers_turn():
    """kelly-d20: after a counter-push the defender chooses where the attacker goes, in the
    middle of the attacker's turn. The search counts turns by whose turn it is, so a
    one-turn search goes on to the attacker's second action instead of stopping at
    the defender's choice."""
    ruleset = get_ruleset("kelly-d20")
    state = KellyD20State.model_validate(
        {
            "options": {},
            "pieces": {
                p.id: p.model_dump()
                for p in (
                    piece("molator", 0, "B1"),
                    piece("houjix", 0, "A4"),
                    piece("ngok", 1, "B2"),
                    piece("savrip", 1, "A8"),
                )
            },
        }
    )
    game = Game(ruleset, kelly.DICE_FAMILY, 0, random.Random(0))
    asked: list[tuple[int, int]] = []
    actions = game.actions

    def spy(s, seat):
        asked.append((seat, s.actions_left))
        return actions(s, seat)

    game.actions = spy  # type: ignore[method-assign]
    attack = {"type": "attack", "piece": "molator", "target": "ngok"}
    game.chance_value(state, 0, attack, 0, -math.inf, math.inf, (0, 1))
    assert (1, 2) in asked, "the defender's push choice is searched"
    assert (0, 1) in asked, "and then the attacker's second action"


def test_the_schedule_deepens_by_half_turns_only_for_a_selective_family():
    assert schedule(kelly.FAMILY, 3) == [(1, None, None, None), (2, None, None, None), (3, None, None, None)]
    root, width = kelly.DICE_FAMILY.selective
    assert schedule(kelly.DICE_FAMILY, 3) == [
        (1, None, None, None),
        (2, root, width, 1),
        (2, root, width, None),
        (3, root, width, 1),
        (3, root, width, None),
    ]


@dataclass
class Capped(Game):
    """A game whose search gives up after ``cap`` nodes, as it would when out of time."""

    cap: float = math.inf

    def search(self, *args, **kwargs):  # type: ignore[override]
        if self.nodes >= self.cap:
            raise OutOfTime
        return super().search(*args, **kwargs)


@pytest.mark.runs_long
def test_simeone_sees_the_opponents_answer_for_a_fraction_of_the_full_width_nodes():
    """simeone: past its own activation the master weighs the opponent's two best answers
    only. On mid-game positions, its search of the opponent's whole turn finishes in
    fewer nodes than a third of what the full-width search needs: in the time a
    decision has, the full width rarely got that far, and the master played no better
    than the club (48-52 over 100 games; 67-33 selective: docs/bots.md)."""
    ruleset = get_ruleset("simeone")
    full_width = replace(simeone.FAMILY, selective=None)
    checked = 0
    for state, seat in positions("simeone", games=2, every=5):
        if state.phase != "play" or state.push is not None:
            continue
        actions = [a for a in ruleset.legal_actions(state, seat) if a["type"] not in COMMON_ACTION_TYPES]
        if len(actions) < 6:
            continue
        selective = Capped(ruleset, simeone.FAMILY, seat, random.Random(0))
        pick_searched(selective, state, actions, math.inf, 2)
        wide = Capped(ruleset, full_width, seat, random.Random(0), cap=3 * selective.nodes)
        pick_searched(wide, state, actions, math.inf, 2)
        assert wide.nodes >= wide.cap, (selective.nodes, wide.nodes)
        checked += 1
        if checked == 2:  # each position costs seconds of full-width search
            return
    pytest.fail(f"only {checked} mid-game positions found")


def test_the_master_presses_for_a_kill_as_the_draw_by_quiet_turns_nears():
    """kelly, Blue's last action of the turn: Blue's K'lor'slug beside Red's Kintan
    Strider, an even fight (a kill or a counter-kill 16 % each; the Strider's own attack
    on it never kills), material even. Early in the count the master steps away from it,
    as the club does; with 90 of the 100 quiet turns gone, a draw is what waiting brings,
    and the master takes the fight (``search.PRESS``: without it, the master steps away
    there too). With a lead, the lead fading (``drawing_nearer``) is reason enough, and it
    attacks as well. (A Molator beside a Ng'ok, this test's first position, is no even
    fight since the Ng'ok's own attack counts: ``kelly.DANGER``.)"""
    ruleset = get_ruleset("kelly")
    even = {"klorslug": (0, "B1"), "ghhhk": (0, "A5"), "strider": (1, "B2"), "houjix": (1, "A8")}
    ahead = {
        "klorslug": (0, "B1"),
        "ghhhk": (0, "A5"),
        "houjix": (0, "A4"),
        "strider": (1, "B2"),
        "ngok": (1, "A8"),
    }

    def choice(pieces, quiet_turns, level="master"):
        state = ruleset.state_type(
            options=ruleset.options({}),
            pieces={kind: piece(kind, owner, at) for kind, (owner, at) in pieces.items()},
            turn=0,
            actions_left=1,
            quiet_turns=quiet_turns,
        )
        actions = [a for a in ruleset.legal_actions(state, 0) if a["type"] not in COMMON_ACTION_TYPES]
        game = Game(ruleset, kelly.FAMILY, 0, random.Random(0))
        if level == "club":
            return pick_greedy(game, state, actions)["type"]
        # The master's own turn only (depth 1), so the answer does not depend on the machine.
        return pick_searched(game, state, actions, 10.0, 1)["type"]

    assert choice(even, 10) == "move"
    assert choice(even, 90) == "attack"
    assert choice(even, 90, "club") == "move", "the club does not press"
    assert choice(ahead, 10) == "move"
    assert choice(ahead, 90) == "attack"
