"""The share pictures' drawing alone (app/sharing.py): a long match's GIF stays small enough
to post, and a longer one is sampled down to the frame cap. The routes are in
``tests/api/test_sharing.py``."""

from __future__ import annotations

import io
import random

from PIL import Image

from app import sharing
from app.rules import get_ruleset
from app.rules.base import COMMON_ACTION_TYPES
from app.rules.dice import Dice


def kelly_frames(actions: int) -> list[tuple[dict, int]]:
    """A kelly match played at random for up to ``actions`` actions, a spectator's view after each."""
    ruleset, rng, dice = get_ruleset("kelly"), random.Random(2), Dice(b"share")
    state, _ = ruleset.start(ruleset.options({}), dice)
    seats = [
        {"seat": 0, "name": "Blue", "player": {"name": "Chewie"}},
        {"seat": 1, "name": "Red", "player": {"name": "R2-D2"}},
    ]

    def frame(version: int) -> tuple[dict, int]:
        view = {"seats": seats, "status": "active", "to_act": ruleset.to_act(state)}
        return {**view, "state": ruleset.view(state, None)}, version

    frames = [frame(2)]
    while len(frames) <= actions and ruleset.outcome(state) is None:
        seat = rng.choice(ruleset.to_act(state))
        legal = [a for a in ruleset.legal_actions(state, seat) if a["type"] not in COMMON_ACTION_TYPES]
        state, _ = ruleset.apply(state, seat, rng.choice(legal), dice)
        frames.append(frame(frames[-1][1] + 1))
    return frames


def test_a_150_action_match_makes_a_gif_small_enough_to_post():
    frames = kelly_frames(150)
    gif = sharing.replay_gif(frames, "Dejarik (Kelly)")
    assert len(gif) <= 1_000_000
    image = Image.open(io.BytesIO(gif))
    assert image.n_frames == len(frames) and image.size == sharing.GIF_SIZE


def test_a_longer_match_is_sampled_evenly_to_the_cap():
    versions = list(range(3, 1003))
    sampled = sharing.sample_versions(versions)
    assert len(sampled) == sharing.GIF_MAX_FRAMES
    assert (sampled[0], sampled[-1]) == (3, 1002) and sampled == sorted(set(sampled))
    assert sharing.sample_versions(versions[:40]) == versions[:40]
