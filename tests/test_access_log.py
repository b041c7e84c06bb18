"""No credential in the server's request log (the audit's L11): a websocket's ``?token=``
and the secrets of device links and e-mail links are written ``…``, the rest kept."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from websockets.asyncio.client import connect

from app.access_log import LOGGERS
from tests.api.helpers import start_match
from tests.realtime.helpers import receive, socket_url

SECRET = "s3cretS3cretS3cret"


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def server_log(live_server) -> Iterator[list[str]]:
    """Every line uvicorn logs while the test runs, at ``dejarik serve``'s level (info).
    uvicorn logs a request before answering it: no line can come after the test's end."""
    lines = Lines()
    loggers = [logging.getLogger(name) for name in LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(lines)
        logger.setLevel(logging.INFO)
    yield lines.lines
    for logger, level in zip(loggers, levels, strict=True):
        logger.removeHandler(lines)
        logger.setLevel(level)


async def test_l11_tokens_and_link_secrets_are_left_out_of_the_log(client, live_server, server_log):
    match, players = await start_match(client)
    token = players[0]["token"]
    async with connect(socket_url(live_server, match["id"], players[0], since=0)) as socket:
        await receive(socket, "snapshot")
    for path in (f"/link/{SECRET}", f"/email/confirm/{SECRET}", f"/email/unsubscribe/{SECRET}?x=1"):
        await client.get(path)
    await client.get(f"/api/v1/matches/{match['id']}?token={SECRET}&after=3")
    log = "\n".join(server_log)
    assert token not in log and SECRET not in log, log
    assert f'"WebSocket /ws/matches/{match["id"]}?token=…&since=0"' in log
    assert '"GET /link/… HTTP/1.1"' in log
    assert '"GET /email/confirm/… HTTP/1.1"' in log
    assert '"GET /email/unsubscribe/…?x=1 HTTP/1.1"' in log
    assert f'"GET /api/v1/matches/{match["id"]}?token=…&after=3 HTTP/1.1" 200' in log
