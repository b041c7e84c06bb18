"""E-mail addresses confirmed before use (double opt-in), and every e-mail sent, for the
per-recipient caps and each mail's confirm and unsubscribe links (security audit H1).

Revision ID: 0008
Revises: 0006
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0006"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    # Addresses set before this were never confirmed: they are pending, and hear nothing
    # until their owner sets them again and opens the link.
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("email_confirmed_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "email_sent",
        sa.Column("id", ID, primary_key=True, autoincrement=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False),
        sa.Column("address", sa.String(320), nullable=False),
        sa.Column("event", sa.String(32), nullable=False),
        sa.Column("match_id", sa.String(32), nullable=False),
        sa.Column("outbox_id", ID, nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_email_sent_address_at", "email_sent", ["address", "sent_at"])
    op.create_index("ix_email_sent_player_id", "email_sent", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_email_sent_player_id", table_name="email_sent")
    op.drop_index("ix_email_sent_address_at", table_name="email_sent")
    op.drop_table("email_sent")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("email_confirmed_at")
