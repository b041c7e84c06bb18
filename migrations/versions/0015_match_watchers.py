"""Presence per (player, match) shared by every server process: who has which match
open, so no process pushes "your turn" to a player watching it on another.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "match_watchers",
        sa.Column("player_id", sa.String(32), primary_key=True),
        sa.Column("match_id", sa.String(32), primary_key=True),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_match_watchers_seen_at", "match_watchers", ["seen_at"])


def downgrade() -> None:
    op.drop_index("ix_match_watchers_seen_at", table_name="match_watchers")
    op.drop_table("match_watchers")
