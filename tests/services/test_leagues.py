"""The league service on both databases, as two server processes would use it: two
engines (each its own store and pool) on one database. A game's result is written once
however many writers see its match end, and a round is paired once however many try."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy import func, insert, select

from app.db import make_engine
from app.migrate import upgrade
from app.models import LeagueGame, LeaguePlayer, Match, Outbox, Player
from app.services.errors import Conflict
from app.services.leagues import LeagueRunner, LeagueService
from app.services.store import PlayerRecord, store_for
from tests.conftest import postgres_database

pytestmark = pytest.mark.both_databases  # the exactly-once guards are the database's


@pytest.fixture(scope="module")
def league_database(database_url: str, tmp_path_factory) -> Iterator[str]:
    """A database of these tests' own (the worker's live servers share ``database_url``)."""
    if database_url.startswith("sqlite"):
        yield f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('leagues') / 'leagues.db'}"
    else:
        yield from postgres_database()


@pytest.fixture
async def two(league_database: str) -> AsyncIterator[tuple[LeagueService, LeagueService]]:
    """Two league services on one database, as two processes have them."""
    engines = [make_engine(league_database, pool_size=5) for _ in range(2)]
    await upgrade(engines[0])
    yield tuple(LeagueService(store_for(engine), publish=nothing) for engine in engines)  # type: ignore[misc]
    for engine in engines:
        await store_for(engine).close()
        await engine.dispose()


async def nothing(*_args, **_kwargs) -> None:
    return None


async def players(service: LeagueService, *names: str) -> list[PlayerRecord]:
    made = []
    async with service.store.engine.begin() as connection:
        for name in names:
            player_id = uuid.uuid4().hex
            values = {"id": player_id, "name": name, "token_hash": uuid.uuid4().hex}
            await connection.execute(insert(Player.__table__).values(**values))
            made.append(PlayerRecord(player_id, name))
    return made


async def running_swiss(service: LeagueService, rounds: int = 2):
    host, *others = await players(service, "Ahsoka", "Rex", "Cody", "Echo")
    league = await service.create(host, "Clone Cup", "kelly", {}, "swiss", rounds, False, False, True)
    for player in others:
        await service.join(league.id, player)
    return await service.start(league.id, host), {p.id: p for p in (host, *others)}


async def count(service: LeagueService, table, *where) -> int:
    async with service.store.engine.connect() as connection:
        return await connection.scalar(select(func.count()).select_from(table).where(*where))


async def test_a_match_end_seen_by_two_writers_records_its_result_once(two):
    one, other = two
    league, by_id = await running_swiss(one)
    game = league.games[0]
    match = await one.store.load(game.match)
    loser = by_id[game.second]
    resign = {"type": "resign"}
    answers = await asyncio.gather(
        one.matches.act(match.id, loser, resign, match.version),
        other.matches.act(match.id, loser, resign, match.version),
        return_exceptions=True,
    )
    # The same action at the same version: applied once; the other writer gets it back, or a 409.
    assert all(not isinstance(a, Exception) or isinstance(a, Conflict) for a in answers), answers
    assert (await one.store.load(match.id)).version == match.version + 1
    after = await other.load(league.id)
    assert [g.result for g in after.games if g.match == match.id] == ["1-0"]
    table = {s["player"]["id"]: s for s in other.view(after)["standings"]}
    assert table[game.first]["points"] == 1 and table[game.second]["lost"] == 1
    assert sum(s["played"] for s in table.values()) == 2


async def test_the_next_swiss_round_is_paired_once_however_many_try(two):
    one, other = two
    league, by_id = await running_swiss(one)
    for game in league.games:
        match = await one.store.load(game.match)
        await one.matches.act(match.id, by_id[game.first], {"type": "resign"}, match.version)
    wrote = await asyncio.gather(*(service.advance(league.id) for service in (one, other) * 3))
    assert wrote.count(True) == 1, wrote
    after = await one.load(league.id)
    assert after.paired_rounds == 2 and [len(after.round_games(n)) for n in (1, 2)] == [2, 2]
    assert await count(one, Match, Match.league_id == league.id) == 4, "no match of a losing try"
    assert await count(one, LeagueGame, LeagueGame.league_id == league.id) == 4
    assert not await other.advance(league.id), "nothing more to do until round 2 ends"
    for game in after.round_games(2):
        match = await other.store.load(game.match)
        await other.matches.act(match.id, by_id[game.second], {"type": "resign"}, match.version)
    finished = await asyncio.gather(*(service.advance(league.id) for service in (one, other) * 2))
    assert finished.count(True) == 1
    assert (await other.load(league.id)).status == "finished"


async def test_a_round_owes_its_notices_once(two):
    one, other = two
    league, by_id = await running_swiss(one)
    host = next(iter(by_id))
    async with one.store.engine.begin() as connection:
        await connection.execute(
            Player.__table__.update().where(Player.id == host).values(webhook_url="https://example.com/h")
        )
    for game in league.games:
        match = await one.store.load(game.match)
        await one.matches.act(match.id, by_id[game.first], {"type": "resign"}, match.version)
    await asyncio.gather(one.advance(league.id), other.advance(league.id))
    rows = await count(one, Outbox, Outbox.player_id == host, Outbox.event == "league_round")
    assert rows == 1, "round 2's notice to the host's webhook, written once"


async def test_the_sweep_takes_over_what_a_process_that_died_left(two):
    """Round 1 ended and a player's withdrawal was written, but the processes that did it
    died before moving on: another process's sweep forfeits the games and pairs round 2."""
    one, other = two
    host, *others = await players(one, "Hondo", "Sugi", "Embo", "Seripas", "Latts")
    league = await one.create(host, "Outlaw Cup", "kelly", {}, "swiss", 2, False, False, True)
    for player in others:
        await one.join(league.id, player)
    league = await one.start(league.id, host)
    by_id = {p.id: p for p in (host, *others)}
    games = [g for g in league.games if g.second is not None]
    played, stranded = games[0], games[1]
    match = await one.store.load(played.match)
    await one.matches.act(match.id, by_id[played.second], {"type": "resign"}, match.version)
    async with one.store.engine.begin() as connection:  # a withdrawal cut short
        await connection.execute(
            LeaguePlayer.__table__.update()
            .where(LeaguePlayer.league_id == league.id, LeaguePlayer.player_id == stranded.first)
            .values(withdrawn=True)
        )
    await LeagueRunner(lambda: other, sweep_s=0).sweep()
    after = await other.load(league.id)
    lost = next(g for g in after.games if g.id == stranded.id)
    assert (lost.result, lost.forfeit) == ("0-1", True)
    assert (await other.store.load(stranded.match)).status == "finished", "its match ended too"
    assert after.paired_rounds == 2, "round 2 paired by the sweep"
    assert stranded.first not in {p for g in after.round_games(2) for p in (g.first, g.second)}
    await LeagueRunner(lambda: one, sweep_s=0).sweep()
    assert (await one.load(league.id)).paired_rounds == 2, "once"


@pytest.mark.parametrize(("system", "most"), [("round-robin", 20), ("swiss", 40)])
async def test_a_league_is_full_at_what_its_system_can_pair(two, system, most):
    one, _ = two
    host, *others = await players(one, *(f"Pilot {i}" for i in range(most + 1)))
    league = await one.create(host, "Boonta Eve", "kelly", {}, system, None, False, False, True)
    for player in others[: most - 1]:
        await one.join(league.id, player)
    with pytest.raises(Conflict, match=f"a {system} league takes at most {most} players"):
        await one.join(league.id, others[-1])
    assert len((await one.load(league.id)).players) == most
