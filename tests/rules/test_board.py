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
