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


def kelly_frames(actions: int, seed: int = 2) -> list[tuple[dict, int]]:
    """A kelly match played at random for up to ``actions`` actions, a spectator's view after
    each, with the last move's spaces to mark (as ``app/api/sharing.py`` gives them)."""
    ruleset, rng, dice = get_ruleset("kelly"), random.Random(seed), Dice(b"share")
    state, _ = ruleset.start(ruleset.options({}), dice)
    seats = [
        {"seat": 0, "name": "Blue", "player": {"name": "Chewie"}},
        {"seat": 1, "name": "Red", "player": {"name": "R2-D2"}},
    ]
    entries: list[dict] = []

    def frame(version: int) -> tuple[dict, int]:
        view = {"seats": seats, "status": "active", "to_act": ruleset.to_act(state)}
        shown = ruleset.view(state, None)
        marks = sharing.last_marks(entries, shown["pieces"], version)
        return {**view, "state": shown, sharing.LAST_MARKS: marks}, version

    frames = [frame(2)]
    while len(frames) <= actions and ruleset.outcome(state) is None:
        seat = rng.choice(ruleset.to_act(state))
        legal = [a for a in ruleset.legal_actions(state, seat) if a["type"] not in COMMON_ACTION_TYPES]
        state, events = ruleset.apply(state, seat, rng.choice(legal), dice)
        entries.append({"version": frames[-1][1] + 1, "events": events})
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


PIECES = [{"id": "klorslug", "at": "A1"}, {"id": "monnok", "at": "A2"}, {"id": "houjix", "at": None}]


def test_the_last_marks_are_found_as_the_board_page_finds_them():
    """``sharing.last_marks`` is state.js's ``lastMarks`` (tests/js/state.test.mjs, the same cases)."""
    moved = {"version": 3, "events": [{"type": "move", "piece": "monnok", "from": "A4", "to": "A3"}]}
    attacked = {"version": 4, "events": [{"type": "attack", "piece": "klorslug", "target": "monnok"}]}
    pushed = {"version": 5, "events": [{"type": "push", "piece": "monnok", "from": "A3", "to": "A2"}]}
    assert sharing.last_marks([moved, attacked, pushed], PIECES) == {"from": "A1", "to": "A3"}
    assert sharing.last_marks([moved, attacked, pushed], PIECES, 3) == {"from": "A4", "to": "A3"}
    killed = {
        "version": 4,
        "events": [
            {"type": "attack", "piece": "klorslug", "target": "houjix"},
            {"type": "kill", "piece": "houjix", "by": "klorslug", "at": "B1"},
        ],
    }
    assert sharing.last_marks([killed], PIECES) == {"from": "A1", "to": "B1"}
    nothing_moved = {"version": 1, "events": [{"type": "first_player", "seat": 0}]}
    assert sharing.last_marks([nothing_moved], PIECES) is None
    assert sharing.last_marks([], []) is None


def inside(space: str) -> tuple[float, float]:
    """A point of ``space`` (board units) clear of its piece and its name."""
    if space == "C":
        return 12.0, 8.0
    radius = 79 if space[0] == "A" else 52
    return sharing._polar(radius, sharing._ray_angle(int(space[1:])) + 11)


def pixel(image: Image.Image, space: str, scale: float = 1.0) -> tuple[int, int, int]:
    x, y = inside(space)
    at = (sharing.BOARD_AT[0] + x * sharing.BOARD_SCALE, sharing.BOARD_AT[1] + y * sharing.BOARD_SCALE)
    return image.convert("RGB").getpixel((round(at[0] * scale), round(at[1] * scale)))


def bluer(marked: tuple[int, int, int], unmarked: tuple[int, int, int]) -> int:
    """How much bluer (blue less red) a pixel is than the same pixel unmarked."""
    return (marked[2] - marked[0]) - (unmarked[2] - unmarked[0])


def test_the_last_move_is_marked_on_the_picture_and_on_each_frame_of_the_gif():
    """Where the last move started and ended is tinted blue (where it ended more), as on the
    board page; without the marks those spaces are their plain tones."""
    frames = kelly_frames(12)
    index, (view, version) = next((k, f) for k, f in enumerate(frames) if f[0][sharing.LAST_MARKS])
    marks, plain = view[sharing.LAST_MARKS], {**view, sharing.LAST_MARKS: None}

    def opened(png: bytes) -> Image.Image:
        return Image.open(io.BytesIO(png))

    marked_png = opened(sharing.board_png(view, "Dejarik (Kelly)", version))
    plain_png = opened(sharing.board_png(plain, "Dejarik (Kelly)", version))
    tint = {end: bluer(pixel(marked_png, marks[end]), pixel(plain_png, marks[end])) for end in ("from", "to")}
    assert tint["from"] > 20 and tint["to"] > tint["from"], (marks, tint)
    elsewhere = next(s for s in sharing.SPACES if s not in marks.values() and s != "C")
    assert pixel(marked_png, elsewhere) == pixel(plain_png, elsewhere)

    unmarked_frames = [({**v, sharing.LAST_MARKS: None}, n) for v, n in frames]
    gifs = [opened(sharing.replay_gif(f, "Dejarik (Kelly)")) for f in (frames, unmarked_frames)]
    for gif in gifs:
        gif.seek(index)
    half = sharing.GIF_SIZE[0] / sharing.PREVIEW_SIZE[0]
    for end in ("from", "to"):
        assert bluer(pixel(gifs[0], marks[end], half), pixel(gifs[1], marks[end], half)) > 20, end
    # Each frame marks its own last move: the next frame's move is marked there, not this one's.
    following = frames[index + 1][0][sharing.LAST_MARKS]
    assert following and following != marks
