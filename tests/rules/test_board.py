"""Board geometry added for pushing off the edge and custodian capture (RULINGS §1)."""

from __future__ import annotations

import pytest

from app.rules import board


@pytest.mark.parametrize(("space", "off"), [("A1", True), ("A12", True), ("B1", False), ("C", False)])
def test_only_ring_a_leads_off_the_board(space, off):
    assert board.leads_off_board(space) is off


def test_rows_from_a_ring_a_space_run_both_ways_around_and_inward():
    assert sorted(board.rows_from("A1")) == [("A12", "A11"), ("A2", "A3"), ("B1", "C")]


def test_rows_from_a_ring_b_space_pass_through_the_core_and_stop_at_the_edge():
    rows = board.rows_from("B3")
    assert ("C", "B9") in rows
    assert ("B2", "B1") in rows and ("B4", "B5") in rows
    assert all(n != "A3" for n, _ in rows), "B3, A3 then leaves the board"


def test_rows_from_the_core_go_out_along_every_ray():
    assert sorted(board.rows_from("C")) == sorted((f"B{i}", f"A{i}") for i in range(1, 13))


def test_rows_from_wrap_around_the_rings():
    assert ("A1", "A2") in board.rows_from("A12")
    assert ("B12", "B11") in board.rows_from("B1")


def test_rows_from_agree_with_flanking_pairs():
    for space in board.SPACES:
        for n, beyond in board.rows_from(space):
            assert (space, beyond) in board.flanking_pairs(n) or (beyond, space) in board.flanking_pairs(n)


# --- orbit-chess geometry: diagonal turns, orbits, straight lines ---------------------


@pytest.mark.parametrize(
    ("a", "b", "turn"),
    [
        ("A3", "B4", 1),
        ("A3", "B2", -1),
        ("B4", "A5", 1),
        ("B4", "A3", -1),
        ("A12", "B1", 1),
        ("A1", "B12", -1),
        ("B7", "C", 0),
        ("C", "B7", 0),
        ("A3", "B3", None),
        ("A3", "A4", None),
    ],
)
def test_diagonal_direction_says_which_way_round_a_diagonal_step_turns(a, b, turn):
    assert board.diagonal_direction(a, b) == turn


def test_orbit_from_walks_round_a_ring_and_wraps():
    assert board.orbit_from("B11", 1, 4) == ("B12", "B1", "B2", "B3")
    assert board.orbit_from("A2", -1, 3) == ("A1", "A12", "A11")
    assert board.orbit_from("C", 1, 4) == ()


def test_line_from_runs_along_a_ray_through_the_core_to_the_edge():
    assert board.line_from("A11", "B11") == ("B11", "C", "B5", "A5")
    assert board.line_from("B4", "A4") == ("A4",)
    assert board.line_from("C", "B2") == ("B2", "A2")


def test_line_from_goes_once_round_a_ring_back_to_the_start():
    line = board.line_from("A11", "A10")
    assert line[:3] == ("A10", "A9", "A8")
    assert len(line) == 12 and line[-1] == "A11"
