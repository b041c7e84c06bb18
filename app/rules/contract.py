"""What a ruleset publishes about itself, as pydantic models (API.md, "Rulesets").

``GET /api/v1/rulesets/{id}`` answers, beside the options, two JSON Schemas (draft
2020-12, as pydantic emits them):

- ``actions_schema``: every action a client may send, one variant per ``type``
  (the ruleset's :attr:`~app.rules.base.Ruleset.action_models`, then the actions
  every ruleset has, :data:`COMMON_ACTIONS`);
- ``state_schema``: the ``state`` of the match view as a seat sees it
  (the ruleset's :attr:`~app.rules.base.Ruleset.view_model`, a :class:`GameView`).

Both are closed: a field the schema does not name is not sent (state) or refused
(actions). The shapes every ruleset shares are here too: the odds of an attack and
the roll event, which ``app/api/schemas.py`` uses for the match view and the log.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from app.rules import board

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

Space = Literal[board.SPACES]  # type: ignore[valid-type]
"""A space of the board (RULINGS §1): ``C``, ``B1``..``B12``, ``A1``..``A12``."""

Seat = Annotated[int, Field(ge=0, le=1, description="A seat: 0 or 1.")]


class Closed(BaseModel):
    """A published shape that names every field it has. As a view shows it (the JSON
    Schema of serialization), a field with a default is always there: required."""

    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)


class Open(BaseModel):
    """A model that keeps fields it does not name: a ruleset's own context, and fields
    added later (the contract: add fields freely, never remove or rename)."""

    model_config = ConfigDict(extra="allow")


# --- odds ------------------------------------------------------------------------------


class OddsOutcome(Closed):
    key: str = Field(description="What happens, for programs: 'kill', 'push', 'counter-push', …")
    probability: float = Field(ge=0, le=1, description="The exact fraction as a number (4 places).")
    exact: str = Field(description="The exact probability as a fraction, e.g. '3/16'.")
    text: str = Field(description="What happens, in words a client can show as they are.")


class Odds(Closed):
    """The chances of an attack's outcomes (on an attack in ``legal_actions``); the
    probabilities sum to exactly 1."""

    outcomes: list[OddsOutcome]


# --- dice -------------------------------------------------------------------------------


class Die(Open):
    """One die of the match's seeded source (docs/dice.md): die number ``n`` with
    ``sides`` sides showed ``face``."""

    n: int = Field(ge=0, description="The die's number in the match: 0, 1, 2, … in the order drawn.")
    sides: int = Field(ge=1)
    face: int = Field(ge=1, description="1 … sides.")
    kind: str | None = Field(None, description="Narrative dice (eote): the die's kind, e.g. 'proficiency'.")
    symbols: list[str] | None = Field(None, description="Narrative dice (eote): the symbols on the face.")


class NetSymbols(BaseModel):
    """A narrative roll's net result: successes (negative: net failures), advantages
    (negative: net threats), and the triumphs and despairs, which never cancel."""

    success: int
    advantage: int
    triumph: int
    despair: int


def event_text_field() -> Any:
    """The ``text`` of an event shown in a log entry (app/rules/words.py)."""
    return Field(
        None,
        description="The event in player words, written by the server for the viewer it is shown to, "
        "as actions carry their label ('Red Monnok attacked Blue Savrip'; 'Blue rolled attack for "
        "Monnok: 6 and 1 on two d6: 7'), saying no more than that viewer may see. Every event of a "
        "log entry has it (the log, the websocket's frames, the records); a ruleset's state has none.",
    )


class RollEvent(Open):
    """Dice rolled by the server. Numeric rolls carry ``bonus`` and ``total`` (bonus
    plus every face); narrative rolls (eote) carry ``pool``, ``tally`` and ``net``;
    shuffles (a deal) carry ``shuffled``."""

    type: Literal["roll"]
    purpose: str = Field(description="What the roll decides: 'attack', 'first player', 'deal', …")
    dice: list[Die]
    seat: int | None = Field(None, description="The seat the roll is for, when it is one seat's.")
    piece: str | None = Field(None, description="The piece the roll is for, when it is one piece's.")
    bonus: int | None = Field(None, description="Numeric rolls: a flat number added to the faces (a rating).")
    total: int | None = Field(None, description="Numeric rolls: bonus plus the sum of the faces.")
    text: str | None = event_text_field()
    pool: dict[str, int] | None = Field(None, description="Narrative rolls: how many dice of each kind.")
    tally: dict[str, int] | None = Field(None, description="Narrative rolls: every symbol shown, counted.")
    net: NetSymbols | None = Field(None, description="Narrative rolls: the net result.")
    shuffled: list[Any] | None = Field(
        None,
        description="Shuffles (a deal): the items before the shuffle; the dice are its Fisher–Yates "
        "draws, sides n, n-1, …, 2 (docs/dice.md).",
    )


# --- actions ----------------------------------------------------------------------------


class ActionModel(Closed):
    """An action as ``legal_actions`` lists it and a client sends it back. Fields
    marked "for information" are ignored when the sent action is matched."""

    label: str | None = Field(None, description="For information: the action in words, for people.")


class Resign(ActionModel):
    """Give up the match: the other seat wins."""

    type: Literal["resign"]


class OfferDraw(ActionModel):
    """Offer a draw; it stands until answered (or the other seat plays on)."""

    type: Literal["offer_draw"]


class AcceptDraw(ActionModel):
    """Accept the draw the other seat offered: the match ends in a draw."""

    type: Literal["accept_draw"]


class DeclineDraw(ActionModel):
    """Decline the draw the other seat offered."""

    type: Literal["decline_draw"]


class ClaimTimeout(ActionModel):
    """A timed match whose seat to act is past its deadline: claim the win."""

    type: Literal["claim_timeout"]


COMMON_ACTIONS: tuple[type[ActionModel], ...] = (Resign, OfferDraw, AcceptDraw, DeclineDraw, ClaimTimeout)
"""Actions of every ruleset: resigning and draws (``app/rules/base.py``), and claiming
the win on time (listed by the match service, which keeps the clock)."""


def actions_schema(title: str, models: Iterable[type[BaseModel]]) -> dict[str, Any]:
    """The JSON Schema of one action: one of ``models``, told apart by ``type``."""
    union = Union[tuple(models)]  # noqa: UP007 - a union built from a tuple of classes
    schema = TypeAdapter(Annotated[union, Field(discriminator="type")]).json_schema()
    return {"$schema": JSON_SCHEMA_DIALECT, "title": title, **schema}


# --- the state as a seat sees it --------------------------------------------------------


class GameView(Closed):
    """What every ruleset's ``state`` carries (``Ruleset.view``); each ruleset adds its game."""

    kind: str = Field(description="How the browser draws the state: 'board' or 'eote'.")
    seat_names: list[str] = Field(description="The seats' names in this ruleset, seat 0 first.")
    gm_decision: str | None = Field(
        description="What the game waits for the game master to decide, in words for the players "
        "(an eote re-roll asked of the GM), or null."
    )
    draw_offer: Seat | None = Field(description="The seat whose draw offer stands, if any.")
    quiet_turns: int = Field(
        ge=0, description="Turns in a row with no piece lost (the turns_without_kill option counts them)."
    )


def state_schema(title: str, model: type[GameView]) -> dict[str, Any]:
    schema = model.model_json_schema(mode="serialization")
    return {"$schema": JSON_SCHEMA_DIALECT, **schema, "title": title}
