"""The ruleset protocol and what every ruleset shares (RULINGS §2).

A ruleset is pure: it takes a state, an action and a dice source and returns a new
state and the events that happened. It never touches the database, the network or
the clock. States are pydantic models (plain JSON when stored); actions and events
are plain JSON objects.

A concrete ruleset subclasses :class:`Ruleset` and writes the game itself:
``new_game``, ``game_to_act``, ``game_actions``, ``apply_game`` and ``game_view``.
This class adds what is common to every ruleset: resigning, draw offers, the
``turns_without_kill`` limit, matching a sent action against the legal ones, and
explaining why an action is refused.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from app.rules import contract
from app.rules.contract import COMMON_ACTIONS, ActionModel, GameView
from app.rules.dice import Dice
from app.rules.words import Words, notation, shown

Action = dict[str, Any]
Event = dict[str, Any]


class IllegalAction(ValueError):
    """The action is not one of the seat's legal actions; the message says why."""


class Outcome(BaseModel):
    winner: int | None
    reason: str


class JsonOptions(BaseModel):
    """Options as their JSON Schema says: unknown ones refused, and no guessing of types
    (``true`` is not 1, ``"5"`` is not 5); a whole number written ``5.0`` is 5."""

    model_config = ConfigDict(extra="forbid", strict=True)

    @field_validator("*", mode="before")
    @classmethod
    def _whole_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        field = cls.model_fields.get(info.field_name or "")
        if field is not None and field.annotation is int and isinstance(value, float) and value.is_integer():
            return int(value)
        return value


MINUTE, DAY = 60, 24 * 60 * 60


class Clock(JsonOptions):
    """A time per move: from one minute (live play) to days (correspondence)."""

    per_move_s: int = Field(
        ge=MINUTE,
        le=30 * DAY,
        description="Seconds the seat to act has for its decision (60 to 2592000, 30 days); "
        "past it, the other seats may claim the win.",
    )


class BaseOptions(JsonOptions):
    """Options every ruleset has. Unknown options are refused, naming the field."""

    clock: Clock | None = Field(
        None,
        title="Clock",
        description="Time per move: null is untimed. The server keeps the time; the rules never see it.",
    )

    turns_without_kill: int = Field(
        100,
        ge=0,
        le=100_000,
        description="That many turns in a row with no piece lost end the match as a "
        "draw; 0 disables the limit.",
    )


class GameState(BaseModel):
    """What every ruleset's state carries besides the game itself."""

    model_config = ConfigDict(extra="forbid")

    result: Outcome | None = None
    draw_offer: int | None = None
    """The seat whose draw offer stands, if any."""
    quiet_turns: int = 0
    """Turns in a row with no piece killed, captured or lost."""
    lost_this_turn: bool = False
    """A piece was lost during the turn under way (see ``count_quiet_turn``)."""
    gm: bool = False
    """A game master hosts the match: decisions the rules leave to a GM wait for them
    (:meth:`Ruleset.gm_actions`). Set by :meth:`Ruleset.start`."""


S = TypeVar("S", bound=GameState)

COMMON_ACTION_TYPES = frozenset({"resign", "offer_draw", "accept_draw", "decline_draw"})
CLAIM_TIMEOUT = "claim_timeout"
"""Listed by the match service (which keeps the clock), never by a ruleset."""


class Ruleset(ABC, Generic[S]):
    id: ClassVar[str]
    name: ClassVar[str]
    description: ClassVar[str]
    seats: ClassVar[int] = 2
    seat_names: ClassVar[tuple[str, ...]] = ("Seat 1", "Seat 2")
    view_kind: ClassVar[str] = "board"
    options_schema: ClassVar[type[BaseOptions]] = BaseOptions
    state_type: ClassVar[type[GameState]]
    private_actions: ClassVar[frozenset[str]] = frozenset()
    """Action types another seat may not read in the log until the match is over
    (a hidden choice, like setting pieces in eote); they show as ``hidden``."""
    info_keys: ClassVar[frozenset[str]] = frozenset({"odds", "label", "notation"})
    """Keys a legal action may carry for the player's information only; an action
    sent back is matched with these left out."""
    gm_action_types: ClassVar[frozenset[str]] = frozenset()
    """The ``gm_…`` decisions this ruleset leaves to a game master (:meth:`gm_actions`)."""
    action_models: ClassVar[tuple[type[ActionModel], ...]] = ()
    """The game's own actions, one pydantic model per ``type``: published, with the
    actions every ruleset has, as ``actions_schema`` (app/rules/contract.py)."""
    view_model: ClassVar[type[GameView]] = GameView
    """The pydantic model of :meth:`view`, published as ``state_schema``."""

    # --- the game itself, written by each ruleset -------------------------------

    @abstractmethod
    def new_game(self, options: BaseOptions, dice: Dice) -> tuple[S, list[Event]]:
        """The starting state and the events of setting it up (deals, first-player rolls)."""

    @abstractmethod
    def game_to_act(self, state: S) -> list[int]:
        """Whose decision the game is waiting for."""

    @abstractmethod
    def game_actions(self, state: S, seat: int) -> list[Action]:
        """The seat's legal game actions now; empty when it is not their decision."""

    @abstractmethod
    def apply_game(self, state: S, seat: int, action: Action, dice: Dice) -> list[Event]:
        """Apply a legal game action to ``state`` in place and return its events."""

    @abstractmethod
    def game_view(self, state: S, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (``None``: a spectator) may see of the game."""

    # --- decisions left to a game master (a GM-hosted match only) ----------------

    def gm_actions(self, state: S) -> list[Action]:
        """The GM's decisions the game waits for now (``gm_…`` actions of the types in
        :attr:`gm_action_types`); none unless ``state.gm``. The GM's controls list them."""
        return []

    def apply_gm_game(self, state: S, action: Action, dice: Dice) -> list[Event]:
        """Apply one of :meth:`gm_actions` to ``state`` in place and return its events."""
        raise IllegalAction(f'"{action.get("type")}" is not a decision of this game\'s GM')

    def gm_decision(self, state: S) -> str | None:
        """What the game waits for the GM to decide, in words for the players (``None``: nothing)."""
        return None

    # --- the protocol, common to every ruleset ----------------------------------

    def start(self, options: BaseOptions, dice: Dice, gm: bool = False) -> tuple[S, list[Event]]:
        """:meth:`new_game`, in a match a game master hosts when ``gm``."""
        state, events = self.new_game(options, dice)
        state.gm = gm
        return state, events

    def options(self, raw: dict[str, Any] | None) -> BaseOptions:
        """Validate match options; raises pydantic's ``ValidationError``."""
        return self.options_schema.model_validate(raw or {})

    def load_state(self, data: dict[str, Any]) -> S:
        return self.state_type.model_validate(data)  # type: ignore[return-value]

    def dump_state(self, state: S) -> dict[str, Any]:
        return state.model_dump(mode="json")

    def copy_state(self, state: S) -> S:
        """A copy of ``state`` that :meth:`apply_game` may change freely."""
        return state.model_copy(deep=True)

    def to_act(self, state: S) -> list[int]:
        if state.result is not None:
            return []
        return self.game_to_act(state)

    def outcome(self, state: S) -> Outcome | None:
        return state.result

    def game_end(self, state: S, turn_starts: bool = False) -> Outcome | None:
        """How the game ends in this position, if it does: every way a ruleset's game is
        won or drawn, listed in one place and read from the state (as scalachess's
        ``specialEnd``). A ruleset overrides it and keeps the draw by quiet turns
        (``quiet_draw``) in its order. ``turn_starts``: ``state.turn``'s turn has just
        started, so the rules about the seat to move (it cannot move, its king stands in
        the core) apply; elsewhere they are not checked."""
        return self.quiet_draw(state)

    def settled(self, state: S, turn_starts: bool = False) -> bool:
        """Whether the game is over, ending it now if :meth:`game_end` says so. A ruleset
        calls it wherever a decision may have ended the game: after a piece is lost, as a
        turn ends and as a turn starts."""
        if state.result is None:
            state.result = self.game_end(state, turn_starts)
        return state.result is not None

    def quiet_draw(self, state: S) -> Outcome | None:
        """The draw after ``turns_without_kill`` turns in a row with no piece lost."""
        limit = state.options.turns_without_kill
        if limit and state.quiet_turns >= limit:
            return Outcome(winner=None, reason=f"{limit} turns in a row without a piece lost")
        return None

    def legal_actions(self, state: S, seat: int) -> list[Action]:
        if state.result is not None or not 0 <= seat < self.seats:
            return []
        actions = list(self.game_actions(state, seat))
        if state.draw_offer is None:
            actions.append({"type": "offer_draw", "label": "Offer a draw"})
        elif seat in self._draw_responders(state):
            actions.append({"type": "accept_draw", "label": "Accept the draw"})
            actions.append({"type": "decline_draw", "label": "Decline the draw"})
        actions.append({"type": "resign", "label": "Resign"})
        return actions

    def find_legal(self, state: S, seat: int, action: Any) -> Action:
        """The legal action that ``action`` names, or :class:`IllegalAction` saying why."""
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise IllegalAction('an action must be a JSON object with a string "type"')
        if state.result is not None:
            raise IllegalAction("the match is over")
        wanted = self.essential(action)
        legal = self.legal_actions(state, seat)
        for candidate in legal:
            if self.essential(candidate) == wanted:
                return candidate
        raise IllegalAction(self.explain_illegal(legal, wanted))

    def apply(self, state: S, seat: int, action: Action, dice: Dice) -> tuple[S, list[Event]]:
        """Apply one of ``seat``'s legal actions; the given state is left untouched."""
        return self.apply_legal(state, seat, self.find_legal(state, seat, action), dice)

    def apply_legal(self, state: S, seat: int, chosen: Action, dice: Dice) -> tuple[S, list[Event]]:
        """:meth:`apply` for an action that :meth:`find_legal` has just returned for
        this state and seat (the match service checks it first, then applies it)."""
        new = self.copy_state(state)
        kind = chosen["type"]
        if kind == "resign":
            new.result = Outcome(winner=self._other(seat), reason=f"{self.seat_name(seat)} resigned")
            events = [{"type": "resign", "seat": seat}]
        elif kind == "offer_draw":
            new.draw_offer = seat
            events = [{"type": "draw_offered", "seat": seat}]
        elif kind == "accept_draw":
            new.result = Outcome(winner=None, reason="draw agreed")
            new.draw_offer = None
            events = [{"type": "draw_agreed", "seat": seat}]
        elif kind == "decline_draw":
            new.draw_offer = None
            events = [{"type": "draw_declined", "seat": seat}]
        else:
            if new.draw_offer is not None and new.draw_offer != seat:
                # Playing on instead of answering declines the offer.
                new.draw_offer = None
            events = self.apply_game(new, seat, chosen, dice)
        if new.result is not None:
            events.append({"type": "end", **new.result.model_dump()})
        return new, events

    def find_gm(self, state: S, action: Any) -> Action:
        """The GM decision (:meth:`gm_actions`) that ``action`` names, or :class:`IllegalAction`."""
        wanted = self.essential(action) if isinstance(action, dict) else None
        legal = self.gm_actions(state) if state.result is None else []
        chosen = next((a for a in legal if self.essential(a) == wanted), None)
        if chosen is None:
            raise IllegalAction(self.explain_illegal(legal, wanted or {}))
        return chosen

    def apply_gm(self, state: S, chosen: Action, dice: Dice) -> tuple[S, list[Event]]:
        """Apply a GM decision that :meth:`find_gm` returned; the given state is left untouched."""
        new = self.copy_state(state)
        events = self.apply_gm_game(new, chosen, dice)
        if new.result is not None:
            events.append({"type": "end", **new.result.model_dump()})
        return new, events

    def claim_timeout(self, state: S, seat: int) -> tuple[S, list[Event]]:
        """``seat`` claims the win because the seats to act ran out of time. Whether
        the time ran out is the match service's to decide; this only ends the game."""
        new = self.copy_state(state)
        late = self.to_act(state)
        names = " and ".join(self.seat_name(s) for s in late)
        reason = f"{names} ran out of time; {self.seat_name(seat)} claimed the win"
        new.result = Outcome(winner=seat, reason=reason)
        new.draw_offer = None
        events = [{"type": "timeout", "seats": late, "seat": seat}]
        events.append({"type": "end", **new.result.model_dump()})
        return new, events

    def view(self, state: S, seat: int | None) -> dict[str, Any]:
        return {
            "kind": self.view_kind,
            "seat_names": list(self.seat_names),
            **self.game_view(state, seat),
            "gm_decision": self.gm_decision(state) if state.result is None else None,
            "draw_offer": state.draw_offer,
            "quiet_turns": state.quiet_turns,
        }

    def event_text(self, event: Event, words: Words) -> str | None:
        """``event`` in player words, for the match log (``None``: no words of its own;
        the viewer reads its type and fields). ``words`` reads the state as the viewer
        sees it. This default words the events every ruleset has (dice, resigning,
        draws, time, the end) and those the piece games share (moves, attacks, pushes,
        turns); a ruleset with events of its own overrides it and calls ``super()``."""
        kind, name = event.get("type"), words.owned_name
        seat = event.get("seat")
        if kind == "roll":
            return words.roll(event)
        if kind == "resign":
            return f"{words.seat_label(seat)} resigned"
        if kind == "timeout":
            late = " and ".join(words.seat_label(s) for s in event.get("seats") or [])
            return f"{late} ran out of time; {words.seat_label(seat)} claimed the win"
        if kind == "draw_offered":
            return f"{words.seat_label(seat)} offered a draw"
        if kind == "draw_agreed":
            return "The draw was agreed"
        if kind == "draw_declined":
            return f"{words.seat_label(seat)} declined the draw"
        if kind == "end":
            reason = shown(event.get("reason"))
            if event.get("winner") is None:
                return f"The match ended in a draw: {reason}"
            return f"{words.seat_label(event['winner'])} won: {reason}"
        if kind == "turn":
            number = f" (turn {shown(event['number'])})" if event.get("number") else ""
            round_ = f" (round {shown(event['round'])})" if event.get("round") else ""
            return f"{words.seat_label(seat)}'s turn{number}{round_}"
        if kind == "first_player":
            return f"{words.seat_label(seat)} goes first"
        if kind == "pass":
            return f"{words.seat_label(seat)} passed: {event.get('reason') or 'no legal action'}"
        if kind == "move":
            path, start = event.get("path") or [], event.get("from")
            steps = [s for i, s in enumerate(path) if i < len(path) - 1 and not (i == 0 and s == start)]
            via = f" (via {', '.join(map(shown, steps))})" if steps else ""
            to = shown(event.get("to"))
            return f"{name(event.get('piece'))} moved {start or ''} → {to}{via}{notation(event)}"
        if kind == "attack":
            return f"{name(event.get('piece'))} attacked {name(event.get('target'))}"
        if kind in ("kill", "defeat", "capture"):
            what = "captured" if kind == "capture" else "destroyed"
            by = f" by {name(event['by'])}" if event.get("by") else ""
            at = f" on {shown(event['at'])}" if event.get("at") else ""
            return f"{name(event.get('piece'))} was {what}{by}{at}"
        if kind == "push":
            return (
                f"{name(event.get('piece'))} was pushed {event.get('from') or ''} → {shown(event.get('to'))}"
            )
        if kind == "push_blocked":
            return f"{name(event.get('piece'))} had nowhere to be pushed"
        if kind == "place":
            return f"{name(event.get('piece'))} was placed on {shown(event.get('to'))}"
        if kind == "activate":  # orbit-chess and simeone
            to = f" on {shown(event['to'])}" if event.get("to") else ""
            return f"{name(event.get('piece'))} was activated{to}{notation(event)}"
        if kind == "setup":  # orbit-chess and simeone
            if "seat" in event:
                return f"Setting up: {words.seat_label(seat)} places first"
            return "The pieces were set up"
        return None

    def actions_schema(self, extra: Iterable[type[BaseModel]] = ()) -> dict[str, Any]:
        """The JSON Schema of an action of this ruleset: its game's, every ruleset's
        (resign, draws, claiming the win on time) and ``extra`` (the GM's controls)."""
        models = (*self.action_models, *COMMON_ACTIONS, *extra)
        return contract.actions_schema(f"{self.name}: an action", models)

    def state_schema(self) -> dict[str, Any]:
        """The JSON Schema of :meth:`view`."""
        return contract.state_schema(f"{self.name}: the state as a seat sees it", self.view_model)

    def secrets(self, state: S, seat: int | None) -> list[Any]:
        """Values in ``state`` that ``seat`` must not see (hidden choices, face-down
        pieces). The conformance suite checks that none appears in ``view``."""
        return []

    # --- helpers for rulesets ----------------------------------------------------

    def seat_name(self, seat: int) -> str:
        return self.seat_names[seat]

    def note_kill(self, state: S) -> None:
        """A piece was killed, captured or lost: the quiet-turn count starts again."""
        state.quiet_turns = 0
        state.lost_this_turn = True

    def count_quiet_turn(self, state: S) -> None:
        """Call at the end of every full turn (or round), then :meth:`settled`. A turn in
        which a piece was lost leaves the count at 0; any other turn counts towards the
        draw (:meth:`quiet_draw`)."""
        if state.lost_this_turn:
            state.lost_this_turn = False
            state.quiet_turns = 0
            return
        state.quiet_turns += 1

    def _other(self, seat: int) -> int | None:
        return 1 - seat if self.seats == 2 else None

    def _draw_responders(self, state: S) -> list[int]:
        return [s for s in range(self.seats) if s != state.draw_offer]

    def essential(self, action: Action) -> Action:
        return {k: v for k, v in action.items() if k not in self.info_keys}

    def explain_illegal(self, legal: list[Action], wanted: Action) -> str:
        """A message that says why ``wanted`` is not among ``legal``."""
        kind = wanted.get("type")
        same_kind = [self.essential(a) for a in legal if a["type"] == kind]
        if not same_kind:
            game_kinds = sorted({a["type"] for a in legal} - COMMON_ACTION_TYPES)
            if not game_kinds:
                return f'"{kind}" is not possible now: it is not your decision'
            return f'"{kind}" is not possible now; possible now: {", ".join(game_kinds)}'
        # Narrow field by field, in the order the legal actions name them.
        remaining = same_kind
        for key in same_kind[0]:
            if key == "type":
                continue
            if key not in wanted:
                return f'"{kind}" needs the field "{key}"'
            matching = [a for a in remaining if a.get(key) == wanted[key]]
            if not matching:
                choices = sorted({str(a.get(key)) for a in remaining})
                shown = ", ".join(choices[:20]) + (" …" if len(choices) > 20 else "")
                return f'"{key}": {wanted[key]!r} is not possible here; possible: {shown}'
            remaining = matching
        extra = sorted(set(wanted) - set(same_kind[0]))
        if extra:
            return f'"{kind}" has no field {", ".join(repr(k) for k in extra)}'
        return f'that "{kind}" is not legal now'
