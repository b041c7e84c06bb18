"""Shared by the rules tests: random play through a ruleset's own legal actions."""

from __future__ import annotations

import random

from app.rules.base import COMMON_ACTION_TYPES, Ruleset
from app.rules.dice import Dice

MAX_STEPS = 4000


def play_randomly(ruleset: Ruleset, seed: int, options: dict | None = None):
    """Play a game with uniformly random legal game actions; returns (seed, log, states)."""
    rng = random.Random(seed)
    dice_seed = seed.to_bytes(32, "big")
    dice = Dice(dice_seed)
    state, events = ruleset.new_game(ruleset.options(options), dice)
    log, states = [], [state]
    for _ in range(MAX_STEPS):
        if ruleset.outcome(state) is not None:
            break
        to_act = ruleset.to_act(state)
        assert to_act, "an unfinished game must wait for somebody"
        seat = rng.choice(to_act)
        legal = ruleset.legal_actions(state, seat)
        game = [a for a in legal if a["type"] not in COMMON_ACTION_TYPES]
        assert game, f"seat {seat} is to act but has no game action"
        assert len(legal) < 300, "every decision is its own step: lists stay short"
        action = rng.choice(game)
        state, events = ruleset.apply(state, seat, action, dice)
        log.append((seat, action, events))
        states.append(state)
    return dice_seed, log, states
