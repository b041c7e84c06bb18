"""`courtier`: the deterministic custodian-capture game of seed 003 (RULINGS §8).

Each side has a king and five guards. A turn moves one piece one step; an enemy
enclosed in a straight line between the moved piece and another of the mover's
pieces is captured. Capture the enemy king to win.

Rulings made here where the texts are silent (see ``docs/rulesets/courtier.md``):

- When one move could capture several pieces, the move is applied first and the
  mover then chooses the capture as its own decision step (``capture``); a move
  action never names its capture, so every move is just ``piece`` and ``to``.
- Double capture is judged on the board as the move leaves it, before the captured
  piece is removed (seed 003, Diagram 6: "Both inside pieces are removed"): the
  piece just captured counts as one of the two enemies enclosing the mover.
- A double capture that removes the mover's own king while taking a guard loses
  (the king is captured); one that takes the enemy king wins even if the mover's
  king goes with it.
- Threefold repetition: the same pieces (by side and kind) on the same spaces with
  the same player to move, a third time.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from app.rules import board
from app.rules.base import Action, BaseOptions, Event, GameState, Outcome
from app.rules.board_game import BoardGame, BoardGameView, fact
from app.rules.contract import ActionModel, Closed, GameView, Seat, Space
from app.rules.dice import Dice
from app.rules.words import Words

KING_SPACE = {0: "A3", 1: "A9"}
COLOURS = ("blue", "red")
LEGEND = {"king": {"name": "King"}, "guard": {"name": "Guard"}}
Kind = Literal["king", "guard"]


class CourtierOptions(BaseOptions):
    first: Literal["blue", "random"] = Field(
        "blue", description="Who moves first: blue (the tradition) or a random roll."
    )


class CourtierPiece(BaseModel):
    id: str
    kind: Kind
    owner: int
    at: str | None
    """``None`` once captured."""


def starting_pieces() -> dict[str, CourtierPiece]:
    pieces: dict[str, CourtierPiece] = {}
    for seat in (0, 1):
        guards = 0
        for space in board.HOME_SIX[seat]:
            if space == KING_SPACE[seat]:
                piece = CourtierPiece(id=f"{COLOURS[seat]}-king", kind="king", owner=seat, at=space)
            else:
                guards += 1
                piece = CourtierPiece(
                    id=f"{COLOURS[seat]}-guard-{guards}", kind="guard", owner=seat, at=space
                )
            pieces[piece.id] = piece
    return pieces


PieceId = Literal[tuple(starting_pieces())]  # type: ignore[valid-type]
"""``blue-king``, ``blue-guard-1`` … ``blue-guard-5``, ``red-king``, ``red-guard-1`` …"""


class PendingCapture(Closed):
    """A move that could capture several pieces, waiting for the mover's choice."""

    seat: Seat
    piece: PieceId = Field(description="The piece that moved.")
    options: list[PieceId] = Field(description="The pieces it may capture; one is chosen.")


class CourtierState(GameState):
    options: CourtierOptions
    pieces: dict[str, CourtierPiece]
    turn: int = 0
    turn_number: int = 1
    pending: PendingCapture | None = None
    positions: dict[str, int] = Field(default_factory=dict)
    """How often each position (with the player to move) has stood since the last
    capture; a capture makes earlier positions unreachable."""


# --- the published contract: actions and the view (GET /api/v1/rulesets/{id}) ----------


class Move(ActionModel):
    """One step of one piece to an empty orthogonal neighbour."""

    type: Literal["move"]
    piece: PieceId
    to: Space


class Capture(ActionModel):
    """After a move that could capture several pieces: the one it captures."""

    type: Literal["capture"]
    piece: PieceId


class PieceOff(Closed):
    id: PieceId
    kind: Kind
    owner: Seat


class PieceView(PieceOff):
    at: Space


class Name(Closed):
    name: str


class CourtierView(BoardGameView):
    pieces: list[PieceView] = Field(description="The pieces on the board.")
    captured: list[PieceOff]
    turn: Seat
    turn_number: int = Field(ge=1)
    pending_capture: PendingCapture | None = Field(description="A capture the mover must choose, if any.")
    repetitions: int | None = Field(
        description="How often this position has stood with this player to move (null while a capture "
        "is chosen); the third time is a draw."
    )
    first: Literal["blue", "random"] = Field(description="The option: who moved first.")
    legend: dict[Kind, Name]
    turns_without_kill: int = Field(description="The option: quiet turns that end the match in a draw.")


class Courtier(BoardGame[CourtierState]):
    id: ClassVar[str] = "courtier"
    name: ClassVar[str] = "Courtier"
    description: ClassVar[str] = (
        "A king and five guards each, one step a turn, capture by enclosing an enemy "
        "between two of yours; no dice."
    )
    seat_names: ClassVar[tuple[str, ...]] = ("Blue", "Red")
    options_schema: ClassVar[type[BaseOptions]] = CourtierOptions
    state_type: ClassVar[type[GameState]] = CourtierState
    action_models: ClassVar[tuple[type[ActionModel], ...]] = (Move, Capture)
    view_model: ClassVar[type[GameView]] = CourtierView
    mutable_fields: ClassVar[tuple[str, ...]] = ("positions",)

    def new_game(self, options: BaseOptions, dice: Dice) -> tuple[CourtierState, list[Event]]:
        assert isinstance(options, CourtierOptions)
        events: list[Event] = []
        if options.first == "random":
            first = self.coin(dice, events)
        else:
            first = 0
            events.append({"type": "first_player", "seat": first})
        state = CourtierState(options=options, pieces=starting_pieces(), turn=first)
        self.record_position(state)
        return state, events

    def decisions(self, state: CourtierState, seat: int) -> list[Action]:
        if state.pending is not None:
            return [
                {
                    "type": "capture",
                    "piece": target,
                    "label": f"Capture the {state.pieces[target].kind} on {state.pieces[target].at}",
                }
                for target in state.pending.options
            ]
        return self.moves(state, seat)

    def moves(self, state: CourtierState, seat: int) -> list[Action]:
        occupied = self.occupied(state)
        return [
            {"type": "move", "piece": p.id, "to": n}
            for p in state.pieces.values()
            if p.owner == seat and p.at is not None
            for n in board.NEIGHBOURS[p.at]
            if n not in occupied
        ]

    def apply_game(self, state: CourtierState, seat: int, action: Action, dice: Dice) -> list[Event]:
        events: list[Event] = []
        if action["type"] == "move":
            piece = state.pieces[action["piece"]]
            events.append(
                {"type": "move", "seat": seat, "piece": piece.id, "from": piece.at, "to": action["to"]}
            )
            piece.at = action["to"]
            targets = self.capturable(state, piece)
            if len(targets) > 1:
                state.pending = PendingCapture(seat=seat, piece=piece.id, options=[t.id for t in targets])
                events.append({"type": "choose_capture", "seat": seat, "options": state.pending.options})
                return events
            captured = self.capture(state, piece, targets[0], events) if targets else False
        else:  # "capture": the mover's choice among several
            pending = state.pending
            assert pending is not None
            state.pending = None
            captured = self.capture(state, state.pieces[pending.piece], state.pieces[action["piece"]], events)
        self.end_turn(state, captured, events)
        return events

    def capturable(self, state: CourtierState, mover: CourtierPiece) -> list[CourtierPiece]:
        """Enemies enclosed in a row between ``mover`` and another of its side's pieces."""
        occupied = self.occupied(state)
        found = []
        for n, beyond in board.rows_from(mover.at):
            middle, far = occupied.get(n), occupied.get(beyond)
            if middle is not None and far is not None and middle.owner != mover.owner == far.owner:
                found.append(middle)
        return found

    def enclosed(self, state: CourtierState, piece: CourtierPiece) -> bool:
        """Whether ``piece`` stands between two enemies on a straight line."""
        occupied = self.occupied(state)
        for x, y in board.flanking_pairs(piece.at):
            a, b = occupied.get(x), occupied.get(y)
            if a is not None and b is not None and a.owner != piece.owner and b.owner != piece.owner:
                return True
        return False

    def capture(
        self, state: CourtierState, mover: CourtierPiece, victim: CourtierPiece, events: list[Event]
    ) -> bool:
        """Remove ``victim``, and ``mover`` too if it is enclosed (judged before removal)."""
        double = self.enclosed(state, mover)
        removed = [victim, mover] if double else [victim]
        for piece in removed:
            events.append(
                {
                    "type": "capture",
                    "piece": piece.id,
                    "kind": piece.kind,
                    "owner": piece.owner,
                    "at": piece.at,
                }
            )
        if double:
            events.append({"type": "double_capture", "pieces": [victim.id, mover.id]})
        for piece in removed:
            piece.at = None
        self.note_kill(state)
        state.positions.clear()
        self.settled(state)
        return True

    def end_turn(self, state: CourtierState, captured: bool, events: list[Event]) -> None:
        if self.settled(state):
            return
        self.count_quiet_turn(state)
        if self.settled(state):
            return
        state.turn = 1 - state.turn
        state.turn_number += 1
        events.append({"type": "turn", "seat": state.turn, "number": state.turn_number})
        self.record_position(state)
        self.settled(state, turn_starts=True)

    # --- the end -----------------------------------------------------------------------

    def game_end(self, state: CourtierState, turn_starts: bool = False) -> Outcome | None:
        """A king captured (checked as the capture is made, ``state.turn`` the mover), the
        draw by quiet turns; as a turn starts, a position standing three times and the
        seat to move having no legal move."""
        mover, other = state.turn, 1 - state.turn
        if state.pieces[f"{COLOURS[other]}-king"].at is None:
            return Outcome(winner=mover, reason=f"{self.seat_name(mover)} captured the enemy king")
        if state.pieces[f"{COLOURS[mover]}-king"].at is None:  # the mover's king went with its victim
            return Outcome(
                winner=other, reason=f"{self.seat_name(mover)}'s king was lost in a double capture"
            )
        if drawn := self.quiet_draw(state):
            return drawn
        if not turn_starts:  # positions are counted as turns start: only there can one stand 3 times
            return None
        if state.positions.get(self.position_key(state), 0) >= 3:
            return Outcome(winner=None, reason="the same position stood three times")
        if not self.moves(state, mover):
            return Outcome(winner=other, reason=f"{self.seat_name(mover)} has no legal move")
        return None

    # --- positions ---------------------------------------------------------------------

    def position_key(self, state: CourtierState) -> str:
        placed = sorted(f"{p.at}:{p.owner}{p.kind[0]}" for p in state.pieces.values() if p.at is not None)
        return f"{state.turn}|{','.join(placed)}"

    def record_position(self, state: CourtierState) -> int:
        return self.seen_again(state.positions, self.position_key(state))

    def game_facts(self, state: CourtierState) -> list[dict[str, Any]]:
        if state.pending is None:
            return []
        return [fact("capture-choice", "Capture", "choose which piece is captured: click a marked piece")]

    def repetition(self, state: CourtierState) -> tuple[int, int] | None:
        if state.pending is not None:
            return None
        return state.positions.get(self.position_key(state), 0), 3

    def kind_name(self, kind: str) -> str:
        return LEGEND[kind]["name"]

    def off_board_status(self, state: CourtierState, piece: CourtierPiece) -> str:
        return "captured"

    def pending_choice(self, state: CourtierState) -> dict[str, Any] | None:
        pending = state.pending
        if pending is None:
            return None
        return {
            "chooser": pending.seat,
            "kind": "capture",
            "piece": pending.piece,
            "options": list(pending.options),
        }

    def game_view(self, state: CourtierState, seat: int | None) -> dict[str, Any]:
        return {
            "pieces": [
                {"id": p.id, "kind": p.kind, "owner": p.owner, "at": p.at}
                for p in state.pieces.values()
                if p.at is not None
            ],
            "captured": [
                {"id": p.id, "kind": p.kind, "owner": p.owner} for p in state.pieces.values() if p.at is None
            ],
            "turn": state.turn,
            "turn_number": state.turn_number,
            "pending_capture": state.pending.model_dump() if state.pending else None,
            "repetitions": state.positions.get(self.position_key(state), 0)
            if state.pending is None
            else None,
            "first": state.options.first,
            "legend": LEGEND,
            "turns_without_kill": state.options.turns_without_kill,
        }

    def event_text(self, event: Event, words: Words) -> str | None:
        """A move that encloses several pieces, and two pieces that took each other."""
        if event.get("type") == "choose_capture":
            options = event.get("options") or []
            names = list(dict.fromkeys(words.owned_name(p) for p in options))
            chooser = words.seat_label(event.get("seat"))
            if len(names) == 1:
                return f"{chooser} encloses {len(options)} pieces and chooses which {names[0]} to capture"
            return f"{chooser} chooses which to capture: {' or '.join(names)}"
        if event.get("type") == "double_capture":
            pieces = " and ".join(words.owned_name(p) for p in event.get("pieces") or [])
            return f"Double capture: {pieces} took each other"
        return super().event_text(event, words)
