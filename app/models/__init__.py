"""Database tables. Alembic migrations (``migrations/``) are the only way they change."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

# Plain JSON, not JSONB: JSONB reorders object keys, and a state must reload exactly as
# it was written (the order of pieces is part of replaying a match identically).
JSONType = JSON()


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class Player(Base):
    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


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
    state: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)
    paused: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

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
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
