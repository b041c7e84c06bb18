"""Match clocks as pure functions (``app/services/clock.py``): when a decision's time
starts, when it runs out, what a GM's pause does to it, and who may claim the win.
Records are plain values (a kelly match, its state from the ruleset); no server, no
database. ``tests/api/test_clock.py`` plays the same through a live server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from app.rules import get_ruleset
from app.rules.dice import Dice
from app.services import clock
from app.services.store import MatchRecord, PlayerRecord, SeatRecord

KELLY = get_ruleset("kelly")
OPENING = KELLY.dump_state(KELLY.start(KELLY.options({}), Dice(b"clock"))[0])
T0 = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
MINUTE = timedelta(seconds=60)
BLUE, RED = PlayerRecord("p-blue", "Han"), PlayerRecord("p-red", "Greedo")


def kelly(
    at: datetime,
    *,
    turn: int = 0,
    actions_left: int = 2,
    status: str = "active",
    paused: bool = False,
    per_move_s: int | None = 60,
    red: PlayerRecord | None = RED,
) -> MatchRecord:
    """A two-seat kelly match changed ``at``, waiting for ``turn`` (no clock: ``per_move_s=None``)."""
    state = {**OPENING, "turn": turn, "actions_left": actions_left} if status != "waiting" else None
    options: dict[str, Any] = {"clock": {"per_move_s": per_move_s} if per_move_s else None}
    return MatchRecord(
        id="m-1",
        ruleset="kelly",
        options=options,
        status=status,
        version=1,
        host=BLUE,
        seed="00",
        seed_sha256="00",
        dice_count=0,
        state=state,
        result={"winner": 0, "reason": "Red resigned"} if status == "finished" else None,
        paused=paused,
        created_at=T0,
        updated_at=at,
        seats=(SeatRecord(0, BLUE), SeatRecord(1, red)),
    )


def test_a_new_timed_match_gives_the_first_mover_the_whole_allowance():
    started = clock.timed(None, kelly(T0))
    assert started.turn_since == T0
    assert clock.deadline(started) == T0 + MINUTE
    assert clock.view_fields(started) == {"deadline": (T0 + MINUTE).isoformat()}


def test_the_clock_starts_when_the_match_starts_not_when_it_was_created():
    waiting = clock.timed(None, kelly(T0, status="waiting"))
    assert waiting.turn_since is None and clock.deadline(waiting) is None
    started = clock.timed(waiting, kelly(T0 + timedelta(hours=5)))
    assert clock.deadline(started) == T0 + timedelta(hours=5) + MINUTE


def test_an_untimed_match_has_no_deadline_and_no_claim():
    untimed = clock.timed(None, kelly(T0, per_move_s=None))
    assert clock.deadline(untimed) is None
    assert clock.view_fields(untimed) == {"deadline": None}
    assert clock.claim_actions(untimed, 1, T0 + timedelta(days=365)) == []


def test_the_second_action_of_a_turn_keeps_the_deadline_of_the_decision():
    first = clock.timed(None, kelly(T0, actions_left=2))
    second = clock.timed(first, kelly(T0 + timedelta(seconds=40), actions_left=1))
    assert second.turn_since == T0
    assert clock.deadline(second) == T0 + MINUTE, "the 20 s left are all that is left"


def test_the_next_players_decision_gets_a_fresh_allowance():
    blue = clock.timed(None, kelly(T0, turn=0))
    moment = T0 + timedelta(seconds=59)
    red = clock.timed(blue, kelly(moment, turn=1))
    assert red.turn_since == moment
    assert clock.deadline(red) == moment + MINUTE


def test_a_pause_stops_the_clock_and_the_resume_gives_back_the_time_that_was_left():
    running = clock.timed(None, kelly(T0))
    paused = clock.timed(running, kelly(T0 + timedelta(seconds=30), paused=True))
    assert paused.paused_at == T0 + timedelta(seconds=30)
    assert clock.deadline(paused) is None, "no deadline while paused"
    assert clock.claim_actions(paused, 1, T0 + timedelta(seconds=1000)) == [], "nor a claim"

    resumed_at = T0 + timedelta(seconds=1000)
    resumed = clock.timed(paused, kelly(resumed_at))
    assert resumed.paused_at is None
    assert clock.deadline(resumed) == resumed_at + timedelta(seconds=30), "the 30 s left before the pause"
    assert clock.claim_actions(resumed, 1, resumed_at + timedelta(seconds=29)) == []
    assert clock.claim_actions(resumed, 1, resumed_at + timedelta(seconds=30)) != []


def test_changes_during_a_pause_do_not_move_when_the_pause_began():
    running = clock.timed(None, kelly(T0))
    paused = clock.timed(running, kelly(T0 + timedelta(seconds=10), paused=True))
    edited = clock.timed(paused, kelly(T0 + timedelta(seconds=500), paused=True))  # e.g. a GM's edit
    assert edited.paused_at == T0 + timedelta(seconds=10)
    resumed = clock.timed(edited, kelly(T0 + timedelta(seconds=600)))
    assert clock.deadline(resumed) == T0 + timedelta(seconds=600 + 50), "590 s paused, 50 s still left"


def test_a_finished_match_has_no_clock_left():
    running = clock.timed(None, kelly(T0, paused=True))
    over = clock.timed(running, kelly(T0 + timedelta(seconds=5), status="finished"))
    assert over.turn_since is None and over.paused_at is None
    assert clock.deadline(over) is None
    assert clock.claim_actions(over, 1, T0 + timedelta(days=1)) == []


def test_the_waiting_player_may_claim_from_the_deadline_on_and_not_before():
    match = clock.timed(None, kelly(T0, turn=0))
    due = T0 + MINUTE
    assert clock.claim_actions(match, 1, due - timedelta(microseconds=1)) == []
    (claim,) = clock.claim_actions(match, 1, due)
    assert claim == {"type": "claim_timeout", "label": "Claim the win: Blue ran out of time"}
    assert clock.claim_actions(match, 1, due + timedelta(days=30)) == [claim], "or any time after"


def test_nobody_but_a_seated_player_who_is_not_late_may_claim():
    late = T0 + timedelta(hours=1)
    match = clock.timed(None, kelly(T0, turn=0))
    assert clock.claim_actions(match, 0, late) == [], "not the late seat itself"
    assert clock.claim_actions(match, None, late) == [], "not a spectator"
    empty = clock.timed(None, kelly(T0, turn=0, red=None))
    assert clock.claim_actions(empty, 1, late) == [], "not an empty seat"


def test_the_claim_names_whichever_seat_ran_out_of_time():
    match = clock.timed(None, kelly(T0, turn=1))
    (claim,) = clock.claim_actions(match, 0, T0 + MINUTE)
    assert claim["label"] == "Claim the win: Red ran out of time"


def test_a_long_allowance_is_counted_in_days():
    month = 30 * 24 * 3600
    match = clock.timed(None, kelly(T0, per_move_s=month))
    assert clock.deadline(match) == T0 + timedelta(days=30)
    assert clock.claim_actions(match, 1, T0 + timedelta(days=29, hours=23)) == []
