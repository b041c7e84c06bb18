"""dalsiandon's master: it refuses a fight without a clear edge and plays for the win
(app/bots/kelly.py, app/bots/search.py; docs/bots.md, "dalsiandon: refusing the fight")."""

from __future__ import annotations

import random

from app.bots import FAMILIES, kelly
from app.bots.search import Game, pick_searched
from app.rules import get_ruleset
from app.rules.dalsiandon import DalsiandonState
from app.rules.kelly import Piece


def piece(kind: str, owner: int, at: str) -> Piece:
    return Piece(id=kind, kind=kind, owner=owner, at=at)


def position(quiet_turns: int, **options) -> DalsiandonState:
    """Blue's Houjix beside Red's Monnok (a kill 16 %, a counter-kill 16 %) and Blue's Molator
    beside Red's K'lor'slug (29 % against 7 %), all on ring B; the rest safe on ring A."""
    ruleset = get_ruleset("dalsiandon")
    pieces = (
        piece("houjix", 0, "B1"),
        piece("molator", 0, "B5"),
        piece("ngok", 0, "A1"),
        piece("strider", 0, "A2"),
        piece("monnok", 1, "B2"),
        piece("klorslug", 1, "B6"),
        piece("savrip", 1, "A8"),
        piece("ghhhk", 1, "A9"),
    )
    return DalsiandonState(
        options=ruleset.options(options),
        pieces={p.id: p for p in pieces},
        teams=[["houjix", "molator", "ngok", "strider"], ["monnok", "klorslug", "savrip", "ghhhk"]],
        turn=0,
        actions_left=2,
        turn_number=20,
        quiet_turns=quiet_turns,
    )


def attacks(actions) -> set[tuple[str, str]]:
    return {(a["piece"], a["target"]) for a in actions if a["type"] == "attack"}


def test_the_master_declines_a_fight_without_a_clear_edge_until_late():
    ruleset = get_ruleset("dalsiandon")
    family = FAMILIES["dalsiandon"]
    both = {("houjix", "monnok"), ("molator", "klorslug")}
    early = Game(ruleset, family, 0, random.Random(0), restrained=True)
    assert attacks(early.actions(position(10), 0)) == {("molator", "klorslug")}
    assert attacks(early.actions(position(70), 0)) == both  # late: a fair fight will do
    club = Game(ruleset, family, 0, random.Random(0))
    assert attacks(club.actions(position(10), 0)) == both  # only the master refuses
    for seed in range(3):
        game = Game(ruleset, family, 0, random.Random(seed))
        actions = game.actions(position(10), 0)
        chosen = pick_searched(game, position(10), actions, 0.3, 2)
        assert (chosen.get("piece"), chosen.get("target")) != ("houjix", "monnok"), chosen


def test_the_master_plays_for_the_win():
    """A draw costs dalsiandon's master its contempt; the one-ply levels count it at 0."""
    ruleset = get_ruleset("dalsiandon")
    family = FAMILIES["dalsiandon"]
    assert family.contempt > 0
    drawn = position(ruleset.options({}).turns_without_kill)
    drawn.result = ruleset.quiet_draw(drawn)
    assert drawn.result is not None and drawn.result.winner is None
    assert Game(ruleset, family, 0, random.Random(0), restrained=True).value(drawn) == -family.contempt
    assert Game(ruleset, family, 0, random.Random(0)).value(drawn) == 0.0
    assert kelly.DICE_FAMILY.contempt == 0.0  # kelly-d20 keeps the draw at 0


def test_a_strong_defender_beside_a_weak_attacker_is_bait():
    """Red's Ghhhk may attack Blue's Ng'ok beside it on ring B (a kill 9 %, a counter-kill 24 %):
    dalsiandon's evaluation counts that for Blue, and the same pair on ring A (no attack
    possible) not; kelly-d20's evaluation has no such term."""
    ruleset = get_ruleset("dalsiandon")
    state = position(10)
    state.pieces["ngok"].at, state.pieces["ghhhk"].at = "B9", "B10"
    assert kelly.baits(ruleset, state, 0) > 0
    safe = position(10)
    safe.pieces["ngok"].at, safe.pieces["ghhhk"].at = "A9", "A10"
    assert kelly.baits(ruleset, safe, 0) == 0
    assert kelly.evaluate_dalsiandon(ruleset, state, 0) > kelly.evaluate(ruleset, state, 0, kelly.SAFE_PLACE)
