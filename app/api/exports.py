"""NDJSON exports: a listing or a log as one JSON object per line, streamed.

A client asks with ``Accept: application/x-ndjson``. The answer is written while
the store is read a page at a time (:mod:`app.services.records`), so a whole
history never sits in memory. Two limits apply, like lichess's API: exports per
minute (``rate_limit_exports``, :func:`app.api.limits.export_limit`), and one
export streaming at a time per address (``export_streams_per_client``): another
one meanwhile is a 429 that says to wait a minute.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

from fastapi import HTTPException, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, TypeAdapter
from starlette.types import Receive, Scope, Send

from app.api.limits import client_address

NDJSON = "application/x-ndjson"
RETRY_AFTER_S = 60


def wants_ndjson(request: Request) -> bool:
    return NDJSON in request.headers.get("accept", "")


class ExportGate:
    """How many exports each client address has streaming; at most ``per_client``."""

    def __init__(self, per_client: int) -> None:
        self.per_client = per_client
        self.open: Counter[str] = Counter()

    def enter(self, client: str) -> None:
        if self.per_client > 0 and self.open[client] >= self.per_client:
            raise HTTPException(
                429,
                f"one export at a time: this address already has {self.open[client]} streaming; "
                f"retry in {RETRY_AFTER_S} s",
                headers={"Retry-After": str(RETRY_AFTER_S)},
            )
        self.open[client] += 1

    def leave(self, client: str) -> None:
        self.open[client] -= 1
        if self.open[client] <= 0:
            del self.open[client]


def export_gate(request: Request) -> ExportGate:
    return request.app.state.export_gate


class GatedStream(StreamingResponse):
    """A stream that gives its client's export slot back however it ends
    (finished, failed, or dropped by the client before or while it streams)."""

    def __init__(self, content: AsyncIterator[bytes], release: Callable[[], None]) -> None:
        super().__init__(content, media_type=NDJSON)
        self.release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.release()


def ndjson_response(
    request: Request, pages: AsyncIterator[Iterable[dict[str, Any]]], shape: type[BaseModel]
) -> StreamingResponse:
    """Stream every object of ``pages`` as a line, in the same ``shape`` as the JSON
    answer gives it; the client's export slot is taken now (or a 429 raised) and
    given back when the stream is over."""
    gate, client = export_gate(request), client_address(request)
    gate.enter(client)
    adapter = TypeAdapter(shape)

    async def lines() -> AsyncIterator[bytes]:
        async for page in pages:
            yield b"".join(
                adapter.dump_json(adapter.validate_python(item), exclude_unset=True) + b"\n" for item in page
            )

    return GatedStream(lines(), lambda: gate.leave(client))
