"""Bot decisions claimed by one server process at a time, with a lease (issue 30).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bot_claims",
        sa.Column("match_id", sa.String(32), primary_key=True),
        sa.Column("version", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("bot", sa.String(64), nullable=False),
        sa.Column("claimed_by", sa.String(100), nullable=False),
        sa.Column("claims", sa.Integer, nullable=False, server_default="1"),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("decided_by", sa.String(100), nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("seconds", sa.Float, nullable=True),
        sa.Column("outcome", sa.String(16), nullable=True),
    )
    op.create_index("ix_bot_claims_claimed_at", "bot_claims", ["claimed_at"])


def downgrade() -> None:
    op.drop_index("ix_bot_claims_claimed_at", table_name="bot_claims")
    op.drop_table("bot_claims")
