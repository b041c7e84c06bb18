"""The server's request log without credentials in it.

uvicorn logs every request's path and query (``uvicorn.access``) and every websocket
handshake's (``uvicorn.error``): a bearer token in ``?token=`` and the one-time secrets in
``/link/…``, ``/email/confirm/…`` and ``/email/unsubscribe/…`` would sit in the log, to
be read by whoever reads logs. :class:`RedactSecrets` writes ``…`` in their place and
leaves the rest of the line.
"""

from __future__ import annotations

import logging
import re

SECRET_PATH = re.compile(r"(/(?:link|email/confirm|email/unsubscribe)/)[^/?#\s\"]+")
SECRET_QUERY = re.compile(r"([?&](?:token|access_token)=)[^&#\s\"]*", re.IGNORECASE)
LOGGERS = ("uvicorn.access", "uvicorn.error")


def redact(text: str) -> str:
    return SECRET_QUERY.sub(r"\1…", SECRET_PATH.sub(r"\1…", text))


class RedactSecrets(logging.Filter):
    """Replaces the secrets in a record's arguments (uvicorn passes the path as one)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and record.args:
            record.args = tuple(redact(arg) if isinstance(arg, str) else arg for arg in record.args)
        elif not record.args and isinstance(record.msg, str):
            record.msg = redact(record.msg)
        return True


def install_redaction() -> None:
    """Put the filter on uvicorn's loggers, once per process."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactSecrets) for f in logger.filters):
            logger.addFilter(RedactSecrets())
