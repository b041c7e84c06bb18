"""Leagues (issue 32): a host's round-robin or Swiss event of matches of one ruleset.

Each change goes guard → apply → write, like the match service: read the league, check
who may do what in which state, then write in one transaction guarded by what was read.

Exactly once, however many processes see a match end:

- **A game's result** is written inside the very write that finishes its match
  (``Store.append`` → ``record_league_result``): the match's version-guarded write has
  one winner, so the result is written once, and ``result IS NULL`` keeps a result the
  host adjudicated first.
- **A round** (the first, every round-robin round, each later Swiss round) is written in
  one transaction with its matches (built by :meth:`MatchService.pair`, the same
  decisions as a create and a join), its games and the notices it owes (each match's
  "your turn", each player's ``league_round``), guarded by ``leagues.paired_rounds``:
  ``UPDATE … SET paired_rounds = n + 1 WHERE paired_rounds = n``. A second process that
  pairs the same round finds the guard gone and writes nothing (no match, no notice);
  unique (league, round, board) and (league, round, first player) back it up.
- **Who pairs the next Swiss round** (and marks a league finished): :meth:`advance`, an
  idempotent look at the league, is called after the commit of every change that may
  complete a round (by the process that made it: ``LeagueRunner.match_ended`` from the
  app's publish, or the league's own routes), and by every process's sweep every
  ``league_sweep_s`` seconds over the running leagues. A process that dies between the
  commit and its call leaves the round to the next sweep of any process, which also
  forfeits the unplayed games of a player whose withdrawal was cut short.
- **A forfeit** (a withdrawal, the host's adjudication) writes the game's result first,
  guarded by ``result IS NULL`` (one adjudication wins), then ends its match by the
  loser's resignation (or an agreed draw) through the match service; the match's own end
  then finds the result written and leaves it.

Live: every change says ``{"type": "league", "league": id}`` to the broker's room
``league:{id}``; every process's league websockets (``WS /ws/leagues/{id}``) pass it
on, and the page fetches the league again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import delete, exists, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from app.bots import Bot, get_bot
from app.leagues.pairing import Game, Pairing, round_robin, swiss_round
from app.leagues.standings import standings
from app.models import League, LeagueGame, LeaguePlayer, Player, PlayerRating, PushSubscription
from app.rules import get_ruleset
from app.rules.base import COMMON_ACTION_TYPES
from app.services import clock, views
from app.services.errors import Conflict, Forbidden, Invalid, NotFound, ServiceError
from app.services.matches import MatchService, Publish, describe_validation
from app.services.notices import YOUR_TURN, shown_name
from app.services.store import (
    OUTBOX,
    Committed,
    MatchRecord,
    Notice,
    PlayerRecord,
    Store,
    aware,
    channels_of,
    outbox_values,
)

log = logging.getLogger(__name__)

LEAGUES = League.__table__
LEAGUE_PLAYERS = LeaguePlayer.__table__
LEAGUE_GAMES = LeagueGame.__table__
PLAYERS = Player.__table__
PUSH = PushSubscription.__table__
RATINGS = PlayerRating.__table__

FORMATS = ("round-robin", "swiss")
RESULTS = ("1-0", "0-1", "½-½")
MAX_PLAYERS = {"round-robin": 20, "swiss": 40}
"""A round-robin of more would last too long to finish; a Swiss event stays a few rounds."""
MAX_SWISS_ROUNDS = 19
LEAGUE_ROUND = "league_round"
Say = Callable[[str], Awaitable[None]]
"""Tells every process's viewers of a league that it changed (the league's id)."""


async def _say_nothing(league_id: str) -> None:
    return None


def room(league_id: str) -> str:
    """The broker room of a league's live viewers."""
    return f"league:{league_id}"


@dataclass(frozen=True)
class Entrant:
    id: str
    name: str
    number: int
    bot: str | None
    withdrawn: bool
    channels: tuple[str, ...] = ()

    @property
    def record(self) -> PlayerRecord:
        return PlayerRecord(self.id, self.name, self.channels)


@dataclass(frozen=True)
class LeagueGameRow:
    id: int
    round: int
    board: int
    first: str
    second: str | None
    match: str | None
    result: str | None
    forfeit: bool

    def as_game(self) -> Game:
        return Game(self.round, self.first, self.second, self.result, self.forfeit)


@dataclass(frozen=True)
class LeagueRecord:
    id: str
    name: str
    host: PlayerRecord
    ruleset: str
    options: dict[str, Any]
    format: str
    rounds: int
    double: bool
    rated: bool
    status: str
    paired_rounds: int
    created_at: datetime
    players: tuple[Entrant, ...]
    games: tuple[LeagueGameRow, ...]

    def entrant(self, player_id: str | None) -> Entrant | None:
        return next((p for p in self.players if p.id == player_id), None)

    def round_games(self, number: int) -> list[LeagueGameRow]:
        return [g for g in self.games if g.round == number]


@dataclass(frozen=True)
class NewRound:
    """A round decided but not written: its matches, games and notices."""

    number: int
    matches: list[tuple[MatchRecord, list[Any]]]
    games: list[dict[str, Any]]
    notices: list[Notice]


class LeagueService:
    def __init__(
        self,
        store: Store,
        publish: Publish,
        now: clock.Now = clock.system_now,
        say: Say = _say_nothing,
    ) -> None:
        self.store = store
        self.publish = publish
        self.now = now
        self.say = say
        self.matches = MatchService(store, publish, now)

    # --- reading -----------------------------------------------------------------

    async def load(self, league_id: str) -> LeagueRecord:
        async with self.store.engine.connect() as connection:
            row = (await connection.execute(select(LEAGUES).where(LEAGUES.c.id == league_id))).first()
            if row is None:
                raise NotFound(f"no league with id {league_id!r}")
            host = (
                await connection.execute(select(PLAYERS.c.name).where(PLAYERS.c.id == row.host_id))
            ).scalar()
            push = exists().where(PUSH.c.player_id == PLAYERS.c.id).label("push")
            entrants = await connection.execute(
                select(LEAGUE_PLAYERS, PLAYERS.c.name, PLAYERS.c.webhook_url, PLAYERS.c.email, push)
                .join(PLAYERS, PLAYERS.c.id == LEAGUE_PLAYERS.c.player_id)
                .where(LEAGUE_PLAYERS.c.league_id == league_id)
                .order_by(LEAGUE_PLAYERS.c.number)
            )
            players = tuple(
                Entrant(
                    p.player_id,
                    p.name,
                    p.number,
                    p.bot,
                    p.withdrawn,
                    () if p.bot else channels_of(p.webhook_url, p.email, p.push),
                )
                for p in entrants
            )
            games = await connection.execute(
                select(LEAGUE_GAMES)
                .where(LEAGUE_GAMES.c.league_id == league_id)
                .order_by(LEAGUE_GAMES.c.round, LEAGUE_GAMES.c.board)
            )
            rows = tuple(
                LeagueGameRow(
                    g.id, g.round, g.board, g.first_id, g.second_id, g.match_id, g.result, g.forfeit
                )
                for g in games
            )
        return LeagueRecord(
            id=row.id,
            name=row.name,
            host=PlayerRecord(row.host_id, host or ""),
            ruleset=row.ruleset,
            options=row.options,
            format=row.format,
            rounds=row.rounds,
            double=row.double,
            rated=row.rated,
            status=row.status,
            paired_rounds=row.paired_rounds,
            created_at=aware(row.created_at) or row.created_at,
            players=players,
            games=rows,
        )

    def view(self, league: LeagueRecord) -> dict[str, Any]:
        """The league as ``GET /api/v1/leagues/{id}`` shows it (shared/API.md "Leagues")."""
        names = {p.id: {"id": p.id, "name": p.name} for p in league.players}

        def who(player_id: str | None) -> dict[str, str] | None:
            return None if player_id is None else names.get(player_id, {"id": player_id, "name": ""})

        rounds = []
        for number in range(1, league.paired_rounds + 1):
            pairings = [
                {
                    "seats": [who(g.first), who(g.second)],
                    "match": g.match,
                    "result": g.result,
                    "forfeit": g.forfeit,
                }
                for g in league.round_games(number)
            ]
            rounds.append({"round": number, "pairings": pairings})
        return {
            "id": league.id,
            "name": league.name,
            "host": {"id": league.host.id, "name": league.host.name},
            "ruleset": league.ruleset,
            "options": league.options,
            "format": league.format,
            "total_rounds": league.rounds,
            "double": league.double,
            "rated": league.rated,
            "status": league.status,
            "created_at": league.created_at,
            "players": [
                {"id": p.id, "name": p.name, "bot": p.bot, "withdrawn": p.withdrawn} for p in league.players
            ],
            "rounds": rounds,
            "standings": [
                {
                    "player": who(s.player),
                    "points": s.points,
                    "played": s.played,
                    "won": s.won,
                    "drawn": s.drawn,
                    "lost": s.lost,
                    "tiebreak": s.tiebreak,
                }
                for s in league_standings(league)
            ],
        }

    async def player_leagues(self, player_id: str) -> list[dict[str, Any]]:
        """The leagues a player hosts or plays in, newest first (the home page)."""
        mine = select(LEAGUE_PLAYERS.c.league_id).where(LEAGUE_PLAYERS.c.player_id == player_id)
        query = (
            select(LEAGUES.c.id, LEAGUES.c.name, LEAGUES.c.status, LEAGUES.c.ruleset)
            .where((LEAGUES.c.host_id == player_id) | LEAGUES.c.id.in_(mine))
            .order_by(LEAGUES.c.created_at.desc())
            .limit(20)
        )
        async with self.store.engine.connect() as connection:
            return [dict(row._mapping) for row in await connection.execute(query)]

    async def of_match(self, match_id: str) -> dict[str, Any] | None:
        """The league game a match is, for its page: ``{"league", "league_name", "round"}``."""
        query = (
            select(LEAGUE_GAMES.c.league_id, LEAGUE_GAMES.c.round, LEAGUES.c.name)
            .join(LEAGUES, LEAGUES.c.id == LEAGUE_GAMES.c.league_id)
            .where(LEAGUE_GAMES.c.match_id == match_id)
        )
        async with self.store.engine.connect() as connection:
            row = (await connection.execute(query)).first()
        return None if row is None else {"league": row.league_id, "league_name": row.name, "round": row.round}

    async def active_matches(self, player_id: str) -> list[dict[str, Any]]:
        """The player's unfinished league games with a match: ``{"league", "league_name",
        "match", "round", "opponent"}`` (the home page's "your league match against X")."""
        query = (
            select(LEAGUE_GAMES, LEAGUES.c.name.label("league_name"))
            .join(LEAGUES, LEAGUES.c.id == LEAGUE_GAMES.c.league_id)
            .where(
                LEAGUE_GAMES.c.result.is_(None),
                LEAGUE_GAMES.c.match_id.is_not(None),
                (LEAGUE_GAMES.c.first_id == player_id) | (LEAGUE_GAMES.c.second_id == player_id),
            )
            .order_by(LEAGUE_GAMES.c.round, LEAGUE_GAMES.c.id)
            .limit(50)
        )
        async with self.store.engine.connect() as connection:
            rows = [row._mapping for row in await connection.execute(query)]
            others = {r["second_id"] if r["first_id"] == player_id else r["first_id"] for r in rows}
            names = {
                p.id: p.name
                for p in await connection.execute(
                    select(PLAYERS.c.id, PLAYERS.c.name).where(PLAYERS.c.id.in_(others))
                )
            }
        out = []
        for r in rows:
            other = r["second_id"] if r["first_id"] == player_id else r["first_id"]
            out.append(
                {
                    "league": r["league_id"],
                    "league_name": r["league_name"],
                    "match": r["match_id"],
                    "round": r["round"],
                    "opponent": {"id": other, "name": names.get(other, "")},
                }
            )
        return out

    # --- changing ----------------------------------------------------------------

    async def create(
        self,
        host: Any,
        name: str,
        ruleset_id: str,
        options: dict[str, Any] | None,
        format: str,
        rounds: int | None,
        double: bool,
        rated: bool,
        play: bool,
    ) -> LeagueRecord:
        """A new, open league hosted by ``host`` (who enters it when ``play``)."""
        name = name.strip()
        if not 1 <= len(name) <= 80:
            raise Invalid("name: 1 to 80 characters")
        if format not in FORMATS:
            raise Invalid(f"format: must be one of {', '.join(FORMATS)}")
        try:
            ruleset = get_ruleset(ruleset_id)
        except Exception:
            raise Invalid(f"ruleset: no ruleset {ruleset_id!r}") from None
        if ruleset.seats != 2:
            raise Invalid(
                f"ruleset: a league's matches are between two players; {ruleset.id} has {ruleset.seats}"
            )
        try:
            validated = ruleset.options(options).model_dump(mode="json")
        except Exception as error:
            message = describe_validation(error, "options") if hasattr(error, "errors") else str(error)
            raise Invalid(message) from None
        if format == "swiss" and rounds is not None and not 1 <= rounds <= MAX_SWISS_ROUNDS:
            raise Invalid(f"rounds: a Swiss league has 1 to {MAX_SWISS_ROUNDS} rounds")
        if format == "swiss":
            double = False  # only a round-robin goes twice around
        else:
            rounds = None  # a round-robin's rounds follow from its players
        now = self.now()
        league_id = secrets.token_urlsafe(9)
        async with self.store._writing(), self.store.engine.begin() as connection:
            await connection.execute(
                insert(LEAGUES).values(
                    id=league_id,
                    name=name,
                    host_id=host.id,
                    ruleset=ruleset.id,
                    options=validated,
                    format=format,
                    rounds=rounds or 0,
                    double=double,
                    rated=rated,
                    status="open",
                    paired_rounds=0,
                    created_at=now,
                )
            )
            if play:
                await connection.execute(
                    insert(LEAGUE_PLAYERS).values(
                        league_id=league_id,
                        player_id=host.id,
                        number=1,
                        bot=None,
                        withdrawn=False,
                        joined_at=now,
                    )
                )
        return await self.load(league_id)

    async def join(self, league_id: str, player: Any, bot: str | None = None) -> LeagueRecord:
        """Enter ``player`` (a bot's player when ``bot``) while the league is open."""
        league = await self.load(league_id)
        if league.status != "open":
            raise Conflict(f"the league is {league.status}: players join only before it starts")
        if league.entrant(player.id) is not None:
            if bot is not None:
                raise Conflict(f"{bot} is already in this league")
            return league  # joining again changes nothing
        guard = (LEAGUES.c.id == league_id) & (LEAGUES.c.status == "open")
        try:
            async with self.store._writing(), self.store.engine.begin() as connection:
                # Touching the league row orders this join after a start that got there first.
                touched = await connection.execute(update(LEAGUES).where(guard).values(status="open"))
                if touched.rowcount != 1:
                    raise Conflict("the league has started: players join only before it starts")
                # Counted now, while the league row is this transaction's: no two joins share a number.
                mine = LEAGUE_PLAYERS.c.league_id == league_id
                count, last = (
                    await connection.execute(
                        select(func.count(), func.coalesce(func.max(LEAGUE_PLAYERS.c.number), 0)).where(mine)
                    )
                ).one()
                if count >= (most := MAX_PLAYERS[league.format]):
                    raise Conflict(
                        f"the league is full: a {league.format} league takes at most {most} players"
                    )
                number = last + 1
                await connection.execute(
                    insert(LEAGUE_PLAYERS).values(
                        league_id=league_id,
                        player_id=player.id,
                        number=number,
                        bot=bot,
                        withdrawn=False,
                        joined_at=self.now(),
                    )
                )
        except IntegrityError:
            raise Conflict("someone joined at the same moment; please try again") from None
        await self.changed(league_id)
        return await self.load(league_id)

    async def add_bot(
        self, league_id: str, host: Any, bot_id: str, bot_player: Callable[[Bot], Awaitable[Any]]
    ) -> LeagueRecord:
        """The host enters the bot ``bot_id``, whose player ``bot_player(bot)`` finds or
        makes once the bot is known to be one of the league's ruleset."""
        league = await self.load(league_id)
        self.host_only(league, host, "enters bots")
        bot = get_bot(bot_id)
        if bot is None or bot.ruleset != league.ruleset:
            raise Invalid(checked_bot_words(bot_id, league.ruleset))
        return await self.join(league_id, await bot_player(bot), bot=bot.id)

    async def start(self, league_id: str, host: Any) -> LeagueRecord:
        """Pair the first round (round-robin: every round) and create its matches."""
        league = await self.load(league_id)
        self.host_only(league, host, "starts it")
        if league.status != "open":
            raise Conflict(f"the league is already {league.status}")
        count = len(league.players)
        if count < 2:
            raise Conflict(f"a league needs at least 2 players to start; it has {count}")
        ids = [p.id for p in league.players]
        if league.format == "round-robin":
            try:
                schedule = round_robin(ids, league.double)
            except ValueError as error:
                raise Conflict(f"cannot start: {error}") from None
            built = [self._decide_round(league, number, pairs) for number, pairs in enumerate(schedule, 1)]
            built = one_notice_each(league, built)
            total = len(schedule)
        else:
            most = count - 1 + count % 2  # without two players meeting twice
            if league.rounds == 0:  # none chosen: about log2 of the players, as Swiss events do
                league = replace(league, rounds=min(most, max(1, math.ceil(math.log2(count)))))
            if league.rounds > most:
                raise Conflict(
                    f"a Swiss league of {count} players can have at most {most} rounds "
                    f"(it has {league.rounds}): more players must join first"
                )
            built = [self._decide_round(league, 1, await self._swiss_pairings(league, 1))]
            total = league.rounds
        if not await self._write_rounds(league, built, started=True, total=total):
            raise Conflict("the league was started at the same moment by another request")
        await self._after_rounds(league_id, built)
        await self.advance(league_id)  # a round of byes only needs no play
        return await self.load(league_id)

    async def withdraw(self, league_id: str, caller: Any, player_id: str | None = None) -> LeagueRecord:
        """``caller`` withdraws (the host may withdraw anyone, a bot too). Open: they leave.
        Running: every unplayed game of theirs with a match is lost by forfeit (round-robin:
        all of them; Swiss: this round's) and they are not paired again."""
        league = await self.load(league_id)
        player_id = player_id or caller.id
        if player_id != caller.id and caller.id != league.host.id:
            raise Forbidden("only the league's host withdraws another player")
        entrant = league.entrant(player_id)
        if entrant is None:
            raise Conflict("that player is not in this league")
        if league.status == "finished":
            raise Conflict("the league is finished")
        if entrant.withdrawn:
            raise Conflict(f"{entrant.name} has already withdrawn")
        mine = (LEAGUE_PLAYERS.c.league_id == league_id) & (LEAGUE_PLAYERS.c.player_id == player_id)
        as_read = (LEAGUES.c.id == league_id) & (LEAGUES.c.status == league.status)
        async with self.store._writing(), self.store.engine.begin() as connection:
            # Touching the league row orders this after (or before) a round being written.
            touched = await connection.execute(update(LEAGUES).where(as_read).values(status=league.status))
            if touched.rowcount != 1:
                raise Conflict("the league changed at the same moment; please try again")
            if league.status == "open":
                await connection.execute(delete(LEAGUE_PLAYERS).where(mine))
            else:
                written = await connection.execute(
                    update(LEAGUE_PLAYERS)
                    .where(mine, LEAGUE_PLAYERS.c.withdrawn.is_(False))
                    .values(withdrawn=True)
                )
                if written.rowcount != 1:
                    raise Conflict(f"{entrant.name} has already withdrawn")
        if league.status == "running":
            league = await self.load(league_id)  # with any round written just before
            for game in league.games:
                if game.result is None and game.second is not None and player_id in (game.first, game.second):
                    lost = "0-1" if game.first == player_id else "1-0"
                    await self._forfeit(league, game, lost)
        await self.changed(league_id)
        await self.advance(league_id)
        return await self.load(league_id)

    async def adjudicate(
        self, league_id: str, host: Any, round_number: int, pairing: int, result: str
    ) -> LeagueRecord:
        """The host decides a game that will never be played: its result stands as a
        forfeit, and its match ends with it (the loser resigns it, or both agree a draw)."""
        league = await self.load(league_id)
        self.host_only(league, host, "adjudicates")
        if result not in RESULTS:
            raise Invalid(f"result: must be one of {', '.join(RESULTS)}")
        if league.status != "running":
            raise Conflict(f"the league is {league.status}: only a running league's games are adjudicated")
        games = league.round_games(round_number)
        if not games:
            raise Invalid(f"round: the league has rounds 1 to {league.paired_rounds}")
        if not 0 <= pairing < len(games):
            raise Invalid(f"pairing: round {round_number} has pairings 0 to {len(games) - 1}")
        game = games[pairing]
        if game.second is None:
            raise Conflict("that pairing is a bye: there is nothing to adjudicate")
        if game.result is not None:
            raise Conflict(f"that game already has a result: {game.result}")
        if not await self._forfeit(league, game, result):
            raise Conflict("that game got a result at the same moment")
        await self.changed(league_id)
        await self.advance(league_id)
        return await self.load(league_id)

    async def advance(self, league_id: str) -> bool:
        """Pair the next Swiss round when the last one has ended, or mark the league
        finished when every game has a result: once, whoever calls it (see the module's
        docstring). ``True`` when this call wrote something."""
        wrote = False
        for _ in range(MAX_SWISS_ROUNDS + 1):  # a round of byes and forfeits alone needs no play
            league = await self.load(league_id)
            if league.status != "running":
                return wrote
            if await self._forfeit_stranded(league):
                wrote = True
                continue
            if any(g.result is None for g in league.games):
                return wrote
            active = [p for p in league.players if not p.withdrawn]
            more = league.format == "swiss" and league.paired_rounds < league.rounds and len(active) >= 2
            if more:
                number = league.paired_rounds + 1
                try:
                    pairs = await self._swiss_pairings(league, number)
                except Exception:
                    log.exception("league %s: round %s cannot be paired; the league ends", league_id, number)
                    more = False
            if not more:
                guard = (
                    (LEAGUES.c.id == league_id)
                    & (LEAGUES.c.status == "running")
                    & (LEAGUES.c.paired_rounds == league.paired_rounds)
                )
                async with self.store._writing(), self.store.engine.begin() as connection:
                    done = (
                        await connection.execute(update(LEAGUES).where(guard).values(status="finished"))
                    ).rowcount
                if done == 1:
                    await self.changed(league_id)
                return wrote or done == 1
            built = [self._decide_round(league, number, pairs)]
            if not await self._write_rounds(league, built, started=False, total=league.rounds):
                return wrote  # another process paired it first
            wrote = True
            await self._after_rounds(league_id, built)
        return wrote

    # --- internals ---------------------------------------------------------------

    @staticmethod
    def host_only(league: LeagueRecord, player: Any, what: str) -> None:
        if player.id != league.host.id:
            raise Forbidden(f"only the league's host {what}")

    async def _swiss_pairings(self, league: LeagueRecord, number: int) -> list[Pairing]:
        ratings = await self._ratings(league)
        players = [(p.id, ratings.get(p.id, 1500.0)) for p in league.players]
        withdrawn = frozenset(p.id for p in league.players if p.withdrawn)
        games = [g.as_game() for g in league.games]
        return swiss_round(players, games, number, league.rounds, withdrawn)

    async def _ratings(self, league: LeagueRecord) -> dict[str, float]:
        """Each entrant's rating in the league's ruleset (a bot's published one; 1500 if none)."""
        ids = [p.id for p in league.players if not p.bot]
        query = select(RATINGS.c.player_id, RATINGS.c.rating).where(
            RATINGS.c.ruleset == league.ruleset, RATINGS.c.player_id.in_(ids)
        )
        async with self.store.engine.connect() as connection:
            found = {row.player_id: row.rating for row in await connection.execute(query)}
        for p in league.players:
            bot = get_bot(p.bot) if p.bot else None
            if bot is not None:
                found[p.id] = bot.rating
        return found

    def _decide_round(self, league: LeagueRecord, number: int, pairs: list[Pairing]) -> NewRound:
        """The round's matches (through the match service), games and notices."""
        entrants = {p.id: p for p in league.players}
        matches, games, owed = [], [], []
        for board, pair in enumerate(pairs):
            game = {
                "league_id": league.id,
                "round": number,
                "board": board,
                "first_id": pair.first,
                "second_id": pair.second,
                "match_id": None,
                "result": None,
                "forfeit": False,
                "finished_at": None,
            }
            if pair.second is None:
                game.update(result="bye", finished_at=self.now())
                games.append(game)
                continue
            first, second = entrants[pair.first], entrants[pair.second]
            match, entries, notices = self.matches.pair(
                first.record,
                second.record,
                league.ruleset,
                league.options,
                league.rated,
                league.id,
                first.bot,
                second.bot,
            )
            game["match_id"] = match.id
            games.append(game)
            matches.append((match, entries))
            owed += notices
            for me, other in ((first, second), (second, first)):
                for channel in () if me.bot else me.channels:
                    text = (
                        f"Round {number} of the league {league.name}: your league match against "
                        f"{shown_name(other.name, channel)} ({get_ruleset(league.ruleset).name})."
                    )
                    owed.append(
                        Notice(
                            me.id, channel, LEAGUE_ROUND, match.id, league.ruleset, match.version, text[:500]
                        )
                    )
        return NewRound(number, matches, games, owed)

    async def _write_rounds(
        self, league: LeagueRecord, built: list[NewRound], started: bool, total: int
    ) -> bool:
        """Write the rounds with their matches, games and notices in one transaction, if the
        league is still as read (the ``paired_rounds`` guard); ``False``: written by another."""
        guard = (LEAGUES.c.id == league.id) & (LEAGUES.c.paired_rounds == league.paired_rounds)
        guard &= LEAGUES.c.status == ("open" if started else "running")
        values: dict[str, Any] = {"paired_rounds": built[-1].number, "rounds": total, "status": "running"}
        at = self.now()
        try:
            async with self.store._writing(), self.store.engine.begin() as connection:
                if (await connection.execute(update(LEAGUES).where(guard).values(**values))).rowcount != 1:
                    await connection.rollback()
                    return False
                # The league row is ours until the commit: a join or a withdrawal (which
                # touch it first) came before this, or comes after and finds the round.
                active = select(func.count()).where(
                    LEAGUE_PLAYERS.c.league_id == league.id, LEAGUE_PLAYERS.c.withdrawn.is_(False)
                )
                if await connection.scalar(active) != sum(not p.withdrawn for p in league.players):
                    await connection.rollback()
                    raise Conflict("a player joined or withdrew at the same moment; please try again")
                for new in built:
                    for match, entries in new.matches:
                        await self.store.insert_in(connection, match, entries)
                    await connection.execute(insert(LEAGUE_GAMES), new.games)
                    if new.notices:
                        await connection.execute(insert(OUTBOX), [outbox_values(n, at) for n in new.notices])
        except IntegrityError:
            return False
        return True

    async def _after_rounds(self, league_id: str, built: list[NewRound]) -> None:
        """After the commit: every new match to its viewers, the bots and the notifier."""
        for new in built:
            for match, entries in new.matches:
                try:
                    await self.publish(match.id, match.version, Committed(0, match, entries, ()))
                except Exception:
                    log.exception("publishing league match %s failed", match.id)
        await self.changed(league_id)

    async def _forfeit_stranded(self, league: LeagueRecord) -> bool:
        """The unplayed games of players who withdrew, lost by forfeit: a withdrawal whose
        process died before writing them all is finished here (by any process's sweep)."""
        gone = {p.id for p in league.players if p.withdrawn}
        done = False
        for game in league.games:
            if game.result is None and game.second is not None and {game.first, game.second} & gone:
                done |= await self._forfeit(league, game, "0-1" if game.first in gone else "1-0")
        return done

    async def _forfeit(self, league: LeagueRecord, game: LeagueGameRow, result: str) -> bool:
        """Write ``result`` as the game's forfeit (if it has none yet), then end its match
        the same way. ``False``: it had a result already."""
        at = self.now()
        async with self.store._writing(), self.store.engine.begin() as connection:
            written = await connection.execute(
                update(LEAGUE_GAMES)
                .where(LEAGUE_GAMES.c.id == game.id, LEAGUE_GAMES.c.result.is_(None))
                .values(result=result, forfeit=True, finished_at=at)
            )
        if written.rowcount != 1:
            return False
        if game.match is not None:
            await self._end_match(game.match, result)
        return True

    async def _end_match(self, match_id: str, result: str) -> None:
        """End a league match as adjudicated: the loser resigns it, or for a draw one seat
        offers and the other accepts. Its league game already has its result, which the
        write that ends the match leaves as it is."""
        for _ in range(8):
            match = views.with_state(await self.store.load(match_id))
            if match.status != "active":
                return
            ruleset = get_ruleset(match.ruleset)
            state = views.loaded_state(match)
            if result == "½-½":
                accept = [
                    s
                    for s in (0, 1)
                    if any(a["type"] == "accept_draw" for a in ruleset.legal_actions(state, s))
                ]
                offer = [
                    s
                    for s in (0, 1)
                    if any(a["type"] == "offer_draw" for a in ruleset.legal_actions(state, s))
                ]
                seat, action = (
                    (accept[0], "accept_draw") if accept else (offer[0], "offer_draw") if offer else (0, "")
                )
                if not action:
                    return
            else:
                seat, action = (1 if result == "1-0" else 0), "resign"
            assert action in COMMON_ACTION_TYPES
            player = match.seats[seat].player
            if player is None:
                return
            with contextlib.suppress(Conflict):
                await self.matches.act(match_id, player, {"type": action}, match.version)
        log.warning("league match %s could not be ended after its adjudication", match_id)

    async def changed(self, league_id: str) -> None:
        """Tell every process's viewers of the league that it changed (best effort)."""
        try:
            await self.say(league_id)
        except Exception:
            log.exception("telling league %s's viewers failed", league_id)


def one_notice_each(league: LeagueRecord, built: list[NewRound]) -> list[NewRound]:
    """A round-robin starts with every round's match open at once. Each player hears of it
    in one notice a channel, naming every opponent and linking their first match, instead of
    a league round and a "your turn" for each match (a phone buzzing five times, five mails).
    Later turns in those matches are told as in any match."""
    entrants = {p.id: p for p in league.players}
    mine: dict[str, list[tuple[int, str, MatchRecord]]] = {}  # player: (round, opponent, match)
    for new in built:
        by_id = {match.id: match for match, _ in new.matches}
        for game in new.games:
            if game["second_id"] is None:
                continue
            match = by_id[game["match_id"]]
            for me, other in ((game["first_id"], game["second_id"]), (game["second_id"], game["first_id"])):
                mine.setdefault(me, []).append((new.number, other, match))
    told = {YOUR_TURN, LEAGUE_ROUND}
    kept = [replace(new, notices=[n for n in new.notices if n.event not in told]) for new in built]
    ruleset = get_ruleset(league.ruleset).name
    for player_id, games in mine.items():
        me = entrants[player_id]
        first = games[0][2]
        for channel in () if me.bot else me.channels:
            against = ", ".join(
                f"{shown_name(entrants[other].name, channel)} (round {number})" for number, other, _ in games
            )
            text = (
                f"The league {league.name} has started ({ruleset}): your {len(games)} league matches "
                f"are all open now, against {against}."
            )
            if len(text) > 500:
                text = text[:499] + "…"
            kept[0].notices.append(
                Notice(player_id, channel, LEAGUE_ROUND, first.id, league.ruleset, first.version, text)
            )
    return kept


def checked_bot_words(bot_id: str, ruleset: str) -> str:
    """Why ``bot_id`` may not enter a league of ``ruleset``."""
    bot = get_bot(bot_id)
    if not bot_id:
        return f"bot: choose one of the bots for {ruleset}"
    if bot is None:
        return f"bot: no bot {bot_id!r} (GET /api/v1/bots)"
    return f"bot: {bot.id} plays {bot.ruleset}, not {ruleset}"


def league_standings(league: LeagueRecord) -> list[Any]:
    """The standings, from the stored games alone (recomputed on every read)."""
    return standings([p.id for p in league.players], [g.as_game() for g in league.games], league.format)


class LeagueRunner:
    """This process's part in moving leagues on: after a league match ends here, and every
    ``sweep_s`` seconds over every running league (a process that died before its
    ``advance`` leaves it to any other's sweep)."""

    def __init__(self, service: Callable[[], LeagueService], sweep_s: float) -> None:
        self.service = service
        self.sweep_s = sweep_s
        self._tasks: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if self.sweep_s > 0:
            self._sweeper = asyncio.create_task(self._sweep_forever())

    async def stop(self) -> None:
        tasks = [t for t in (self._sweeper, *self._tasks) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def match_ended(self, league_id: str) -> None:
        """A league match ended in a write of this process: its viewers hear of it, and the
        league moves on if that was its round's last game."""
        task = asyncio.get_running_loop().create_task(self._ended(league_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _ended(self, league_id: str) -> None:
        service = self.service()
        try:
            await service.changed(league_id)
            await service.advance(league_id)
        except Exception:
            log.exception("league %s: moving on after a match failed; the sweep will", league_id)

    async def sweep(self) -> None:
        """``advance`` every running league whose games all have a result, or with an
        unplayed game of a player who withdrew."""
        service = self.service()
        unplayed = (LEAGUE_GAMES.c.league_id == LEAGUES.c.id) & LEAGUE_GAMES.c.result.is_(None)
        gone = (
            (LEAGUE_PLAYERS.c.league_id == LEAGUES.c.id)
            & LEAGUE_PLAYERS.c.withdrawn.is_(True)
            & LEAGUE_PLAYERS.c.player_id.in_([LEAGUE_GAMES.c.first_id, LEAGUE_GAMES.c.second_id])
        )
        stranded = exists().where(unplayed, LEAGUE_GAMES.c.second_id.is_not(None), gone)
        query = select(LEAGUES.c.id).where(
            LEAGUES.c.status == "running", ~exists().where(unplayed) | stranded
        )
        async with service.store.engine.connect() as connection:
            running = list((await connection.execute(query)).scalars())
        for league_id in running:
            with contextlib.suppress(ServiceError):
                await service.advance(league_id)

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.sweep_s)
            try:
                await self.sweep()
            except Exception:
                log.exception("the league sweep failed")
