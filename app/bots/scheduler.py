"""Who gets the next free bot worker: fair between players, people before bots-only games.

Bot decisions wait here for one of the ``BOT_WORKERS`` search processes. They queue per
match owner (the host) and are served round-robin across owners, so one player's many
matches take one turn in each round like anyone's single match; and a decision in a
match with a human seat goes before any decision of a bots-only match, where nobody
is waiting at the board.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from typing import Generic, TypeVar

T = TypeVar("T")


class FairQueue(Generic[T]):
    """Items by owner, popped round-robin over owners, the ``human`` tier first."""

    def __init__(self) -> None:
        # Two tiers (matches with a human seat, then bots-only); in each, owners in turn order.
        self.tiers: tuple[OrderedDict[str, deque[T]], ...] = (OrderedDict(), OrderedDict())

    def __len__(self) -> int:
        return sum(len(items) for tier in self.tiers for items in tier.values())

    def push(self, owner: str, item: T, human: bool) -> None:
        self.tiers[0 if human else 1].setdefault(owner, deque()).append(item)

    def pop(self) -> T:
        """The next item: the first owner's oldest, in the first tier that has any; that
        owner then goes to the back of its tier. ``IndexError`` when empty."""
        for tier in self.tiers:
            if tier:
                owner, items = next(iter(tier.items()))
                item = items.popleft()
                del tier[owner]
                if items:
                    tier[owner] = items  # to the back: every other owner goes first
                return item
        raise IndexError("pop from an empty FairQueue")

    def remove(self, item: T) -> None:
        """Take ``item`` out wherever it waits (a decision given up)."""
        for tier in self.tiers:
            for owner, items in tier.items():
                if item in items:
                    items.remove(item)
                    if not items:
                        del tier[owner]
                    return


class Scheduler:
    """``workers`` slots, granted in :class:`FairQueue` order to whoever waits."""

    def __init__(self, workers: int) -> None:
        self.free = workers
        self.waiting: FairQueue[asyncio.Future[None]] = FairQueue()

    async def acquire(self, owner: str, human: bool) -> None:
        """Wait for a slot; the caller must :meth:`release` it once its worker is done."""
        if self.free > 0 and not self.waiting:
            self.free -= 1
            return
        ticket: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting.push(owner, ticket, human)
        try:
            await ticket
        except asyncio.CancelledError:
            if ticket.done() and not ticket.cancelled():
                self.release()  # granted as it was cancelled: pass the slot on
            else:
                self.waiting.remove(ticket)
            raise

    def release(self) -> None:
        """A slot is free: hand it to the next waiting decision, if any."""
        while self.waiting:
            ticket = self.waiting.pop()
            if not ticket.done():
                ticket.set_result(None)
                return
        self.free += 1
