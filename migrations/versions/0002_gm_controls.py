"""GM controls: NPC seats, and where each log entry's dice start (for undo).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("npc", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("match_log") as batch:
        batch.add_column(sa.Column("dice_from", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("match_log") as batch:
        batch.drop_column("dice_from")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("npc")
