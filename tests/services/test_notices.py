"""What a change owes the outbox (``app/services/notices.py``), as a pure function of
the match before and after it: "your turn" once per turn to the seat whose decision
begins, "match finished" once to every seated player, one notice per channel. Records
are plain values (a kelly match, its state from the ruleset); no server, no database.
``tests/api/test_notifications.py`` delivers the same through a live server."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from app.rules import get_ruleset
from app.rules.dice import Dice
from app.services.notices import MATCH_FINISHED, YOUR_TURN, owed
from app.services.store import MatchRecord, Notice, PlayerRecord, SeatRecord

KELLY = get_ruleset("kelly")
OPENING = KELLY.dump_state(KELLY.start(KELLY.options({}), Dice(b"notices"))[0])
BOTH = ("webhook", "email")
HAN = PlayerRecord("p-han", "Han", channels=BOTH)
GREEDO = PlayerRecord("p-greedo", "Greedo", channels=BOTH)
T0 = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


def kelly(
    version: int,
    *,
    status: str = "active",
    turn: int = 0,
    actions_left: int = 2,
    result: dict[str, Any] | None = None,
    seats: tuple[SeatRecord, ...] = (SeatRecord(0, HAN), SeatRecord(1, GREEDO)),
) -> MatchRecord:
    """A kelly match at ``version``, waiting for ``turn`` while active."""
    state = None if status == "waiting" else {**OPENING, "turn": turn, "actions_left": actions_left}
    return MatchRecord(
        id="m-1",
        ruleset="kelly",
        options={},
        status=status,
        version=version,
        host=HAN,
        seed="00",
        seed_sha256="00",
        dice_count=0,
        state=state,
        result=result,
        paused=False,
        created_at=T0,
        updated_at=T0,
        seats=seats,
    )


def to(player: PlayerRecord, event: str, version: int, text: str) -> list[Notice]:
    """The notices ``player`` is owed on every channel they have set."""
    return [Notice(player.id, channel, event, "m-1", "kelly", version, text) for channel in player.channels]


def test_the_first_mover_is_owed_their_turn_when_the_match_starts():
    notices = owed(kelly(2, status="waiting"), kelly(3, turn=0))
    assert list(notices) == to(HAN, YOUR_TURN, 3, "Your turn (Blue) in Dejarik (Kelly) against Greedo.")


def test_the_seat_whose_turn_begins_is_owed_one_notice_per_channel():
    notices = owed(kelly(4, turn=0, actions_left=1), kelly(5, turn=1))
    assert list(notices) == to(GREEDO, YOUR_TURN, 5, "Your turn (Red) in Dejarik (Kelly) against Han.")
    assert {n.channel for n in notices} == set(BOTH), "an email besides the webhook, each retried apart"


def test_the_further_actions_of_a_turn_owe_nothing():
    assert owed(kelly(3, turn=0, actions_left=2), kelly(4, turn=0, actions_left=1)) == ()


def test_a_player_without_a_channel_is_owed_nothing():
    quiet = PlayerRecord("p-quiet", "Bossk")
    seats = (SeatRecord(0, HAN), SeatRecord(1, quiet))
    assert owed(kelly(4, seats=seats), kelly(5, turn=1, seats=seats)) == ()


def test_only_the_channels_a_player_has_set_are_used():
    emailed = PlayerRecord("p-mail", "Dengar", channels=("email",))
    seats = (SeatRecord(0, HAN), SeatRecord(1, emailed))
    (notice,) = owed(kelly(4, seats=seats), kelly(5, turn=1, seats=seats))
    assert (notice.player_id, notice.channel, notice.event) == ("p-mail", "email", YOUR_TURN)


def test_an_empty_seat_is_owed_nothing_and_the_other_plays_against_nobody():
    seats = (SeatRecord(0, HAN), SeatRecord(1, None))
    assert owed(kelly(4, seats=seats), kelly(5, turn=1, seats=seats)) == ()
    notices = owed(kelly(5, turn=1, seats=seats), kelly(6, turn=0, seats=seats))
    assert list(notices) == to(HAN, YOUR_TURN, 6, "Your turn (Blue) in Dejarik (Kelly).")


def test_an_npc_seat_is_told_of_the_end_but_not_of_its_turns():
    """The GM plays an NPC seat at the table: its player only watches."""
    seats = (SeatRecord(0, HAN), SeatRecord(1, GREEDO, npc=True))
    assert owed(kelly(4, seats=seats), kelly(5, turn=1, seats=seats)) == ()
    over = kelly(6, status="finished", result={"winner": 1, "reason": "Blue resigned"}, seats=seats)
    notices = owed(kelly(5, turn=1, seats=seats), over)
    assert {(n.player_id, n.event) for n in notices} == {
        ("p-han", MATCH_FINISHED),
        ("p-greedo", MATCH_FINISHED),
    }


def test_the_end_tells_each_player_whether_they_won_or_lost():
    over = kelly(9, status="finished", result={"winner": 0, "reason": "Red resigned"})
    notices = owed(kelly(8, turn=1), over)
    assert list(notices) == [
        *to(HAN, MATCH_FINISHED, 9, "Your Dejarik (Kelly) match is over, you won: Red resigned."),
        *to(GREEDO, MATCH_FINISHED, 9, "Your Dejarik (Kelly) match is over, you lost: Red resigned."),
    ]


def test_a_drawn_end_is_a_draw_for_both():
    over = kelly(9, status="finished", result={"winner": None, "reason": "the draw was accepted"})
    notices = owed(kelly(8), over)
    assert {n.text for n in notices} == {"Your Dejarik (Kelly) match is over, a draw: the draw was accepted."}
    assert {n.player_id for n in notices} == {"p-han", "p-greedo"}


def test_the_end_is_owed_once_and_later_changes_to_a_finished_match_owe_nothing():
    over = kelly(9, status="finished", result={"winner": 0, "reason": "Red resigned"})
    rematch_offered = replace(over, version=10, rematch_state="offered", rematch_by=0)
    assert owed(over, rematch_offered) == ()


def test_the_words_are_cut_to_what_an_outbox_row_holds():
    reason = "Blue ran out of time " * 40
    over = kelly(9, status="finished", result={"winner": 1, "reason": reason})
    notices = owed(kelly(8), over)
    assert notices and all(len(n.text) == 500 for n in notices)
    assert all(n.text.startswith("Your Dejarik (Kelly) match is over") for n in notices)


def test_l1_names_on_a_webhook_carry_no_discord_markup_and_the_email_keeps_them_as_they_are():
    """The audit's opponent named "@everyone" or a markdown link: on the webhook (Discord)
    each markup character is escaped, so no link, mention or emoji is made of a name."""
    wookiee = PlayerRecord("p-w", "Han", channels=BOTH)
    rogue = PlayerRecord("p-r", "@everyone [win](https://evil.example/x) *b*")
    seats = (SeatRecord(0, wookiee), SeatRecord(1, rogue))
    webhook, email = owed(kelly(2, status="waiting", seats=seats), kelly(3, turn=0, seats=seats))
    assert (webhook.channel, email.channel) == ("webhook", "email")
    assert webhook.text == (
        r"Your turn (Blue) in Dejarik (Kelly) against \@everyone \[win\]\(https\://evil.example/x\) \*b\*."
    )
    assert email.text.endswith("against @everyone [win](https://evil.example/x) *b*.")
