"""Dice no one can rig: every seat's own seed, and each match's dice scheme; rematches.

Matches made before this keep ``hmac-sha256-v1`` (the server's seed alone) and
still verify; new ones are ``hmac-sha256-v2`` (docs/dice.md).

Revision ID: 0006
Revises: 0004 (chained after main's 0005 and 0004 when merging main)
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(
            sa.Column("dice_scheme", sa.String(24), nullable=False, server_default="hmac-sha256-v1")
        )
        batch.add_column(sa.Column("rematch_state", sa.String(16), nullable=True))
        batch.add_column(sa.Column("rematch_by", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("rematch_id", sa.String(32), nullable=True))
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("seed", sa.String(128), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("seed")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("rematch_id")
        batch.drop_column("rematch_by")
        batch.drop_column("rematch_state")
        batch.drop_column("dice_scheme")
