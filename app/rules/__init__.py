"""Rulesets, selected per match by id.

Built-in and third-party rulesets register the same way: as entry points in the
group ``dejarik.rulesets``, each naming a :class:`~app.rules.base.Ruleset` subclass.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import entry_points

from app.rules.base import Ruleset

ENTRY_POINT_GROUP = "dejarik.rulesets"


class UnknownRuleset(LookupError):
    pass


@cache
def registry() -> dict[str, Ruleset]:
    """Every installed ruleset by id, one shared (stateless) instance each."""
    found: dict[str, Ruleset] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        cls = entry.load()
        if cls.id != entry.name:
            raise RuntimeError(f"entry point {entry.name!r} names ruleset {cls.id!r}")
        found[cls.id] = cls()
    return dict(sorted(found.items()))


def get_ruleset(ruleset_id: str) -> Ruleset:
    try:
        return registry()[ruleset_id]
    except KeyError:
        known = ", ".join(registry())
        raise UnknownRuleset(f"unknown ruleset {ruleset_id!r}; known rulesets: {known}") from None
