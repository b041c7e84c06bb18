"""One search over the ruleset protocol, for every ruleset (docs/bots.md).

A bot decides from what its seat may see: the state passed here is the seat's
*knowledge* (:func:`knowledge`: the match state with every value that
``ruleset.secrets`` names for the seat replaced by the family's neutral guess), and
its options are ``ruleset.legal_actions(state, seat)``. It never holds the match seed.

Chance nodes: a family names, for an action that rolls dice, the *outcome classes*
of that roll with their exact probabilities, each with one representative list of
die faces (a *script*). The successor of each class is built by applying the action
with :class:`ScriptedDice`, which shows the script's faces in order. Outcomes in one
class lead to the same game state (a kill is a kill whatever the totals), so
weighting the successors by the class probabilities is exact. Dice beyond a script
(a roll the family does not enumerate, such as a draft roll or a combat ray) are
*imagined* with the bot's own seeded ``random.Random``: never the match's dice.

Levels, all over the same :class:`Game`:

- ``beginner``: the one-ply expected value of every action, then a softmax with a
  temperature (human-looking mistakes: a worse move now and then, never uniform);
- ``club``: the best one-ply expected value on the exact odds (greedy);
- ``master``: expectiminimax with alpha-beta on decision nodes, iterative deepening
  by whole turns (one seat's decisions in a row) within a time budget.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from app.rules.base import COMMON_ACTION_TYPES, Action, Ruleset
from app.rules.dice import Dice

WIN = 1.01
"""The value of a won game. Evaluations of unfinished games stay within ±1 and read as
the game's expected result, so that a chance node weighs a won or lost game on the
same scale as an evaluated one: a win only just above the best evaluation. (A win
worth a thousand evaluations made a risk of losing the last piece outweigh any
evaluated loss, however sure: a bot would rather lose slowly than fight.)"""
SOONER = 0.001
"""Per turn of depth left: a sooner win counts more, a sooner loss less."""

Script = list[int]
Chance = Callable[[Ruleset, Any, int, Action], "list[tuple[float, Script]] | None"]


class ScriptedDice(Dice):
    """Dice that show ``faces`` in order, then imagine the rest with ``imagine``."""

    def __init__(self, faces: Script, imagine: random.Random) -> None:
        super().__init__(b"", 0)
        self.faces = list(faces)
        self.imagine = imagine

    def die(self, sides: int) -> dict[str, int]:
        if self.faces:
            face = self.faces.pop(0)
            if not 1 <= face <= sides:
                raise ValueError(f"scripted face {face} does not fit a d{sides}")
        else:
            face = self.imagine.randint(1, sides)
        rolled = {"sides": sides, "face": face, "n": self.count}
        self.count += 1
        return rolled


@dataclass(frozen=True)
class Family:
    """What one ruleset family tells the generic search.

    ``evaluate(ruleset, state, seat)``: how good an unfinished game is for ``seat``,
    within ±1. ``chance``: the outcome classes of an action that rolls dice
    (``None``: no roll worth enumerating). ``redact``: the state with the values
    ``seat`` may not see replaced by a neutral guess. ``order``: a sort key that puts
    promising actions first (captures, attacks) so alpha-beta prunes more. ``plays``:
    whether a bot ever considers an action (eote's taking a piece back is not: a bot
    sets its pieces one by one and stops, and a take-back only goes round in circles).
    """

    evaluate: Callable[[Ruleset, Any, int], float]
    chance: Chance | None = None
    redact: Callable[[Ruleset, Any, int], Any] | None = None
    order: Callable[[Action], float] = field(default=lambda action: 0.0)
    plays: Callable[[Action], bool] = field(default=lambda action: True)
    selective: tuple[int | None, int] | None = None
    """``(root, width)``: past the first whole turn, deepen selectively (see
    :func:`schedule`): the root weighs its ``root`` best actions (``None``: all, best
    first, as far as time allows), every other decision its ``width`` best by one-ply
    value. ``None``: every iteration searches every action."""
    settled: Callable[[Any], bool] = field(default=lambda state: True)
    """Whether a position may be evaluated in the middle of a turn (kelly: not while a
    push waits for its chooser); the selective search cuts a turn short only there."""
    turn_of: Callable[[Any], int] | None = None
    """Whose turn a position is in, when a decision inside a turn may fall to the other
    seat (kelly: the push after a counter-push is the defender's choice). The search
    counts turns by this owner; ``None``: the seat that decides owns the turn."""
    declines: Callable[[Any, Action], bool] | None = None
    """Whether the master declines one of its own actions in ``state`` (dalsiandon: an
    attack without a clear edge, docs/bots.md "dalsiandon: refusing the fight"); it plays
    it only when nothing else is legal. ``None``: the master weighs every action."""
    contempt: float = 0.0
    """What a draw costs the master, on the evaluation's scale: a drawn game is worth
    ``-contempt`` to it, and an unfinished one fades towards that as the draw by quiet turns
    nears (dalsiandon: the master plays for the win, docs/bots.md). The one-ply levels
    value a draw at 0."""


def knowledge(ruleset: Ruleset, family: Family, state: Any, seat: int) -> Any:
    """What ``seat`` knows of ``state``: the state with its secrets replaced."""
    if family.redact is not None:
        return family.redact(ruleset, ruleset.copy_state(state), seat)
    return state


def drawing_nearer(state: Any) -> float:
    """How much of an unfinished game's value is still to play for under the draw by
    quiet turns (``turns_without_kill``): 1 after a piece is lost, falling to 0 as
    the count nears the limit. A side that is ahead must win material before the
    draw takes its lead away; a side behind is glad to wait for it."""
    limit = state.options.turns_without_kill
    return 1.0 - state.quiet_turns / limit if limit else 1.0


PRESS = 1.0
"""The master's urgency to win material as the draw by quiet turns nears (docs/bots.md, "A
master that presses"). With the root's count at a share ``q / limit`` of the limit, a
position reached through a kill (the count set back to 0) that leaves the master better off
than at the root gains that improvement again, times ``PRESS · q / limit``: the later it is,
the more a chance to kill is worth against waiting for a draw. Losses are not weighed up, so
the master risks more for a kill, not a piece for a fresh count. Only the master's search
presses; the one-ply levels value positions as before."""


def urgency(state: Any) -> float:
    """How hard the side to decide in ``state`` presses for material (:data:`PRESS`)."""
    limit = state.options.turns_without_kill
    return PRESS * min(state.quiet_turns / limit, 1.0) if limit else 0.0


MAX_STREAK = 5
"""Decisions in a row of one seat that still count as one turn of the search (eote's
setting may go back and forth; no turn is longer than this)."""
Turn = tuple["int | None", int]


class OutOfTime(Exception):
    pass


@dataclass
class Game:
    """A ruleset seen by a bot of one seat: game actions, chance outcomes, values."""

    ruleset: Ruleset
    family: Family
    root: int
    """The bot's seat: values are from its side."""
    rng: random.Random
    deadline: float = math.inf
    nodes: int = 0
    width: int | None = None
    """Selective search: past the root, a decision weighs only its ``width`` best actions
    by one-ply value (``None``: every action)."""
    last_turn: int | None = None
    """Selective search: of the last turn within the depth, only its first ``last_turn``
    decisions are searched before the position is evaluated (``None``: the whole turn)."""
    press: float = 0.0
    """The master's :func:`urgency` at the root (0: the one-ply levels, no pressing)."""
    root_quiet: int = 0
    """The root's quiet-turn count: a position with a lower count was reached through a kill."""
    root_eval: float = 0.0
    """The root's evaluation (unscaled), against which a kill's gain is measured."""
    restrained: bool = False
    """The master: its own actions that :attr:`Family.declines` are left out of its search,
    and a draw valued at ``-``:attr:`Family.contempt`."""

    @property
    def contempt(self) -> float:
        return self.family.contempt if self.restrained else 0.0

    def actions(self, state: Any, seat: int) -> list[Action]:
        """The seat's game actions a bot plays: resigning and draw offers are never searched."""
        actions = self.playable(self.ruleset.legal_actions(state, seat))
        return self.restrain(state, actions) if seat == self.root else actions

    def restrain(self, state: Any, actions: list[Action]) -> list[Action]:
        """The master's own ``actions`` less those its family declines (all, when it
        would decline every one)."""
        declines = self.family.declines
        if not self.restrained or declines is None:
            return actions
        kept = [a for a in actions if not declines(state, a)]
        return kept or actions

    def playable(self, legal: list[Action]) -> list[Action]:
        return [a for a in legal if a["type"] not in COMMON_ACTION_TYPES and self.family.plays(a)]

    def outcomes(self, state: Any, seat: int, action: Action) -> list[tuple[float, Any]]:
        """The successors of ``action`` with their exact probabilities (summing to 1)."""
        scripts = self.family.chance(self.ruleset, state, seat, action) if self.family.chance else None
        out = []
        for p, faces in scripts or [(1.0, [])]:
            new, _ = self.ruleset.apply_legal(state, seat, action, ScriptedDice(faces, self.rng))
            out.append((p, new))
        return out

    def value(self, state: Any) -> float:
        result = self.ruleset.outcome(state)
        if result is not None:
            if result.winner is None:
                return -self.contempt
            return WIN if result.winner == self.root else -WIN
        v = self.family.evaluate(self.ruleset, state, self.root)
        share = self.fade(state, v)
        scaled = v * share - self.contempt * (1.0 - share)
        if self.press and state.quiet_turns < self.root_quiet and v > self.root_eval:
            # A kill that left the master better off: worth more the nearer the draw was.
            # Capped within ±1, below a won game.
            scaled = min(1.0, scaled + self.press * (v - self.root_eval))
        return scaled

    def fade(self, state: Any, v: float) -> float:
        """:func:`drawing_nearer`, except that the master's own loss buys it no time: a
        position it is better off in than a draw, reached through a piece lost (a lower count
        than the root's, a worse evaluation), keeps the root's share of the quiet turns.
        (Fresh, a lead that fades near the draw made throwing a piece away look like a gain.)"""
        limit = state.options.turns_without_kill
        if self.press and 0 < v < self.root_eval and state.quiet_turns < self.root_quiet and limit:
            return 1.0 - self.root_quiet / limit
        return drawing_nearer(state)

    def expected(self, state: Any, seat: int, action: Action) -> float:
        """One ply: the expected value of ``action``'s outcomes."""
        return sum(p * self.value(new) for p, new in self.outcomes(state, seat, action))

    # --- expectiminimax -------------------------------------------------------------

    def owner(self, state: Any, seat: int) -> int:
        """Whose turn ``state`` is in (see :attr:`Family.turn_of`)."""
        return self.family.turn_of(state) if self.family.turn_of is not None else seat

    def search(self, state: Any, depth: int, alpha: float, beta: float, turn: Turn = (None, 0)) -> float:
        """Expectiminimax. ``depth`` counts *turns*, not decisions: the decisions a seat
        makes in a row (kelly's two actions, an activation, a setting) are one turn, so
        every leaf is a position where a turn has just ended and positions are
        compared like for like. ``turn`` is the seat whose turn it is (:meth:`owner`)
        and how many decisions it has seen in a row (capped at ``MAX_STREAK``)."""
        self.nodes += 1
        if self.nodes % 8 == 0 and time.monotonic() > self.deadline:
            raise OutOfTime
        if self.ruleset.outcome(state) is not None:
            v = self.value(state)
            return v + math.copysign(SOONER * depth, v) if v else v  # a sooner result counts more
        to_act = self.ruleset.to_act(state)
        if not to_act:
            return self.value(state)
        seat = to_act[0]
        owner = self.owner(state, seat)
        previous, streak = turn
        if owner == previous and streak < MAX_STREAK:
            turn = (owner, streak + 1)  # the same turn goes on
            cut = depth <= 0 and self.last_turn is not None and streak >= self.last_turn
            if cut and self.family.settled(state):
                return self.value(state)  # selective: the last turn is cut short
        else:
            if depth <= 0:
                return self.value(state)
            depth, turn = depth - 1, (owner, 1)
        actions = self.actions(state, seat)
        if not actions:
            return self.value(state)
        maximising = seat == self.root
        if self.width is not None and len(actions) > self.width:
            return self.selective(state, seat, actions, depth, alpha, beta, turn, maximising)
        actions.sort(key=self.family.order)
        children = (
            lambda a, b, action=action: self.chance_value(state, seat, action, depth, a, b, turn)
            for action in actions
        )
        return best_of(children, maximising, alpha, beta)

    def selective(
        self,
        state: Any,
        seat: int,
        actions: list[Action],
        depth: int,
        alpha: float,
        beta: float,
        turn: Turn,
        maximising: bool,
    ) -> float:
        """A decision of the selective search: every action's one-ply value first (its
        successors are kept), then the ``width`` best for the seat deciding are searched."""
        scored = []
        for action in actions:
            if time.monotonic() > self.deadline:
                raise OutOfTime
            outcomes = self.outcomes(state, seat, action)
            scored.append((sum(p * self.value(new) for p, new in outcomes), outcomes))
        scored.sort(key=lambda pair: -pair[0] if maximising else pair[0])
        children = (
            lambda a, b, outcomes=outcomes: self.outcomes_value(outcomes, depth, a, b, turn)
            for _, outcomes in scored[: self.width]
        )
        return best_of(children, maximising, alpha, beta)

    def chance_value(
        self, state: Any, seat: int, action: Action, depth: int, alpha: float, beta: float, turn: Turn
    ) -> float:
        return self.outcomes_value(self.outcomes(state, seat, action), depth, alpha, beta, turn)

    def outcomes_value(
        self, outcomes: list[tuple[float, Any]], depth: int, alpha: float, beta: float, turn: Turn
    ) -> float:
        if len(outcomes) == 1:
            return self.search(outcomes[0][1], depth, alpha, beta, turn)
        # Below a chance node each outcome is searched with the full window: a bound
        # on one outcome says little about the weighted sum.
        return sum(p * self.search(new, depth, -math.inf, math.inf, turn) for p, new in outcomes)


def best_of(
    children: Iterable[Callable[[float, float], float]], maximising: bool, alpha: float, beta: float
) -> float:
    """Alpha-beta at a decision: the best value of ``children`` for the seat deciding,
    each child searched within the window the ones before it narrowed (called in
    order, as ``child(alpha, beta)``), stopping at a cut-off."""
    best = -math.inf if maximising else math.inf
    for child in children:
        v = child(alpha, beta)
        if maximising:
            best = max(best, v)
            alpha = max(alpha, v)
        else:
            best = min(best, v)
            beta = min(beta, v)
        if alpha >= beta:
            break
    return best


# --- the three levels ------------------------------------------------------------------


def one_ply_scores(game: Game, state: Any, actions: list[Action]) -> list[float]:
    return [game.expected(state, game.root, a) for a in actions]


def pick_greedy(game: Game, state: Any, actions: list[Action]) -> Action:
    scores = one_ply_scores(game, state, actions)
    best = max(scores)
    tied = [a for a, s in zip(actions, scores, strict=True) if s >= best - 1e-9]
    return game.rng.choice(tied)


def pick_softmax(game: Game, state: Any, actions: list[Action], temperature: float) -> Action:
    """A softmax over one-ply values: good moves are likely, poor ones possible."""
    scores = one_ply_scores(game, state, actions)
    top = max(scores)
    weights = [math.exp(max((s - top) / temperature, -50.0)) for s in scores]
    return game.rng.choices(actions, weights=weights)[0]


Iteration = tuple[int, int | None, int | None, int | None]
"""One iteration of deepening: (turns deep, actions weighed at the root, at other
decisions, decisions searched of the last turn); ``None``: all."""


def schedule(family: Family, max_depth: int) -> list[Iteration]:
    """The iterations of :func:`pick_searched`. Without :attr:`Family.selective`: whole
    turns, every action, one turn deeper each time. With it: the root's whole turn at
    full width first, then selectively, half a turn deeper each time: the first
    decision of the next turn (the opponent's best answer by one ply), then its whole
    turn, then the first decision of the turn after, and so on."""
    if family.selective is None:
        return [(depth, None, None, None) for depth in range(1, max_depth + 1)]
    root, width = family.selective
    out: list[Iteration] = [(1, None, None, None)]
    for depth in range(2, max_depth + 1):
        out += [(depth, root, width, 1), (depth, root, width, None)]
    return out


def pick_searched(game: Game, state: Any, actions: list[Action], budget_s: float, max_depth: int) -> Action:
    """Iterative deepening: the best action of the deepest search finished in time, or of
    an unfinished one whose first action (the previous iteration's best) was searched:
    the actions searched after it either proved better or were cut off as worse."""
    game.deadline = time.monotonic() + budget_s
    game.restrained = True
    actions = game.restrain(state, actions)
    game.press, game.root_quiet = urgency(state), state.quiet_turns
    game.root_eval = game.family.evaluate(game.ruleset, state, game.root) if game.press else 0.0
    # Shuffled first: among equally good actions the bot's own random decides, as the
    # club's does, instead of always the first one listed.
    shuffled = game.rng.sample(actions, len(actions))
    # Until a whole turn is searched, the answer is the club's (one ply, exact odds);
    # its values also order the first iteration.
    one_ply = one_ply_scores(game, state, shuffled)
    ordered = [a for _, a in sorted(zip(one_ply, shuffled, strict=True), key=lambda pair: -pair[0])]
    best = ordered[0]
    turn = (game.owner(state, game.root), 1)
    selective = game.family.selective is not None
    for depth, root_width, width, last_turn in schedule(game.family, max_depth):
        game.width, game.last_turn = width, last_turn
        scored: list[tuple[float, Action]] = []
        alpha = -math.inf
        try:
            for action in ordered[:root_width]:
                v = game.chance_value(state, game.root, action, depth - 1, alpha, math.inf, turn)
                scored.append((v, action))
                alpha = max(alpha, v)
        except OutOfTime:
            if selective and scored:
                best = best_scored(scored)
            break
        best = best_scored(scored)
        # The next iteration looks at this one's best actions first (and the rest after).
        ordered = [a for _, a in sorted(scored, key=lambda pair: -pair[0])] + ordered[len(scored) :]
        if abs(max(v for v, _ in scored)) >= WIN:  # a forced result: deeper search cannot change it
            break
    return best


def best_scored(scored: list[tuple[float, Action]]) -> Action:
    """The first to reach the top set alpha with an exact value; a later one that only
    ties it may be a bound from a cut-off, so it is not preferred."""
    top = max(v for v, _ in scored)
    return next(a for v, a in scored if v == top)
