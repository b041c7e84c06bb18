"""The bot runner: bots act on their own, through the match service like anyone.

Started in the app's lifespan (``app/main.py``). It is *poked* after every change
this process commits (:meth:`BotRunner.wrap` wraps the ``publish`` that routes give
:class:`MatchService`) and scans the active matches with a bot every
``bot_scan_s`` seconds, so a restart resumes every bot and a move made through
another process is answered too. Several processes may run bots for the same
match, and each decision is made by one of them: it is claimed in the database
(:mod:`app.bots.claims`) with a lease of ``bot_lease_s``, renewed while the search
runs and settled when the move is written; another process takes it over once the
lease has run out (its holder died). An action is still sent with the version it was
chosen at, so even a decision made twice (a holder stalled past its lease) moves once.

A decision runs in a process pool (the search never blocks the event loop), from
the seat's knowledge alone (:func:`app.bots.seat_knowledge`), within a time budget.
Decisions wait for a free worker in :class:`app.bots.scheduler.Scheduler`: round-robin
across match hosts, a match with a human seat before a bots-only one. The deadline
(budget + ``GRACE_S``) starts when a worker is free for it, not while it waits.
A bot that fails or runs out of time plays a legal fallback and the log says why.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import multiprocessing
import random
import time
from collections.abc import Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.bots import MASTER_BUDGET_S, decide, get_bot, seat_knowledge
from app.bots.claims import Claims, process_name
from app.bots.scheduler import Scheduler
from app.bots.seating import active_bot_matches, bot_player_id
from app.config import Settings
from app.metrics import Metrics
from app.models import Match, Player, utcnow
from app.rules import get_ruleset
from app.rules.base import COMMON_ACTION_TYPES, Action
from app.services.errors import Conflict, NotFound, ServiceError
from app.services.matches import MatchService, Publish
from app.services.store import Committed, SeatRecord, store_for

log = logging.getLogger("dejarik.bots")

GRACE_S = 10.0
"""Time allowed beyond the search budget (a fresh worker process imports the app)."""
PRUNE_EVERY_S = 3600.0
"""How often the scan deletes old settled claims (:data:`app.bots.claims.KEEP`)."""


def think(bot_id: str, known: dict[str, Any], seat: int, seed: int, budget_s: float) -> Action:
    """Run in a worker process: the bot's decision from the seat's knowledge."""
    bot = get_bot(bot_id)
    assert bot is not None, bot_id
    ruleset = get_ruleset(bot.ruleset)
    return decide(bot, ruleset.load_state(known), seat, seed, budget_s)


@dataclass
class Turn:
    """A bot's decision to make: who, where, at which version, from what it knows; and
    whose match it is (its host), with or without a human seat, for the scheduler."""

    match_id: str
    version: int
    seat: int
    bot_id: str
    known: dict[str, Any]
    legal: list[Action]
    owner: str
    human: bool


def has_human_seat(seats: Iterable[SeatRecord]) -> bool:
    """Someone plays this match at the board: a seat without a bot, held by a player or the GM (NPC)."""
    return any(seat.bot is None and (seat.player is not None or seat.npc) for seat in seats)


def decision_seed(match_id: str, version: int, seat: int) -> int:
    """The bot's own random for one decision: from the match id and version, never the dice seed."""
    digest = hashlib.sha256(f"{match_id}:{version}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def fallback(turn: Turn) -> Action:
    """A legal action when the search failed: a game action, chosen by the bot's own random."""
    actions = [a for a in turn.legal if a["type"] not in COMMON_ACTION_TYPES] or [
        a for a in turn.legal if a["type"] == "decline_draw"
    ]
    return random.Random(decision_seed(turn.match_id, turn.version, turn.seat)).choice(actions)


class BotRunner:
    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        settings: Settings,
        metrics: Metrics | None = None,
    ) -> None:
        self.sessionmaker = sessionmaker
        self.settings = settings
        self.metrics = metrics or Metrics()
        """Where each decision this process computes is counted (``/metrics``)."""
        self.publish: Publish | None = None
        """The wrapped publish (set by :meth:`wrap`): the bots' own moves poke again."""
        self.executor: ProcessPoolExecutor | None = None
        self.scheduler = Scheduler(settings.bot_workers)
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.again: set[str] = set()
        self.scanner: asyncio.Task[None] | None = None
        self.claims = Claims(sessionmaker.kw["bind"], process_name(), settings.bot_lease_s)
        self.later: dict[str, asyncio.TimerHandle] = {}
        """A look due when another process's lease on a match's decision runs out."""

    def wrap(self, publish: Publish) -> Publish:
        """``publish``, then a poke: the publish to give :class:`MatchService`."""

        async def published(match_id: str, version: int, hint: Any = None) -> None:
            await publish(match_id, version, hint)
            if not isinstance(hint, Committed) or any(seat.bot for seat in hint.after.seats):
                self.poke(match_id)  # a match with no bot seat owes a bot nothing

        self.publish = published
        return published

    async def start(self) -> None:
        # Spawned, not forked: the server process runs threads (and tests run servers
        # in threads), and a fork of a threaded process may deadlock.
        self.executor = ProcessPoolExecutor(
            max_workers=self.settings.bot_workers, mp_context=multiprocessing.get_context("spawn")
        )
        self.scanner = asyncio.create_task(self._scan_forever())

    async def stop(self) -> None:
        for timer in self.later.values():
            timer.cancel()
        self.later.clear()
        # A look cancelled mid-decision releases its claim: another process takes it at once.
        tasks = [t for t in (self.scanner, *self.tasks.values()) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)

    def poke(self, match_id: str) -> None:
        """Look at ``match_id`` soon: one look at a time per match, again if poked meanwhile."""
        if match_id in self.tasks:
            self.again.add(match_id)
            return
        self.tasks[match_id] = asyncio.get_running_loop().create_task(self._run(match_id))

    async def _run(self, match_id: str) -> None:
        try:
            while True:
                self.again.discard(match_id)
                acted = await self._play_once(match_id)
                if not acted and match_id not in self.again:
                    return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot runner: match %s", match_id)
        finally:
            self.tasks.pop(match_id, None)

    def _look_at(self, match_id: str, held_until: Any) -> None:
        """Look again when another process's lease on this match's decision runs out
        (it may have died); the scan would too, later."""
        if held_until is None:
            return
        wait = min((held_until - utcnow()).total_seconds(), self.settings.bot_lease_s) + 0.05
        if (timer := self.later.pop(match_id, None)) is not None:
            timer.cancel()

        def look() -> None:
            self.later.pop(match_id, None)
            self.poke(match_id)

        self.later[match_id] = asyncio.get_running_loop().call_later(max(wait, 0.05), look)

    async def _scan_forever(self) -> None:
        pruned = time.monotonic()
        while True:
            try:
                async with self.sessionmaker() as session:
                    for match_id in await active_bot_matches(session):
                        self.poke(match_id)
                if time.monotonic() - pruned > PRUNE_EVERY_S:
                    pruned = time.monotonic()
                    await self.claims.prune()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the database may be restarting: try again later
                log.warning("bot runner: scan failed: %s", error)
            await asyncio.sleep(self.settings.bot_scan_s)

    async def _next_turn(self, match_id: str) -> Turn | None:
        """The decision a bot owes in this match now, if any."""
        async with self.sessionmaker() as session:
            try:
                match = await MatchService(store_for(session.bind)).get(match_id)
            except NotFound:
                return None
            if match.status != "active" or match.paused or match.state is None:
                return None
            ruleset = get_ruleset(match.ruleset)
            state = ruleset.load_state(match.state)
            to_act = ruleset.to_act(state)
            for seat in match.seats:
                if seat.bot is None or seat.npc or seat.player_id != bot_player_id_of(seat.bot):
                    continue
                legal = ruleset.legal_actions(state, seat.seat)
                if seat.seat in to_act or any(a["type"] == "accept_draw" for a in legal):
                    known = ruleset.dump_state(seat_knowledge(ruleset, state, seat.seat))
                    return Turn(
                        match.id,
                        match.version,
                        seat.seat,
                        seat.bot,
                        known,
                        legal,
                        owner=match.host_id,
                        human=has_human_seat(match.seats),
                    )
        return None

    async def _play_once(self, match_id: str) -> bool:
        """One decision: wait for a worker (the scheduler), claim the decision, think
        while the claim is renewed, wait out ``bot_delay_ms``, move, settle the claim.
        ``True`` when the match may owe another decision at once."""
        turn = await self._next_turn(match_id)
        if turn is None:
            return False
        started = time.monotonic()
        await self.scheduler.acquire(turn.owner, turn.human)
        slot = True  # the worker's slot: passed to the search's job once it starts
        try:
            taken = await self.claims.take(turn.match_id, turn.version, turn.seat, turn.bot_id)
            if not taken.taken:  # another process decides (or decided) this one
                self._look_at(match_id, taken.held_until)
                return False
            if taken.claims > 1:
                log.info("bot %s: taking over match %s v%d", turn.bot_id, turn.match_id, turn.version)
            if await self._version(match_id) != turn.version:  # moved on while this waited
                await self.claims.drop(turn.match_id, turn.version)
                return True
            renewing = asyncio.create_task(self._renew(turn))
            settled = False
            try:
                slot = False
                action, seconds = await self._decide(turn)
                self._decided(turn, seconds)
                delay = self.settings.bot_delay_ms / 1000 - (time.monotonic() - started)
                if delay > 0:
                    await asyncio.sleep(delay)
                if renewing.done():  # the lease was lost: another process took the decision over
                    log.warning("bot %s lost match %s v%d to another process", *self._what(turn))
                    settled = True
                    return False
                outcome = await self._act(turn, action)
                renewing.cancel()
                settled = await self.claims.settle(turn.match_id, turn.version, outcome, seconds)
                return outcome == "moved"
            finally:
                renewing.cancel()
                if not settled:  # stopped (or failed) mid-decision: free it for another process
                    with contextlib.suppress(Exception):
                        await self.claims.release(turn.match_id, turn.version)
        finally:
            if slot:
                self.scheduler.release()

    @staticmethod
    def _what(turn: Turn) -> tuple[str, str, int]:
        return turn.bot_id, turn.match_id, turn.version

    def _decided(self, turn: Turn, seconds: float) -> None:
        """The one place a finished decision (search done, fallback included) is counted."""
        self.metrics.bot_decided(turn.bot_id, seconds)
        log.debug("bot %s decided match %s v%d in %.3f s", *self._what(turn), seconds)

    async def _renew(self, turn: Turn) -> None:
        """Renew the claim every third of the lease; return when another process has it."""
        while True:
            await asyncio.sleep(self.settings.bot_lease_s / 3)
            try:
                if not await self.claims.renew(turn.match_id, turn.version):
                    return
            except Exception as error:  # the database may be restarting: try again
                log.warning("bot %s: renewing match %s v%d failed: %s", *self._what(turn), error)

    async def _version(self, match_id: str) -> int | None:
        async with self.sessionmaker() as session:
            return await session.scalar(select(Match.version).where(Match.id == match_id))

    async def _decide(self, turn: Turn) -> tuple[Action, float]:
        """The bot's action (or a fallback) and the search's seconds; the caller holds a
        scheduler slot, which this passes to the worker's job (or releases)."""
        bot = get_bot(turn.bot_id)
        budget = self.settings.bot_think_ms / 1000 if bot and bot.level.id == "master" else MASTER_BUDGET_S
        seed = decision_seed(turn.match_id, turn.version, turn.seat)
        started = time.monotonic()
        try:
            job = self._submit(turn, seed, budget)
            # The deadline starts now that a worker is free for it, not while it waited.
            action = await asyncio.wait_for(asyncio.wrap_future(job), timeout=budget + GRACE_S)
            return action, time.monotonic() - started
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            log.warning("bot %s timed out in match %s; playing a fallback", turn.bot_id, turn.match_id)
        except Exception as error:
            log.warning(
                "bot %s failed in match %s (%r); playing a fallback", turn.bot_id, turn.match_id, error
            )
        return fallback(turn), time.monotonic() - started

    def _submit(self, turn: Turn, seed: int, budget: float) -> Future[Action]:
        """Start the search on a worker, with the scheduler's slot the caller holds. The
        slot is held until the worker is done, even past a timeout: it is a worker, not a wait."""
        loop = asyncio.get_running_loop()

        def release(_: Future[Action]) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed: the server stopped meanwhile
                loop.call_soon_threadsafe(self.scheduler.release)

        try:
            assert self.executor is not None, "start() first"
            job = self.executor.submit(think, turn.bot_id, turn.known, turn.seat, seed, budget)
        except BaseException:
            self.scheduler.release()
            raise
        job.add_done_callback(release)
        return job

    async def _act(self, turn: Turn, action: Action) -> str:
        """Send the move: ``moved``, ``stale`` (the match moved on first: a 409) or ``refused``."""
        async with self.sessionmaker() as session:
            player = await session.get(Player, bot_player_id_of(turn.bot_id))
            if player is None:
                return "refused"
            service = MatchService(store_for(session.bind), self.publish or _no_publish)
            for attempt in (action, fallback(turn)):
                try:
                    await service.act(turn.match_id, player, attempt, turn.version)
                    return "moved"
                except Conflict:  # someone moved the match on first
                    return "stale"
                except ServiceError as error:
                    log.warning(
                        "bot %s: %r refused in match %s: %s", turn.bot_id, attempt, turn.match_id, error
                    )
                    await session.rollback()
        return "refused"


def bot_player_id_of(bot_id: str) -> str:
    bot = get_bot(bot_id)
    return bot_player_id(bot) if bot else ""


async def _no_publish(match_id: str, version: int, hint: Any = None) -> None:
    return None
