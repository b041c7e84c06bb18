"""The typed contract: what every route answers, as pydantic models.

``/openapi.json`` is generated from these, and ``/asyncapi.json`` shares them (the
websocket's frames are these views). A ruleset's ``state`` and the objects of
``legal_actions`` stay open objects here; ``GET /api/v1/rulesets/{id}`` publishes their
JSON Schemas (``state_schema``, ``actions_schema``, from ``app/rules/contract.py``).
Field names are exactly those the services put in their views.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from app.rules.contract import Die, NetSymbols, Odds, OddsOutcome, Open, RollEvent, event_text_field

__all__ = ["Die", "NetSymbols", "Odds", "OddsOutcome", "RollEvent"]  # shared with the rulesets


# --- players -------------------------------------------------------------------------


class PlayerRef(BaseModel):
    id: str
    name: str


# --- dice and events: the roll event is the rulesets' own (app/rules/contract.py) ----------


GAME_EVENT_TYPES = (
    # rulesets' events (app/rules)
    "activate", "adjust_set", "adjust_skipped", "attack", "battle", "capture", "centre_hold",
    "choose_capture", "choose_difficulty", "combat", "combat_ray", "cycle_complete", "deal",
    "death_push", "defeat", "defence", "done_spending", "double_capture", "draft_choice",
    "draft_defer", "draft_pick", "draft_reroll", "draw_agreed", "draw_declined", "draw_offered",
    "end", "end_activation", "first_attacker", "first_player", "inactive", "initiative",
    "initiative_tie", "kill", "move", "order_chosen", "pass", "place", "push", "push_blocked",
    "ranks", "ranks_check", "ranks_check_passed", "refill", "reroll", "reroll_asked",
    "reroll_granted", "reroll_offered", "reroll_refused", "resign",
    "round", "round_end", "round_result", "score", "set_revealed", "setting", "setup",
    "setup_order", "setup_reroll", "spend", "split_ranks", "stunned", "teams", "to_the_death",
    "turn", "unstun",
    # the match service's events (GM controls, a claim of the win on time)
    "options_changed", "paused", "resumed", "npc", "npc_released", "seat_opened", "undone", "timeout",
)  # fmt: skip


class GameEvent(Open):
    """Any other event: what happened, named by ``type``, with its own fields (a piece,
    a seat, a square …), and in a log entry shown to a viewer its ``text``."""

    type: Literal[GAME_EVENT_TYPES]  # type: ignore[valid-type]
    text: str | None = event_text_field()


Event = Annotated[RollEvent | GameEvent, Field(discriminator="type")]


# --- matches ------------------------------------------------------------------------------


class Result(Open):
    winner: int | None = Field(description="The winning seat; null for a draw.")
    reason: str


class SeatView(Open):
    seat: int
    name: str = Field(description="The seat's name in this ruleset ('Light side', 'Seat 1', …).")
    player: PlayerRef | None = Field(description="Who sits there; null while the seat is open.")
    npc: bool = Field(description="The GM plays this seat as a non-player character.")


class SeatSummary(Open):
    seat: int
    name: str
    player: PlayerRef | None


class You(Open):
    """Who the caller is in this match."""

    player: PlayerRef | None = Field(description="The caller; null for an anonymous spectator.")
    seat: int | None = Field(description="The seat the caller plays (a GM: the NPC seat held); else null.")
    host: bool
    gm: bool = Field(description="The caller hosts a GM-run match (and has its controls).")


Status = Literal["waiting", "active", "finished"]


class DiceInfo(BaseModel):
    """What anyone needs to check every die (docs/dice.md)."""

    scheme: Literal["hmac-sha256-v1", "hmac-sha256-v2"]
    commitment: str = Field(description="SHA-256 (hex) of the server's seed's bytes, published at creation.")
    seed: str | None = Field(description="The server's seed (hex), null until the match is finished.")
    player_seeds: list[str | None] = Field(
        description="v2: every seat's own seed (hex), in seat order, null while a seat is empty; v1: []."
    )


class Rematch(BaseModel):
    """A rematch offered after the end, and its answer."""

    status: Literal["offered", "accepting", "accepted", "declined", "expired"] = Field(
        description="expired: an offer left unanswered past expires_at; either player may offer again."
    )
    by: int | None = Field(description="The seat that offered it.")
    match: str | None = Field(description="The new match, once accepted.")
    expires_at: datetime | None = Field(None, description="Until when an offer stands unanswered.")


class RatingChange(BaseModel):
    """One seat's rating before and after a rated match (rounded to 2 places)."""

    seat: int
    before: float
    after: float
    before_provisional: bool = Field(description="The rating before was provisional (RD ≥ 110): '1500?'.")
    after_provisional: bool


class MatchView(Open):
    """The match as the caller may see it."""

    id: str
    ruleset: str
    options: dict[str, Any]
    status: Status
    version: int = Field(description="How many log entries the match has; send it back with an action.")
    seats: list[SeatView]
    host: PlayerRef | None
    you: You
    to_act: list[int] = Field(description="The seats whose decision the match waits for.")
    state: dict[str, Any] = Field(
        description="The ruleset's state as the caller may see it: its JSON Schema is the "
        "ruleset's state_schema (GET /api/v1/rulesets/{id}); {} before the match starts."
    )
    legal_actions: list[dict[str, Any]] = Field(
        description="The caller's legal actions now: send one back verbatim. Each is one variant "
        "of the ruleset's actions_schema (GET /api/v1/rulesets/{id}): an attack may carry 'odds' "
        "(the Odds schema) and any action a 'label' for people."
    )
    result: Result | None
    paused: bool
    seed_sha256: str = Field(description="The dice commitment: SHA-256 (hex) of the seed's bytes.")
    seed: str | None = Field(description="The dice seed (hex), revealed when the match is finished.")
    deadline: datetime | None = Field(
        description="When the seats to act run out of time (a timed match, not paused); past it the "
        "other seats are offered {'type': 'claim_timeout'}."
    )
    dice: DiceInfo
    rematch: Rematch | None = None
    rated: bool = Field(False, description="Chosen at creation: the result changes the players' ratings.")
    rating_changes: list[RatingChange] | None = Field(
        None,
        description="A finished rated match: each seat's rating before and after (a bot's does not "
        "move); null before the end, for a casual match, or when a seat never played.",
    )
    created_at: datetime
    updated_at: datetime


class MatchSummary(Open):
    id: str
    ruleset: str
    status: Status
    version: int
    seats: list[SeatSummary]
    host: PlayerRef | None
    to_act: list[int]
    deadline: datetime | None = Field(description="When the seats to act run out of time, if timed.")
    result: Result | None
    rated: bool = Field(False, description="The result changes the players' ratings.")
    created_at: datetime
    updated_at: datetime


class MatchPage(Open):
    matches: list[MatchSummary]
    next_cursor: str | None = Field(description="Pass back as ?cursor= for the next page; null at the end.")


class LogEntry(Open):
    """One applied action and what it caused."""

    version: int
    seat: int | None = Field(description="Who acted; null for the match itself or its GM.")
    action: dict[str, Any] = Field(description="The action as applied ({'type': 'hidden'} while private).")
    events: list[Event]
    at: datetime
    dice_from: int = Field(ge=0, description="How many dice the match had drawn before this entry.")


class AtView(MatchView):
    """The match right after a past version, as a spectator saw it then."""

    latest_version: int = Field(description="The match's version now.")
    match_status: Status = Field(description="The match's status now (``status`` is the one then).")
    hidden: list[Any] = Field(description="What no spectator could see then; shown once the match is over.")
    log: list[LogEntry] = Field(default=[], description="Every entry up to the version (unless log=false).")


class LogPage(Open):
    events: list[LogEntry]


class Applied(Open):
    version: int = Field(description="The match's version after the action.")
    events: list[Event]


# --- ratings (app/ratings.py) ----------------------------------------------------------------


class RulesetRating(BaseModel):
    """A player's Glicko-2 rating in one ruleset."""

    rating: float
    rd: float = Field(description="Rating deviation: how unsure the rating still is (45 to 500).")
    volatility: float
    games: int = Field(description="Rated matches played in this ruleset.")
    provisional: bool = Field(description="RD ≥ 110: shown as '1500?', and not on the leaderboard.")


class PlayerProfile(BaseModel):
    id: str
    name: str
    ratings: dict[str, RulesetRating] = Field(
        description="By ruleset id: a ruleset appears once the player has played it rated."
    )


class LeaderboardRow(BaseModel):
    player: PlayerRef
    rating: float
    rd: float
    games: int


class Leaderboard(BaseModel):
    players: list[LeaderboardRow] = Field(description="Best first; only established ratings (RD < 110).")


# --- rulesets --------------------------------------------------------------------------------


class RulesetInfo(Open):
    id: str
    name: str
    description: str
    seats: int
    seat_names: list[str]
    view_kind: str = Field(description="How the browser draws the state ('board', 'eote', …).")
    options: dict[str, Any] = Field(description="JSON Schema of the match options, defaults included.")
    actions_schema: dict[str, Any] = Field(
        description="JSON Schema (draft 2020-12) of one action a client may send in a match of this "
        "ruleset: one variant per 'type' (the discriminator), with its fields, which are required, "
        "and the pieces and spaces each may name. Every entry of a match view's legal_actions "
        "validates against it; the GM's controls (gm_…) included."
    )
    state_schema: dict[str, Any] = Field(
        description="JSON Schema (draft 2020-12) of the match view's 'state' once the match has "
        "started ({} before), as any seat or a spectator sees it in this ruleset. Closed: it names "
        "every field the server sends."
    )


# --- the websocket's frames (/asyncapi.json) ---------------------------------------------------


class SnapshotFrame(MatchView):
    """Sent on connect and after ``sync``: the whole match as this connection may see it."""

    type: Literal["snapshot"]
    missed: list[LogEntry] | None = Field(
        None, description="With ?since= (or sync's since): the log entries after that version (up to 200)."
    )


class UpdateFrame(MatchView):
    """Sent after every applied action: the new match view, with what happened."""

    type: Literal["update"]
    events: list[Event] = Field(description="Every event of the new entries, in order.")
    entries: list[LogEntry] = Field(description="The log entries this connection had not been sent.")


class ActionFrame(BaseModel):
    """Apply one of your legal actions: the same rules as POST /api/v1/matches/{id}/actions."""

    type: Literal["action"]
    action: dict[str, Any] = Field(description="One of your legal_actions, sent back verbatim.")
    version: int = Field(description="The match version the action was chosen at.")
    id: Any = Field(None, description="Chosen by the client; the ack or error carries it back.")


class AckFrame(BaseModel):
    """The action frame with this ``id`` was applied (committed) at ``version``."""

    type: Literal["ack"]
    id: Any
    version: int


class ErrorFrame(Open):
    """A refusal. ``code`` is the HTTP status REST would give (400 bad frame, 401, 403,
    404, 409 with the current ``version``, 413, 422, 503); before the socket is closed
    on connect (401 bad token, 404 no match) ``id`` is absent."""

    type: Literal["error"]
    id: Any = None
    code: int
    message: str
    version: int | None = Field(None, description="A 409: the match's current version.")


class SyncFrame(BaseModel):
    """Ask for a fresh snapshot, with the entries after ``since`` under ``missed``."""

    type: Literal["sync"]
    since: int | None = None


class PingFrame(BaseModel):
    type: Literal["ping"]
    id: Any = None


class PongFrame(BaseModel):
    type: Literal["pong"]
    id: Any = None


class ChatFrame(Open):
    """Optional: a chat message, to every connection allowed to read its channel."""

    type: Literal["chat"]
    id: Any = None
    at: datetime | None = None
    channel: str | None = None
    player: PlayerRef | None = None
    author_name: str | None = Field(None, description="The author's name when posting (a rename keeps it).")
    author_role: str | None = Field(
        None, description="The author's role when posting: a seat's name in lower case, 'gm' or 'spectator'."
    )
    text: str | None = None


class StatusFrame(Open):
    """Optional: news about the connection or the match that is not an update."""

    type: Literal["status"]


SERVER_FRAMES: tuple[type[BaseModel], ...] = (
    SnapshotFrame, UpdateFrame, AckFrame, ErrorFrame, PongFrame, ChatFrame, StatusFrame,
)  # fmt: skip
CLIENT_FRAMES: tuple[type[BaseModel], ...] = (ActionFrame, SyncFrame, PingFrame)


class SeatPresence(Open):
    seat: int
    player_id: str | None
    connected: bool = Field(description="A websocket of this seat's player is open now.")
    last_seen: datetime | None = Field(description="When one was last seen open (null: never).")


class Presence(Open):
    seats: list[SeatPresence]
