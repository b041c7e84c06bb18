"""Ratings (issue 32): rated matches, each player's Glicko-2 rating per ruleset, its history.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("rating_changes", sa.JSON, nullable=True))
    op.create_table(
        "ratings",
        sa.Column(
            "player_id", sa.String(32), sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("ruleset", sa.String(40), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False, server_default="0"),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_ratings_ruleset_rating", "ratings", ["ruleset", "rating"])
    op.create_table(
        "rating_history",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True
        ),
        sa.Column("match_id", sa.String(32), nullable=False),
        sa.Column(
            "player_id", sa.String(32), sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("ruleset", sa.String(40), nullable=False),
        sa.Column("before", sa.Float, nullable=False),
        sa.Column("after", sa.Float, nullable=False),
        sa.Column("rd_after", sa.Float, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("match_id", "player_id", name="uq_rating_history_match_player"),
    )
    op.create_index("ix_rating_history_player", "rating_history", ["player_id", "ruleset", "at"])


def downgrade() -> None:
    op.drop_index("ix_rating_history_player", table_name="rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_ratings_ruleset_rating", table_name="ratings")
    op.drop_table("ratings")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("rating_changes")
        batch.drop_column("rated")
