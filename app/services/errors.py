"""Errors the match service raises; the API turns each into its HTTP status."""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    status = 400

    def __init__(self, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra


class Unauthorized(ServiceError):
    status = 401


class Forbidden(ServiceError):
    status = 403


class NotFound(ServiceError):
    status = 404


class Conflict(ServiceError):
    """The match moved on (stale version, seat taken, finished): 409."""

    status = 409


class Invalid(ServiceError):
    status = 422


class Gone(ServiceError):
    """Used up or expired (a device link): 410."""

    status = 410


class TooMany(ServiceError):
    """Past a rate limit: 429."""

    status = 429


class Unavailable(ServiceError):
    """The database cannot be reached right now; nothing was changed: 503."""

    status = 503
