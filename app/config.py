"""All settings in one place, read from the environment (and a `.env` file)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict

ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = f"sqlite+aiosqlite:///{ROOT / 'dejarik.db'}"
    """SQLite (embedded, the default) or ``postgresql+asyncpg://user@host/db``."""
    broker_url: str = "memory://"
    """How match updates reach every server process: ``memory://`` (one process),
    ``postgresql://…`` (LISTEN/NOTIFY) or ``redis://…`` (pub/sub)."""
    host: str = "127.0.0.1"
    port: int = 8000
    max_body_bytes: int = 64 * 1024
    """Request bodies and websocket frames larger than this are refused."""
    cookie_name: str = "dejarik_token"
    cookie_secure: bool = False
    db_pool_size: int = 30
    """PostgreSQL connections per process (and as many again on demand). A pool much
    smaller than the number of actions in flight makes some wait far longer than
    others: at 100 busy matches, 10 gave a p99 of 0.9 s, 50 gave 0.27 s."""


@cache
def get_settings() -> Settings:
    return Settings()
