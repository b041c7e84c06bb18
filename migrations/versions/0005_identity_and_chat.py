"""Identity on every device (a token per device, device links, passkeys) and match chat.

Revision ID: 0005
Revises: 0002
Create Date: 2026-11-23

Every existing player's token is copied into ``player_tokens``, so each browser
stays signed in through the upgrade.
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0002"
branch_labels = None
depends_on = None

BIGINT = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "player_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column(
            "player_id", sa.String(32), sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_player_tokens_player_id", "player_tokens", ["player_id"])
    op.execute(
        "INSERT INTO player_tokens (token_hash, player_id, created_at) "
        "SELECT token_hash, id, created_at FROM players"
    )
    op.create_table(
        "device_links",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column(
            "player_id", sa.String(32), sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_device_links_player_id", "device_links", ["player_id"])
    op.create_table(
        "passkeys",
        sa.Column("credential_id", sa.String(1400), primary_key=True),
        sa.Column(
            "player_id", sa.String(32), sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("public_key", sa.LargeBinary(), nullable=False),
        sa.Column("sign_count", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_passkeys_player_id", "passkeys", ["player_id"])
    op.create_table(
        "webauthn_challenges",
        sa.Column("challenge", sa.String(128), primary_key=True),
        sa.Column("purpose", sa.String(16), nullable=False),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "chat_messages",
        sa.Column("id", BIGINT, primary_key=True, autoincrement=True),
        sa.Column("match_seq", BIGINT, sa.ForeignKey("matches.seq", ondelete="CASCADE"), nullable=False),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_chat_messages_match_channel", "chat_messages", ["match_seq", "channel", "id"])
    op.create_index("ix_chat_messages_player_at", "chat_messages", ["player_id", "at"])


def downgrade() -> None:
    op.drop_table("chat_messages")
    op.drop_table("webauthn_challenges")
    op.drop_table("passkeys")
    op.drop_table("device_links")
    op.drop_table("player_tokens")
