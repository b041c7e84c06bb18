"""Hostile values for the fuzz tests: what a careless or malicious client may send.

Every value is built from a seeded ``random.Random``, so a failure replays exactly.
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Iterator
from typing import Any

from app.config import Settings
from tests.conftest import LiveServer

NAN, INF = float("nan"), float("inf")

VALUES: list[Any] = [
    NAN,
    INF,
    -INF,
    "\ud800",  # a lone surrogate: JSON can spell it, UTF-8 cannot hold it
    "\udfff",
    "ok\ud83dthen",
    "\x00",
    "name\x00with a NUL",
    "\u202etxet",
    "\x07\x1b[31m",
    2**31,
    -(2**31) - 1,
    2**63,
    2**64 + 1,
    -(2**63) - 1,
    10**40,
    -1,
    0,
    True,
    None,
    1.5,
    "",
    " ",
    "x" * 10_000,
    "🐉" * 50,
    [],
    {},
    [[[[[[["deep"]]]]]]],
    {"type": "move", "from": NAN},
    {"\x00": 1},
    {"\ud800": 1},
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "../../etc/passwd",
]
"""Python values; :func:`dump` turns NaN and Infinity into JSON's bare tokens."""

RAW_JSON: list[str] = [
    "[" * 2000 + "]" * 2000,  # 4 KB of nesting: a RecursionError for a naive parser
    '{"a":' * 1500 + "1" + "}" * 1500,
    "1e999",
    "-1e999",
    "NaN",
    "Infinity",
    '"\\ud800"',
    '"\\u0000"',
    "123456789012345678901234567890",
    "{",
    '"unterminated',
    "",
]
"""JSON text spliced in as a field's value as is (some of it is not JSON at all)."""

QUERY_VALUES = [
    "2147483648",
    "-2147483649",
    "9223372036854775808",
    "99999999999999999999999",
    "-1",
    "NaN",
    "Infinity",
    "1e999",
    "%00",
    "a%00b",
    "%ED%A0%80",  # UTF-8 of a lone surrogate (not valid UTF-8)
    "%FF%FE",
    "",
    "x" * 300,
    "%F0%9F%90%89",
]
"""Query-string values, already percent-encoded."""

CURSORS = [
    base64.urlsafe_b64encode(str(n).encode()).decode().rstrip("=")
    for n in (2**63, 2**64, -(2**63) - 1, 10**30, -1)
] + ["%00", "!!!", "AAAA", "%ED%A0%80"]
"""Well-formed cursors of sequence numbers past int64, and garbage."""


def dump(value: Any) -> str:
    return json.dumps(value, allow_nan=True)


def hostile_json(rng: random.Random) -> str:
    """One hostile JSON value, as text."""
    if rng.random() < 0.3:
        return rng.choice(RAW_JSON)
    return dump(rng.choice(VALUES))


def splice(template: dict[str, Any], rng: random.Random) -> str:
    """``template`` as JSON with one field (perhaps nested) replaced by a hostile value."""
    marker = "\u2603HOSTILE\u2603"
    body = json.loads(json.dumps(template))
    target = body
    path = [rng.choice(list(body))] if body else []
    while path and isinstance(target.get(path[-1]), dict) and target[path[-1]] and rng.random() < 0.5:
        target = target[path[-1]]
        path.append(rng.choice(list(target)))
    if path:
        target[path[-1]] = marker
    else:
        body["extra"] = marker
    if rng.random() < 0.15:  # a hostile field name too
        body[rng.choice(["\x00", "\ud800", "x" * 500, "é"])] = 1
    return json.dumps(body).replace(json.dumps(marker), hostile_json(rng))


def unlimited_settings(database_url: str) -> Settings:
    """A server of the fuzz tests' own, its rate limits off: thousands of requests from
    one address are the point here, not a flood."""
    limits = {f"rate_limit_{name}": 0 for name in ("players", "matches", "actions", "websockets", "exports")}
    return Settings(database_url=database_url, **limits)


def serve(settings: Settings) -> Iterator[LiveServer]:
    """A live server of a test module's own (for a fixture to yield from)."""
    server = LiveServer(settings).start()
    yield server
    server.stop()
