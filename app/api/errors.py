"""Every refusal is a 4xx with a message that says what is wrong; nothing is a 500."""

from __future__ import annotations

import json
import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.services.errors import ServiceError

log = logging.getLogger(__name__)


def describe_request_errors(error: RequestValidationError) -> str:
    parts = []
    for problem in error.errors():
        if problem.get("type") == "json_invalid":
            parts.append(f"the body is not valid JSON ({problem.get('ctx', {}).get('error', 'parse error')})")
            continue
        where = ".".join(str(p) for p in problem["loc"])
        parts.append(f"{where}: {problem['msg']}")
    return "; ".join(parts)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def service_error(_request: Request, error: ServiceError) -> JSONResponse:
        return JSONResponse({"detail": error.message, **error.extra}, status_code=error.status)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse(
            {
                "detail": describe_request_errors(error),
                "errors": json.loads(json.dumps(error.errors(), default=str)),
            },
            status_code=422,
        )

    @app.exception_handler(DBAPIError)
    async def database_error(_request: Request, error: DBAPIError) -> JSONResponse:
        # A connection the database dropped (a restart) fails once; SQLAlchemy then
        # discards the pool, so a retry finds fresh connections. Nothing was written.
        log.warning("database error: %s", error)
        return JSONResponse(
            {"detail": "the database is unavailable right now; nothing was changed, please retry"},
            status_code=503,
            headers={"Retry-After": "1"},
        )

    @app.exception_handler(HTTPException)
    async def http_error(_request: Request, error: HTTPException) -> JSONResponse:
        return JSONResponse({"detail": error.detail}, status_code=error.status_code, headers=error.headers)


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with a 413, before the app reads them."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._refuse(send)
            return
        # Read the (possibly chunked) body up to the limit, then replay it to the app.
        messages: list[Message] = []
        size = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            if size > self.limit:
                await self._refuse(send)
                return
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps({"detail": f"the request body is larger than {self.limit // 1024} KB"}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
