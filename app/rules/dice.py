"""The match's seeded dice (ARCHITECTURE §Dice, docs/dice.md).

Die number ``n`` of a match (0, 1, 2, … in the order the rules ask for them) with
``sides`` faces shows::

    face = 1 + int.from_bytes(HMAC-SHA256(key=seed, msg=message(n)), "big") % sides

where ``message(n)`` is ``f"{n}:{':'.join(player_seeds)}"`` (scheme
``hmac-sha256-v2``: every seat's own seed, hex, in seat order) or ``str(n)``
(``hmac-sha256-v1``, matches created before players sent seeds).

The match publishes ``sha256(seed)`` when it is created and reveals the seed when
it ends, so anyone can recompute every die from the events, which name each die's
number. The bias of reducing a 256-bit value modulo ``sides`` is below 2**-240.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from typing import Any, TypeVar

T = TypeVar("T")

SCHEME_V1 = "hmac-sha256-v1"
SCHEME_V2 = "hmac-sha256-v2"
PLAYER_SEED_BYTES = (16, 64)
"""A seat's own seed is 16 to 64 bytes (sent as hex)."""
PLAYER_SEED_PATTERN = r"^(?:[0-9a-fA-F]{2}){16,64}$"
"""The same, as a pattern for request schemas."""


def new_seed() -> bytes:
    return secrets.token_bytes(32)


def commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


def new_player_seed() -> str:
    """A seat's seed drawn by the server (for a bot, an NPC, or a player who sent none)."""
    return secrets.token_bytes(32).hex()


def normal_player_seed(raw: str) -> str:
    """A seat's seed as the dice use it (lowercase hex); ``ValueError`` says what is wrong."""
    if not isinstance(raw, str):
        raise ValueError("must be a hex string")
    try:
        size = len(bytes.fromhex(raw))
    except ValueError:
        raise ValueError("must be hexadecimal digits (0-9, a-f), two per byte") from None
    low, high = PLAYER_SEED_BYTES
    if not low <= size <= high or len(raw) != 2 * size:
        raise ValueError(f"must be {low} to {high} bytes ({2 * low} to {2 * high} hex digits), not {size}")
    return raw.lower()


def die_message(number: int, player_seeds: Sequence[str] | None = None) -> bytes:
    """The HMAC message of die ``number``: v1 without player seeds, v2 with them."""
    if player_seeds is None:
        return str(number).encode("ascii")
    return f"{number}:{':'.join(player_seeds)}".encode("ascii")


def die_face(seed: bytes, number: int, sides: int, player_seeds: Sequence[str] | None = None) -> int:
    """The face of die ``number`` with ``sides`` sides, from the seed (and the seats' seeds)."""
    digest = hmac.new(seed, die_message(number, player_seeds), hashlib.sha256).digest()
    return 1 + int.from_bytes(digest, "big") % sides


class Dice:
    """A deterministic source of dice for one match.

    ``count`` is how many dice have been drawn; a replay that starts from the same
    seed and asks for the same dice in the same order gets the same faces.
    """

    def __init__(self, seed: bytes, count: int = 0, player_seeds: Sequence[str] | None = None) -> None:
        self.seed = seed
        self.count = count
        self.player_seeds = None if player_seeds is None else tuple(player_seeds)

    def die(self, sides: int) -> dict[str, int]:
        """One die as shown in events: ``{"sides", "face", "n"}``."""
        if sides < 1:
            raise ValueError("a die needs at least one side")
        face = die_face(self.seed, self.count, sides, self.player_seeds)
        rolled = {"sides": sides, "face": face, "n": self.count}
        self.count += 1
        return rolled

    def roll(self, sides: Sequence[int], purpose: str, bonus: int = 0, **about: Any) -> dict[str, Any]:
        """Roll several dice at once and return the ``roll`` event for them.

        ``purpose`` says what the roll decides (``"attack"``, ``"first player"`` …);
        ``bonus`` is a flat number added to the total (a rating); ``about`` adds
        context such as the rolling seat or piece.
        """
        dice = [self.die(s) for s in sides]
        return {
            "type": "roll",
            "purpose": purpose,
            **about,
            "dice": dice,
            "bonus": bonus,
            "total": bonus + sum(d["face"] for d in dice),
        }

    def shuffle(self, items: Sequence[T], purpose: str, **about: Any) -> tuple[list[T], dict[str, Any]]:
        """A Fisher–Yates shuffle drawing from these dice, and the ``roll`` event of its draws.

        For ``i`` from ``len(items) - 1`` down to 1 a die with ``i + 1`` sides picks
        ``j = face - 1`` and items ``i`` and ``j`` swap. The event names the items in
        their order before the shuffle, so anyone can redo it (docs/dice.md).
        """
        out = list(items)
        dice = [self.die(i + 1) for i in range(len(out) - 1, 0, -1)]
        for i, die in zip(range(len(out) - 1, 0, -1), dice, strict=True):
            j = die["face"] - 1
            out[i], out[j] = out[j], out[i]
        return out, {"type": "roll", "purpose": purpose, **about, "shuffled": list(items), "dice": dice}


def verify_roll(seed: bytes, roll: dict[str, Any], player_seeds: Sequence[str] | None = None) -> bool:
    """True when every die of a ``roll`` event matches the seed (and the seats' seeds, v2),
    and its total, if it has one."""
    faces_match = all(die_face(seed, d["n"], d["sides"], player_seeds) == d["face"] for d in roll["dice"])
    if "total" not in roll:
        return faces_match
    return faces_match and roll["total"] == roll.get("bonus", 0) + sum(d["face"] for d in roll["dice"])
