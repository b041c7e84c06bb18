"""Events in player words (app/rules/words.py and each ruleset's ``event_text``): the
log reads as the rules' own examples, seats by their names and players, pieces by
owner and name, creatures by the legend, dice as players say them."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from app.rules import get_ruleset, registry
from app.rules.base import COMMON_ACTION_TYPES, Ruleset
from app.rules.dice import Dice
from app.rules.words import Words, dice_words
from app.services.views import event_text

PLAYERS = {0: "Lyn", 1: "Dorn"}


def table(ruleset_id: str, seat: int | None = None, options: dict[str, Any] | None = None, gm: bool = False):
    """A ruleset's game just started (the same dice every time) and the words of ``seat``'s view."""
    rules = get_ruleset(ruleset_id)
    state, _ = rules.start(rules.options(options or {}), Dice(bytes(32)), gm)
    return rules, Words(state=rules.view(state, seat), players=PLAYERS, seat_names=rules.seat_names)


def say(rules: Ruleset, words: Words, **event: Any) -> str | None:
    return rules.event_text(event, words)


def die(sides: int, face: int) -> dict[str, int]:
    return {"n": 1, "sides": sides, "face": face}


# --- what every ruleset says alike ------------------------------------------------------


def test_dice_read_as_players_say_them():
    assert dice_words([die(6, 6), die(6, 1)]) == "6 and 1 on two d6"
    assert dice_words([die(10, 5), die(6, 3), die(10, 2)]) == "5 and 2 on two d10 and 3 on a d6"


@pytest.mark.parametrize("ruleset_id", sorted(registry()))
def test_every_ruleset_words_resigning_draws_time_and_the_end(ruleset_id):
    rules, words = table(ruleset_id)
    first, second = (f"{rules.seat_name(s)} ({PLAYERS[s]})" for s in (0, 1))
    assert say(rules, words, type="resign", seat=1) == f"{second} resigned"
    assert say(rules, words, type="draw_offered", seat=0) == f"{first} offered a draw"
    assert say(rules, words, type="draw_declined", seat=1) == f"{second} declined the draw"
    assert say(rules, words, type="draw_agreed", seat=1) == "The draw was agreed"
    timeout = say(rules, words, type="timeout", seats=[0], seat=1)
    assert timeout == f"{first} ran out of time; {second} claimed the win"
    reason = f"{rules.seat_name(1)} resigned"
    assert say(rules, words, type="end", winner=0, reason=reason) == f"{first} won: {reason}"
    drawn = say(rules, words, type="end", winner=None, reason="draw agreed")
    assert drawn == "The match ended in a draw: draw agreed"


def test_a_seat_without_a_player_is_its_name_alone():
    rules = get_ruleset("kelly")
    state, _ = rules.start(rules.options({}), Dice(bytes(32)))
    words = Words(state=rules.view(state, None), players={0: "Lyn"}, seat_names=rules.seat_names)
    assert say(rules, words, type="first_player", seat=1) == "Red goes first"
    assert say(rules, words, type="pass", seat=0) == "Blue (Lyn) passed: no legal action"


def test_an_event_no_ruleset_words_reads_plainly_by_its_type_and_fields():
    rules, words = table("kelly")
    event = {"type": "swap_sides", "seat": 0, "piece": "ghhhk", "to": "B3", "flag": True}
    assert say(rules, words, **event) is None
    assert words.plainly(event) == "Swap sides: Blue (Lyn), Blue Ghhhk, to B3, flag true"


# --- kelly and the rulesets built on it ---------------------------------------------------


def test_kelly_words_a_move_an_attack_and_its_outcome():
    rules, words = table("kelly")
    assert say(rules, words, type="deal", pieces={}) == "The creatures were dealt"
    move = say(
        rules, words, type="move", seat=0, piece="ghhhk", **{"from": "A1"}, to="C", path=["A1", "B1", "C"]
    )
    assert move == "Blue Ghhhk moved A1 → C (via B1)"
    assert say(rules, words, type="attack", seat=1, piece="monnok", target="ghhhk") == (
        "Red Monnok attacked Blue Ghhhk"
    )
    combat = say(rules, words, type="combat", attack=22, defense=12, difference=10, result="kill")
    assert combat == "Attack 22 against defense 12 (difference 10): kill: the defender is destroyed"
    assert say(rules, words, type="kill", piece="ghhhk", by="monnok", at="B10") == (
        "Blue Ghhhk was destroyed by Red Monnok on B10"
    )
    assert say(rules, words, type="push", piece="strider", **{"from": "B7"}, to="B6") == (
        "Red Kintan Strider was pushed B7 → B6"
    )
    assert say(rules, words, type="push_blocked", piece="ngok") == "Blue Ng'ok had nowhere to be pushed"
    assert say(rules, words, type="to_the_death", pieces=["ghhhk", "monnok"]) == (
        "To-The-Death: Blue Ghhhk and Red Monnok fight in the core"
    )
    assert say(rules, words, type="turn", seat=1, number=2) == "Red (Dorn)'s turn (turn 2)"


def test_kelly_words_its_rolls_with_the_piece_and_every_die():
    rules, words = table("kelly")
    roll = {"purpose": "attack", "seat": 0, "piece": "ghhhk", "bonus": 2, "total": 9}
    assert say(rules, words, type="roll", dice=[die(6, 6), die(6, 1)], **roll) == (
        "Blue rolled attack for Ghhhk: 6 and 1 on two d6, +2: 9"
    )
    shuffle = say(rules, words, type="roll", purpose="deal", shuffled=["a", "b"], dice=[die(2, 1)])
    assert shuffle == "Rolled for deal: 1 on a d2"
    assert say(rules, words, type="roll", purpose="coin", dice=[], bonus=0, total=3) == (
        "Rolled for coin: no die to roll, a flat 3"
    )


def test_kelly_d20_words_the_hold_on_the_core():
    rules, words = table("kelly-d20")
    assert say(rules, words, type="centre_hold", seat=0, turns=1) == "Blue (Lyn) has held the core for 1 turn"
    assert (
        say(rules, words, type="centre_hold", seat=0, turns=2) == "Blue (Lyn) has held the core for 2 turns"
    )
    assert say(rules, words, type="centre_hold", seat=0, broken_by="monnok") == (
        "Red Monnok broke Blue's hold on the core"
    )


def test_dalsiandon_words_the_draft_the_teams_and_the_set_up():
    rules, words = table("dalsiandon")
    pick = say(rules, words, type="draft_pick", seat=0, creature="klorslug", number=5, how="roll")
    assert pick == "Blue (Lyn) drafted #5 K'lor'slug (by roll)"
    assert say(rules, words, type="draft_reroll", reason="taken", faces=[7, 2]) == (
        "Draft: a creature already taken (7, 2): roll again"
    )
    assert say(rules, words, type="draft_defer", seat=0, to=1) == "Blue (Lyn) let Red (Dorn) choose"
    assert say(rules, words, type="draft_choice", seat=1, creatures=["ngok", "houjix"]) == (
        "Red (Dorn) chooses between Ng'ok and Houjix"
    )
    teams = say(
        rules, words, type="teams", how="draft", teams=[["klorslug", "strider"], ["savrip", "monnok"]]
    )
    assert teams == "Teams drafted: Blue K'lor'slug, Kintan Strider; Red Mantellian Savrip, Monnok"
    assert (
        say(rules, words, type="setup_order", arranges_first=1, moves_first=None)
        == "Red (Dorn) arranges first"
    )
    assert say(rules, words, type="setup_order", arranges_first=1, moves_first=0) == (
        "Red (Dorn) arranges first; Blue (Lyn) moves first"
    )
    assert say(rules, words, type="setup_reroll", faces=[3, 3]) == "Setup: a tie (3, 3), roll again"
    assert say(rules, words, type="order_chosen", seat=1, moves_first=1) == "Red (Dorn) chose to move first"
    assert say(rules, words, type="combat_ray", ring="A", ray=3, spaces=["A3", "B3"]) == (
        "Combat ray: ray 3 (A3, B3)"
    )
    assert say(rules, words, type="combat_ray", ring="C", ray=None, spaces=["C"]) == "Combat ray: the core"
    assert say(rules, words, type="death_push", piece="ngok", by="molator", at="A1") == (
        "Death push: Blue Ng'ok, boxed in on A1, is pushed to its death by Red Molator"
    )
    assert say(rules, words, type="cycle_complete", seat=0, skipped=True) == (
        "Blue (Lyn) completed a cycle (the rest could not act)"
    )


# --- the other piece games --------------------------------------------------------------


def test_simeone_words_battles_stuns_scores_and_rounds():
    rules, words = table("simeone")
    assert say(rules, words, type="setup", seat=0) == "Setting up: Blue (Lyn) places first"
    assert say(rules, words, type="place", seat=0, piece="strider", to="A4") == (
        "Blue Kintan Strider was placed on A4"
    )
    assert say(rules, words, type="initiative_tie", total=4) == "Initiative: a tie at 4, roll again"
    assert say(rules, words, type="initiative", seat=0) == "Blue (Lyn) has the initiative"
    assert say(rules, words, type="activate", seat=0, piece="ghhhk") == "Blue Ghhhk was activated"
    battle = say(
        rules, words, type="battle", piece="ngok", target="houjix", attack=3, defense=1, result="defeated"
    )
    assert battle == "Red Ng'ok rolled 3 against Blue Houjix's 1: Blue Houjix is defeated"
    stunned = say(
        rules, words, type="battle", piece="ngok", target="houjix", attack=1, defense=3, result="stunned"
    )
    assert stunned == "Red Ng'ok rolled 1 against Blue Houjix's 3: Red Ng'ok is stunned"
    assert say(rules, words, type="stunned", piece="ngok") == "Red Ng'ok was stunned"
    assert say(rules, words, type="unstun", piece="ngok") == "Red Ng'ok shook off the stun"
    assert say(rules, words, type="score", seat=1, points=1, total=1, why="entered the core") == (
        "Red (Dorn) scored 1 (entered the core): 1 in all"
    )
    assert say(rules, words, type="end_activation", seat=1, piece="klorslug") == (
        "Red (Dorn) ended Red K'lor Slug's activation"
    )
    assert say(rules, words, type="round_end", round=1) == "Round 1 ended"
    assert say(rules, words, type="turn", seat=0, round=1) == "Blue (Lyn)'s turn (round 1)"


def test_orbit_chess_words_moves_in_notation_captures_and_the_reserve():
    rules, words = table("orbit-chess")
    assert say(rules, words, type="setup", pieces={}) == "The pieces were set up"
    path = ["A4", "B3", "B2", "B1", "B12", "B11"]
    move = say(
        rules,
        words,
        type="move",
        piece="w-knight",
        to="B11",
        path=path,
        notation="N A4-B3-B11",
        **{"from": "A4"},
    )
    assert move == "White Knight moved A4 → B11 (via B3, B2, B1, B12) [N A4-B3-B11]"
    assert say(rules, words, type="capture", piece="b-king", by="w-knight", at="A7") == (
        "Black King was captured by White Knight on A7"
    )
    assert (
        say(rules, words, type="inactive", piece="b-king")
        == "Black King is inactive until its side activates it"
    )
    assert say(rules, words, type="activate", seat=1, piece="b-king", to="A2", notation="@K A2") == (
        "Black King was activated on A2 [@K A2]"
    )


def test_courtier_words_captures_and_double_captures():
    rules, words = table("courtier")
    assert say(rules, words, type="move", seat=0, piece="blue-guard-2", to="B2", **{"from": "A2"}) == (
        "Blue Guard moved A2 → B2"
    )
    assert (
        say(rules, words, type="capture", piece="blue-guard-1", at="A11") == "Blue Guard was captured on A11"
    )
    assert say(rules, words, type="double_capture", pieces=["red-guard-5", "blue-guard-4"]) == (
        "Double capture: Red Guard and Blue Guard took each other"
    )
    # A move that encloses two guards: the mover chooses one (never "options red-guard-1, …").
    assert say(rules, words, type="choose_capture", seat=0, options=["red-guard-1", "red-guard-2"]) == (
        "Blue (Lyn) encloses 2 pieces and chooses which Red Guard to capture"
    )
    assert say(rules, words, type="choose_capture", seat=0, options=["red-king", "red-guard-2"]) == (
        "Blue (Lyn) chooses which to capture: Red King or Red Guard"
    )


# --- eote: characters, narrative dice, spending -------------------------------------------

SHEETS = {"sheets": [{"name": "Kyla"}, {"name": "Ghhk"}]}


def test_eote_names_each_seat_by_its_character_and_player():
    rules, words = table("eote", options=SHEETS)
    assert say(rules, words, type="first_attacker", seat=0) == "Kyla (Light, Lyn) attacks first"
    assert say(rules, words, type="round", number=1, attacker=0, defender=1, sets_first=1) == (
        "Round 1: Kyla (Light, Lyn) attacks, Ghhk (Dark, Dorn) defends; Ghhk (Dark, Dorn) sets first"
    )
    unnamed_rules, unnamed = table("eote")
    assert say(unnamed_rules, unnamed, type="setting", seat=1) == "Dark (Dorn) is choosing pieces to set"


def test_eote_words_a_round_from_the_setting_to_the_spending():
    rules, words = table("eote")
    assert say(rules, words, type="set_revealed", seat=1, count=1) == "Dark (Dorn) set 1 piece"
    assert say(rules, words, type="defence", seat=1, mode="primary") == "Dark (Dorn) chose a primary defence"
    assert say(rules, words, type="attack", seat=0, mode="secondary") == "Light (Lyn) made a secondary attack"
    roll = {
        "purpose": "round",
        "seat": 0,
        "round": 1,
        "pool": {"ability": 2, "difficulty": 1},
        "dice": [
            {"n": 1, "sides": 8, "face": 7, "kind": "ability", "symbols": ["success", "advantage"]},
            {"n": 2, "sides": 8, "face": 1, "kind": "ability", "symbols": []},
            {"n": 3, "sides": 8, "face": 4, "kind": "difficulty", "symbols": ["threat"]},
        ],
        "net": {"success": 1, "advantage": 0, "triumph": 0, "despair": 0},
    }
    assert say(rules, words, type="roll", **roll) == (
        "Light (Lyn) rolled round 1 (2 ability + 1 difficulty): ability success and advantage; "
        "ability blank; difficulty threat. Net: 1 success"
    )
    lost = {"round": 1, "loser": 1, "lost": 1, "pile": "set"}
    assert say(rules, words, type="round_result", **lost) == "Dark (Dorn) lost 1 piece from the set pile"
    assert say(rules, words, type="round_result", round=2, loser=None, lost=0) == "No piece lost this round"
    spend = {"seat": 1, "effect": "attacker_strain", "source": "1 threat", "strain": 1}
    assert say(rules, words, type="spend", **spend) == (
        "Dark (Dorn) spent 1 threat: the attacker takes 1 strain (strain now 1)"
    )
    assert say(rules, words, type="adjust_set", seat=0, target=1, change="add", set=2) == (
        "Light (Lyn) added one piece to Dark (Dorn)'s set (2 set)"
    )
    assert say(rules, words, type="done_spending", seat=0) == "Light (Lyn) finished spending"
    assert (
        say(rules, words, type="round_end", round=1) == "Round 1 ended: set pieces went to the inactive piles"
    )


def test_eote_words_the_initial_ranks_check_and_its_re_roll():
    rules, words = table("eote", options={"initial_ranks_check": True})
    assert say(rules, words, type="ranks_check", seat=0) == "Light (Lyn) makes the initial ranks check"
    assert say(rules, words, type="reroll_offered", seat=0) == "Light (Lyn) may take a re-roll"
    assert say(rules, words, type="reroll", seat=0, rerolls=1) == "Light (Lyn) re-rolls (upgraded 1 time)"
    assert say(rules, words, type="ranks_check_passed", seat=0, ranks=3) == (
        "Light (Lyn) passed the check: 3 ranks to split"
    )
    assert say(rules, words, type="ranks", seat=0, attack=2, defence=1) == (
        "Light (Lyn) has Dejarik Attack 2, Defence 1"
    )
    gm_rules, hosted = table("eote", options={"initial_ranks_check": True}, gm=True)
    assert (
        say(gm_rules, hosted, type="reroll_offered", seat=0)
        == "Light (Lyn) may ask the game master for a re-roll"
    )
    asked = "Light asks the game master for a re-roll"
    assert say(gm_rules, hosted, type="reroll_asked", seat=0, text=asked) == asked


def test_eote_words_say_no_more_than_the_viewer_sees():
    """A seat setting pieces in secret: its choice is in no one else's words."""
    rules = get_ruleset("eote")
    state, _ = rules.start(rules.options({}), Dice(bytes(32)))
    setter = rules.to_act(state)[0]
    state, events = rules.apply(state, setter, {"type": "set_piece"}, Dice(bytes(32)))
    other = Words(state=rules.view(state, 1 - setter), players=PLAYERS, seat_names=rules.seat_names)
    texts = [rules.event_text(e, other) or other.plainly(e) for e in events]
    secret = state.choosing
    assert secret == 1
    assert not any("1 piece" in t or "set 1" in t for t in texts), texts


@pytest.mark.parametrize(
    ("ruleset_id", "options"), [("kelly", {}), ("kelly-d20", {}), ("dalsiandon", {"teams": "random"})]
)
def test_the_deal_names_the_seat_that_gets_the_first_four(ruleset_id, options):
    """The shuffle that deals the creatures says who gets the first four as players
    call the seats ("to Blue"), not by the server's seat number."""
    rules, words = table(ruleset_id, options=options)
    _, events = rules.start(rules.options(options), Dice(bytes(32)), False)
    deal = next(e for e in events if e["type"] == "roll" and "shuffled" in e)
    text = words.roll(deal)
    assert "the first four to Blue" in text, text
    assert "seat 0" not in text


# --- what the words never show: ids, option keys, dice notation ---------------------------

DICE_NOTATION = re.compile(r"\bd\d+:\d")  # "d6:4"
SNAKE_CASE = re.compile(r"\b[a-z]+_[a-z_]+\b")  # an option key or an internal name


def random_play(rules: Ruleset, seed: int, steps: int = 400) -> Iterator[tuple[Any, list[dict], list[dict]]]:
    """Seeded random play from the start, attacks preferred (as a player looking for a
    fight): after the start and after each action, the state, its events and the legal
    actions of every seat to act."""
    rng = random.Random(seed)
    dice = Dice(seed.to_bytes(32, "big"))
    state, events = rules.start(rules.options({}), dice)
    for _ in range(steps):
        to_act = [] if rules.outcome(state) is not None else rules.to_act(state)
        legal = [action for seat in to_act for action in rules.legal_actions(state, seat)]
        yield state, events, legal
        if not to_act:
            return
        seat = to_act[0]
        actions = [a for a in rules.legal_actions(state, seat) if a["type"] not in COMMON_ACTION_TYPES]
        attacks = [a for a in actions if a["type"] == "attack"]
        chosen = rng.choice(attacks if attacks and rng.random() < 0.7 else actions)
        state, events = rules.apply(state, seat, chosen, dice)


def piece_ids(events: list[dict[str, Any]], view: dict[str, Any]) -> set[str]:
    """Every piece id the game has used: in its events and in the view of its last state."""
    ids: set[str] = set()
    for event in events:
        for key in ("piece", "target", "by", "broken_by"):
            if isinstance(event.get(key), str):
                ids.add(event[key])
        ids.update(p for p in event.get("pieces") or [] if isinstance(p, str))
    for key in ("pieces", "lost", "captured", "defeated", "inactive"):
        ids.update(p["id"] for p in view.get(key) or [] if isinstance(p, dict))
    return ids


def unsaid(text: str, ids: set[str], keys: set[str]) -> list[str]:
    """What ``text`` shows that a player should never read."""
    found = [f"piece id {p!r}" for p in ids if re.search(rf"(?<![\w'-]){re.escape(p)}(?![\w'-])", text)]
    found += [f"dice notation {m!r}" for m in DICE_NOTATION.findall(text)]
    found += [f"internal name {m!r}" for m in SNAKE_CASE.findall(text)]
    return found + [f"option key {k!r}" for k in keys if k in text]


@pytest.mark.parametrize("ruleset_id", sorted(registry()))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_play_words_no_ids_option_keys_or_dice_notation(ruleset_id, seed):
    """Every event of a played game, in the words the server writes for each seat and a
    spectator (app/services/views.py), and every action's label, name pieces by owner
    and name (never an id), show no option key and say dice as players do ("6 and 1 on
    two d6", never "d6:4"). The words are written both as the game went and from its
    last state (as a log fetched afterwards reads): pieces gone from the board too."""
    rules = get_ruleset(ruleset_id)
    keys = {k for k in rules.options_schema.model_json_schema().get("properties", {}) if "_" in k}
    played = list(random_play(rules, seed))
    events = [event for _, step, _ in played for event in step]
    last = played[-1][0]
    ids = piece_ids(events, rules.view(last, None)) | piece_ids([], rules.view(last, 0))
    assert ids or ruleset_id == "eote", "random play used no pieces"
    assert len(played) > 20, "random play went on long enough to say something"
    said: list[tuple[str, str]] = []
    for seat in (0, 1, None):
        afterwards = Words(state=rules.view(last, seat), players=PLAYERS, seat_names=rules.seat_names)
        said += [("afterwards", event_text(rules, e, afterwards)) for e in events]
        for state, step, _ in played:
            then = Words(state=rules.view(state, seat), players=PLAYERS, seat_names=rules.seat_names)
            said += [("as it went", event_text(rules, e, then)) for e in step]
    said += [("label", a["label"]) for _, _, legal in played for a in legal if "label" in a]
    wrong = {(when, text): found for when, text in said if (found := unsaid(text, ids, keys))}
    assert not wrong, wrong
