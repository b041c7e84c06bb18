"""Bots' knowledge of the `kelly` family: `kelly`, `kelly-d20`, `dalsiandon`.

Chance: an attack has four result classes (kill, push, counter-push, counter-kill)
with the exact odds of :func:`app.rules.odds.attack_odds`; each class is scripted by
one pair of totals that gives it. A kill that leaves one piece a side starts
To-The-Death, whose winner is again exact: the first to kill, so the odds of its
kill against its counter-kill, renormalised (pushes are rolled again).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from functools import cache

from app.bots.search import Family, Script
from app.rules import board
from app.rules.base import Action
from app.rules.kelly import Kelly, KellyState, Piece, move_paths
from app.rules.odds import RESULTS, Pool, attack_odds, classify


def faces_for(sides: tuple[int, ...], total: int) -> Script:
    """Faces of dice with these sides, in order, summing to ``total`` (reachable)."""
    faces = []
    left = total
    for i, n in enumerate(sides):
        rest = len(sides) - i - 1
        face = max(1, min(n, left - rest))
        faces.append(face)
        left -= face
    return faces


@cache
def result_scripts(attack: Pool, defense: Pool) -> dict[str, tuple[float, tuple[int, ...]]]:
    """Per result with a chance: its exact probability and attack-then-defense faces."""
    odds = attack_odds(attack, defense)
    out = {}
    for result in RESULTS:
        if not odds[result]:
            continue
        script = next(
            faces_for(attack.sides, a) + faces_for(defense.sides, d)
            for a in range(len(attack.sides), sum(attack.sides) + 1)
            for d in range(len(defense.sides), sum(defense.sides) + 1)
            if classify(attack.bonus + a - defense.bonus - d) == result
        )
        out[result] = (float(odds[result]), tuple(script))
    return out


def victim(ruleset: Kelly, state: KellyState, attacker: Piece, defender: Piece, result: str) -> Piece | None:
    if result == "kill":
        return defender
    if result == "counter-kill":
        return attacker
    death_push = getattr(state.options, "death_push", False)
    if result == "push" and death_push and ruleset.death_push_applies(state, defender):  # type: ignore[attr-defined]
        return defender
    return None


def chance(ruleset: Kelly, state: KellyState, seat: int, action: Action) -> list[tuple[float, Script]] | None:
    if action["type"] != "attack":
        return None
    attacker, defender = state.pieces[action["piece"]], state.pieces[action["target"]]
    out: list[tuple[float, Script]] = []
    for result, (p, script) in result_scripts(*ruleset.attack_pools(state, attacker, defender)).items():
        dead = victim(ruleset, state, attacker, defender, result)
        survivors = {s: [x for x in ruleset.living(state, s) if x is not dead] for s in (0, 1)}
        if dead is None or not all(len(survivors[s]) == 1 for s in (0, 1)):
            out.append((p, list(script)))
            continue
        first, second = survivors[state.turn][0], survivors[1 - state.turn][0]
        duel = result_scripts(
            ruleset.to_the_death_pool(state, first), ruleset.to_the_death_pool(state, second)
        )
        decisive = {r: duel[r] for r in ("kill", "counter-kill") if r in duel}
        total = sum(q for q, _ in decisive.values())
        out += [(p * q / total, [*script, *tail]) for q, tail in decisive.values()]
    return out


def piece_value(ruleset: Kelly, kind: str) -> float:
    c = ruleset.creatures[kind]
    return c.attack + c.defense + 0.5 * c.movement


PLACE_BONUS = {"A": 0.0, "B": 0.02, "C": 0.05}
MATERIAL = 0.8
"""The weight of the material lead, counted as a share of all the material on the board."""
THREATS = 0.3
"""The weight of the fights open on the board, by the material they stand to win (counted
like material, at 0.8, kelly drew far more: docs/bots.md)."""
TO_MOVE, WAITING = 1.0, 0.4
"""How much the odds of an open fight count: fully for the side that may attack next."""


def evaluate(
    ruleset: Kelly,
    state: KellyState,
    seat: int,
    danger: float = THREATS,
    place: dict[str, float] = PLACE_BONUS,
) -> float:
    """How good ``state`` is for ``seat``, within ±1: material, places (``place``: a bonus
    by ring), the fights open (:func:`threats`; the opponent's, when it is to move, at
    ``danger``: :data:`DANGER` in `kelly`) and kelly-d20's hold on the core."""
    material = [0.0, 0.0]
    value = 0.0
    occupied = {}
    for piece in state.pieces.values():
        if piece.at is None:
            continue
        occupied[piece.at] = piece
        material[piece.owner] += piece_value(ruleset, piece.kind)
        bonus = place[board.ring(piece.at)]
        value += bonus if piece.owner == seat else -bonus
    teams = getattr(state, "teams", None)
    if teams:  # dalsiandon: drafted creatures still to place count too
        for s in (0, 1):
            material[s] += sum(piece_value(ruleset, k) for k in teams[s] if k not in state.pieces)
    total = sum(material) or 1.0
    value += MATERIAL * (material[seat] - material[1 - seat]) / total
    value += threats(ruleset, state, seat, occupied, danger) / total
    hold = getattr(state, "centre_hold", None)  # kelly-d20: three turns on the core win
    if hold:
        for holder in (0, 1):
            gain = hold_value(ruleset, state, holder, occupied)
            value += gain if holder == seat else -gain
    return max(-1.0, min(1.0, value))


HOLD_TURN = 0.1
"""kelly-d20: a turn of a hold on the core still to be finished."""
HOLD_WON = 0.95
"""kelly-d20: a hold one turn from winning that the opponent can no longer break."""


def hold_value(ruleset: Kelly, state: KellyState, holder: int, occupied: dict[str, Piece]) -> float:
    """What ``holder``'s hold on the core is worth. Two turns held with a piece on the
    core, the third wins as the holder's turn ends: it is as good as won when the holder
    is to move, or when the opponent to move cannot reach any of its pieces to attack
    (an attack declared is what breaks a hold). Otherwise a tenth a turn."""
    turns = state.centre_hold[holder]
    on_core = occupied.get(board.CORE)
    if turns < 2 or on_core is None or on_core.owner != holder or state.push is not None:
        return HOLD_TURN * turns
    if state.turn == holder:
        return HOLD_WON
    can_break = any(
        target.owner == holder
        for piece in occupied.values()
        if piece.owner == state.turn
        for target in reachable_targets(ruleset, state, piece, occupied)
    )
    return HOLD_TURN * turns if can_break else HOLD_WON


def adjacent_enemies(occupied: dict[str, Piece]) -> Iterator[tuple[Piece, Piece]]:
    """Every piece and an enemy beside it (each such pair twice, once from either side)."""
    for piece in occupied.values():
        for n in board.NEIGHBOURS[piece.at]:
            target = occupied.get(n)
            if target is not None and target.owner != piece.owner:
                yield piece, target


def threats(
    ruleset: Kelly, state: KellyState, seat: int, occupied: dict[str, Piece], danger: float = THREATS
) -> float:
    """Material ``seat`` stands to win by the attacks open to it, minus what it stands to
    lose, weighted (:data:`THREATS`). The side to move is counted by its two best attacks
    this turn, a move away included when it has both actions left (a move, then an
    attack), at ``danger`` when it is ``seat``'s opponent; the side waiting, by every
    attack open between adjacent pieces, at a lower weight (the mover may yet step away)."""
    mover = state.turn if state.push is None else None
    out = 0.0
    for piece, target in adjacent_enemies(occupied):
        if piece.owner != mover:
            gain = THREATS * WAITING * swing(ruleset, state, piece, target)
            out += gain if piece.owner == seat else -gain
    if mover is None:
        return out
    gain = movers_attacks(ruleset, state, mover, occupied)
    return out + (THREATS * gain if mover == seat else -danger * gain)


def movers_attacks(ruleset: Kelly, state: KellyState, mover: int, occupied: dict[str, Piece]) -> float:
    """The material the side to move stands to win by its two best attacks this turn (the
    best in full, the second at half), a move away included while it has both actions."""
    best = [
        swing(ruleset, state, piece, target)
        for piece in occupied.values()
        if piece.owner == mover
        for target in reachable_targets(ruleset, state, piece, occupied)
    ]
    best = sorted((g for g in best if g > 0), reverse=True)[:2]
    return TO_MOVE * sum(g * w for g, w in zip(best, (1.0, 0.5), strict=False))


def swing(ruleset: Kelly, state: KellyState, piece: Piece, target: Piece) -> float:
    """The material ``piece`` expects to win by attacking ``target`` (at least 0)."""
    if not ruleset.may_attack(state, piece, target):
        return 0.0
    kill, counter_kill = kill_chances(*ruleset.attack_pools(state, piece, target))
    gain = kill * piece_value(ruleset, target.kind)
    return max(gain - counter_kill * piece_value(ruleset, piece.kind), 0.0)


@cache
def kill_chances(attack: Pool, defense: Pool) -> tuple[float, float]:
    """The chances of a kill and of a counter-kill, as floats (the evaluation asks often)."""
    odds = attack_odds(attack, defense)
    return float(odds["kill"]), float(odds["counter-kill"])


def reachable_targets(
    ruleset: Kelly, state: KellyState, piece: Piece, occupied: dict[str, Piece]
) -> list[Piece]:
    """The enemies ``piece`` can attack this turn: from where it stands, or, with both
    actions left, from the end of one move."""
    spaces = [piece.at]
    if state.actions_left >= 2 and ruleset.may_act_with(state, piece):
        spaces += move_paths(piece.at, ruleset.creatures[piece.kind].movement, frozenset(occupied))
    targets = {
        n: occupied[n]
        for space in spaces
        for n in board.NEIGHBOURS[space]
        if n in occupied and occupied[n].owner != piece.owner
    }
    return list(targets.values())


FORTRESS = 0.3
"""kelly: the share of a material lead that counts while the side ahead has no means to
kill one of the opponent's pieces (:func:`can_take`): a lone Ng'ok against two pieces
without a Molator is a draw, however far ahead the two are."""
FORCED = 1.0
"""kelly: how much the material counts that the side to move stands to lose by the attack
it cannot avoid, every piece of it hemmed in with no move left (:func:`forced_attack`)."""
HEM = 0.08
"""kelly: the worth of hemming in a side of at most two pieces, by the share of the
neighbours taken of its pieces that no enemy attacks at fair odds (:func:`fortresses`,
:func:`hemmed`): the way to a forced attack."""
DANGER = MATERIAL
"""kelly: the weight of the attacks the opponent, to move, stands to make (:func:`threats`):
like material, not like the side's own threats (:data:`THREATS`), so that the side that
ended its turn answers for every piece it left within reach. An opponent that attacks
whenever the odds favour it takes what is left within its reach; counted at 0.3, the master
left its Molator beside a K'lor'slug (docs/bots.md, "Counting the opponent's answer")."""
ENCLOSE = min(len(n) for n in board.NEIGHBOURS.values())
"""The fewest pieces that hem in one piece on its own (ring A: three neighbours)."""


def evaluate_kelly(ruleset: Kelly, state: KellyState, seat: int) -> float:
    """`kelly`'s evaluation: :func:`evaluate` and its endgame (docs/bots.md, "Hemming in
    a fortress"). A side that has no move left must attack, and a Ng'ok's attacks are
    poor: the way to kill a piece that no attack takes at fair odds is to take away its
    moves. A lead that can be neither attacked home nor hemmed in counts for little. The
    opponent's attacks, with the opponent to move, count like material (:data:`DANGER`),
    and a last piece hemmed in stakes the game (:func:`last_stand`)."""
    occupied = {p.at: p for p in state.pieces.values() if p.at is not None}
    value = evaluate(ruleset, state, seat, DANGER) + endgame(ruleset, state, seat, occupied)
    value = max(-1.0, min(1.0, value))
    doom = last_stand(ruleset, state, occupied)
    if doom:  # the side to move may lose its last piece, and the game, this turn
        value = value + doom * (1.0 - value) if state.turn != seat else value - doom * (1.0 + value)
    return value


def last_stand(ruleset: Kelly, state: KellyState, occupied: dict[str, Piece]) -> float:
    """The chance that the side to move, down to one piece with no move left, loses it in
    this turn: each action left must be an attack, the least bad one (the best kill less
    counter-kill), and a counter-push has nowhere to go (a push of the hemming piece may
    open the way: not counted). A hemmed-in Ng'ok's two attacks on a Monnok lose it 79 % of
    the time, on a Savrip 95 %: the game, not only a piece's material (:func:`forced_attack`)."""
    if state.push is not None:
        return 0.0
    pieces = [p for p in occupied.values() if p.owner == state.turn]
    if len(pieces) != 1 or not ruleset.may_act_with(state, pieces[0]):
        return 0.0
    piece = pieces[0]
    if move_paths(piece.at, ruleset.creatures[piece.kind].movement, frozenset(occupied)):
        return 0.0
    odds = [
        kill_chances(*ruleset.attack_pools(state, piece, t))
        for t in ruleset.attack_targets(state, piece, occupied)
    ]
    if not odds:
        return 0.0
    kill, counter_kill = max(odds, key=lambda kc: kc[0] - kc[1])
    return sum((1.0 - kill - counter_kill) ** i * counter_kill for i in range(state.actions_left))


def endgame(ruleset: Kelly, state: KellyState, seat: int, occupied: dict[str, Piece]) -> float:
    """What :func:`evaluate` leaves out of a game of few pieces, from ``seat``'s side: the
    part of a lead that cannot be converted taken back, the attack a hemmed-in side to
    move must make, and how far each side of at most two pieces is hemmed in."""
    sides = {s: [p for p in occupied.values() if p.owner == s] for s in (0, 1)}
    material = [sum(piece_value(ruleset, p.kind) for p in sides[s]) for s in (0, 1)]
    total = sum(material) or 1.0
    lead = MATERIAL * (material[seat] - material[1 - seat]) / total
    # Each side's pieces that none of the other side's attacks at fair odds.
    walls = {side: fortresses(ruleset, state, sides[1 - side], sides[side]) for side in (0, 1)}
    value = 0.0
    ahead = seat if lead > 0 else 1 - seat
    if lead and not can_take(sides[ahead], walls[1 - ahead]):
        value -= (1.0 - FORTRESS) * lead
    if state.push is None:
        forced = FORCED * MATERIAL * forced_attack(ruleset, state, sides[state.turn], occupied) / total
        value += forced if state.turn == seat else -forced
    for side in (0, 1):
        if walls[side] and len(sides[side]) <= 2:
            gain = HEM * hemmed(walls[side], occupied)
            value += -gain if side == seat else gain
    return value


def can_take(pieces: list[Piece], walls: list[Piece]) -> bool:
    """Whether ``pieces`` have the means to kill every enemy piece, ``walls`` being the ones
    none of them attacks at fair odds (:func:`fortresses`): each of those must be hemmed in,
    which takes :data:`ENCLOSE` pieces for one and one piece more for each more."""
    return not walls or len(pieces) >= ENCLOSE + len(walls) - 1


def fortresses(ruleset: Kelly, state: KellyState, pieces: list[Piece], enemies: list[Piece]) -> list[Piece]:
    """The ``enemies`` that none of ``pieces`` attacks at fair odds."""
    return [e for e in enemies if not any(fair(ruleset, state, p, e) for p in pieces)]


def fair(ruleset: Kelly, state: KellyState, piece: Piece, target: Piece) -> bool:
    kill, counter_kill = kill_chances(*ruleset.attack_pools(state, piece, target))
    return kill >= counter_kill


def attack_value(ruleset: Kelly, state: KellyState, piece: Piece, target: Piece) -> float:
    """The material ``piece`` expects to win by attacking ``target``, less what it expects
    to lose: negative for a poor attack."""
    kill, counter_kill = kill_chances(*ruleset.attack_pools(state, piece, target))
    return kill * piece_value(ruleset, target.kind) - counter_kill * piece_value(ruleset, piece.kind)


def forced_attack(
    ruleset: Kelly, state: KellyState, pieces: list[Piece], occupied: dict[str, Piece]
) -> float:
    """The material the side to move (its ``pieces``) stands to win by its best attack when
    none of its pieces has a move left, so that its action must be an attack: at most 0
    (a good attack is the threats' to count); 0 while it has a move, or no attack."""
    taken = frozenset(occupied)
    movers = [p for p in pieces if ruleset.may_act_with(state, p)]
    if any(move_paths(p.at, ruleset.creatures[p.kind].movement, taken) for p in movers):
        return 0.0
    values = [
        attack_value(ruleset, state, p, target)
        for p in movers
        for target in ruleset.attack_targets(state, p, occupied)
    ]
    return min(max(values), 0.0) if values else 0.0


def hemmed(pieces: list[Piece], occupied: dict[str, Piece]) -> float:
    """The share of the neighbours of ``pieces`` that are taken, on average: 1 when none of
    them has an empty space beside it."""
    shares = [
        sum(n in occupied for n in board.NEIGHBOURS[p.at]) / len(board.NEIGHBOURS[p.at]) for p in pieces
    ]
    return sum(shares) / len(shares)


def order(action: Action) -> float:
    return -1.0 if action["type"] == "attack" else 0.0


def turn_of(state: KellyState) -> int:
    """The seat whose turn it is: a push after a counter-push is the defender's choice,
    inside the attacker's turn."""
    return state.turn


def settled(state: KellyState) -> bool:
    """No push waits for its chooser."""
    return state.push is None


FAMILY = Family(evaluate=evaluate_kelly, chance=chance, order=order)  # type: ignore[arg-type]
"""`kelly`: the full-width search by whole turns (the selective search and ``turn_of``
were not shown to help it: docs/bots.md)."""
DICE_FAMILY = replace(FAMILY, evaluate=evaluate, selective=(None, 2), turn_of=turn_of, settled=settled)
"""`kelly-d20` and `dalsiandon`: turns counted by ``state.turn``, and past its own turn
the master searches the opponent's best answers (see :attr:`Family.selective`)."""


SAFE_PLACE = dict.fromkeys(PLACE_BONUS, 0.0)
"""dalsiandon with its safe zone: no ring is worth more than another. (``PLACE_BONUS`` put
weak pieces on the core, beside every space of ring B, out of ring A where no attack
reaches them: docs/bots.md.)"""
CLEAR_EDGE = 1.5
"""dalsiandon: the master declares an attack only with a kill at least this many times as
likely as a counter-kill (:func:`declines`)..."""
LATE = 0.6
"""...until this share of the quiet turns has gone; from then on a fair one will do (a kill
at least as likely as a counter-kill)."""


BAIT = 0.3
"""dalsiandon: the weight of the fights only the opponent can start at odds against it
(:func:`baits`), by the material it would lose by starting them."""


def evaluate_dalsiandon(ruleset: Kelly, state: KellyState, seat: int) -> float:
    """:func:`evaluate`, with no ring worth more than another while ring A is safe, and the
    poor attacks the opponent is offered (:func:`baits`)."""
    safe = not getattr(state.options, "nowhere_is_safe", False)
    value = evaluate(ruleset, state, seat, place=SAFE_PLACE if safe else PLACE_BONUS)
    if BAIT:
        value += BAIT * baits(ruleset, state, seat)
    return max(-1.0, min(1.0, value))


def baits(ruleset: Kelly, state: KellyState, seat: int) -> float:
    """The material the opponent of ``seat`` stands to lose by the attacks open to it that
    favour ``seat`` (a strong defender beside a weak attacker), as a share of the material
    on the board: nothing against an opponent that never errs, a gain against one that does."""
    occupied = {p.at: p for p in state.pieces.values() if p.at is not None}
    total = sum(piece_value(ruleset, p.kind) for p in occupied.values()) or 1.0
    out = 0.0
    for piece, target in adjacent_enemies(occupied):
        if target.owner == seat and ruleset.may_attack(state, piece, target):
            out += max(-attack_value(ruleset, state, piece, target), 0.0)
    return out / total


def declines(state: KellyState, action: Action) -> bool:
    """Whether the master declines its own ``action`` (dalsiandon): an attack without a clear
    edge on its exact odds (:data:`CLEAR_EDGE`; a fair one once :data:`LATE`). The 2d10 give
    even a poor attack a fair chance and the safe zone lets a side wait: a fight the master
    need not take is one it can lose."""
    if action["type"] != "attack" or "odds" not in action:
        return False
    odds = {o["key"]: o["probability"] for o in action["odds"]["outcomes"]}
    limit = state.options.turns_without_kill
    late = bool(limit) and state.quiet_turns >= LATE * limit
    return odds.get("kill", 0.0) < (1.0 if late else CLEAR_EDGE) * odds.get("counter-kill", 0.0)


CONTEMPT = 0.3
"""dalsiandon: what a draw costs the master (:attr:`Family.contempt`): an unfinished game fades
towards a loss of this much as the draw by quiet turns nears, not towards nothing, so the
master keeps playing for the win, behind or level as well as ahead."""
DALSIANDON_FAMILY = replace(DICE_FAMILY, evaluate=evaluate_dalsiandon, declines=declines, contempt=CONTEMPT)
"""`dalsiandon`: the dice family, with no ring worth more than another while ring A is safe,
the opponent's poor attacks counted as bait, and a master that refuses a fight without a
clear edge and counts a draw as a small loss (docs/bots.md, "dalsiandon: refusing the
fight")."""
