"""A dice source whose first faces are chosen by the test, then the real seeded dice.

Used to replay the seeds' worked examples, which name the faces rolled.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.rules.dice import Dice


class ScriptedDice(Dice):
    def __init__(self, faces: Iterable[int], seed: bytes = b"scripted") -> None:
        super().__init__(seed)
        self.script = list(faces)

    def die(self, sides: int) -> dict[str, int]:
        if not self.script:
            return super().die(sides)
        face = self.script.pop(0)
        assert 1 <= face <= sides, f"a d{sides} cannot show {face}"
        rolled = {"sides": sides, "face": face, "n": self.count}
        self.count += 1
        return rolled

    @property
    def used_up(self) -> bool:
        return not self.script
