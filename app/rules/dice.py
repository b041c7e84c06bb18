"""The match's seeded dice (ARCHITECTURE §Dice).

Die number ``n`` of a match (0, 1, 2, … in the order the rules ask for them) with
``sides`` faces shows::

    face = 1 + int.from_bytes(HMAC-SHA256(key=seed, msg=str(n)), "big") % sides

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


def new_seed() -> bytes:
    return secrets.token_bytes(32)


def commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


def die_face(seed: bytes, number: int, sides: int) -> int:
    """The face of die ``number`` with ``sides`` sides, from the seed alone."""
    digest = hmac.new(seed, str(number).encode(), hashlib.sha256).digest()
    return 1 + int.from_bytes(digest, "big") % sides


class Dice:
    """A deterministic source of dice for one match.

    ``count`` is how many dice have been drawn; a replay that starts from the same
    seed and asks for the same dice in the same order gets the same faces.
    """

    def __init__(self, seed: bytes, count: int = 0) -> None:
        self.seed = seed
        self.count = count

    def die(self, sides: int) -> dict[str, int]:
        """One die as shown in events: ``{"sides", "face", "n"}``."""
        if sides < 1:
            raise ValueError("a die needs at least one side")
        face = die_face(self.seed, self.count, sides)
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

    def below(self, n: int) -> int:
        """A uniform integer in ``0 .. n-1`` (one die with ``n`` sides)."""
        return self.die(n)["face"] - 1

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A Fisher–Yates shuffle drawing from these dice."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


def verify_roll(seed: bytes, roll: dict[str, Any]) -> bool:
    """True when every die of a ``roll`` event matches the seed."""
    faces_match = all(die_face(seed, d["n"], d["sides"]) == d["face"] for d in roll["dice"])
    return faces_match and roll["total"] == roll.get("bonus", 0) + sum(d["face"] for d in roll["dice"])
