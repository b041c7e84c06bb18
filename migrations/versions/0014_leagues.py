"""Leagues (issue 32): leagues, their entrants and games, and a match's league.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "leagues",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("host_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("ruleset", sa.String(40), nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("double", sa.Boolean, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("paired_rounds", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_leagues_host_id", "leagues", ["host_id"])
    op.create_table(
        "league_players",
        sa.Column(
            "league_id", sa.String(32), sa.ForeignKey("leagues.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("bot", sa.String(64), nullable=True),
        sa.Column("withdrawn", sa.Boolean, nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_league_players_player_id", "league_players", ["player_id"])
    op.create_table(
        "league_games",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True
        ),
        sa.Column(
            "league_id", sa.String(32), sa.ForeignKey("leagues.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("board", sa.Integer, nullable=False),
        sa.Column("first_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("second_id", sa.String(32), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("match_id", sa.String(32), nullable=True, unique=True),
        sa.Column("result", sa.String(8), nullable=True),
        sa.Column("forfeit", sa.Boolean, nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("league_id", "round", "board", name="uq_league_games_board"),
        sa.UniqueConstraint("league_id", "round", "first_id", name="uq_league_games_first"),
    )
    op.create_index("ix_league_games_league_id", "league_games", ["league_id"])
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("league_id", sa.String(32), nullable=True))
    op.create_index("ix_matches_league_id", "matches", ["league_id"])


def downgrade() -> None:
    op.drop_index("ix_matches_league_id", table_name="matches")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("league_id")
    op.drop_index("ix_league_games_league_id", table_name="league_games")
    op.drop_table("league_games")
    op.drop_index("ix_league_players_player_id", table_name="league_players")
    op.drop_table("league_players")
    op.drop_index("ix_leagues_host_id", table_name="leagues")
    op.drop_table("leagues")
