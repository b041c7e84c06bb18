"""The store's contract (``app/services/store.py``), on SQLite and on PostgreSQL.

Everything above the store trusts these promises, so each is checked on both
implementations: the live-server tests then run on SQLite alone. The writes are
taken both ways PostgreSQL has: its one-statement path (one entry, no seat change,
nothing owed) and the general transaction.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, insert, select

from app.db import make_engine
from app.migrate import upgrade
from app.models import Outbox, Player
from app.rules.log import Entry
from app.services.errors import NotFound
from app.services.store import MatchRecord, Notice, PlayerRecord, SeatRecord, Store, store_for
from tests.conftest import postgres_database

pytestmark = pytest.mark.both_databases  # the store is the one place the database shows

T0 = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
SECOND = timedelta(seconds=1)
FAST = "one entry, no seat changed, nothing owed"
GENERAL = "a seat changed and a notice owed"


@pytest.fixture(scope="module")
def store_database(database_url: str, tmp_path_factory) -> Iterator[str]:
    """A database of these tests' own: the worker's live servers share ``database_url``,
    and their notifiers would claim the outbox rows these tests claim."""
    if database_url.startswith("sqlite"):
        yield f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('store') / 'store.db'}"
    else:
        yield from postgres_database()


@pytest.fixture
async def store(store_database: str) -> AsyncIterator[Store]:
    engine = make_engine(store_database, pool_size=5)
    await upgrade(engine)
    yield store_for(engine)
    await store_for(engine).close()
    await engine.dispose()


async def new_player(store: Store, name: str = "Dash") -> PlayerRecord:
    player_id = uuid.uuid4().hex
    async with store.engine.begin() as connection:
        values = {"id": player_id, "name": name, "token_hash": uuid.uuid4().hex, "created_at": T0}
        await connection.execute(insert(Player.__table__).values(**values))
    return PlayerRecord(player_id, name)


def a_match(host: PlayerRecord, guest: PlayerRecord | None = None, **values) -> MatchRecord:
    """A two-seat match as the match service would make it (the store needs no rules)."""
    fields = {
        "id": uuid.uuid4().hex,
        "ruleset": "kelly",
        "options": {"clock": None},
        "status": "active",
        "version": 1,
        "host": host,
        "seed": "ab" * 32,
        "seed_sha256": "cd" * 32,
        "dice_count": 0,
        "state": {"pieces": {"b": 3, "a": 1}, "turn": 0},  # keys out of order on purpose
        "result": None,
        "paused": False,
        "created_at": T0,
        "updated_at": T0,
        "seats": (SeatRecord(0, host, seed="01"), SeatRecord(1, guest)),
        "turn_since": T0,
    }
    return MatchRecord(**{**fields, **values})


def step(record: MatchRecord, seat: int, **changes) -> tuple[MatchRecord, Entry]:
    """The next version of ``record``: ``seat`` moved, and the entry that says so."""
    version = record.version + 1
    at = record.updated_at + timedelta(seconds=1)
    state = {**(record.state or {}), "turn": version}
    after = replace(record, version=version, state=state, updated_at=at, dice_count=record.dice_count + 2)
    entry = Entry(version, seat, {"type": "move", "to": version}, [{"type": "moved"}], at, record.dice_count)
    return replace(after, **changes), entry


def owed(record: MatchRecord, player: PlayerRecord) -> Notice:
    return Notice(player.id, "webhook", "your_turn", record.id, record.ruleset, record.version, "Your turn")


async def outbox_rows(store: Store, match_id: str) -> int:
    query = select(func.count()).select_from(Outbox.__table__).where(Outbox.__table__.c.match_id == match_id)
    async with store.engine.connect() as connection:
        return (await connection.execute(query)).scalar_one()


async def test_a_match_reads_back_as_it_was_written(store):
    host, guest = await new_player(store, "Han"), await new_player(store, "Chewie")
    written = await store.insert(a_match(host, guest), [Entry(1, None, {"type": "start"}, [], T0)])
    assert written.seq > 0
    loaded = await store.load(written.id)
    assert loaded == written
    assert list(loaded.state) == ["pieces", "turn"] and list(loaded.state["pieces"]) == ["b", "a"]
    assert loaded.created_at.tzinfo is not None and loaded.turn_since == T0
    assert [s.player_id for s in loaded.seats] == [host.id, guest.id]
    assert await store.entries(loaded) == [Entry(1, None, {"type": "start"}, [], T0)]
    with pytest.raises(NotFound):
        await store.load("no-such-match")


@pytest.mark.parametrize("path", [FAST, GENERAL])
async def test_a_change_at_the_current_version_is_written_whole(store, path):
    host, guest = await new_player(store), await new_player(store)
    match = await store.insert(a_match(host, guest), [])
    after, entry = step(match, 0)
    notices: tuple[Notice, ...] = ()
    if path == GENERAL:
        after = replace(after, seats=(match.seats[0], SeatRecord(1, guest, bot="beginner", seed="ff")))
        notices = (owed(after, guest),)
    assert await store.append(match, after, [entry], notices)
    loaded = await store.load(match.id)
    assert (loaded.version, loaded.state, loaded.dice_count) == (2, after.state, 2)
    assert loaded.seats == after.seats
    assert await store.entries(loaded) == [entry]
    assert await outbox_rows(store, match.id) == len(notices)


@pytest.mark.parametrize("path", [FAST, GENERAL])
async def test_the_writer_that_lost_the_race_writes_nothing(store, path):
    host, guest = await new_player(store), await new_player(store)
    match = await store.insert(a_match(host, guest), [])
    first, first_entry = step(match, 0)
    second, second_entry = step(match, 1, state={"turn": "the loser's"})
    notices: tuple[Notice, ...] = ()
    if path == GENERAL:
        second = replace(second, seats=(match.seats[0], SeatRecord(1, None)))
        notices = (owed(second, host),)
    assert await store.append(match, first, [first_entry])
    assert not await store.append(match, second, [second_entry], notices)
    loaded = await store.load(match.id)
    assert loaded.state == first.state and loaded.seats == match.seats
    assert await store.entries(loaded) == [first_entry]
    assert await outbox_rows(store, match.id) == 0


async def test_of_many_writers_at_one_version_exactly_one_wins(store):
    host, guest = await new_player(store), await new_player(store)
    match = await store.insert(a_match(host, guest), [])
    changes = [step(match, seat % 2, state={"turn": seat}) for seat in range(8)]
    won = await asyncio.gather(*(store.append(match, after, [entry]) for after, entry in changes))
    assert sum(won) == 1
    loaded = await store.load(match.id)
    assert loaded.state == changes[won.index(True)][0].state
    assert len(await store.entries(loaded)) == 1


async def test_entries_are_bounded_by_version_and_count_and_never_pass_the_record(store):
    host = await new_player(store)
    match = await store.insert(a_match(host), [Entry(1, None, {"type": "start"}, [], T0)])
    current = match
    for _ in range(5):
        after, entry = step(current, 0)
        assert await store.append(current, after, [entry])
        current = after
    assert [e.version for e in await store.entries(current)] == [1, 2, 3, 4, 5, 6]
    assert [e.version for e in await store.entries(current, after=2, upto=4)] == [3, 4]
    assert [e.version for e in await store.entries(current, after=0, limit=2)] == [1, 2]
    assert [e.version for e in await store.entries(current, after=-5, upto=2**40)] == [1, 2, 3, 4, 5, 6]
    assert (await store.entry(current, 4)).version == 4
    assert await store.entry(current, 7) is None
    # A reader holding version 4 never sees 5 and 6, though they are written.
    assert [e.version for e in await store.entries(replace(current, version=4), after=2)] == [3, 4]
    record, entries = await store.load_with_entries(match.id, after=3)
    assert record.version == 6 and [e.version for e in entries] == [4, 5, 6]
    assert (await store.load_with_entries(match.id, after=6))[1] == []
    assert (await store.load_with_entries(match.id, after=None))[1] == []


async def test_pages_go_newest_first_and_a_cursor_continues_without_overlap(store):
    host, other = await new_player(store), await new_player(store)
    mine = [await store.insert(a_match(host), []) for _ in range(5)]
    await store.insert(a_match(other, host, ruleset="eote", status="finished"), [])
    await store.insert(a_match(other), [])  # not the host's: never on the host's pages
    first = await store.page(host.id, None, None, None, limit=4)
    assert [m.ruleset for m in first[:1]] == ["eote"]  # seated, not hosting: still the player's
    rest = await store.page(host.id, None, None, first[-1].seq, limit=4)
    assert [m.id for m in first[1:] + rest] == [m.id for m in reversed(mine)]
    assert len(rest) == 2 and await store.page(host.id, None, None, rest[-1].seq, limit=4) == []
    assert [m.status for m in await store.page(host.id, "eote", "finished", None, 10)] == ["finished"]
    assert await store.page(host.id, "kelly", "finished", None, 10) == []


async def test_a_claimed_notice_is_leased_to_one_notifier_until_it_is_settled_or_its_lease_runs_out(store):
    host, guest = await new_player(store), await new_player(store)
    match = await store.insert(a_match(host, guest), [])
    after, entry = step(match, 0)
    after = replace(after, seats=(match.seats[0], SeatRecord(1, guest, seed="aa")))
    assert await store.append(match, after, [entry], (owed(after, guest), owed(after, host)))
    now = after.updated_at

    async def claim(at: datetime) -> list[int]:
        return [row["id"] for row in await store.claim_notices(at, lease_s=60) if row["match_id"] == match.id]

    # Two notifiers at once: each row goes to one of them.
    both = await asyncio.gather(claim(now), claim(now))
    assert sorted(both[0] + both[1]) == sorted({*both[0], *both[1]}) and len(both[0] + both[1]) == 2
    leased = both[0] + both[1]
    assert await claim(now + timedelta(seconds=30)) == []  # still leased
    first, second = sorted(leased)
    await store.settle_notice(first, done_at=now, outcome="delivered")
    await store.settle_notice(second, next_at=now + timedelta(seconds=90))  # retry later
    assert await claim(now + timedelta(seconds=61)) == []  # done, and the other not due yet
    rows = [
        r for r in await store.claim_notices(now + timedelta(seconds=91), 60) if r["match_id"] == match.id
    ]
    assert [(r["id"], r["attempts"]) for r in rows] == [(second, 2)]
    # A notifier that died: its lease runs out and another takes the row.
    assert await claim(now + timedelta(seconds=91 + 61)) == [second]


async def test_m1_a_notice_at_its_try_limit_is_never_claimed_again_but_given_up(store):
    host, guest = await new_player(store), await new_player(store)
    match = await store.insert(a_match(host, guest), [])
    after, entry = step(match, 0)
    assert await store.append(match, after, [entry], (owed(after, guest),))
    now = after.updated_at

    async def claim(at: datetime) -> list[tuple[int, int]]:
        rows = await store.claim_notices(at, lease_s=60, max_attempts=2)
        return [(row["id"], row["attempts"]) for row in rows if row["match_id"] == match.id]

    ((row_id, _),) = await claim(now)
    assert await claim(now + timedelta(seconds=61)) == [(row_id, 2)]  # its notifier died
    assert await claim(now + timedelta(seconds=90)) == []  # at the limit, and still leased
    query = select(Outbox.__table__).where(Outbox.__table__.c.id == row_id)
    async with store.engine.connect() as connection:
        assert (await connection.execute(query)).one().done_at is None  # its try may yet succeed
    # Its lease out (the second notifier died too): not claimed a third time, given up.
    given_up = now + timedelta(seconds=122)
    assert await claim(given_up) == []
    async with store.engine.connect() as connection:
        row = (await connection.execute(query)).one()
    assert (row.attempts, row.outcome, row.done_at, row.lease_until) == (2, "failed", given_up, None)


async def test_a_claimed_notice_carries_the_players_current_address(store):
    host, guest = await new_player(store), await new_player(store)
    match = await store.insert(a_match(host, guest), [])
    after, entry = step(match, 0)
    assert await store.append(match, after, [entry], (owed(after, guest),))
    async with store.engine.begin() as connection:
        table = Player.__table__
        await connection.execute(
            table.update().where(table.c.id == guest.id).values(webhook_url="https://example.org/hook")
        )
    rows = [r for r in await store.claim_notices(after.updated_at, 60) if r["match_id"] == match.id]
    assert [(r["player_id"], r["address"], r["text"]) for r in rows] == [
        (guest.id, "https://example.org/hook", "Your turn")
    ]
    loaded = await store.load(match.id)
    assert loaded.seats[1].player.channels == ("webhook",)


async def test_a_rematch_answer_is_written_once(store):
    host, guest = await new_player(store), await new_player(store)
    match = await store.insert(a_match(host, guest, status="finished"), [])
    assert await store.set_rematch(match, None, "offered", 0, None)
    assert not await store.set_rematch(match, None, "offered", 1, None)  # already offered
    answers = await asyncio.gather(
        store.set_rematch(match, "offered", "accepted", 0, "next"),
        store.set_rematch(match, "offered", "declined", 0, None),
    )
    assert sorted(answers) == [False, True]
    loaded = await store.load(match.id)
    assert loaded.rematch_state == ("accepted" if answers[0] else "declined")


async def test_presence_is_kept_per_player(store):
    seen, unseen = await new_player(store), await new_player(store)
    await store.seen({seen.id}, T0)
    assert await store.last_seen({seen.id, unseen.id}) == {seen.id: T0, unseen.id: None}
    assert await store.last_seen(set()) == {}


async def test_who_has_which_match_open_is_shared_and_bounded(store):
    """Every process upserts the (player, match) pairs it holds sockets for, at once and
    in any order without deadlocking; a pair counts from its newest record; rows older
    than ``forget_before`` go."""
    player, match, other = uuid.uuid4().hex, uuid.uuid4().hex, uuid.uuid4().hex
    assert not await store.watched(player, match, T0)
    await store.watching({(player, match)}, T0)
    assert await store.watched(player, match, T0) and not await store.watched(player, match, T0 + SECOND)
    assert not await store.watched(player, other, T0)
    later = T0 + 10 * SECOND
    pairs = [{(uuid.uuid4().hex, match) for _ in range(20)} | {(player, match)} for _ in range(6)]
    await asyncio.gather(*(store.watching(p, later) for p in pairs))  # six processes' beats at once
    assert await store.watched(player, match, later)
    await store.watching({(player, other)}, T0)
    await store.watching(set(), later, forget_before=T0 + SECOND)
    assert await store.watched(player, match, later) and not await store.watched(player, other, T0)
    await store.watching(set(), later + SECOND, forget_before=later + SECOND)
    assert not await store.watched(player, match, T0)
