"""Check every die of a finished match from what any server publishes (docs/dice.md).

Used by ``dejarik verify <match url>``. It reads only the public API (the match
view and its log), so it checks a server it does not trust: the revealed seed
against the commitment published at creation, every die's face against the seed
(and, for ``hmac-sha256-v2``, the seats' seeds), every total, that each entry
drew its dice from where the log says it started (no die used twice), and that
the log shows every die drawn (numbers 0 to N-1, each once).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from app.rules.dice import SCHEME_V1, SCHEME_V2, die_face

SCHEMES = (SCHEME_V1, SCHEME_V2)


class CannotVerify(Exception):
    """The match cannot be checked (yet): not finished, unknown scheme, not a match URL."""


@dataclass
class Report:
    dice: int = 0
    rolls: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def rolls_of(entry: dict[str, Any]) -> Iterable[dict[str, Any]]:
    return (e for e in entry["events"] if e.get("type") == "roll")


def check_dice(match: dict[str, Any], entries: list[dict[str, Any]]) -> Report:
    """Every die of ``entries`` (the whole log, as ``GET …/events`` shows it) of the
    finished ``match`` (its view), recomputed."""
    dice_info = match.get("dice") or {
        "scheme": SCHEME_V1,
        "commitment": match["seed_sha256"],
        "seed": match["seed"],
        "player_seeds": [],
    }
    scheme, seed_hex = dice_info["scheme"], dice_info["seed"]
    if scheme not in SCHEMES:
        raise CannotVerify(f"unknown dice scheme {scheme!r}; this verifier knows {', '.join(SCHEMES)}")
    if match["status"] != "finished" or not seed_hex:
        raise CannotVerify("the match is not finished: its seed is revealed only at the end")
    report = Report()
    seed = bytes.fromhex(seed_hex)
    if hashlib.sha256(seed).hexdigest() != dice_info["commitment"]:
        report.problems.append("the revealed seed does not hash to the commitment published at creation")
    player_seeds = None if scheme == SCHEME_V1 else list(dice_info["player_seeds"])
    if player_seeds is not None and not all(player_seeds):
        report.problems.append("a seat has no seed")
        return report
    seen: set[int] = set()
    for i, entry in enumerate(entries):
        start = entry.get("dice_from", 0)
        end = entries[i + 1].get("dice_from") if i + 1 < len(entries) else None
        for roll in rolls_of(entry):
            report.rolls += 1
            for die in roll["dice"]:
                report.dice += 1
                n, where = die["n"], f"version {entry['version']}, die {die['n']}"
                expected = die_face(seed, n, die["sides"], player_seeds)
                if die["face"] != expected:
                    report.problems.append(f"{where}: shows {die['face']}, the seed gives {expected}")
                if n in seen:
                    report.problems.append(f"{where}: this die was already used")
                if n < start or (end is not None and n >= end):
                    report.problems.append(f"{where}: outside the dice this entry drew ({start} onward)")
                seen.add(n)
            if "total" in roll and roll["total"] != roll.get("bonus", 0) + sum(
                d["face"] for d in roll["dice"]
            ):
                report.problems.append(
                    f"version {entry['version']}: a roll's total is not its faces and bonus"
                )
    missing = sorted(set(range(max(seen, default=-1) + 1)) - seen)
    if missing:
        report.problems.append(f"dice {missing[:10]} were drawn but the log does not show them")
    return report


def match_address(url: str) -> tuple[str, str]:
    """``(server base URL, match id)`` of a match page, replay, or API URL."""
    parts = urlsplit(url)
    segments = [s for s in parts.path.split("/") if s]
    if parts.scheme not in ("http", "https") or "matches" not in segments:
        raise CannotVerify(f"{url!r} is not a match URL (…/matches/<id>)")
    after = segments.index("matches") + 1
    if after >= len(segments):
        raise CannotVerify(f"{url!r} names no match")
    return f"{parts.scheme}://{parts.netloc}", segments[after]


def fetch(url: str, timeout: float = 30) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The match view and its whole log, from any server."""
    base, match_id = match_address(url)
    with httpx.Client(base_url=base, timeout=timeout) as http:
        answer = http.get(f"/api/v1/matches/{match_id}")
        if answer.status_code != 200:
            raise CannotVerify(
                f"{base} answered {answer.status_code} for match {match_id}: {answer.text[:200]}"
            )
        match = answer.json()
        entries: list[dict[str, Any]] = []
        while len(entries) < match["version"]:
            page = http.get(f"/api/v1/matches/{match_id}/events", params={"after": len(entries)})
            page.raise_for_status()
            more = page.json()["events"]
            if not more:
                break
            entries.extend(more)
    return match, entries


def verify(url: str) -> tuple[dict[str, Any], Report]:
    match, entries = fetch(url)
    return match, check_dice(match, entries)
