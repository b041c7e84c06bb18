"""Every refusal is a 4xx with a message that says what is wrong; nothing is a 500.

Every error body has one shape, :class:`ErrorBody`: ``{"detail": "<what is wrong>"}``,
plus ``errors`` (one per field) on a 422 of request validation and whatever fields
the refusal adds (a 409 carries the current ``version``). A 429 and a 503 also send
``Retry-After`` (seconds).
"""

from __future__ import annotations

import json
import logging
from typing import Any

import asyncpg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.json_input import UnsafeInput, parse, printable
from app.api.limits import RateLimited
from app.services.errors import ServiceError, Unavailable

log = logging.getLogger(__name__)

DATABASE_UNAVAILABLE = "the database is unavailable right now; nothing was changed, please retry"
DATABASE_ERRORS: tuple[type[BaseException], ...] = (
    DBAPIError,
    ConnectionError,  # a refused connection while PostgreSQL is down or restarting
    TimeoutError,
    asyncpg.PostgresError,  # "the database system is starting up", raised while connecting
    asyncpg.InterfaceError,
)
"""What a statement raises when the database is away (not a bug: a 503, retry later)."""


class FieldError(BaseModel):
    loc: list[str | int] = Field(description='Where the problem is, e.g. ["body", "action", "type"].')
    msg: str = Field(description="What is wrong with it.")
    type: str = Field(description="A machine-readable kind, e.g. missing, int_parsing, unsafe_input.")


class ErrorBody(BaseModel):
    """The body of every 4xx and 5xx the server sends."""

    model_config = ConfigDict(extra="allow")
    detail: str = Field(description="What is wrong, for people.")
    errors: list[FieldError] | None = Field(None, description="422 of request validation only: each field.")
    version: int | None = Field(None, description="409 only: the match's current version.")


def _error_response(description: str, headers: bool = False) -> dict[str, Any]:
    response: dict[str, Any] = {"model": ErrorBody, "description": description}
    if headers:
        response["headers"] = {
            "Retry-After": {"description": "Seconds to wait before retrying.", "schema": {"type": "integer"}}
        }
    return response


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: _error_response("A request the server cannot take (e.g. a malformed header)."),
    422: _error_response(
        "The request or the action is invalid; `detail` says why, `errors` names each field."
    ),
    429: _error_response("Too many requests from this client: retry after `Retry-After` seconds.", True),
    503: _error_response(
        "The database is unavailable: nothing was changed, retry after `Retry-After`.", True
    ),
}
"""The error shapes every API route may answer; ``apidocs`` adds the route-specific ones."""


def field_errors(error: RequestValidationError) -> list[dict[str, Any]]:
    """Each problem's location, message and kind, and never the input itself: the input
    may be what cannot be encoded (NaN, a lone surrogate)."""
    return [
        {
            "loc": [p if isinstance(p, int) else printable(str(p)) for p in problem.get("loc", ())],
            "msg": printable(str(problem.get("msg", ""))),
            "type": str(problem.get("type", "")),
        }
        for problem in error.errors()
    ]


ROUTE_ERRORS = {
    401: "No valid token: send 'Authorization: Bearer <token>'.",
    403: "Not yours to do: not your seat, not your decision, or not the host.",
    404: "No such thing.",
    409: "The match moved on (a stale version: `version` is the current one), a seat is taken, "
    "or the match is over.",
    410: "Used up or expired (a device link).",
    413: "The request body is too large.",
}


BOT_QUOTA_RESPONSE: dict[int | str, dict[str, Any]] = {
    429: _error_response(
        "Too many: you already host `BOT_MATCHES_PER_PLAYER` unfinished matches with a bot (2 by "
        "default; `detail` says how many): finish or resign one first. Or past a rate limit: "
        "retry after `Retry-After` seconds.",
        True,
    )
}
"""The 429 of the routes that seat bots: the quota of running bot matches a player hosts."""


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` of a route that may also refuse with these statuses."""
    return {
        status: ERROR_RESPONSES[status]
        if status in ERROR_RESPONSES
        else _error_response(ROUTE_ERRORS[status])
        for status in statuses
    }


def describe_request_errors(error: RequestValidationError) -> str:
    parts = []
    for problem in error.errors():
        if problem.get("type") == "json_invalid":
            reason = printable(str(problem.get("ctx", {}).get("error", "parse error")))
            parts.append(f"the body is not valid JSON ({reason})")
            continue
        where = ".".join(p if isinstance(p, str) else str(p) for p in problem["loc"])
        parts.append(f"{printable(where)}: {printable(str(problem['msg']))}")
    return "; ".join(parts)


def notice_outage(app: Any, error: BaseException) -> None:
    """Tell the app's database watch (``app/realtime/outage.py``) when ``error`` means
    the database is unreachable (not, say, a value it refused)."""
    watch = getattr(app.state, "database_watch", None)
    if watch is not None and (not isinstance(error, DBAPIError) or error.connection_invalidated):
        # An Unavailable from the store, a refused connection, or a dropped one.
        watch.failed()


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def service_error(request: Request, error: ServiceError) -> JSONResponse:
        headers = None
        if isinstance(error, Unavailable):
            notice_outage(request.app, error)
            headers = {"Retry-After": "1"}
        return JSONResponse(
            {"detail": error.message, **error.extra}, status_code=error.status, headers=headers
        )

    @app.exception_handler(RateLimited)
    async def rate_limited(_request: Request, error: RateLimited) -> JSONResponse:
        return JSONResponse(
            {"detail": error.message}, status_code=429, headers={"Retry-After": str(error.retry_after)}
        )

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse(
            {"detail": describe_request_errors(error), "errors": field_errors(error)},
            status_code=422,
        )

    async def database_error(request: Request, error: Exception) -> JSONResponse:
        # A connection the database dropped (a restart) fails once; SQLAlchemy then
        # discards the pool, so a retry finds fresh connections. Nothing was written.
        log.warning("database error: %s", error)
        notice_outage(request.app, error)
        return JSONResponse(
            {"detail": DATABASE_UNAVAILABLE},
            status_code=503,
            headers={"Retry-After": "1"},
        )

    for kind in DATABASE_ERRORS:
        app.add_exception_handler(kind, database_error)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        headers = error.headers
        if error.status_code == 405:
            headers = {**(headers or {}), "Allow": ", ".join(allowed_methods(request))}
        return JSONResponse({"detail": error.detail}, status_code=error.status_code, headers=headers)


def allowed_methods(request: Request) -> list[str]:
    """Every method some route serves at this path (Starlette names only the last route's)."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _ = route.matches(request.scope)
        if match != Match.NONE:
            methods |= getattr(route, "methods", None) or set()
    return sorted(methods)


class BodyLimit:
    """Check every request before the app sees it: a body over ``limit`` bytes is a
    413; a NUL byte in the path, query or form, and JSON no part of the server can
    take (``app/api/json_input.py``), are a 422 naming the field."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if "\x00" in scope["path"]:
            await refuse(send, 422, "path: must not contain a NUL character")
            return
        if b"%00" in scope["query_string"].lower():
            await refuse(send, 422, "query: must not contain a NUL character")
            return
        headers = dict(scope["headers"])
        declared = headers.get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._too_large(send)
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
                await self._too_large(send)
                return
            if not message.get("more_body", False):
                break
        body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request")
        problem = body_problem(headers.get(b"content-type", b""), body)
        if problem is not None:
            await refuse(send, 422, problem.message, [problem_as_field_error(problem)])
            return

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, send: Send) -> None:
        await refuse(send, 413, f"the request body is larger than {self.limit // 1024} KB")


def body_problem(content_type: bytes, body: bytes) -> UnsafeInput | None:
    """What makes ``body`` unsafe, or None (a body that is not JSON at all is left to
    FastAPI, which says where it stops parsing)."""
    if not body.strip():
        return None
    kind = content_type.split(b";")[0].strip().lower()
    if kind == b"application/x-www-form-urlencoded":
        return UnsafeInput("form", "must not contain a NUL character") if b"%00" in body.lower() else None
    if kind and kind != b"application/json" and not kind.endswith(b"+json"):
        return None  # FastAPI parses JSON only from these (or when no type is given)
    try:
        parse(body)
    except UnsafeInput as problem:
        return problem
    except ValueError:  # not JSON (or not UTF-8): FastAPI's 422 says so
        return None
    return None


def problem_as_field_error(problem: UnsafeInput) -> dict[str, Any]:
    loc: list[str | int] = [int(p) if p.isdecimal() else p for p in problem.where.split(".")]
    return {"loc": loc, "msg": problem.problem, "type": "unsafe_input"}


async def refuse(
    send: Send,
    status: int,
    detail: str,
    errors: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> None:
    """Answer with an :class:`ErrorBody` straight from ASGI (for middleware)."""
    content: dict[str, Any] = {"detail": detail}
    if errors is not None:
        content["errors"] = errors
    body = json.dumps(content).encode()
    raw_headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw_headers += [(name.lower().encode(), value.encode()) for name, value in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": body})
