"""The ``dejarik`` command: ``dejarik serve`` and ``dejarik migrate``."""

from __future__ import annotations

import argparse
import asyncio

import uvicorn

from app.config import get_settings
from app.db import make_engine
from app.migrate import upgrade


async def _migrate(url: str) -> None:
    engine = make_engine(url)
    try:
        await upgrade(engine)
    finally:
        await engine.dispose()


def main(argv: list[str] | None = None) -> None:
    settings = get_settings()
    parser = argparse.ArgumentParser(prog="dejarik", description="The Dejarik match server.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="migrate the database, then serve HTTP and websockets")
    serve.add_argument("--host", default=settings.host, help="default: $HOST or 127.0.0.1")
    serve.add_argument("--port", type=int, default=settings.port, help="default: $PORT or 8000")
    serve.add_argument("--workers", type=int, default=1, help="processes (needs a shared BROKER_URL)")
    commands.add_parser("migrate", help="bring the database ($DATABASE_URL) to the newest schema")
    args = parser.parse_args(argv)

    if args.command == "migrate":
        asyncio.run(_migrate(settings.database_url))
        print(f"migrated {settings.database_url.split('@')[-1]}")
    elif args.command == "serve":
        asyncio.run(_migrate(settings.database_url))
        uvicorn.run(
            "app.main:create_app",
            factory=True,
            host=args.host,
            port=args.port,
            workers=args.workers,
            ws_max_size=256 * 1024,
            log_level="info",
        )


if __name__ == "__main__":
    main()
