"""JSON from clients, checked before anything else sees it: REST bodies and websocket frames.

``json.loads`` accepts what no database or encoder downstream can take: ``NaN`` and
``Infinity`` (and ``1e999``, which becomes infinity), strings with a lone surrogate
(``"\\ud800"``: not Unicode, so not encodable as UTF-8), NUL characters (PostgreSQL
text cannot hold them), integers of any size, and nesting deep enough to exhaust
Python's stack. :func:`parse` refuses each of them with the path of the field.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

MAX_DEPTH = 32
"""Objects and arrays nested deeper than this are refused (no legal action is near it)."""
MAX_SAFE_INT = 2**53
"""The largest integer every JSON client reads exactly; larger ones are refused."""
INT32_MAX = 2**31 - 1
"""Versions, seats and counters are 32-bit integers in the database."""
INT64_MAX = 2**63 - 1
"""Ids that count every row of a table (chat messages) are 64-bit integers."""
NO_NUL = r"^[^\x00]*$"
"""The JSON Schema ``pattern`` of any text a request carries (a path, a query, a string
or a field name in a body): no NUL, which every request refuses (:func:`check`, and
``BodyLimit`` in ``app/api/errors.py`` for paths and queries)."""
SPACE = r"\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
"""The characters ``str.strip()`` removes (Python's ``\\s``), for a pattern's character
class: ECMA-262's ``\\s``, which clients' JSON Schema validators use, is another set."""


class UnsafeInput(ValueError):
    """A value no part of the server can store or encode; ``where`` names its field."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}")
        self.where = where
        self.problem = problem

    @property
    def message(self) -> str:
        return str(self)


class _Constant:
    """``NaN``, ``Infinity`` or ``-Infinity`` as parsed, kept so the check can say where."""

    def __init__(self, name: str) -> None:
        self.name = name


def printable(text: str) -> str:
    """``text`` safe to put in a reply: NUL, control characters and lone surrogates escaped."""
    if text.isprintable():
        try:
            text.encode("utf-8")
            return text
        except UnicodeEncodeError:
            pass
    return repr(text)[1:-1]


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored, or None."""
    if "\x00" in text:
        return "must not contain a NUL character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "must be valid Unicode (it has a lone surrogate)"
    return None


def check(value: Any, where: str, depth: int = 0) -> None:
    """Raise :class:`UnsafeInput` for the first unstorable value in ``value``."""
    if depth > MAX_DEPTH:
        raise UnsafeInput(where, f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, str):
        problem = text_problem(value)
        if problem:
            raise UnsafeInput(where, problem)
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int):
        if abs(value) > MAX_SAFE_INT:
            raise UnsafeInput(where, "the integer is too large (at most 2^53)")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise UnsafeInput(where, "must be a finite number")
    elif isinstance(value, _Constant):
        raise UnsafeInput(where, f"{value.name} is not a JSON number (must be finite)")
    elif isinstance(value, dict):
        for key, item in value.items():
            here = f"{where}.{printable(key)}"
            problem = text_problem(key)
            if problem:
                raise UnsafeInput(here, f"the field name {problem}")
            check(item, here, depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            check(item, f"{where}.{index}", depth + 1)


def storable_json_schema(depth: int = 3) -> dict[str, Any]:
    """The JSON Schema of what :func:`check` lets through, nested ``depth`` levels:
    finite numbers and integers within ±2^53, text and field names without NUL (nor
    lone surrogates, which no pattern can exclude: UTF-8 cannot encode them)."""
    bound = {"minimum": -MAX_SAFE_INT, "maximum": MAX_SAFE_INT}
    kinds: list[dict[str, Any]] = [
        {"type": "string", "pattern": NO_NUL},
        {"type": "number", **bound},
        {"type": "boolean"},
        {"type": "null"},
    ]
    if depth > 0:
        inner = storable_json_schema(depth - 1)
        kinds += [{"type": "array", "items": inner}, {"type": "object", **storable_fields(inner)}]
    return {"anyOf": kinds}


def documented_pattern(pattern: str) -> Callable[[dict[str, Any]], None]:
    """A field's ``json_schema_extra`` that documents ``pattern`` on its text (the string
    branch of ``str | None``), while the server's own check, which says what is wrong
    in words, is what refuses text that does not match."""

    def document(schema: dict[str, Any]) -> None:
        for kind in [schema, *schema.get("anyOf", ())]:
            if kind.get("type") == "string":
                kind["pattern"] = pattern

    return document


def storable_fields(values: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema keywords of an object's fields beyond those named: any name
    but one with a NUL, each value as ``values``."""
    return {"propertyNames": {"pattern": NO_NUL}, "additionalProperties": values}


def storable_object_schema(depth: int = 3) -> dict[str, Any]:
    """An object whose values :func:`check` lets through (see :func:`storable_json_schema`)."""
    return {"type": "object", **storable_fields(storable_json_schema(depth - 1))}


def parse(raw: str | bytes, where: str = "body") -> Any:
    """``raw`` as JSON, checked. Raises ``ValueError`` for text that is not JSON and
    :class:`UnsafeInput` (a ``ValueError`` too) for JSON the server cannot take."""
    try:
        value = json.loads(raw, parse_constant=_Constant)
    except RecursionError:
        raise UnsafeInput(where, f"nested deeper than {MAX_DEPTH} levels") from None
    check(value, where)
    return value
