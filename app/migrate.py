"""Run the Alembic migrations (the only way the schema changes)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from app.config import ROOT


def alembic_config() -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    return config


MIGRATION_LOCK = 7_403_311_601
"""The PostgreSQL advisory lock held while migrating (any number; the same in every process)."""


async def upgrade(engine: AsyncEngine) -> None:
    """Bring the database of ``engine`` to the newest schema. Several processes starting at
    once on PostgreSQL take turns (a transaction-scoped advisory lock): the first migrates,
    the others find the schema new. SQLite's one writer already serialises them."""

    def run(connection: Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.upgrade(config, "head")

    async with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        await connection.run_sync(run)
