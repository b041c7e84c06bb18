"""``LOG_FORMAT=json``: one JSON object a line, through the standard ``logging`` module.

Each line has ``time``, ``level``, ``logger`` and ``message``, and the fields a call
gave in ``extra`` (a request's ``method``, ``route``, ``status``, ``duration_ms`` and
``client``: ``app/metrics.py``; an action's ``match_id``, ``version``, ``seat``,
``action`` and ``ruleset``). uvicorn's own lines (start-up, websocket handshakes) become
JSON too, still redacted by ``app/access_log.py``; its access line gives way to the
request line, which names the route and the time taken. Unset (``text``), nothing changes.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime"}
LEFT_OUT = STANDARD | {"color_message"}  # uvicorn's copy of the message with terminal colours
UVICORN = ("uvicorn", "uvicorn.error")


class JsonFormatter(logging.Formatter):
    """A record as one JSON object: its message (arguments filled in) and its extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in LEFT_OUT and not key.startswith("_") and key not in line:
                line[key] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str, ensure_ascii=False)


def uvicorn_log_config() -> dict[str, Any]:
    """uvicorn's ``log_config`` for ``dejarik serve``: every line JSON from the first one
    (uvicorn logs its start before the application's own start-up could set this up)."""
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {"json": handler},
        "root": {"handlers": ["json"], "level": "INFO"},
        "loggers": {
            "uvicorn": {"handlers": ["json"], "level": "INFO", "propagate": False},
            "uvicorn.error": {"level": "INFO"},
            # The request line (app/metrics.py) replaces uvicorn's access line.
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
        },
    }


def use_json_logs() -> None:
    """Every log line of this process as JSON on stderr, from INFO up. Idempotent."""
    formatter = JsonFormatter()
    root = logging.getLogger()
    if not any(isinstance(h.formatter, JsonFormatter) for h in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(formatter)
        root.addHandler(handler)
    root.setLevel(logging.INFO)
    for name in UVICORN:  # uvicorn's handlers (its dictConfig ran before the app started)
        for handler in logging.getLogger(name).handlers:
            handler.setFormatter(formatter)
    # The request line (app/metrics.py) replaces uvicorn's access line.
    logging.getLogger("uvicorn.access").disabled = True
