"""Who gets the next free bot worker (app/bots/scheduler.py): players take turns, and a
match with a person in it goes before a backlog of bots-only games. Order, not time."""

from __future__ import annotations

import asyncio

from app.bots.runner import has_human_seat
from app.bots.scheduler import FairQueue, Scheduler
from app.services.store import PlayerRecord, SeatRecord


def drain(queue: FairQueue[str]) -> list[str]:
    return [queue.pop() for _ in range(len(queue))]


def test_players_take_turns_however_many_decisions_one_of_them_queued():
    queue: FairQueue[str] = FairQueue()
    for item in ("a1", "a2", "a3", "a4"):
        queue.push("attacker", item, human=False)
    queue.push("bea", "b1", human=False)
    queue.push("cal", "c1", human=False)
    queue.push("bea", "b2", human=False)
    assert drain(queue) == ["a1", "b1", "c1", "a2", "b2", "a3", "a4"]


def test_a_match_with_a_human_goes_before_every_bots_only_match():
    queue: FairQueue[str] = FairQueue()
    for item in ("a1", "a2", "a3"):
        queue.push("attacker", item, human=False)
    queue.push("victim", "v1", human=True)
    queue.push("attacker", "a-human", human=True)  # the attacker's own game against a bot
    assert drain(queue) == ["v1", "a-human", "a1", "a2", "a3"]


def test_a_decision_given_up_leaves_the_queue():
    queue: FairQueue[str] = FairQueue()
    queue.push("a", "a1", human=False)
    queue.push("b", "b1", human=False)
    queue.remove("a1")
    assert drain(queue) == ["b1"]


async def grants_in_order(scheduler: Scheduler, waiting: list[tuple[str, str, bool]]) -> list[str]:
    """Queue ``waiting`` (name, owner, human) behind a held slot, then free it: who got a worker, in turn."""
    await scheduler.acquire("holder", human=False)
    order: list[str] = []

    async def decide(name: str, owner: str, human: bool) -> None:
        await scheduler.acquire(owner, human)
        order.append(name)
        scheduler.release()

    tasks = []
    for name, owner, human in waiting:
        tasks.append(asyncio.create_task(decide(name, owner, human)))
        await asyncio.sleep(0)  # queued in this order
    scheduler.release()
    await asyncio.gather(*tasks)
    return order


async def test_m4_a_humans_bot_decision_is_served_before_a_backlog_of_bot_only_decisions():
    """M4: one player's bot-against-bot matches queued first; another player's bot, in a
    match against that player, still gets the very next worker."""
    backlog = [(f"bots-only {i}", "attacker", False) for i in range(8)]
    order = await grants_in_order(Scheduler(workers=1), [*backlog, ("victim's bot", "victim", True)])
    assert order[0] == "victim's bot"
    assert order[1:] == [name for name, _, _ in backlog]


async def test_bots_only_matches_of_two_players_alternate():
    waiting = [("a1", "a", False), ("a2", "a", False), ("a3", "a", False), ("b1", "b", False)]
    assert await grants_in_order(Scheduler(workers=1), waiting) == ["a1", "b1", "a2", "a3"]


async def test_a_cancelled_wait_gives_no_slot_away_and_loses_none():
    scheduler = Scheduler(workers=1)
    await scheduler.acquire("a", human=False)
    given_up = asyncio.create_task(scheduler.acquire("a", human=False))
    waiting = asyncio.create_task(scheduler.acquire("b", human=False))
    await asyncio.sleep(0)
    given_up.cancel()
    await asyncio.sleep(0)
    assert len(scheduler.waiting) == 1
    scheduler.release()
    await waiting  # the slot went to the one still waiting
    scheduler.release()
    assert scheduler.free == 1 and len(scheduler.waiting) == 0


async def test_a_wait_cancelled_just_as_it_was_granted_passes_the_slot_on():
    scheduler = Scheduler(workers=1)
    await scheduler.acquire("a", human=False)
    first = asyncio.create_task(scheduler.acquire("a", human=False))
    second = asyncio.create_task(scheduler.acquire("b", human=False))
    await asyncio.sleep(0)
    scheduler.release()  # grants ``first``, which is cancelled before it runs again
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)
    await asyncio.wait_for(second, timeout=5)
    scheduler.release()
    assert scheduler.free == 1


def test_a_match_counts_as_human_when_a_person_or_a_gm_plays_a_seat():
    human, bot = PlayerRecord("p1", "Leia"), PlayerRecord("bot-kelly-club", "Club player bot")
    bot_seat = SeatRecord(0, bot, bot="kelly-club")
    assert has_human_seat([bot_seat, SeatRecord(1, human)])
    assert has_human_seat([bot_seat, SeatRecord(1, npc=True)]), "the GM plays the NPC seat"
    assert not has_human_seat([bot_seat, SeatRecord(1, bot, bot="kelly-master")])
