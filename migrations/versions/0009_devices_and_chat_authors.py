"""Devices a player can see and sign out (security audit M3), and chat messages that keep
their author's name and role as they were when posted (L4).

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A device's public id is the first 16 hex digits of its token's hash: the hash
    # itself stays private, and rows made before this get an id without a rewrite.
    with op.batch_alter_table("player_tokens") as batch:
        batch.add_column(sa.Column("device_name", sa.String(80), nullable=True))
        batch.add_column(sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("chat_messages") as batch:
        batch.add_column(sa.Column("author_name", sa.String(40), nullable=True))
        batch.add_column(sa.Column("author_role", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("chat_messages") as batch:
        batch.drop_column("author_role")
        batch.drop_column("author_name")
    with op.batch_alter_table("player_tokens") as batch:
        batch.drop_column("last_used_at")
        batch.drop_column("device_name")
