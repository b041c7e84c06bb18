"""The ``dejarik`` command: ``dejarik serve``, ``dejarik migrate`` and ``dejarik verify``."""

from __future__ import annotations

import argparse
import asyncio
import sys

import httpx
import uvicorn

from app.config import get_settings
from app.db import make_engine
from app.migrate import upgrade
from app.verify import CannotVerify, verify


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
    check = commands.add_parser(
        "verify", help="recompute every die of a finished match on any server (exit 1 on a mismatch)"
    )
    check.add_argument("url", help="the match's page or API address, e.g. https://host/matches/<id>")
    args = parser.parse_args(argv)

    if args.command == "verify":
        sys.exit(_verify(args.url))

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
            ws="websockets-sansio",  # no task or buffer of its own per socket: crowds are cheaper
            ws_max_size=256 * 1024,
            log_level="info",
        )


def _verify(url: str) -> int:
    """Exit status: 0 every die checks out, 1 a mismatch, 2 the match cannot be checked."""
    try:
        match, report = verify(url)
    except (CannotVerify, httpx.HTTPError) as error:
        print(f"cannot verify: {error}", file=sys.stderr)
        return 2
    scheme = (match.get("dice") or {}).get("scheme", "hmac-sha256-v1")
    for problem in report.problems:
        print(f"MISMATCH {problem}")
    verdict = "every one matches" if report.ok else f"{len(report.problems)} problem(s)"
    print(f"checked {report.dice} dice in {report.rolls} rolls of match {match['id']} ({scheme}): {verdict}")
    return 0 if report.ok else 1


if __name__ == "__main__":
    main()
