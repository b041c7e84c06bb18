"""`orbit-chess` (RULINGS §7, seed 002): the seed's own examples, the rulings, and
move counts from fixed positions checked against a separate, deliberately naive
reference generator written below (a perft, as python-chess does for chess)."""

from __future__ import annotations

import pytest

from app.rules import get_ruleset
from app.rules.base import IllegalAction
from app.rules.dice import Dice
from app.rules.orbit_chess import OrbitChess, OrbitState

R: OrbitChess = get_ruleset("orbit-chess")  # type: ignore[assignment]
NO_DICE = Dice(b"orbit-chess needs no dice")


def start() -> OrbitState:
    return R.new_game(R.options(None), NO_DICE)[0]


def moves(state: OrbitState, piece: str | None = None) -> list[dict]:
    """The game actions of the player to move (of one piece, if named)."""
    acts = R.game_actions(state, state.turn)
    return [a for a in acts if piece is None or a["piece"] == piece]


def effects(state: OrbitState, piece: str) -> set[tuple]:
    """(to, pushed piece, where it goes) for each legal action of ``piece``."""
    return {(a["to"], a.get("push"), a.get("push_to")) for a in moves(state, piece)}


def play(state: OrbitState, *notations: str) -> OrbitState:
    """Play moves given in the ruleset's notation, each by the player to move."""
    for notation in notations:
        chosen = [a for a in moves(state) if a["notation"] == notation]
        assert len(chosen) == 1, f"{notation!r} not among {[a['notation'] for a in moves(state)]}"
        state, _ = R.apply(state, state.turn, chosen[0], NO_DICE)
    return state


# --- the seed's pawn examples -------------------------------------------------------

# The seed's diagrams are lost; this position fits all three of its sentences: the
# white pawn on A11 with the black knight ahead of it on B11 and the black king on A5
# at the far end of that ray, and the white king next to the pawn on A10.
PAWN_EXAMPLE = {"w-pawn": "A11", "w-king": "A10", "b-knight": "B11", "b-king": "A5"}


def test_the_pawn_pushes_the_knight_into_the_core_by_moving_to_b11():
    after = play(R.setup(PAWN_EXAMPLE), "P A11-B11 push C")
    assert after.pieces["w-pawn"].at == "B11"
    assert after.pieces["b-knight"].at == "C"


def test_the_pawn_can_push_on_to_b5_by_moving_to_the_core():
    after = play(R.setup(PAWN_EXAMPLE), "P A11-C push B5")
    assert after.pieces["w-pawn"].at == "C"
    assert after.pieces["b-knight"].at == "B5"


def test_the_black_king_stops_the_push_beyond_b5():
    inward = [a for a in moves(R.setup(PAWN_EXAMPLE), "w-pawn") if a["path"][1] == "B11"]
    assert sorted(a["notation"] for a in inward) == ["P A11-B11 push C", "P A11-C push B5"]
    with pytest.raises(IllegalAction):
        R.apply(
            R.setup(PAWN_EXAMPLE),
            0,
            {"type": "move", "piece": "w-pawn", "to": "B5", "push": "b-knight", "push_to": "A5"},
            NO_DICE,
        )


def test_the_pawn_pushes_the_white_king_counterclockwise_only_as_far_as_a7():
    ccw = {e for e in effects(R.setup(PAWN_EXAMPLE), "w-pawn") if e[1] == "w-king"}
    assert ccw == {
        ("A10", "w-king", "A9"),
        ("A9", "w-king", "A8"),
        ("A8", "w-king", "A7"),
        ("A7", "w-king", "A6"),
    }


def test_every_pawn_move_in_the_seed_example():
    assert effects(R.setup(PAWN_EXAMPLE), "w-pawn") == {
        # counter-clockwise, pushing the white king until the black king on A5 stops it
        ("A10", "w-king", "A9"),
        ("A9", "w-king", "A8"),
        ("A8", "w-king", "A7"),
        ("A7", "w-king", "A6"),
        # clockwise: free to A4, then pushing the black king until the white king blocks
        ("A12", None, None),
        ("A1", None, None),
        ("A2", None, None),
        ("A3", None, None),
        ("A4", None, None),
        ("A5", "b-king", "A6"),
        ("A6", "b-king", "A7"),
        ("A7", "b-king", "A8"),
        ("A8", "b-king", "A9"),
        # inward along the ray, pushing the black knight
        ("B11", "b-knight", "C"),
        ("C", "b-knight", "B5"),
    }


def test_the_same_end_with_different_pushes_are_different_actions():
    pawn_to_a7 = [a for a in moves(R.setup(PAWN_EXAMPLE), "w-pawn") if a["to"] == "A7"]
    assert sorted(a["notation"] for a in pawn_to_a7) == ["P A11-A7 push A6", "P A11-A7 push A8"]
    after = R.apply(
        R.setup(PAWN_EXAMPLE),
        0,
        {"type": "move", "piece": "w-pawn", "to": "A7", "push": "b-king", "push_to": "A8"},
        NO_DICE,
    )[0]
    assert (after.pieces["b-king"].at, after.pieces["w-king"].at) == ("A8", "A10")


def test_a_pawn_pushes_only_one_piece():
    state = R.setup({"w-pawn": "A1", "b-knight": "A2", "b-king": "A3"})
    assert {e for e in effects(state, "w-pawn") if e[0] in ("A2", "A3")} == set()


def test_a_piece_on_ring_a_cannot_be_pushed_off_the_board():
    state = R.setup({"w-pawn": "B4", "b-knight": "A4"})
    assert "A4" not in {a["to"] for a in moves(state, "w-pawn")}


def test_the_pawn_never_captures():
    state = R.setup({"w-pawn": "A1", "b-queen": "A12", "b-king": "A11"})
    assert not any("captures" in a for a in moves(state, "w-pawn"))
    assert "A12" not in {a["to"] for a in moves(state, "w-pawn")}


# --- no-op rule ---------------------------------------------------------------------


def test_a_pawn_may_not_go_round_a_ring_back_to_its_start_without_pushing():
    state = R.setup({"w-pawn": "A1", "b-king": "B7"})
    assert "A1" not in {a["to"] for a in moves(state, "w-pawn")}
    assert {a["to"] for a in moves(state, "w-pawn") if a["to"].startswith("A")} == {
        f"A{i}" for i in range(2, 13)
    }


def test_a_pawn_may_go_round_a_ring_back_to_its_start_when_it_pushed():
    state = R.setup({"w-pawn": "A1", "b-king": "A6"})
    round_trips = [a for a in moves(state, "w-pawn") if a["to"] == "A1"]
    assert {(a["push_to"], a["notation"]) for a in round_trips} == {
        ("A2", "P A1-A1 push A2"),
        ("A12", "P A1-A1 push A12"),
    }
    after = play(state, "P A1-A1 push A2")
    assert after.pieces["b-king"].at == "A2"


def test_a_push_right_round_that_changes_nothing_is_not_a_move():
    # Clockwise, the pawn would push the king all the way round to where it was: the
    # board would not change. Counter-clockwise it goes free to A3, then pushes the
    # king from A2 on to A12, which is a move.
    state = R.setup({"w-pawn": "A1", "b-king": "A2"})
    back_home = [a["notation"] for a in moves(state, "w-pawn") if a["to"] == "A1"]
    assert back_home == ["P A1-A1 push A12"]


# --- the other pieces ---------------------------------------------------------------


def test_from_the_start_white_has_these_moves():
    assert sorted(a["notation"] for a in moves(start())) == sorted(
        [
            "K A2-B2",
            "Q A3-B2",
            "Q A3-B4",
            "N A4-B3",
            "N A4-B3-B2",
            "N A4-B3-B1",
            "N A4-B3-B12",
            "N A4-B3-B11",
            "N A4-B5",
            "N A4-B5-B6",
            "N A4-B5-B7",
            "N A4-B5-B8",
            "N A4-B5-B9",
            "P A1-A12",
            "P A1-A11",
            "P A1-B1",
            "P A1-C",
            "P A1-B7",
        ]
    )


def test_the_knight_continues_the_way_its_diagonal_step_turned_and_stops_at_pieces():
    state = R.setup({"w-knight": "B4", "b-king": "A8", "w-king": "A1"})
    assert {a["to"] for a in moves(state, "w-knight")} == {"C", "A5", "A6", "A7", "A8", "A3", "A2"}
    assert [a["notation"] for a in moves(state, "w-knight") if a["to"] == "A8"] == ["N B4-A5xA8"]


def test_the_knight_from_the_core_reaches_every_inner_space_either_way():
    state = R.setup({"w-knight": "C", "b-pawn": "B6"})
    tos = {a["to"] for a in moves(state, "w-knight")}
    assert tos == {f"B{i}" for i in range(1, 13)}
    assert [a["notation"] for a in moves(state, "w-knight") if a["to"] == "B6"] == ["N CxB6"]


def test_the_king_steps_orthogonally_and_the_queen_diagonally():
    state = R.setup({"w-king": "B1", "w-queen": "A6"})
    assert {a["to"] for a in moves(state, "w-king")} == {"B12", "B2", "A1", "C"}
    assert {a["to"] for a in moves(state, "w-queen")} == {"B5", "B7"}


# --- captures and the queen's protection ----------------------------------------------


def test_the_queen_protects_her_orthogonal_neighbours():
    # The black knight on B5 sits next to its queen on B6: the white king may not take it.
    state = R.setup({"w-king": "B4", "b-knight": "B5", "b-queen": "B6"})
    assert "B5" not in {a["to"] for a in moves(state, "w-king")}
    assert R.view(state, None)["protected"] == ["b-knight"]


def test_an_unprotected_piece_can_be_captured():
    state = R.setup({"w-king": "B4", "b-knight": "B5", "b-queen": "A7"})
    assert [a["notation"] for a in moves(state, "w-king") if a["to"] == "B5"] == ["K B4xB5"]
    after = play(state, "K B4xB5")
    assert after.pieces["b-knight"].status == "captured"
    assert after.pieces["b-knight"].at is None


def test_the_queen_does_not_protect_herself():
    state = R.setup({"w-king": "B5", "b-knight": "A6", "b-queen": "B6"})
    assert "B6" in {a["to"] for a in moves(state, "w-king")}
    assert R.view(state, None)["protected"] == ["b-knight"]


def test_an_enemy_queen_protects_nothing_of_yours():
    state = R.setup({"w-king": "B4", "b-knight": "B5", "w-queen": "B6"})
    assert "B5" in {a["to"] for a in moves(state, "w-king")}


def test_protection_does_not_stop_a_push():
    state = R.setup({"w-pawn": "A3", "b-knight": "A4", "b-queen": "B4"})
    assert "b-knight" in R.protected(state)
    after = play(state, "P A3-A5 push A6")
    assert after.pieces["b-knight"].at == "A6"


# --- capture, inactivity and activation -------------------------------------------------


def test_a_captured_piece_cannot_be_activated_on_its_owners_very_next_turn():
    # Black's king takes the white queen, which nothing protects.
    state = R.setup(
        {
            "w-queen": "B3",
            "w-king": "A1",
            "b-king": "B2",
            "w-pawn": "A12",
            "w-knight": "A11",
            "b-queen": "A8",
            "b-pawn": "A7",
            "b-knight": "A9",
        },
        turn=1,
    )
    state = play(state, "K B2xB3")
    assert state.turn == 0
    assert state.pieces["w-queen"].status == "captured"
    assert not [a for a in moves(state) if a["type"] == "activate"]
    view = R.view(state, 0)
    assert [(p["id"], p["can_activate"]) for p in view["captured"]] == [("w-queen", False)]
    with pytest.raises(IllegalAction):
        R.apply(state, 0, {"type": "activate", "piece": "w-queen", "to": "A6"}, NO_DICE)
    # White moves something else; the queen becomes inactive at the end of that turn ...
    state = play(state, "K A1-B1")
    assert state.pieces["w-queen"].status == "inactive"
    state = play(state, "K B3-B4")
    # ... and from White's next-but-one turn she may come back on any empty ring-A space.
    activations = {a["to"] for a in moves(state) if a["type"] == "activate"}
    assert activations == {"A1", "A2", "A3", "A4", "A5", "A6", "A10"}
    assert R.view(state, 0)["inactive"] == [
        {"id": "w-queen", "kind": "queen", "owner": 0, "can_activate": True}
    ]
    state = play(state, "@Q A6")
    assert state.pieces["w-queen"].at == "A6" and state.pieces["w-queen"].status == "active"


def test_a_capture_restarts_the_quiet_turn_count_and_quiet_turns_end_the_match():
    state = R.setup(
        {"w-king": "B4", "b-knight": "B5", "b-king": "A9"}, options=R.options({"turns_without_kill": 3})
    )
    state = play(state, "K B4-B3")
    assert state.quiet_turns == 1
    state = play(state, "K A9-A10", "K B3-B4")
    assert state.quiet_turns == 3
    assert R.outcome(state).winner is None and "3 turns" in R.outcome(state).reason


def test_a_capture_resets_the_quiet_turns():
    state = R.setup({"w-king": "B4", "b-knight": "B5", "b-king": "A9"})
    state = play(state, "K B4-B3", "K A9-A10")
    assert state.quiet_turns == 2
    state = play(state, "K B3-B4", "K A10-A11", "K B4xB5")
    assert state.quiet_turns == 0
    state = play(state, "K A11-A10")
    assert state.quiet_turns == 1


# --- winning, losing, drawing ------------------------------------------------------------


def test_a_player_who_starts_a_turn_with_the_king_in_the_core_wins():
    state = R.setup({"w-king": "B1", "b-king": "A7"})
    state = play(state, "K B1-C")
    assert R.outcome(state) is None, "reaching the core is not yet a win: Black may oust the king"
    assert R.view(state, None)["core"]["dejarik"] == 0
    state = play(state, "K A7-A6")
    assert R.outcome(state).winner == 0
    assert "core" in R.outcome(state).reason


def test_ousting_the_king_from_the_core_in_time_prevents_the_win():
    state = R.setup({"w-king": "B1", "b-queen": "B2", "b-king": "A7"})
    state = play(state, "K B1-C", "Q B2xC")
    assert R.outcome(state) is None
    assert state.pieces["w-king"].status == "captured"


def test_a_protected_king_in_the_core_can_still_be_pushed_out():
    state = R.setup({"w-king": "B1", "w-queen": "B2", "b-queen": "B8", "b-pawn": "A3", "b-king": "A9"})
    state = play(state, "K B1-C")
    assert "C" not in {a["to"] for a in moves(state, "b-queen")}, "the white queen on B2 protects the king"
    state = play(state, "P A3-C push B9")
    assert state.pieces["w-king"].at == "B9"
    assert R.outcome(state) is None


def test_pushing_the_enemy_king_into_the_core_hands_them_the_win():
    # The ruling follows the seed's words: it is whose king stands in the core when
    # their turn starts that counts, however it got there.
    state = R.setup({"w-pawn": "A1", "b-king": "B1", "w-king": "A4"})
    state = play(state, "P A1-B1 push C")
    assert R.outcome(state).winner == 1


def test_a_player_with_no_legal_move_and_nothing_to_activate_loses():
    # Black's knight takes the white pawn. White's king, queen and knight can only reach
    # black pieces next to the black queen in the core, and the pawn, just captured,
    # cannot come back yet.
    before = {
        "w-king": "A11",
        "w-queen": "A12",
        "w-knight": "A10",
        "w-pawn": "B9",
        "b-king": "B11",
        "b-queen": "C",
        "b-knight": "A8",
        "b-pawn": "B1",
    }
    state = play(R.setup(before, turn=1), "N A8xB9")
    assert R.outcome(state).winner == 1
    assert "no legal move" in R.outcome(state).reason


def test_threefold_repetition_with_the_same_player_to_move_is_a_draw():
    state = start()
    shuffle = ("K A2-B2", "K A8-B8", "K B2-A2", "K B8-A8")
    state = play(state, *shuffle)
    assert R.view(state, None)["repetition"] == {"count": 2, "limit": 3}
    state = play(state, *shuffle[:3])
    last = next(a for a in moves(state) if a["notation"] == "K B8-A8")
    assert last["repeats"] == 3, "the action warns that it ends the match"
    assert R.outcome(state) is None
    state = play(state, "K B8-A8")
    assert R.outcome(state).winner is None
    assert "3 times" in R.outcome(state).reason


def test_the_same_board_with_the_other_player_to_move_is_another_position():
    white, black = R.setup(PAWN_EXAMPLE, turn=0), R.setup(PAWN_EXAMPLE, turn=1)
    assert R.position_key(white) != R.position_key(black)


# --- actions, events and the view ---------------------------------------------------------


def test_actions_match_without_their_informational_keys_and_events_carry_notation():
    state = R.setup(PAWN_EXAMPLE)
    _, events = R.apply(
        state, 0, {"type": "move", "piece": "w-pawn", "to": "C", "push": "b-knight", "push_to": "B5"}, NO_DICE
    )
    move = next(e for e in events if e["type"] == "move")
    assert move["notation"] == "P A11-C push B5"
    assert move["path"] == ["A11", "B11", "C"]
    assert {"type": "push", "piece": "b-knight", "by": "w-pawn", "from": "B11", "to": "B5"} in events


def test_a_push_action_without_where_the_piece_goes_is_refused_with_a_reason():
    with pytest.raises(IllegalAction, match="push"):
        R.apply(R.setup(PAWN_EXAMPLE), 0, {"type": "move", "piece": "w-pawn", "to": "C"}, NO_DICE)


def test_the_view_shows_pieces_protection_legend_and_the_core():
    state = R.setup({"w-king": "C", "w-queen": "B3", "b-king": "A7", "b-knight": "B9"}, turn=1)
    view = R.view(state, None)
    assert {p["id"]: (p["at"], p["protected"]) for p in view["pieces"]} == {
        "w-king": ("C", True),
        "w-queen": ("B3", False),
        "b-king": ("A7", False),
        "b-knight": ("B9", False),
    }
    assert view["core"]["piece"] == "w-king" and view["core"]["dejarik"] == 0
    assert set(view["legend"]) == {"king", "queen", "knight", "pawn"}
    assert all(set(v) == {"name", "moves"} for v in view["legend"].values())
    assert view["seat_names"] == ["White", "Black"]
    assert {p["id"] for p in view["inactive"]} == {"w-knight", "w-pawn", "b-queen", "b-pawn"}
    assert {p["id"] for p in view["inactive"] if p["can_activate"]} == {"b-queen", "b-pawn"}


def test_legal_action_lists_stay_short():
    # Three pieces to bring back onto eleven empty ring-A spaces, and a knight in the core.
    state = R.setup({"w-knight": "C", "b-king": "A7"})
    actions = R.legal_actions(state, 0)
    assert len([a for a in actions if a["type"] == "activate"]) == 3 * 11
    assert len(actions) < 300


# --- counted positions: a naive reference generator ---------------------------------------
#
# Written from RULINGS §7 alone with its own geometry, sharing nothing with app.rules
# but the piece ids. It lists every resulting position (not actions), so a ruleset that
# listed one effect twice, or two effects as one, disagrees with it.

REF_RINGS = {r: [f"{r}{i}" for i in range(1, 13)] for r in "AB"}
REF_RAYS = [[f"A{i}", f"B{i}", "C", f"B{i + 6}", f"A{i + 6}"] for i in range(1, 7)]


def ref_num(space):
    return int(space[1:])


def ref_around(space, k):
    return f"{space[0]}{(ref_num(space) - 1 + k) % 12 + 1}"


def ref_orthogonal(space):
    out = set()
    for line in REF_RAYS:
        if space in line:
            i = line.index(space)
            out |= {line[j] for j in (i - 1, i + 1) if 0 <= j < len(line)}
    if space != "C":
        out |= {ref_around(space, 1), ref_around(space, -1)}
    return out


def ref_diagonal(space):
    """(neighbour, orbital turn) pairs: +1 / -1 clockwise or not; 0 into the core; None from it."""
    if space == "C":
        return [(f"B{i}", None) for i in range(1, 13)]
    other = "B" if space[0] == "A" else "A"
    out = [(f"{other}{ref_num(ref_around(space, k))}", k) for k in (1, -1)]
    if space[0] == "B":
        out.append(("C", 0))
    return out


def ref_runs(space):
    """Each direction a pawn can go from ``space``: the spaces ahead, in order. Around a
    ring: 13 of them (the 12th is ``space`` itself, the 13th the first again)."""
    runs = []
    for line in REF_RAYS:
        if space in line:
            i = line.index(space)
            runs += [line[i + 1 :], line[:i][::-1]]
    if space != "C":
        runs += [[ref_around(space, k * d) for k in range(1, 14)] for d in (1, -1)]
    return [run for run in runs if run]


def ref_successors(pos):
    """Every distinct position after one legal turn. ``pos`` is (turn, {id: space|status})."""
    turn, where = pos[0], dict(pos[1])
    me = "wb"[turn]
    board = {v: k for k, v in where.items() if v not in ("captured", "inactive")}
    queens = {p[0]: where[p[0] + "-queen"] for p in ("w", "b")}

    def capturable(space):
        pid = board.get(space)
        if pid is None or pid[0] == me:
            return False
        q = queens[pid[0]]
        return pid.endswith("queen") or q in ("captured", "inactive") or space not in ref_orthogonal(q)

    results = set()

    def finish(new):
        if new == where:
            return  # a move must change the board
        for pid, v in new.items():
            if pid[0] == me and v == "captured":
                new[pid] = "inactive"
        results.add((1 - turn, tuple(sorted(new.items()))))

    for pid, at in where.items():
        if pid[0] != me:
            continue
        kind = pid[2:]
        if at == "inactive":
            for i in range(1, 13):
                if f"A{i}" not in board:
                    finish({**where, pid: f"A{i}"})
            continue
        if at == "captured":
            continue
        paths = []
        if kind == "king":
            paths = [[n] for n in ref_orthogonal(at)]
        elif kind == "queen":
            paths = [[n] for n, _ in ref_diagonal(at)]
        elif kind == "knight":
            for n, turn_dir in ref_diagonal(at):
                paths.append([n])
                for d in [1, -1] if turn_dir is None else [turn_dir] if turn_dir else []:
                    for k in range(1, 5):
                        paths.append([n] + [ref_around(n, d * j) for j in range(1, k + 1)])
        for path in paths:
            if all(s not in board for s in path[:-1]):
                end = path[-1]
                if end not in board:
                    finish({**where, pid: end})
                elif capturable(end):
                    finish({**where, pid: end, board[end]: "captured"})
        if kind == "pawn":
            others = {s: p for s, p in board.items() if p != pid}
            for run in ref_runs(at):
                for k in range(1, min(12, len(run)) + 1):
                    ahead = [j for j in range(k) if run[j] in others]
                    if not ahead:
                        finish({**where, pid: run[k - 1]})
                    elif len(ahead) == 1 and k < len(run):
                        pushed = others[run[ahead[0]]]
                        if run[k] not in others or others[run[k]] == pushed:
                            finish({**where, pid: run[k - 1], pushed: run[k]})
    return results


def ref_over(pos):
    turn, where = pos
    return dict(where)["wb"[turn] + "-king"] == "C"


def ref_counts(pos, depth):
    """How many positions there are after 1, 2, … ``depth`` turns (perft)."""
    counts = [0] * depth

    def walk(node, ply):
        if ply == depth or ref_over(node):
            return
        for nxt in ref_successors(node):
            counts[ply] += 1
            walk(nxt, ply + 1)

    walk(pos, 0)
    return counts


def ref_position(state):
    return (state.turn, tuple(sorted((pid, p.at or p.status) for pid, p in state.pieces.items())))


def ruleset_counts(state, depth):
    """How many legal action sequences of 1, 2, … ``depth`` turns the ruleset lists."""
    counts = [0] * depth

    def walk(node, ply):
        if ply == depth or R.outcome(node) is not None:
            return
        for action in moves(node):
            after = R.copy_state(node)
            R.apply_game(after, node.turn, action, NO_DICE)
            counts[ply] += 1
            walk(after, ply + 1)

    walk(state, 0)
    return counts


MIDGAME = dict(
    position={
        "w-king": "B2",
        "w-queen": "A3",
        "w-pawn": "A6",
        "b-king": "B8",
        "b-queen": "B9",
        "b-knight": "B4",
        "b-pawn": "B7",
    },
    captured=("w-knight",),
)
CORE_FIGHT = dict(
    position={
        "w-king": "B1",
        "w-queen": "B2",
        "w-knight": "C",
        "b-pawn": "A7",
        "b-queen": "B12",
        "b-knight": "A2",
        "b-king": "B6",
    },
)

PERFT = [
    # (name, state, counts after 1, 2 and 3 turns)
    ("start", start, (18, 309, 5053)),
    ("midgame", lambda: R.setup(**MIDGAME), (32, 590, 19327)),
    ("core fight", lambda: R.setup(**CORE_FIGHT), (24, 655, 16791)),
]


@pytest.mark.parametrize(("name", "make", "counts"), PERFT, ids=[p[0] for p in PERFT])
def test_move_counts_agree_with_the_reference(name, make, counts):
    state = make()
    expected = ref_counts(ref_position(state), 3)
    assert expected == list(counts), f"{name}: the reference itself changed"
    assert ruleset_counts(state, 3) == expected, name


@pytest.mark.parametrize(
    ("name", "make"), [(p[0], p[1]) for p in PERFT] + [("pawn example", lambda: R.setup(PAWN_EXAMPLE))]
)
def test_each_action_leads_to_a_different_position_the_reference_also_finds(name, make):
    state = make()
    frontier = [state]
    for _ in range(2):
        nxt = []
        for node in frontier:
            if R.outcome(node) is not None:
                continue
            afters = [R.apply(node, node.turn, a, NO_DICE)[0] for a in moves(node)]
            got = [ref_position(a) for a in afters]
            assert len(set(got)) == len(got), "two actions with the same effect"
            assert set(got) == ref_successors(ref_position(node))
            nxt += afters
        frontier = nxt[::7]
