"""Each bot decision made by one process: a claim with a lease, like the outbox's.

A decision is a match at a version (:class:`app.models.BotClaim`, one row each). The
process that takes it holds it for ``BOT_LEASE_S`` and renews it while it thinks; once
the move is written it settles the row (who decided, how long the search took, the
outcome). A process that finds the decision held leaves it alone; one that dies lets its
lease run out, and another process takes the decision over. Taking is one atomic
statement on both databases: an ``INSERT … ON CONFLICT DO NOTHING`` for a decision nobody
claimed yet, else an ``UPDATE`` of a row whose lease is over (``lease_until < now``) and
that nobody settled; of two processes racing, the database lets one row change through.

The times are the processes' clocks (as the outbox's leases): hosts that share a
database keep their clocks in step (NTP) well within a lease.
"""

from __future__ import annotations

import os
import secrets
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from app.models import BotClaim, utcnow
from app.services.store import store_for

CLAIMS = BotClaim.__table__
KEEP = timedelta(days=1)
"""Settled claims are kept this long (who decided what), then pruned by the runner's scan."""


def process_name() -> str:
    """This process among every process on every host: ``host:pid:random``."""
    return f"{socket.gethostname()[:60]}:{os.getpid()}:{secrets.token_hex(3)}"


@dataclass(frozen=True)
class Taken:
    taken: bool
    held_until: datetime | None = None
    """Not taken: when another process's lease runs out (``None``: settled, or not known)."""
    claims: int = 0
    """Taken: how many times the decision has been claimed (1: first; more: taken over)."""


class Claims:
    """The claims of one process (``holder``) on the database of ``engine``."""

    def __init__(self, engine: AsyncEngine, holder: str, lease_s: float) -> None:
        self.engine = engine
        self.holder = holder
        self.lease = timedelta(seconds=lease_s)
        dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
        self._insert = dialect.insert

    def _writing(self) -> Any:
        # SQLite's writers in this process take turns on the store's lock (no polling).
        return store_for(self.engine)._writing()

    @staticmethod
    def _key(match_id: str, version: int) -> Any:
        return and_(CLAIMS.c.match_id == match_id, CLAIMS.c.version == version)

    async def take(self, match_id: str, version: int, seat: int, bot: str) -> Taken:
        """Claim the decision of ``match_id`` at ``version`` for ``lease_s``, unless another
        process holds it or it was settled."""
        now = utcnow()
        until = now + self.lease
        first = (
            self._insert(CLAIMS)
            .values(
                match_id=match_id,
                version=version,
                seat=seat,
                bot=bot,
                claimed_by=self.holder,
                claims=1,
                claimed_at=now,
                lease_until=until,
            )
            .on_conflict_do_nothing(index_elements=["match_id", "version"])
            .returning(CLAIMS.c.claims)
        )
        free = or_(CLAIMS.c.lease_until.is_(None), CLAIMS.c.lease_until < now)
        over = (
            update(CLAIMS)
            .where(self._key(match_id, version), CLAIMS.c.decided_at.is_(None), free)
            .values(claimed_by=self.holder, lease_until=until, claims=CLAIMS.c.claims + 1)
            .returning(CLAIMS.c.claims)
        )
        async with self._writing(), self.engine.begin() as connection:
            claims = (await connection.execute(first)).scalar()
            if claims is None:
                claims = (await connection.execute(over)).scalar()
            if claims is not None:
                return Taken(True, claims=claims)
            held = select(CLAIMS.c.lease_until).where(
                self._key(match_id, version), CLAIMS.c.decided_at.is_(None)
            )
            return Taken(False, held_until=(await connection.execute(held)).scalar())

    async def _mine(self, match_id: str, version: int, **values: Any) -> bool:
        """Change this process's live claim; ``False`` when it is not (or no longer) ours."""
        statement = (
            update(CLAIMS)
            .where(
                self._key(match_id, version),
                CLAIMS.c.claimed_by == self.holder,
                CLAIMS.c.decided_at.is_(None),
            )
            .values(**values)
        )
        async with self._writing(), self.engine.begin() as connection:
            return (await connection.execute(statement)).rowcount == 1

    async def renew(self, match_id: str, version: int) -> bool:
        """Hold the decision for another lease; ``False``: another process took it over."""
        return await self._mine(match_id, version, lease_until=utcnow() + self.lease)

    async def settle(self, match_id: str, version: int, outcome: str, seconds: float) -> bool:
        """The decision is made and its move sent: who decided, how long, with what outcome."""
        return await self._mine(
            match_id,
            version,
            decided_by=self.holder,
            decided_at=utcnow(),
            seconds=seconds,
            outcome=outcome,
            lease_until=None,
        )

    async def release(self, match_id: str, version: int) -> bool:
        """Give the decision up undecided (the process stops): another may take it at once."""
        return await self._mine(match_id, version, lease_until=None)

    async def drop(self, match_id: str, version: int) -> None:
        """Forget a claim taken on a version the match has already left."""
        statement = delete(CLAIMS).where(
            self._key(match_id, version), CLAIMS.c.claimed_by == self.holder, CLAIMS.c.decided_at.is_(None)
        )
        async with self._writing(), self.engine.begin() as connection:
            await connection.execute(statement)

    async def prune(self) -> int:
        """Delete the claims older than :data:`KEEP` that nobody holds."""
        now = utcnow()
        statement = delete(CLAIMS).where(
            CLAIMS.c.claimed_at < now - KEEP,
            or_(CLAIMS.c.lease_until.is_(None), CLAIMS.c.lease_until < now),
        )
        async with self._writing(), self.engine.begin() as connection:
            return (await connection.execute(statement)).rowcount
