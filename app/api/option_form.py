"""Turn a ruleset's options JSON Schema into HTML form fields, and the posted form back
into an options object.

Handles what the rulesets use: booleans, enums, integers and numbers with bounds,
strings, nested objects (``$ref`` included) and fixed-length arrays of objects.
Form field names are dotted paths under a prefix: ``options.simeone.center_point``,
``options.eote.sheets.0.intellect``.

The clock every ruleset has is a field of its own kind: the API counts it in seconds
(``{"per_move_s": 86400}``), the form offers presets in minutes and days, and a custom
time in minutes, hours or days (``options.kelly.clock.preset``, ``….amount``, ``….unit``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from starlette.datastructures import FormData


@dataclass
class OptionField:
    name: str
    """The form field name (a dotted path under the prefix)."""
    label: str
    kind: str
    """``boolean``, ``enum``, ``integer``, ``number``, ``string``, ``group`` or ``clock``."""
    default: Any = None
    description: str = ""
    minimum: float | None = None
    maximum: float | None = None
    choices: list[Any] = field(default_factory=list)
    children: list[OptionField] = field(default_factory=list)

    @property
    def default_words(self) -> str:
        """The default as a player reads it: "on", "off", "none", "end of round"."""
        if self.kind == "clock":
            return clock_words(self.default)
        if self.default is None:
            return "none"
        if isinstance(self.default, bool):
            return "on" if self.default else "off"
        return str(self.default).replace("_", " ")

    @property
    def clock_choice(self) -> str:
        """A clock field's preset for its value: "" (untimed), its seconds, or "custom"."""
        seconds = clock_seconds(self.default)
        if seconds is None:
            return ""
        return str(seconds) if seconds in dict(CLOCK_PRESETS) else "custom"

    @property
    def clock_custom(self) -> tuple[int | str, str]:
        """A clock field's value as an amount and a unit (``(3, "hours")``), for its custom time."""
        seconds = clock_seconds(self.default)
        if seconds is None:
            return "", "days"
        for unit, size in reversed(CLOCK_UNITS):
            if seconds % size == 0:
                return seconds // size, unit
        return round(seconds / 60), "minutes"


MINUTE, HOUR, DAY = 60, 60 * 60, 24 * 60 * 60
CLOCK_LEAST, CLOCK_MOST = MINUTE, 30 * DAY
"""The clock's bounds (app/rules/base.py ``Clock``)."""
CLOCK_UNITS = (("minutes", MINUTE), ("hours", HOUR), ("days", DAY))
CLOCK_PRESETS = (
    (5 * MINUTE, "5 minutes"),
    (10 * MINUTE, "10 minutes"),
    (30 * MINUTE, "30 minutes"),
    (DAY, "1 day"),
    (3 * DAY, "3 days"),
    (7 * DAY, "7 days"),
)
"""A live game's clocks, then correspondence's (the form groups them so)."""
CLOCK_DESCRIPTION = (
    "How long each player has for every move. When it runs out, the opponent may claim the win. "
    "Minutes suit a game played in one sitting; days suit correspondence, a move whenever you "
    "are free. No clock: nobody is ever hurried."
)


def clock_seconds(value: Any) -> int | None:
    seconds = value.get("per_move_s") if isinstance(value, dict) else None
    return seconds if isinstance(seconds, int) else None


def clock_words(value: Any) -> str:
    """A clock as players say it: "no clock", "1 day a move", "90 minutes a move"."""
    seconds = clock_seconds(value)
    if seconds is None:
        return "no clock"
    for unit, size in reversed(CLOCK_UNITS):
        if seconds % size == 0:
            amount = seconds // size
            return f"{amount} {unit[:-1] if amount == 1 else unit} a move"
    return f"{seconds} seconds a move"


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if ref and ref.startswith("#/$defs/"):
        target = root.get("$defs", {}).get(ref.removeprefix("#/$defs/"), {})
        return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    variants = [s for s in schema.get("anyOf", []) if s.get("type") != "null"]
    if len(variants) == 1:  # Optional[X]: show X
        return {**_resolve(variants[0], root), **{k: v for k, v in schema.items() if k != "anyOf"}}
    return schema


def _humanise(key: str) -> str:
    return key.replace("_", " ").capitalize()


def _field(
    name: str, key: str, schema: dict[str, Any], root: dict[str, Any], default: Any
) -> OptionField | None:
    schema = _resolve(schema, root)
    if "default" in schema:
        default = schema["default"]
    # A title the schema generated from the key ("Turns Without Kill") reads as a sentence.
    title = schema.get("title")
    label = title if title and title != key.replace("_", " ").title() else _humanise(key)
    common = {"name": name, "label": label, "default": default, "description": schema.get("description", "")}
    if "enum" in schema:
        return OptionField(kind="enum", choices=list(schema["enum"]), **common)
    kind = schema.get("type")
    if kind == "boolean":
        return OptionField(kind="boolean", **common)
    if kind in ("integer", "number"):
        return OptionField(kind=kind, minimum=schema.get("minimum"), maximum=schema.get("maximum"), **common)
    if kind == "string":
        return OptionField(kind="string", maximum=schema.get("maxLength"), **common)
    if kind == "object":
        defaults = default if isinstance(default, dict) else {}
        children = [
            child
            for child_key, child_schema in schema.get("properties", {}).items()
            if (
                child := _field(f"{name}.{child_key}", child_key, child_schema, root, defaults.get(child_key))
            )
        ]
        return OptionField(kind="group", children=children, **common)
    if kind == "array":
        count = schema.get("minItems")
        if count is None or count != schema.get("maxItems"):
            return None  # variable-length lists keep their default
        items = schema.get("items", {})
        defaults = default if isinstance(default, list) else []
        children = [
            child
            for i in range(count)
            if (
                child := _field(
                    f"{name}.{i}", f"{key} {i + 1}", items, root, defaults[i] if i < len(defaults) else None
                )
            )
        ]
        for i, child in enumerate(children):
            child.label = f"{label} {i + 1}"
        return OptionField(kind="group", children=children, **common)
    return None


def option_fields(schema: dict[str, Any], prefix: str, seat_names: tuple[str, ...] = ()) -> list[OptionField]:
    """The form fields for every option of ``schema``, named under ``prefix``. A list
    with one item a seat (eote's sheets) names its items by ``seat_names``: "Light's sheet"."""
    fields = []
    for key, sub in schema.get("properties", {}).items():
        if key == "clock":
            fields.append(OptionField(f"{prefix}.clock", "Clock", "clock", None, CLOCK_DESCRIPTION))
        elif option := _field(f"{prefix}.{key}", key, sub, schema, None):
            item = _resolve(sub.get("items", {}), schema).get("title", "")
            if sub.get("type") == "array" and item and len(option.children) == len(seat_names):
                for child, seat in zip(option.children, seat_names, strict=True):
                    child.label = f"{seat}'s {item.lower()}"
            fields.append(option)
    return fields


def _clock_value(option: OptionField, form: FormData) -> Any:
    """The clock the form chose, as the API counts it: ``{"per_move_s": seconds}``, or ``None``."""
    preset = str(form.get(f"{option.name}.preset") or "").strip()
    if not preset:
        return None
    if preset != "custom":
        return {"per_move_s": int(preset) if preset.isdecimal() else preset}
    amount = str(form.get(f"{option.name}.amount") or "").strip()
    size = dict(CLOCK_UNITS).get(str(form.get(f"{option.name}.unit") or ""), MINUTE)
    try:
        return {"per_move_s": round(float(amount) * size)}
    except (ValueError, OverflowError):
        return {"per_move_s": amount}  # refused by clock_refusal, in words


def clock_refusal(options: dict[str, Any]) -> str | None:
    """What is wrong with the clock a form chose, in a player's words (the ruleset's own
    validation names ``options.clock.per_move_s`` and counts seconds); ``None``: nothing."""
    clock = options.get("clock")
    if clock is None:
        return None
    seconds = clock.get("per_move_s")
    if not isinstance(seconds, int) or not CLOCK_LEAST <= seconds <= CLOCK_MOST:
        return "The clock must be a number of minutes, hours or days, from 1 minute to 30 days a move."
    return None


def _value(option: OptionField, form: FormData) -> Any:
    if option.kind == "clock":
        return _clock_value(option, form)
    if option.kind == "group":
        children = {c.name.rsplit(".", 1)[1]: _value(c, form) for c in option.children}
        children = {k: v for k, v in children.items() if v is not None}
        if all(k.isdecimal() for k in children) and children:
            return [children[k] for k in sorted(children, key=int)]
        return children or None
    if option.kind == "boolean":
        return form.get(option.name) in ("on", "true", "1")
    raw = form.get(option.name)
    if raw is None or (isinstance(raw, str) and raw.strip() == "" and option.kind != "string"):
        return None
    raw = str(raw).strip() if option.kind != "string" else str(raw)
    if option.kind == "integer":
        try:
            return int(raw)
        except ValueError:
            return raw  # the ruleset's validation names the field and the problem
    if option.kind == "number":
        try:
            return float(raw)
        except ValueError:
            return raw
    if option.kind == "enum":
        return next((c for c in option.choices if str(c) == raw), raw)
    return raw


def options_from_form(schema: dict[str, Any], prefix: str, form: FormData) -> dict[str, Any]:
    """The options object a form built by :func:`option_fields` posted."""
    values = {f.name.rsplit(".", 1)[1]: _value(f, form) for f in option_fields(schema, prefix)}
    return {k: v for k, v in values.items() if v is not None}


def with_values(fields: list[OptionField], prefix: str, values: Any) -> list[OptionField]:
    """``fields`` showing ``values`` (an options object, e.g. a match's current options)
    instead of the schema's defaults. Fields the values do not mention keep their default."""
    for option in fields:
        value: Any = values
        for key in option.name.removeprefix(f"{prefix}.").split("."):
            if isinstance(value, dict) and key in value:
                value = value[key]
            elif isinstance(value, list) and key.isdecimal() and int(key) < len(value):
                value = value[int(key)]
            else:
                break
        else:
            if option.kind == "group":
                with_values(option.children, prefix, values)
            else:
                option.default = value
    return fields
