"""`orbit-chess`: the deterministic chess analogue of seed 002 (RULINGS §7).

Each side has a king, a queen, a knight and a pawn. White (seat 0) moves first. A
turn is one move of an active piece or the activation of an inactive piece onto an
empty ring-A space; then the mover's piece captured on the opponent's previous turn
(if any) becomes inactive, so it can be activated from its owner's next-but-one turn
on. A player whose turn starts with their king in the core wins ("Dejarik").

Actions are plain JSON objects; a client that knows no rules sends a listed action
back as it came::

    {"type": "move", "piece": "w-knight", "to": "B7"}
    {"type": "move", "piece": "w-pawn", "to": "C", "push": "b-knight", "push_to": "B5"}
    {"type": "activate", "piece": "w-queen", "to": "A6"}

Listed actions also carry ``notation``, ``path`` and, when it applies, ``captures``
and ``repeats`` for the player's information; these are ignored when matching. The
notation and the rulings this module makes where the seed is silent are in
``docs/rulesets/orbit-chess.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from app.rules import board
from app.rules.base import Action, BaseOptions, Event, GameState, Outcome, Ruleset
from app.rules.board_game import BoardGame, BoardGameView, fact
from app.rules.contract import ActionModel, Closed, GameView, Seat, Space
from app.rules.dice import Dice
from app.rules.words import Words

Kind = Literal["king", "queen", "knight", "pawn"]
KINDS: tuple[Kind, ...] = ("king", "queen", "knight", "pawn")
LETTERS = {"king": "K", "queen": "Q", "knight": "N", "pawn": "P"}
COLOURS = ("w", "b")
START: dict[int, dict[str, str]] = {
    0: {"pawn": "A1", "king": "A2", "queen": "A3", "knight": "A4"},
    1: {"pawn": "A7", "king": "A8", "queen": "A9", "knight": "A10"},
}
"""The start position (RULINGS §7; the seed's diagram is lost)."""

REPETITION_LIMIT = 3
PAWN_MAX_STEPS = 12
"""A pawn goes at most once round a ring in one move."""
KNIGHT_MAX_ORBIT = 4


def _pawn_lines() -> dict[str, tuple[tuple[str | None, ...], ...]]:
    """For each space, each straight line a pawn can leave it by: the spaces ahead (at
    most once round a ring, so ending on the space itself), then the space beyond the
    last one, or ``None`` past the edge."""
    out: dict[str, tuple[tuple[str | None, ...], ...]] = {}
    for space in board.SPACES:
        lines = []
        for first in board.NEIGHBOURS[space]:
            line = board.line_from(space, first)[:PAWN_MAX_STEPS]
            before = line[-2] if len(line) > 1 else space
            lines.append((*line, board.continue_line(before, line[-1])))
        out[space] = tuple(lines)
    return out


def _knight_routes() -> dict[str, tuple[tuple[str, ...], ...]]:
    """For each space, each route a knight can take from it: the diagonal step, then
    the orbital steps in order (moves stop earlier at the first piece)."""
    out: dict[str, tuple[tuple[str, ...], ...]] = {}
    for space in board.SPACES:
        routes = []
        for landing in board.DIAGONALS[space]:
            turn = board.diagonal_direction(space, landing)
            directions = (1, -1) if space == board.CORE else ((turn,) if turn else ())
            routes.append((landing,))
            routes += [(landing, *board.orbit_from(landing, d, KNIGHT_MAX_ORBIT)) for d in directions]
        out[space] = tuple(routes)
    return out


PAWN_LINES = _pawn_lines()
KNIGHT_ROUTES = _knight_routes()

LEGEND: dict[str, dict[str, str]] = {
    "king": {
        "name": "King",
        "moves": "One step orthogonally. Starting your turn with your king in the core wins.",
    },
    "queen": {
        "name": "Queen",
        "moves": "One step diagonally. Her own pieces orthogonally next to her cannot be "
        "captured; she never protects herself.",
    },
    "knight": {
        "name": "Knight",
        "moves": "One step diagonally, then 0–4 steps on around the ring it reached, the same "
        "way round (from the core: to any inner space, then either way).",
    },
    "pawn": {
        "name": "Pawn",
        "moves": "Any distance along one straight line (rings wrap, rays cross the core). Never "
        "captures; may push one piece ahead of it as far as it goes on.",
    },
}

Status = Literal["active", "captured", "inactive"]


def piece_id(seat: int, kind: str) -> str:
    """``piece_id(0, "king") == "w-king"``."""
    return f"{COLOURS[seat]}-{kind}"


PieceId = Literal[tuple(piece_id(seat, kind) for seat in (0, 1) for kind in KINDS)]  # type: ignore[valid-type]
"""``w-king``, ``w-queen``, ``w-knight``, ``w-pawn``, ``b-king`` …"""


class Piece(BaseModel):
    id: str
    kind: str
    owner: int
    at: str | None = None
    """The space while active; ``None`` while captured or inactive."""
    status: Status = "active"


class OrbitState(GameState):
    options: BaseOptions
    pieces: dict[str, Piece]
    turn: int = 0
    turn_number: int = 1
    seen: dict[str, int] = Field(default_factory=dict)
    """How often each position (with the player to move) has occurred."""
    last_move: str | None = None
    """The notation of the last move or activation."""


class Plan(NamedTuple):
    """One legal game action with everything needed to show and apply it."""

    type: str
    piece: str
    frm: str | None
    to: str
    path: tuple[str, ...] = ()
    captures: str | None = None
    push: str | None = None
    push_from: str | None = None
    push_to: str | None = None
    notation: str = ""

    @property
    def key(self) -> tuple[str, str, str, str | None, str | None]:
        return (self.type, self.piece, self.to, self.push, self.push_to)


# --- the published contract: actions and the view (GET /api/v1/rulesets/{id}) ----------


class Move(ActionModel):
    """Move an active piece to ``to``; a pawn's move that pushes a piece names it and
    where it goes (``push`` and ``push_to``, both or neither)."""

    model_config = ConfigDict(
        json_schema_extra={"dependentRequired": {"push": ["push_to"], "push_to": ["push"]}}
    )

    type: Literal["move"]
    piece: PieceId
    to: Space
    # Absent, never null, when the move pushes nothing: only the default is None.
    push: PieceId = Field(None, description="A pawn's move: the piece it pushes.")
    push_to: Space = Field(None, description="A pawn's move: where the pushed piece ends.")
    notation: str | None = Field(None, description="For information: the move in the notation of the docs.")
    path: list[Space] | None = Field(None, description="For information: every space passed, start to end.")
    captures: PieceId | None = Field(None, description="For information: the piece the move captures.")
    repeats: int | None = Field(
        None, description="For information: how often the position after the move will have stood."
    )


class Activate(ActionModel):
    """Bring an inactive piece back onto an empty space of ring A."""

    type: Literal["activate"]
    piece: PieceId
    to: Literal[board.RING_A]  # type: ignore[valid-type]
    notation: str | None = Field(None, description="For information: the activation in notation.")
    repeats: int | None = Field(
        None, description="For information: how often the position after it will have stood."
    )


class PieceOff(Closed):
    id: PieceId
    kind: Kind
    owner: Seat
    can_activate: bool = Field(description="The player to move may activate it now.")


class CapturedPiece(PieceOff):
    note: str


class PieceView(Closed):
    id: PieceId
    kind: Kind
    owner: Seat
    at: Space
    protected: bool = Field(description="Next to its own queen: it cannot be captured.")


class Core(Closed):
    piece: PieceId | None = Field(description="The piece in the core, if any.")
    dejarik: Seat | None = Field(description="The seat whose king is in the core, if any.")
    note: str


class Repetition(Closed):
    count: int = Field(description="How often this position has stood with this player to move.")
    limit: int = Field(description="The count that draws.")


class KindInfo(Closed):
    name: str
    moves: str


class OrbitView(BoardGameView):
    pieces: list[PieceView] = Field(description="The active pieces, on the board.")
    captured: list[CapturedPiece] = Field(description="Captured on the last move: inactive after its turn.")
    inactive: list[PieceOff]
    protected: list[PieceId]
    turn: Seat
    turn_number: int = Field(ge=1)
    last_move: str | None = Field(description="The last move or activation, in notation.")
    core: Core
    repetition: Repetition
    legend: dict[Kind, KindInfo]
    turns_without_kill: int = Field(description="The option: quiet turns that end the match in a draw.")


class OrbitChess(BoardGame[OrbitState]):
    id: ClassVar[str] = "orbit-chess"
    name: ClassVar[str] = "Orbit chess"
    description: ClassVar[str] = (
        "A deterministic chess analogue: king, queen, knight and pawn a side, captured "
        "pieces come back, and a king that starts its turn in the core wins."
    )
    seat_names: ClassVar[tuple[str, ...]] = ("White", "Black")
    state_type: ClassVar[type[GameState]] = OrbitState
    action_models: ClassVar[tuple[type[ActionModel], ...]] = (Move, Activate)
    view_model: ClassVar[type[GameView]] = OrbitView
    mutable_fields: ClassVar[tuple[str, ...]] = ("seen",)
    info_keys: ClassVar[frozenset[str]] = Ruleset.info_keys | {"path", "captures", "repeats"}

    # --- setting up --------------------------------------------------------------

    def new_game(self, options: BaseOptions, dice: Dice) -> tuple[OrbitState, list[Event]]:
        position = {piece_id(seat, kind): at for seat in (0, 1) for kind, at in START[seat].items()}
        state = self.setup(position, options=options)
        return state, [{"type": "setup", "pieces": dict(position)}, {"type": "turn", "seat": 0, "number": 1}]

    def setup(
        self,
        position: dict[str, str],
        turn: int = 0,
        captured: tuple[str, ...] = (),
        options: BaseOptions | None = None,
    ) -> OrbitState:
        """A state with the pieces of ``position`` on the board and ``turn`` to move.

        Pieces named in ``captured`` were captured on the last move; every other piece
        not in ``position`` is inactive. The position counts as seen once.
        """
        known = {piece_id(seat, kind) for seat in (0, 1) for kind in KINDS}
        if not set(position) | set(captured) <= known:
            raise ValueError(f"unknown pieces: {sorted(set(position) | set(captured) - known)}")
        pieces: dict[str, Piece] = {}
        for seat in (0, 1):
            for kind in KINDS:
                pid = piece_id(seat, kind)
                if pid in position:
                    pieces[pid] = Piece(id=pid, kind=kind, owner=seat, at=position[pid])
                else:
                    status: Status = "captured" if pid in captured else "inactive"
                    pieces[pid] = Piece(id=pid, kind=kind, owner=seat, status=status)
        spaces = [p.at for p in pieces.values() if p.at is not None]
        if len(set(spaces)) != len(spaces) or not set(spaces) <= set(board.SPACES):
            raise ValueError(f"not a position: {position}")
        state = OrbitState(options=options or self.options(None), pieces=pieces, turn=turn)
        state.seen[self.position_key(state)] = 1
        return state

    # --- reading the state -------------------------------------------------------

    @staticmethod
    def protected(state: OrbitState) -> set[str]:
        """Ids of the pieces that cannot be captured now: those orthogonally next to
        their own active queen (never the queen herself)."""
        out: set[str] = set()
        occupied = BoardGame.occupied(state)
        for queen in state.pieces.values():
            if queen.kind != "queen" or queen.at is None:
                continue
            for n in board.NEIGHBOURS[queen.at]:
                other = occupied.get(n)
                if other is not None and other.owner == queen.owner:
                    out.add(other.id)
        return out

    @staticmethod
    def position_key(state: OrbitState) -> str:
        """The position for repetition: where each piece is (or its status) and who moves."""
        return OrbitChess._key(state.turn, {pid: p.at or p.status for pid, p in state.pieces.items()})

    @staticmethod
    def _key(turn: int, where: dict[str, str]) -> str:
        return f"{turn}|" + ",".join(f"{pid}={at}" for pid, at in sorted(where.items()))

    def king_in_core(self, state: OrbitState) -> Piece | None:
        at_core = self.occupied(state).get(board.CORE)
        return at_core if at_core is not None and at_core.kind == "king" else None

    # --- legal actions -----------------------------------------------------------

    def plans(self, state: OrbitState, seat: int, only: str | None = None) -> list[Plan]:
        """Every legal move and activation of ``seat`` (which need not be to move), or
        of the piece ``only``."""
        return list(self._iter_plans(state, seat, only))

    def has_plan(self, state: OrbitState, seat: int) -> bool:
        """Whether ``seat`` has any legal move or activation."""
        return next(self._iter_plans(state, seat), None) is not None

    def _iter_plans(self, state: OrbitState, seat: int, only: str | None = None) -> Iterator[Plan]:
        own = [p for p in state.pieces.values() if p.owner == seat and (only is None or p.id == only)]
        occupied = self.occupied(state)
        if any(p.status == "inactive" for p in own):
            empty_a = [s for s in board.RING_A if s not in occupied]
            for piece in own:
                if piece.status == "inactive":
                    for space in empty_a:
                        yield Plan(
                            "activate", piece.id, None, space, notation=f"@{LETTERS[piece.kind]} {space}"
                        )
        protected = self.protected(state)

        def capturable(space: str) -> str | None:
            target = occupied.get(space)
            if target is None or target.owner == seat or target.id in protected:
                return None
            return target.id

        for piece in own:
            if piece.at is None:
                continue
            if piece.kind in ("king", "queen"):
                steps = board.NEIGHBOURS if piece.kind == "king" else board.DIAGONALS
                for n in steps[piece.at]:
                    victim = capturable(n)
                    if n not in occupied or victim:
                        yield self._step_plan(piece, (piece.at, n), victim)
            elif piece.kind == "knight":
                yield from self._knight_plans(piece, occupied, capturable)
            else:
                yield from self._pawn_plans(piece, occupied)

    def _step_plan(self, piece: Piece, path: tuple[str, ...], victim: str | None) -> Plan:
        letter = LETTERS[piece.kind]
        sep = "x" if victim else "-"
        start, end = path[0], path[-1]
        via = f"-{path[1]}" if len(path) > 2 else ""
        notation = f"{letter} {start}{via}{sep}{end}"
        return Plan("move", piece.id, start, end, path, captures=victim, notation=notation)

    def _knight_plans(
        self, piece: Piece, occupied: dict[str, Piece], capturable: Callable[[str], str | None]
    ) -> list[Plan]:
        start = piece.at
        assert start is not None
        best: dict[str, tuple[tuple[str, ...], str | None]] = {}
        for route in KNIGHT_ROUTES[start]:
            path: tuple[str, ...] = (start,)
            for space in route:
                path = (*path, space)
                victim = None
                if space in occupied:
                    victim = capturable(space)
                    if not victim:
                        break
                if space not in best or len(path) < len(best[space][0]):
                    best[space] = (path, victim)
                if victim:
                    break
        return [self._step_plan(piece, path, victim) for path, victim in best.values()]

    def _pawn_plans(self, pawn: Piece, occupied: dict[str, Piece]) -> list[Plan]:
        start = pawn.at
        assert start is not None
        others = {s: p for s, p in occupied.items() if p.id != pawn.id}
        best: dict[tuple[str, str | None, str | None], tuple[tuple[str, ...], str | None]] = {}
        for line in PAWN_LINES[start]:
            pushed: Piece | None = None
            push_from: str | None = None
            push_to: str | None = None
            path: tuple[str, ...] = (start,)
            for k in range(len(line) - 1):
                here = line[k]
                assert here is not None
                if pushed is None and here in others:
                    pushed, push_from = others[here], here
                if pushed is not None:
                    beyond = line[k + 1]
                    blocker = others.get(beyond) if beyond is not None else None
                    if beyond is None or (blocker is not None and blocker is not pushed):
                        break
                    push_to = beyond
                path = (*path, here)
                if here == start and (pushed is None or push_to == push_from):
                    continue  # no-op: the board would not change
                key = (here, pushed.id if pushed else None, push_to)
                if key in best and len(best[key][0]) <= len(path):
                    continue
                best[key] = (path, push_from)
        return [
            Plan(
                "move",
                pawn.id,
                start,
                to,
                path,
                push=pushed_id,
                push_from=push_from,
                push_to=push_to,
                notation=f"P {start}-{to}" + (f" push {push_to}" if pushed_id else ""),
            )
            for (to, pushed_id, push_to), (path, push_from) in best.items()
        ]

    def action_of(
        self, plan: Plan, state: OrbitState | None = None, where: dict[str, str] | None = None
    ) -> Action:
        """The JSON action for ``plan``; with ``state``, says how often the resulting
        position will have occurred (``repeats``) when it occurred before."""
        action: Action = {"type": plan.type, "piece": plan.piece, "to": plan.to}
        if plan.push is not None:
            action["push"] = plan.push
            action["push_to"] = plan.push_to
        action["notation"] = plan.notation
        if plan.path:
            action["path"] = list(plan.path)
        if plan.captures:
            action["captures"] = plan.captures
        if state is not None:
            seen = state.seen.get(self._key_after(state, plan, where), 0)
            if seen:
                action["repeats"] = seen + 1
        return action

    def decisions(self, state: OrbitState, seat: int) -> list[Action]:
        where = self._where_after_turn(state)
        return [self.action_of(plan, state, where) for plan in self.plans(state, seat)]

    # --- applying ----------------------------------------------------------------

    def _find_plan(self, state: OrbitState, seat: int, action: Action) -> Plan:
        wanted = (action["type"], action["piece"], action["to"], action.get("push"), action.get("push_to"))
        for plan in self._iter_plans(state, seat, only=action["piece"]):
            if plan.key == wanted:
                return plan
        raise ValueError(f"not a legal action: {action}")  # find_legal has checked already

    def _execute(self, state: OrbitState, seat: int, plan: Plan, events: list[Event] | None) -> bool:
        """Carry out ``plan`` and the end of the turn (the mover's captured piece becomes
        inactive; the turn passes). Returns whether a piece was captured."""
        piece = state.pieces[plan.piece]
        if plan.type == "activate":
            piece.at, piece.status = plan.to, "active"
            if events is not None:
                events.append(
                    {
                        "type": "activate",
                        "seat": seat,
                        "piece": piece.id,
                        "to": plan.to,
                        "notation": plan.notation,
                    }
                )
        else:
            if events is not None:
                move: Event = {
                    "type": "move",
                    "seat": seat,
                    "piece": piece.id,
                    "from": plan.frm,
                    "to": plan.to,
                    "path": list(plan.path),
                    "notation": plan.notation,
                }
                events.append(move)
            if plan.captures:
                victim = state.pieces[plan.captures]
                victim.at, victim.status = None, "captured"
                if events is not None:
                    events.append({"type": "capture", "piece": victim.id, "by": piece.id, "at": plan.to})
            if plan.push:
                pushed = state.pieces[plan.push]
                pushed.at = plan.push_to
                if events is not None:
                    events.append(
                        {
                            "type": "push",
                            "piece": pushed.id,
                            "by": piece.id,
                            "from": plan.push_from,
                            "to": plan.push_to,
                        }
                    )
            piece.at = plan.to
        for own in state.pieces.values():
            if own.owner == seat and own.status == "captured":
                own.status = "inactive"
                if events is not None:
                    events.append({"type": "inactive", "piece": own.id})
        state.turn = 1 - seat
        state.turn_number += 1
        state.last_move = plan.notation
        return plan.captures is not None

    @staticmethod
    def _where_after_turn(state: OrbitState) -> dict[str, str]:
        """Each piece's space or status once the player to move ends the turn, before
        the move itself: their captured piece has become inactive."""
        return {
            pid: p.at or ("inactive" if p.owner == state.turn else p.status)
            for pid, p in state.pieces.items()
        }

    def _key_after(self, state: OrbitState, plan: Plan, where: dict[str, str] | None = None) -> str:
        """The position key after ``plan`` and the end of the turn, without applying it."""
        after = dict(where if where is not None else self._where_after_turn(state))
        after[plan.piece] = plan.to
        if plan.captures:
            after[plan.captures] = "captured"
        if plan.push and plan.push_to:
            after[plan.push] = plan.push_to
        return self._key(1 - state.turn, after)

    def apply_game(self, state: OrbitState, seat: int, action: Action, dice: Dice) -> list[Event]:
        plan = self._find_plan(state, seat, action)
        events: list[Event] = []
        captured = self._execute(state, seat, plan, events)
        events.append({"type": "turn", "seat": state.turn, "number": state.turn_number})
        self._start_turn(state, captured)
        return events

    def _start_turn(self, state: OrbitState, captured: bool) -> None:
        """A turn starts: count the quiet turns and the position, then see whether the
        game is over (:meth:`game_end`)."""
        if captured:
            self.note_kill(state)
        self.count_quiet_turn(state)
        self.seen_again(state.seen, self.position_key(state))
        self.settled(state, turn_starts=True)

    def game_end(self, state: OrbitState, turn_starts: bool = False) -> Outcome | None:
        """As a turn starts (the only time this game asks): Dejarik, the king of the seat
        to move standing in the core; the draw by quiet turns; the position seen for the
        third time; the seat to move with no move and nothing to activate."""
        seat = state.turn
        name = self.seat_name(seat)
        if turn_starts and state.pieces[piece_id(seat, "king")].at == board.CORE:
            return Outcome(winner=seat, reason=f"{name} started a turn with the king in the core")
        if drawn := self.quiet_draw(state):
            return drawn
        if state.seen.get(self.position_key(state), 0) >= REPETITION_LIMIT:
            reason = f"the same position occurred {REPETITION_LIMIT} times with {name} to move"
            return Outcome(winner=None, reason=reason)
        if turn_starts and not self.has_plan(state, seat):
            return Outcome(winner=1 - seat, reason=f"{name} has no legal move and nothing to activate")
        return None

    # --- the view ----------------------------------------------------------------

    def game_facts(self, state: OrbitState) -> list[dict[str, Any]]:
        out = []
        if state.last_move:
            out.append(fact("last-move", "Last move", state.last_move))
        protected = sorted(self.protected(state))
        if protected:
            pieces = [state.pieces[pid] for pid in protected]
            named = [f"{self.seat_name(p.owner)} {self.kind_name(p.kind).lower()} ({p.at})" for p in pieces]
            words = "next to their queen: " + ", ".join(named)
            out.append(fact("protected", "Protected", words, swatch="protected"))
        return out

    def repetition(self, state: OrbitState) -> tuple[int, int] | None:
        return state.seen.get(self.position_key(state), 0), REPETITION_LIMIT

    def kind_name(self, kind: str) -> str:
        return LEGEND[kind]["name"]

    def off_board_status(self, state: OrbitState, piece: Piece) -> str:
        """A piece captured on the last move, or inactive while its side may not activate it,
        waits for a later turn (as ``can_activate`` says in the lists of the view)."""
        return (
            "inactive"
            if piece.status == "inactive" and self.can_activate(state, piece)
            else "inactive until next turn"
        )

    def can_activate(self, state: OrbitState, piece: Piece) -> bool:
        room = any(s not in self.occupied(state) for s in board.RING_A)
        return state.result is None and room and piece.owner == state.turn

    def game_view(self, state: OrbitState, seat: int | None) -> dict[str, Any]:
        protected = self.protected(state)
        occupied = self.occupied(state)
        king = self.king_in_core(state)
        off_board = [p for p in state.pieces.values() if p.at is None]
        return {
            "pieces": [
                {"id": p.id, "kind": p.kind, "owner": p.owner, "at": p.at, "protected": p.id in protected}
                for p in state.pieces.values()
                if p.at is not None
            ],
            "captured": [
                {
                    "id": p.id,
                    "kind": p.kind,
                    "owner": p.owner,
                    "can_activate": False,
                    "note": "captured on the last move: inactive after its owner's turn, "
                    "then it may be activated",
                }
                for p in off_board
                if p.status == "captured"
            ],
            "inactive": [
                {
                    "id": p.id,
                    "kind": p.kind,
                    "owner": p.owner,
                    "can_activate": self.can_activate(state, p),
                }
                for p in off_board
                if p.status == "inactive"
            ],
            "protected": sorted(protected),
            "turn": state.turn,
            "turn_number": state.turn_number,
            "last_move": state.last_move,
            "core": {
                "piece": occupied[board.CORE].id if board.CORE in occupied else None,
                "dejarik": king.owner if king is not None else None,
                "note": "a player whose turn starts with their king in the core wins",
            },
            "repetition": {
                "count": state.seen.get(self.position_key(state), 0),
                "limit": REPETITION_LIMIT,
            },
            "legend": LEGEND,
            "turns_without_kill": state.options.turns_without_kill,
        }

    def event_text(self, event: Event, words: Words) -> str | None:
        """A piece waiting in reserve until its side activates it."""
        if event.get("type") == "inactive":
            return f"{words.owned_name(event.get('piece'))} is inactive until its side activates it"
        return super().event_text(event, words)

    def explain_illegal(self, legal: list[Action], wanted: Action) -> str:
        """As the base, and says when a pawn move needs (or names a wrong) push."""
        if wanted.get("type") == "move":
            same = [
                self.essential(a)
                for a in legal
                if a["type"] == "move" and a["piece"] == wanted.get("piece") and a["to"] == wanted.get("to")
            ]
            pushes = sorted(f"{a['push']} to {a['push_to']}" for a in same if "push" in a)
            plain = any("push" not in a for a in same)
            if pushes and "push" not in wanted and not plain:
                return (
                    f'moving {wanted["piece"]} to {wanted["to"]} pushes a piece: name it with "push" '
                    f'and "push_to" (possible: {", ".join(pushes)})'
                )
            if same and ("push" in wanted or "push_to" in wanted):
                possible = ", ".join(pushes + (["no push"] if plain else []))
                return f"that push is not possible; possible: {possible}"
        return super().explain_illegal(legal, wanted)
