"""Database tables. Alembic migrations (``migrations/``) are the only way they change."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

# Plain JSON, not JSONB: JSONB reorders object keys, and a state must reload exactly as
# it was written (the order of pieces is part of replaying a match identically).
JSONType = JSON()


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A UTC timestamp that always reads back with its offset: SQLite stores none, so
    what it returns is taken as the UTC it was written in (PostgreSQL keeps it)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


class Base(DeclarativeBase):
    pass


class Player(Base):
    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    """The hash of the token the player registered with. Signing in reads
    ``player_tokens`` (one row per device), which holds this one too."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    webhook_url: Mapped[str | None] = mapped_column(String(2000), nullable=True)
    """Where "your turn" and "match finished" are POSTed (Discord-compatible JSON)."""
    email: Mapped[str | None] = mapped_column(String(320), nullable=True)
    email_confirmed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    """When the player opened the confirmation link sent to ``email``; ``None``: pending
    (only the confirmation itself is sent there). A new address is pending again."""
    last_seen_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    """When a websocket of this player was last seen open (presence)."""


class PlayerToken(Base):
    """One device's bearer token (hashed): signing out deletes that device's row only."""

    __tablename__ = "player_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    device_name: Mapped[str | None] = mapped_column(String(80), nullable=True)
    """What the device is, from its user agent when it signed in ("Firefox Mobile on Android")."""
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)

    @property
    def device_id(self) -> str:
        """The device's public id: the start of its token's hash (the hash itself stays private)."""
        return self.token_hash[:16]


class DeviceLink(Base):
    """A one-time link that signs another browser in as the player (hashed, short-lived)."""

    __tablename__ = "device_links"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)


class Passkey(Base):
    """A WebAuthn credential a player registered: signs them in on any device."""

    __tablename__ = "passkeys"

    credential_id: Mapped[str] = mapped_column(String(1400), primary_key=True)
    """base64url, as browsers send it."""
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    public_key: Mapped[bytes] = mapped_column(LargeBinary)
    sign_count: Mapped[int] = mapped_column(BigInteger, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class WebAuthnChallenge(Base):
    """A challenge handed out with passkey options, used once by the matching verify."""

    __tablename__ = "webauthn_challenges"

    challenge: Mapped[str] = mapped_column(String(128), primary_key=True)
    """base64url."""
    purpose: Mapped[str] = mapped_column(String(16))
    """``register`` (of ``player_id``) or ``login`` (of anyone)."""
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), nullable=True)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Match(Base):
    """A match: its ruleset, options, seed and a cache of replaying its log."""

    __tablename__ = "matches"

    # ``seq`` orders matches newest-first for history pages; ``id`` is the public id.
    seq: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    id: Mapped[str] = mapped_column(String(32), unique=True, index=True)
    ruleset: Mapped[str] = mapped_column(String(40), index=True)
    options: Mapped[dict[str, Any]] = mapped_column(JSONType)
    status: Mapped[str] = mapped_column(String(16), index=True, default="waiting")
    version: Mapped[int] = mapped_column(Integer, default=0)
    host_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    seed: Mapped[str] = mapped_column(String(64))
    """The secret dice seed (hex); shown only once the match is finished."""
    seed_sha256: Mapped[str] = mapped_column(String(64))
    dice_count: Mapped[int] = mapped_column(Integer, default=0)
    dice_scheme: Mapped[str] = mapped_column(String(24), server_default="hmac-sha256-v1")
    """How the dice are made (docs/dice.md); matches made before v2 keep v1."""
    rematch_state: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """A rematch after the end: ``offered``, ``accepted`` or ``declined``."""
    rematch_by: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The seat that offered it."""
    rematch_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    """The new match, once accepted."""
    rematch_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    """When the rematch was offered: an offer left unanswered expires."""
    state: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)
    paused: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    turn_since: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    """When the clock of the decision under way started (moved on by paused time)."""
    paused_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    """When the GM paused the match (the clock stands still from then)."""
    rated: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Chosen at creation: the result changes the players' ratings (``app/ratings.py``)."""
    rating_changes: Mapped[list[Any] | None] = mapped_column(JSONType, nullable=True)
    """A rated match's end: each seat's ``{"seat", "player", "before", "after", …}``,
    written with the entry that finished it."""
    league_id: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    """The league (issue 32) whose game this match is, if any."""

    seats: Mapped[list[Seat]] = relationship(
        back_populates="match", order_by="Seat.seat", lazy="selectin", cascade="all, delete-orphan"
    )
    host: Mapped[Player] = relationship(lazy="selectin")

    # Every write checks the version it read: a concurrent writer that got there
    # first makes this one fail instead of overwriting it (a 409 for the caller).
    __mapper_args__ = {"version_id_col": version, "version_id_generator": False}  # noqa: RUF012


class Seat(Base):
    __tablename__ = "seats"

    match_seq: Mapped[int] = mapped_column(ForeignKey("matches.seq", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"), nullable=True, index=True)
    npc: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """The host (a GM) plays this seat as an NPC; its player, if any, watches."""
    bot: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """The id of the bot (``app.bots``) whose player holds this seat, if any."""
    seed: Mapped[str | None] = mapped_column(String(128), nullable=True)
    """The seat's own dice seed (hex), mixed into every die of a v2 match."""

    match: Mapped[Match] = relationship(back_populates="seats")
    player: Mapped[Player | None] = relationship(lazy="selectin")


class LogEntry(Base):
    """One applied action: the append-only match log, the truth of a match."""

    __tablename__ = "match_log"
    __table_args__ = (UniqueConstraint("match_seq", "version", name="uq_match_log_version"),)

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    match_seq: Mapped[int] = mapped_column(ForeignKey("matches.seq", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The acting seat; ``None`` for the host's actions (start, GM controls)."""
    action: Mapped[dict[str, Any]] = mapped_column(JSONType)
    dice_from: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """How many dice the match had drawn before this entry: replaying an entry
    starts its dice there, so a replay that skips undone entries stays exact."""
    events: Mapped[list[Any]] = mapped_column(JSONType)
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ChatMessage(Base):
    """One message of a match's chat, kept with the match."""

    __tablename__ = "chat_messages"
    __table_args__ = (
        Index("ix_chat_messages_match_channel", "match_seq", "channel", "id"),
        Index("ix_chat_messages_player_at", "player_id", "at"),  # the rate limit's count
    )

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    match_seq: Mapped[int] = mapped_column(ForeignKey("matches.seq", ondelete="CASCADE"))
    channel: Mapped[str] = mapped_column(String(16))
    """``players`` (seated players and the GM) or ``spectators``."""
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    text: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    author_name: Mapped[str | None] = mapped_column(String(40), nullable=True)
    """The author's name when posting (a later rename does not change it); ``None`` on
    messages older than the column: the current name is shown."""
    author_role: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """What the author was in the match when posting: ``blue``/``red``/… seat, ``gm`` or ``spectator``."""

    player: Mapped[Player] = relationship(lazy="selectin")


class Outbox(Base):
    """A notification owed, written in the same transaction as the log entry that
    owes it; the notifier delivers it (at least once) and marks it done."""

    __tablename__ = "outbox"

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    channel: Mapped[str] = mapped_column(String(16))
    """``webhook``, ``email`` or ``push`` (each subscribed browser): the player's
    addresses are read when it is delivered."""
    event: Mapped[str] = mapped_column(String(32))
    """``your_turn``, ``match_finished`` or ``confirm_email`` (a new address's link)."""
    match_id: Mapped[str] = mapped_column(String(32))
    ruleset: Mapped[str] = mapped_column(String(40))
    version: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(String(500))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    next_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    """Not tried again before this time (the backoff)."""
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    """A notifier claimed the row until then; after it, another may."""
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    done_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    outcome: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """``delivered``, ``failed`` (out of tries), ``skipped`` (no address any more), or an
    e-mail not sent: ``unconfirmed`` (the address is pending), ``quiet`` (one went to that
    address for that match within ``NOTIFY_EMAIL_QUIET_S``), ``daily_cap``
    (``NOTIFY_EMAIL_DAILY_MAX`` reached), ``unsure`` (an earlier try was cut off by its
    deadline while the mail was being sent: it may have gone, and is not sent twice), or a
    push not sent: ``watching`` ("your turn" while the player has that match open)."""
    last_error: Mapped[str | None] = mapped_column(String(500), nullable=True)

    __table_args__ = (Index("ix_outbox_due", "done_at", "next_at"),)


class EmailSent(Base):
    """One e-mail sent (or being sent) to an address: the per-recipient caps count these,
    and the mail's one secret (hashed) confirms the address or unsubscribes it."""

    __tablename__ = "email_sent"
    __table_args__ = (Index("ix_email_sent_address_at", "address", "sent_at"),)

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    """SHA-256 of the secret in the mail's links (``/email/confirm/…``, ``/email/unsubscribe/…``)."""
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    address: Mapped[str] = mapped_column(String(320))
    """Lower-cased: the caps are per recipient, whoever set the address."""
    event: Mapped[str] = mapped_column(String(32))
    match_id: Mapped[str] = mapped_column(String(32))
    """``""`` for a confirmation."""
    outbox_id: Mapped[int | None] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), nullable=True)
    sent_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class BotClaim(Base):
    """One bot decision (a match at a version) claimed by one server process
    (``app/bots/claims.py``): it holds the decision until ``lease_until``, renewing it
    while it thinks; once the lease has run out, another process may take it over."""

    __tablename__ = "bot_claims"
    __table_args__ = (Index("ix_bot_claims_claimed_at", "claimed_at"),)

    match_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    bot: Mapped[str] = mapped_column(String(64))
    claimed_by: Mapped[str] = mapped_column(String(100))
    """The process holding the claim (``host:pid:random``), or the last one that held it."""
    claims: Mapped[int] = mapped_column(Integer, default=1)
    """How many times the decision was claimed: more than 1, it was taken over."""
    claimed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    """``None``: released (or settled); past: free for another process to take."""
    decided_by: Mapped[str | None] = mapped_column(String(100), nullable=True)
    """The process that computed the decision and sent its move; set when settled."""
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    """The decision's search time."""
    outcome: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """``moved`` (the move was written), ``stale`` (the match had moved on: a 409), ``refused``."""


class PlayerRating(Base):
    """A player's Glicko-2 rating in one ruleset, changed only with the write that
    finishes a rated match (``Store.append``)."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_ruleset_rating", "ruleset", "rating"),)

    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(40), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    rd: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    updated_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    """When the last rated match ended: the RD grows with the days since."""


class RatingHistory(Base):
    """One rated match of one player: the rating before and after (the player page's chart)."""

    __tablename__ = "rating_history"
    __table_args__ = (
        UniqueConstraint("match_id", "player_id", name="uq_rating_history_match_player"),
        Index("ix_rating_history_player", "player_id", "ruleset", "at"),
    )

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    match_id: Mapped[str] = mapped_column(String(32))
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    ruleset: Mapped[str] = mapped_column(String(40))
    before: Mapped[float] = mapped_column(Float)
    after: Mapped[float] = mapped_column(Float)
    rd_after: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(UTCDateTime)


class VapidKey(Base):
    """The server's one VAPID key pair (Web Push, RFC 8292): made by the first process
    that needs it, so every process signs with the same key."""

    __tablename__ = "vapid_keys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    """Always 1: a second process's insert of a key of its own finds it taken."""
    private_pem: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class PushSubscription(Base):
    """One browser's Web Push subscription (its ``PushSubscription``): the notices a
    player gets are pushed to each of theirs (at most a few a player)."""

    __tablename__ = "push_subscriptions"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    endpoint: Mapped[str] = mapped_column(String(2000))
    p256dh: Mapped[str] = mapped_column(String(100))
    """The browser's P-256 public key, base64url (65 bytes decoded)."""
    auth: Mapped[str] = mapped_column(String(40))
    """The browser's auth secret, base64url (16 bytes decoded)."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class MatchWatcher(Base):
    """A player had a match open by websocket on some server process at ``seen_at``:
    each process upserts its pairs every ``PRESENCE_BEAT_S`` (and one at once when a
    socket opens), so every process's notifier knows not to push that player "your
    turn" (``app/realtime/presence.py``). Rows a few beats old are deleted."""

    __tablename__ = "match_watchers"

    player_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    match_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    seen_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)


class League(Base):
    """A league (issue 32): players meet in rounds of matches of one ruleset, round-robin
    or Swiss; its games and standings are in ``league_games`` (``app/services/leagues.py``)."""

    __tablename__ = "leagues"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    host_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    ruleset: Mapped[str] = mapped_column(String(40))
    options: Mapped[dict[str, Any]] = mapped_column(JSONType)
    format: Mapped[str] = mapped_column(String(16))
    """``round-robin`` or ``swiss``."""
    rounds: Mapped[int] = mapped_column(Integer, default=0)
    """Swiss: how many rounds; round-robin: set at the start (the Berger tables')."""
    double: Mapped[bool] = mapped_column(Boolean, default=False)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    status: Mapped[str] = mapped_column(String(16), default="open")
    """``open`` (players join), ``running``, ``finished``."""
    paired_rounds: Mapped[int] = mapped_column(Integer, default=0)
    """How many rounds are paired: a new round is written only where this is still the
    number read (a guarded update), so it is paired once however many processes try."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class LeaguePlayer(Base):
    """One entrant of a league: a person, or a bot the host entered (its bot player)."""

    __tablename__ = "league_players"

    league_id: Mapped[str] = mapped_column(ForeignKey("leagues.id", ondelete="CASCADE"), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True, index=True)
    number: Mapped[int] = mapped_column(Integer)
    """The order of entry (the pairing number of the Berger tables)."""
    bot: Mapped[str | None] = mapped_column(String(64), nullable=True)
    withdrawn: Mapped[bool] = mapped_column(Boolean, default=False)
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class LeagueGame(Base):
    """One pairing of a league's round: its match (none for a bye) and its result, written
    once: by the write that finishes the match, or by the host's adjudication."""

    __tablename__ = "league_games"
    __table_args__ = (
        UniqueConstraint("league_id", "round", "board", name="uq_league_games_board"),
        UniqueConstraint("league_id", "round", "first_id", name="uq_league_games_first"),
    )

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    league_id: Mapped[str] = mapped_column(ForeignKey("leagues.id", ondelete="CASCADE"), index=True)
    round: Mapped[int] = mapped_column(Integer)
    board: Mapped[int] = mapped_column(Integer)
    """The pairing's place in its round, from 0."""
    first_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    second_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    """``None``: ``first_id`` has a bye."""
    match_id: Mapped[str | None] = mapped_column(String(32), nullable=True, unique=True)
    result: Mapped[str | None] = mapped_column(String(8), nullable=True)
    """``None`` (not played yet), ``1-0``, ``0-1``, ``½-½`` or ``bye``."""
    forfeit: Mapped[bool] = mapped_column(Boolean, default=False)
    """Decided without play: a withdrawal, or the host's adjudication."""
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
