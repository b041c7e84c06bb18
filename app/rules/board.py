"""The 25-space Dejarik board (RULINGS §1), shared by every board ruleset.

Spaces are named ``C`` (the core), ``B1``..``B12`` (inner ring) and ``A1``..``A12``
(outer ring); ray numbers run clockwise seen from above. Everything here is
computed once at import time and exposed as plain tuples, sets and dicts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

CORE = "C"
RAYS = range(1, 13)
RING_A = tuple(f"A{i}" for i in RAYS)
RING_B = tuple(f"B{i}" for i in RAYS)
SPACES: tuple[str, ...] = (CORE, *RING_B, *RING_A)

HOME = {0: ("A1", "A2", "A3", "A4"), 1: ("A7", "A8", "A9", "A10")}
HOME_SIX = {0: tuple(f"A{i}" for i in range(1, 7)), 1: tuple(f"A{i}" for i in range(7, 13))}


def ring(space: str) -> str:
    """``"A"``, ``"B"`` or ``"C"``."""
    return space[0]


def ray(space: str) -> int | None:
    """The ray number 1..12 of a ring space; ``None`` for the core."""
    return None if space == CORE else int(space[1:])


def _wrap(i: int) -> int:
    return (i - 1) % 12 + 1


def step_around(space: str, direction: int) -> str:
    """The next space along the same ring: direction +1 is clockwise, -1 counter-clockwise."""
    return f"{ring(space)}{_wrap(ray(space) + direction)}"


def _orthogonal(space: str) -> tuple[str, ...]:
    if space == CORE:
        return RING_B
    i = ray(space)
    if ring(space) == "A":
        return (f"A{_wrap(i - 1)}", f"A{_wrap(i + 1)}", f"B{i}")
    return (f"B{_wrap(i - 1)}", f"B{_wrap(i + 1)}", f"A{i}", CORE)


def _diagonal(space: str) -> tuple[str, ...]:
    if space == CORE:
        return RING_B
    i = ray(space)
    if ring(space) == "A":
        return (f"B{_wrap(i - 1)}", f"B{_wrap(i + 1)}")
    return (f"A{_wrap(i - 1)}", f"A{_wrap(i + 1)}", CORE)


NEIGHBOURS: dict[str, tuple[str, ...]] = {s: _orthogonal(s) for s in SPACES}
"""Orthogonal neighbours: along a ring, along a ray, and core to every B space."""

DIAGONALS: dict[str, tuple[str, ...]] = {s: _diagonal(s) for s in SPACES}
"""Diagonal neighbours (used by orbit-chess): ``Ai``–``B(i±1)``; ``C``–``Bi`` counts as both."""


def is_adjacent(a: str, b: str) -> bool:
    return b in NEIGHBOURS[a]


def direction_between(a: str, b: str) -> tuple[str, int] | None:
    """How a step from ``a`` to its orthogonal neighbour ``b`` runs.

    ``("ring", +1)`` clockwise, ``("ring", -1)`` counter-clockwise, ``("ray", 0)``
    along a ray (its direction follows from the two spaces); ``None`` when they are
    not orthogonal neighbours.
    """
    if not is_adjacent(a, b):
        return None
    if a != CORE and b != CORE and ring(a) == ring(b):
        return ("ring", 1 if step_around(a, 1) == b else -1)
    return ("ray", 0)


def continue_line(prev: str, here: str) -> str | None:
    """The space after ``here`` on the straight line through ``prev`` and ``here``.

    ``None`` when the line leaves the board (past ring A on a ray). Around a ring the
    line wraps, so there is always a next space.
    """
    kind = direction_between(prev, here)
    if kind is None:
        raise ValueError(f"{prev} and {here} are not orthogonal neighbours")
    if kind[0] == "ring":
        return step_around(here, kind[1])
    # Along a ray: A_i -> B_i -> C -> B_(i+6) -> A_(i+6).
    if here == CORE:
        return f"B{_wrap(ray(prev) + 6)}"
    if ring(here) == "B":
        return CORE if ring(prev) == "A" else f"A{ray(here)}"
    return None  # here is on ring A, coming from B: the next step leaves the board


def walk_line(prev: str, here: str) -> Iterator[str]:
    """Spaces beyond ``here`` on the line from ``prev``, until the edge or a full ring."""
    start = here
    while True:
        nxt = continue_line(prev, here)
        if nxt is None or nxt == start:
            return
        yield nxt
        prev, here = here, nxt


def flanking_pairs(space: str) -> list[tuple[str, str]]:
    """Pairs ``(x, y)`` such that ``x, space, y`` stand in a row on one straight line."""
    pairs = []
    for n in NEIGHBOURS[space]:
        beyond = continue_line(n, space)
        if beyond is not None and (beyond, n) not in pairs:
            pairs.append((n, beyond))
    return pairs


def exact_paths(
    start: str,
    steps: int,
    is_free: Callable[[str], bool],
    neighbours: dict[str, tuple[str, ...]] = NEIGHBOURS,
) -> dict[str, tuple[str, ...]]:
    """Every end space reachable in exactly ``steps`` steps, with one path to each.

    Each step goes to a neighbour for which ``is_free`` holds; a path never enters a
    space twice (the start included), so the end always differs from the start.
    """
    found: dict[str, tuple[str, ...]] = {}

    def extend(path: tuple[str, ...]) -> None:
        if len(path) == steps + 1:
            found.setdefault(path[-1], path)
            return
        for n in neighbours[path[-1]]:
            if n not in path and is_free(n):
                extend((*path, n))

    if steps > 0:
        extend((start,))
    return found


def leads_off_board(space: str) -> bool:
    """Whether a step outward along ``space``'s ray leaves the board (ring A only).

    Rulesets that push a piece off the edge (``simeone``) allow it from exactly these
    spaces: the line ``C, Bi, Ai`` continues past ``Ai`` off the board.
    """
    return space != CORE and ring(space) == "A"


def rows_from(space: str) -> list[tuple[str, str]]:
    """Pairs ``(n, beyond)`` with ``space, n, beyond`` in a row on one straight line.

    ``n`` is an orthogonal neighbour of ``space`` and ``beyond`` the next space past
    it on the same line (rings wrap, rays pass through the core). Lines that leave
    the board after ``n`` give no pair. Used for custodian capture: the piece on
    ``n`` is enclosed between ``space`` and ``beyond``.
    """
    pairs = []
    for n in NEIGHBOURS[space]:
        beyond = continue_line(space, n)
        if beyond is not None:
            pairs.append((n, beyond))
    return pairs


def diagonal_direction(a: str, b: str) -> int | None:
    """The orbital direction of the diagonal step from ``a`` to ``b``.

    ``+1`` when the step runs clockwise (``A3``→``B4``, ``B4``→``A5``), ``-1`` when it
    runs counter-clockwise, ``0`` for a step into or out of the core (which has no
    orbital direction), ``None`` when ``b`` is not a diagonal neighbour of ``a``.
    """
    if b not in DIAGONALS[a]:
        return None
    if CORE in (a, b):
        return 0
    return 1 if _wrap(ray(a) + 1) == ray(b) else -1


def orbit_from(space: str, direction: int, steps: int) -> tuple[str, ...]:
    """The next ``steps`` spaces around the ring of ``space`` in ``direction`` (±1).

    The core has no orbit: from ``C`` the result is empty.
    """
    if space == CORE:
        return ()
    out = []
    here = space
    for _ in range(steps):
        here = step_around(here, direction)
        out.append(here)
    return tuple(out)


def line_from(space: str, first: str) -> tuple[str, ...]:
    """The straight line leaving ``space`` through its orthogonal neighbour ``first``.

    Starts with ``first`` and runs on to the edge of the board (along a ray) or, around
    a ring, all the way back to ``space``, which is then the last entry.
    """
    return (first, *walk_line(space, first))


def distance(start: str, goals: set[str] | frozenset[str]) -> int | None:
    """Orthogonal steps from ``start`` to the nearest of ``goals`` (pieces ignored);
    ``None`` when ``goals`` is empty.

    >>> distance("A1", {"A1"}), distance("A1", {"C"}), distance("A1", {"A7"})
    (0, 2, 4)
    """
    seen, frontier, steps = {start}, [start], 0
    while frontier:
        if any(space in goals for space in frontier):
            return steps
        frontier = [n for space in frontier for n in NEIGHBOURS[space] if n not in seen and not seen.add(n)]
        steps += 1
    return None
