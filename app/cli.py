"""The ``dejarik`` command: ``serve``, ``migrate``, ``verify``, and the operator's ``backup``,
``restore`` and ``check`` (``app/operations.py``)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from app.config import Settings, get_settings
from app.db import make_engine
from app.logs import uvicorn_log_config
from app.migrate import upgrade
from app.operations import OperationError, backup, check, restore
from app.verify import CannotVerify, verify


def server_options(settings: Settings) -> dict[str, Any]:
    """How uvicorn serves the app (``dejarik serve``, and the tests' live servers).

    ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed only from
    ``TRUSTED_PROXIES``: uvicorn's own default believes them from loopback, where a local
    client (or a proxy that passes the header on) could choose its address, and so its
    rate-limit counts."""
    return {
        "ws": "websockets-sansio",  # no task or buffer of its own per socket: crowds are cheaper
        "ws_max_size": 256 * 1024,
        "proxy_headers": bool(settings.trusted_proxies),
        "forwarded_allow_ips": list(settings.trusted_proxies),
    }


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
    saving = commands.add_parser("backup", help="copy the database ($DATABASE_URL) to FILE, while it runs")
    saving.add_argument("file", type=Path)
    loading = commands.add_parser("restore", help="load a backup FILE into an empty database ($DATABASE_URL)")
    loading.add_argument("file", type=Path)
    commands.add_parser(
        "check", help="replay every match's log and compare it with the stored state (exit 1 on a difference)"
    )
    args = parser.parse_args(argv)

    if args.command == "verify":
        sys.exit(_verify(args.url))
    if args.command in ("backup", "restore", "check"):
        sys.exit(_operate(args.command, settings.database_url, getattr(args, "file", None)))

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
            log_level="info",
            **(
                {"log_config": uvicorn_log_config(), "access_log": False}
                if settings.log_format == "json"
                else {}
            ),
            **server_options(settings),
        )


def _operate(command: str, database_url: str, file: Path | None) -> int:
    """Exit status: 0 done (``check``: every match sound), 1 ``check`` found a difference,
    2 the command could not be carried out."""
    where = database_url.split("@")[-1]
    try:
        if command == "backup":
            assert file is not None
            backup(database_url, file)
            print(f"backed up {where} to {file}")
        elif command == "restore":
            assert file is not None
            asyncio.run(restore(database_url, file))
            asyncio.run(_migrate(database_url))  # a backup of an older schema is brought up to date
            print(f"restored {file} into {where}")
        else:
            report = asyncio.run(check(database_url))
            for problem in report.problems:
                print(f"DIFFERS {problem}")
            verdict = "all sound" if not report.problems else f"{len(report.problems)} problem(s)"
            print(f"checked {report.matches} matches ({report.entries} log entries) in {where}: {verdict}")
            return 1 if report.problems else 0
    except OperationError as error:
        print(f"cannot {command}: {error}", file=sys.stderr)
        return 2
    return 0


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
