"""Every level of every ruleset's bots plays legal, sensible moves from what its seat sees."""

from __future__ import annotations

import random

import pytest

from app.bots import FAMILIES, LEVELS, all_bots, decide, seat_knowledge
from app.bots.search import Game, ScriptedDice
from app.rules import board, registry
from app.rules.base import COMMON_ACTION_TYPES
from tests.bots.helpers import OPTION_SETS, positions
from tests.rules.helpers import play_randomly

BUDGET_S = 0.05


def test_every_ruleset_has_a_family_and_three_levels():
    assert set(FAMILIES) == set(registry())
    assert len(all_bots()) == len(registry()) * len(LEVELS)


@pytest.mark.runs_long
@pytest.mark.parametrize("ruleset_id", sorted(registry()))
def test_every_level_returns_a_legal_game_action(ruleset_id):
    ruleset = registry()[ruleset_id]
    for n, (state, seat) in enumerate(positions(ruleset_id)):
        known = seat_knowledge(ruleset, state, seat)
        # The master searches its whole budget on each position: a third of them (still
        # every phase of a game) keeps the test's time; the other levels take them all.
        for level in LEVELS if n % 3 == 0 else [lv for lv in LEVELS if lv != "master"]:
            bot = all_bots()[f"{ruleset_id}-{level}"]
            action = decide(bot, known, seat, seed=n, budget_s=BUDGET_S)
            chosen = ruleset.find_legal(state, seat, action)  # raises when it is not legal
            assert chosen["type"] not in COMMON_ACTION_TYPES, "a bot never resigns or offers a draw"


def won(ruleset, state, seat) -> bool:
    result = ruleset.outcome(state)
    return result is not None and result.winner == seat


def wins_at_once(ruleset, state, seat, action) -> bool:
    """The action wins now, or whatever the opponent answers (orbit-chess's king wins
    when its owner's next turn starts in the core)."""
    new, _ = ruleset.apply(state, seat, action, ScriptedDice([], random.Random(0)))
    if won(ruleset, new, seat) or ruleset.outcome(new) is not None:
        return won(ruleset, new, seat)
    other = ruleset.to_act(new)[0]
    if other == seat:
        return False
    replies = [a for a in ruleset.legal_actions(new, other) if a["type"] not in COMMON_ACTION_TYPES]
    return all(
        won(ruleset, ruleset.apply(new, other, r, ScriptedDice([], random.Random(0)))[0], seat)
        for r in replies
    )


@pytest.mark.runs_long
@pytest.mark.parametrize("ruleset_id", ["orbit-chess", "courtier"])
def test_the_master_takes_a_win_in_one(ruleset_id):
    ruleset = registry()[ruleset_id]
    master = all_bots()[f"{ruleset_id}-master"]
    found = 0
    for game in range(25):
        _, _, states = play_randomly(ruleset, 5000 + game, OPTION_SETS[ruleset_id][0])
        if found >= 4:
            break
        for state in states[:150]:
            to_act = ruleset.to_act(state)
            if not to_act:
                continue
            seat = to_act[0]
            legal = [a for a in ruleset.legal_actions(state, seat) if a["type"] not in COMMON_ACTION_TYPES]
            if any(wins_at_once(ruleset, state, seat, a) for a in legal):
                found += 1
                action = decide(master, seat_knowledge(ruleset, state, seat), seat, seed=game, budget_s=0.5)
                assert wins_at_once(ruleset, state, seat, action), (game, action)
    assert found >= 4, "the random games should offer some wins in one"


def test_the_club_takes_the_attack_with_the_best_odds_kelly():
    """Kelly: when an attack's expected material gain is positive and beats every other
    action, the club bot (greedy on the exact odds) takes it; its one-ply values are
    the exact expectation over the four results."""
    ruleset = registry()["kelly"]
    club = all_bots()["kelly-club"]
    checked = 0
    for state, seat in positions("kelly", games=6, every=1):
        legal = [a for a in ruleset.legal_actions(state, seat) if a["type"] not in COMMON_ACTION_TYPES]
        game = Game(ruleset, FAMILIES["kelly"], seat, random.Random(0))
        scores = {i: game.expected(state, seat, a) for i, a in enumerate(legal)}
        best = max(scores.values())
        winners = [legal[i] for i, s in scores.items() if s >= best - 1e-9]
        if all(a["type"] == "attack" for a in winners) and best > game.value(state):
            action = decide(club, state, seat, seed=1)
            assert ruleset.essential(action) in [ruleset.essential(a) for a in winners]
            checked += 1
    assert checked >= 3


@pytest.mark.parametrize("ruleset_id", ["kelly", "kelly-d20", "dalsiandon", "simeone", "eote"])
def test_chance_outcomes_are_exact_and_distinct(ruleset_id):
    """Each roll's outcome classes: probabilities summing to 1, each script giving its class."""
    ruleset = registry()[ruleset_id]
    family = FAMILIES[ruleset_id]
    checked = 0
    for options_state, seat in positions(ruleset_id, games=2, every=3):
        for action in ruleset.legal_actions(options_state, seat):
            scripts = family.chance(ruleset, options_state, seat, action)
            if not scripts:
                continue
            assert abs(sum(p for p, _ in scripts) - 1.0) < 1e-9
            successors = []
            for _, faces in scripts:
                dice = ScriptedDice(faces, random.Random(0))
                new, _ = ruleset.apply(options_state, seat, action, dice)
                assert not dice.faces, "every scripted face is used"
                successors.append(ruleset.dump_state(new))
            checked += 1
            if ruleset_id != "eote":  # eote states keep the faces rolled; the board games do not
                assert len({repr(s) for s in successors}) == len(successors)
    assert checked >= 5


def test_the_eote_bot_decides_the_same_whatever_the_hidden_setting():
    """While Dark sets pieces (hidden from Light) and offers a draw, Light's bots answer
    from the same knowledge whatever Dark has chosen."""
    ruleset = registry()["eote"]
    for state, _ in positions("eote", games=3, every=1):
        if state.step != "setting" or state.setter is None:
            continue
        setter = state.setter
        other = 1 - setter
        answers = set()
        for chosen in range(state.sides[setter].active + 1):
            hidden = ruleset.copy_state(state)
            hidden.choosing = chosen
            hidden.draw_offer = setter
            known = seat_knowledge(ruleset, hidden, other)
            assert ruleset.view(known, other) == ruleset.view(hidden, other)
            for level in LEVELS:
                bot = all_bots()[f"eote-{level}"]
                answers.add((level, repr(decide(bot, known, other, seed=3, budget_s=BUDGET_S))))
        assert len(answers) == len(LEVELS)
        return
    pytest.fail("no setting step found")


@pytest.mark.parametrize("level", ["club", "master"])
def test_an_eote_bot_asks_the_gm_for_a_reroll_and_then_waits(level):
    """GM-hosted: a failed check with 3 advantages (AA, A vs -, -) may be re-rolled if the
    GM grants it; asking costs nothing, so the bot asks, and then no seat is to act."""
    ruleset = registry()["eote"]
    state, _ = ruleset.start(ruleset.options({"initial_ranks_check": True}), ScriptedDice([1], None), gm=True)
    state, _ = ruleset.apply(
        state, 0, {"type": "choose_difficulty", "difficulty": 2}, ScriptedDice([8, 5, 1, 1], None)
    )
    bot = all_bots()[f"eote-{level}"]
    action = decide(bot, seat_knowledge(ruleset, state, 0), 0, seed=1, budget_s=BUDGET_S)
    assert action["type"] == "ask_reroll"
    asked, _ = ruleset.apply(state, 0, action, ScriptedDice([], None))
    assert ruleset.to_act(asked) == [] and [a["type"] for a in ruleset.gm_actions(asked)] == [
        "gm_grant_reroll",
        "gm_refuse_reroll",
    ]


@pytest.mark.runs_long
@pytest.mark.parametrize("level", LEVELS)
def test_an_eote_bot_finishes_setting_its_pieces(level):
    """A setter adds pieces one by one and says it is done: it never takes one back, so
    the setting ends within a decision per active piece and one more (a master once set
    and took back a piece, turn after turn, and the match never went on)."""
    ruleset = registry()["eote"]
    bot = all_bots()[f"eote-{level}"]
    settings = 0
    for n, (state, _) in enumerate(positions("eote", games=3, every=1)):
        if state.step != "setting" or state.setter is None or state.choosing:
            continue
        setter, settings = state.setter, settings + 1
        for _ in range(state.sides[setter].active + 1):
            action = decide(bot, seat_knowledge(ruleset, state, setter), setter, seed=n, budget_s=BUDGET_S)
            assert action["type"] in ("set_piece", "done_setting"), action
            state, _ = ruleset.apply(state, setter, action, ScriptedDice([], None))
            if state.setter != setter or state.step != "setting":
                break
        else:
            pytest.fail(f"{bot.id} was still setting after {state.choosing} pieces")
    assert settings >= 3


def kelly_position(pieces: dict[str, tuple[int, str]], ruleset_id: str = "kelly", **fields):
    """A kelly-family state with ``pieces`` (kind: (owner, space)) and seat 0 to move."""
    ruleset = registry()[ruleset_id]
    from app.rules.kelly import Piece

    placed = {kind: Piece(id=kind, kind=kind, owner=owner, at=at) for kind, (owner, at) in pieces.items()}
    return ruleset, ruleset.state_type(options=ruleset.options({}), pieces=placed, turn=0, **fields)


def test_a_lead_is_worth_less_as_the_draw_by_quiet_turns_nears():
    """Two pieces against one: a clear lead, but 100 turns without a piece lost draw the
    match, so the lead fades as the count runs (a kill sets the count back to 0)."""
    ruleset, fresh = kelly_position({"molator": (0, "A1"), "savrip": (0, "A2"), "ngok": (1, "A7")})
    game = Game(ruleset, FAMILIES["kelly"], 0, random.Random(0))
    late = fresh.model_copy(update={"quiet_turns": 90})
    assert game.value(fresh) > 0.2
    assert 0 < game.value(late) < game.value(fresh) / 5


def test_kelly_the_side_to_move_counts_an_attack_a_move_away():
    """The Molator (Attack 8, Movement 2) two steps from a Ghhhk (Defense 3) can move up
    and attack this turn while it has both actions; with one action left it cannot."""
    ruleset, both = kelly_position({"molator": (0, "A1"), "ghhhk": (1, "A4"), "ngok": (1, "A8")})
    game = Game(ruleset, FAMILIES["kelly"], 0, random.Random(0))
    one = both.model_copy(update={"actions_left": 1})
    assert game.value(both) > game.value(one) + 0.05
    club = all_bots()["kelly-club"]
    first = decide(club, both, 0, seed=1)
    assert first == {"type": "move", "piece": "molator", "to": "A3"}


def test_kelly_d20_a_hold_of_two_turns_is_broken_or_lost():
    """kelly-d20: Red's Mantellian Savrip has held the core for two of Red's turns. Unless
    Blue declares an attack on a Red piece this turn, Red wins as its next turn ends.
    Blue's last piece, a Houjix beside the core, can only attack the Savrip, at poor odds
    (Attack 4 + d8 against Defense 6 + d6): with no hold, no level attacks; with the hold
    at two, every level does. (While a lost game weighed a thousand evaluations, neither
    did: docs/bots.md.)"""
    pieces = {"houjix": (0, "B1"), "savrip": (1, board.CORE), "klorslug": (1, "B6")}
    ruleset, state = kelly_position(pieces, "kelly-d20", centre_hold=[0, 2], turn_number=7)
    attack_on_hold = {"type": "attack", "piece": "houjix", "target": "savrip"}
    for level in ("club", "master"):
        bot = all_bots()[f"kelly-d20-{level}"]
        action = decide(bot, state, 0, seed=1, budget_s=BUDGET_S)
        assert ruleset.essential(action) == attack_on_hold, level
        calm = state.model_copy(update={"centre_hold": [0, 0]})
        assert decide(bot, calm, 0, seed=1, budget_s=BUDGET_S)["type"] == "move", level
    blue = Game(ruleset, FAMILIES["kelly-d20"], 0, random.Random(0))
    ended = state.model_copy(update={"turn": 1})
    assert blue.value(ended) < -0.9, "Blue's turn over, the hold unbroken: as good as lost"
    # Blue's last action, no Red piece within its reach: lost already.
    houjix_away = state.pieces["houjix"].model_copy(update={"at": "A1"})
    last = state.model_copy(
        update={
            "pieces": {**state.pieces, "houjix": houjix_away},
            "actions_left": 1,
        }
    )
    assert blue.value(last) < -0.9
    # A hold of one turn is still only a start.
    assert blue.value(ended.model_copy(update={"centre_hold": [0, 1]})) > -0.9
