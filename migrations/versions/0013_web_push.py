"""Web Push (issue 33): the server's VAPID key and the players' push subscriptions.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "vapid_keys",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("private_pem", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column(
            "player_id", sa.String(32), sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("endpoint", sa.String(2000), nullable=False),
        sa.Column("p256dh", sa.String(100), nullable=False),
        sa.Column("auth", sa.String(40), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_push_subscriptions_player_id", "push_subscriptions", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_push_subscriptions_player_id", table_name="push_subscriptions")
    op.drop_table("push_subscriptions")
    op.drop_table("vapid_keys")
