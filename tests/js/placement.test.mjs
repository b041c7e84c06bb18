// Where the odds panel goes over the board (static/js/placement.js): pure geometry,
// run by `node --test tests/js/` without a browser. Rectangles are window coordinates.
// tests/browser/test_attack_confirm.py checks the panel on real pages.

import assert from "node:assert/strict";
import { test } from "node:test";

import { bestSpot } from "../../static/js/placement.js";

const GAP = 8;
const rect = (left, top, side = 40) => ({ left, top, right: left + side, bottom: top + side, width: side, height: side });
const BOARD = { left: 0, top: 0, right: 600, bottom: 600 };
const SIZE = { width: 200, height: 150 };

// The panel at `spot` as a rectangle.
const panel = (spot, size = SIZE) => ({ left: spot.left, top: spot.top, right: spot.left + size.width, bottom: spot.top + size.height });

// Whether the panel at `spot` comes within `margin` of `r`.
const covers = (spot, r, margin = 0, size = SIZE) => {
  const p = panel(spot, size);
  return p.left < r.right + margin && r.left - margin < p.right && p.top < r.bottom + margin && r.top - margin < p.bottom;
};

// The pieces among `others` whose centre the panel at `spot` hides.
const hidden = (spot, others, size = SIZE) => others.filter((r) => {
  const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
  return spot.left <= x && x <= spot.left + size.width && spot.top <= y && y <= spot.top + size.height;
});

// A seeded generator (mulberry32), so that a failing scene replays exactly.
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test("on an empty board the panel sits right beside the fight, never over it", () => {
  const fight = rect(280, 280);
  const spot = bestSpot({ board: BOARD, fight, others: [], size: SIZE, windowHeight: 800 });
  assert.equal(covers(spot, fight, GAP), false);
  const p = panel(spot);
  const apart = Math.max(fight.left - p.right, p.left - fight.right, fight.top - p.bottom, p.top - fight.bottom);
  assert.ok(apart >= GAP && apart < GAP + 8, `${apart} px from the fight: as near as the gap allows`);
});

test("the panel keeps the gap it is given from the fight", () => {
  const fight = rect(280, 280);
  const spot = bestSpot({ board: BOARD, fight, others: [], size: SIZE, windowHeight: 800, gap: 40 });
  assert.equal(covers(spot, fight, 40), false);
});

test("free room far from the fight is found rather than hiding a piece near it", () => {
  // The fight on the board's right edge, two columns of pieces between it and the left half.
  const fight = rect(520, 280);
  const columns = [0, 100, 200, 300, 400, 500].flatMap((top) => [rect(300, top), rect(430, top)]);
  const spot = bestSpot({ board: BOARD, fight, others: columns, size: SIZE, windowHeight: 800 });
  assert.deepEqual(hidden(spot, columns), []);
  assert.ok(spot.left + SIZE.width <= 300, "left of the columns");
  assert.ok(spot.top >= BOARD.top && spot.top + SIZE.height <= BOARD.bottom, "on the board");
});

test("a panel that must hide a piece on a crowded board hides as few as any place could", () => {
  const fight = rect(520, 280);
  const crowd = [];
  for (let x = 20; x < 600; x += 100) for (let y = 20; y < 600; y += 100) crowd.push(rect(x, y));
  const spot = bestSpot({ board: BOARD, fight, others: crowd, size: SIZE, windowHeight: 600 });
  // The fewest any place clear of the fight can hide, trying every whole pixel.
  let fewest = Infinity;
  for (let left = 0; left <= 400; left++) {
    for (let top = 0; top <= 450; top++) {
      if (!covers({ left, top }, fight, GAP)) fewest = Math.min(fewest, hidden({ left, top }, crowd).length);
    }
  }
  assert.equal(fewest, 2, "a 200 by 150 panel holds two centres of a 100 px grid wherever it goes");
  assert.equal(hidden(spot, crowd).length, fewest);
  assert.equal(covers(spot, fight, GAP), false);
});

test("when every place clear of the fight touches a piece, the panel leaves the piece's centre in sight", () => {
  // Wherever the panel fits above the fight, it covers part of the piece.
  const board = { left: 0, top: 0, right: 400, bottom: 400 };
  const fight = rect(180, 340);
  const piece = rect(180, 100, 80);
  const spot = bestSpot({ board, fight, others: [piece], size: SIZE, windowHeight: 400 });
  assert.deepEqual(hidden(spot, [piece]), []);
  assert.equal(covers(spot, fight, GAP), false);
});

test("a piece's centre counts before its edges: the panel may touch two pieces rather than hide one", () => {
  // A window as tall as the panel: one row of places. Every place touches a piece; only
  // those between the two pieces' centres hide none, and they touch both.
  const board = { left: 0, top: 0, right: 400, bottom: 400 };
  const pieces = [rect(0, 50), rect(220, 50)];
  const spot = bestSpot({ board, fight: rect(300, 300), others: pieces, size: SIZE, windowHeight: SIZE.height });
  assert.deepEqual(hidden(spot, pieces), []);
  assert.ok(pieces.every((piece) => covers(spot, piece)), JSON.stringify(spot));
});

test("the panel stays on the board rather than overhang it when the board has room", () => {
  // The board starts lower in the window; the nearest place clear of the fight is above
  // the board, but there is room on it below the fight.
  const board = { left: 0, top: 200, right: 400, bottom: 600 };
  const fight = rect(180, 200);
  const spot = bestSpot({ board, fight, others: [], size: SIZE, windowHeight: 800 });
  assert.ok(spot.top >= board.top && spot.top + SIZE.height <= board.bottom, JSON.stringify(spot));
  assert.equal(covers(spot, fight, GAP), false);
});

test("the panel keeps off the selected piece's words when it can", () => {
  const fight = rect(280, 280);
  const free = bestSpot({ board: BOARD, fight, others: [], size: SIZE, windowHeight: 800 });
  // Words exactly where the panel would otherwise go.
  const words = { ...panel(free), width: SIZE.width };
  const spot = bestSpot({ board: BOARD, fight, others: [], words, size: SIZE, windowHeight: 800 });
  assert.equal(covers(spot, words), false);
  assert.equal(covers(spot, fight, GAP), false);
  const hiddenWords = { ...words, width: 0 }; // no line under the piece: nothing to avoid
  assert.deepEqual(bestSpot({ board: BOARD, fight, others: [], words: hiddenWords, size: SIZE, windowHeight: 800 }), free);
});

test("on a phone the panel goes past the board's edge rather than over the fight", () => {
  // A board barely wider than the panel: nowhere beside the fight, and no room above or below it on the board.
  // Below the fight the window has no room either: the panel goes above the board.
  const board = { left: 0, top: 150, right: 360, bottom: 510 };
  const size = { width: 300, height: 140 };
  const fight = rect(160, 250, 160);
  const spot = bestSpot({ board, fight, others: [], size, windowHeight: 520 });
  assert.equal(covers(spot, fight, GAP, size), false);
  assert.ok(spot.top < board.top, "off the board's top");
  assert.ok(spot.top >= 0, "inside the window");
  assert.ok(spot.left >= board.left && spot.left + size.width <= board.right, "within the board's width");
});

test("a panel wider than the board starts at the board's left edge, clear of the fight", () => {
  // No room below the fight in the window: the panel goes above it.
  const board = { left: 10, top: 100, right: 190, bottom: 280 };
  const fight = rect(80, 170);
  const spot = bestSpot({ board, fight, others: [], size: SIZE, windowHeight: 300 });
  assert.equal(spot.left, board.left);
  assert.equal(covers(spot, fight, GAP), false);
  assert.ok(spot.top >= 0 && spot.top + SIZE.height <= fight.top - GAP, "above the fight");
});

test("with no room clear of the fight the panel goes below it, inside the window", () => {
  const board = { left: 0, top: 0, right: 300, bottom: 300 };
  const fight = rect(0, 0, 300); // the fight fills the board
  const spot = bestSpot({ board, fight, others: [], size: SIZE, windowHeight: 320 });
  assert.deepEqual(spot, { left: 50, top: 170 }, "centred under the fight, moved up into the window");
  const tall = bestSpot({ board, fight, others: [], size: { width: 200, height: 400 }, windowHeight: 320 });
  assert.equal(tall.top, 0, "a panel taller than the window starts at its top");
});

test("in two hundred random scenes with room, the panel never covers the fight and stays in bounds", () => {
  const next = random(20261127);
  const within = (low, high) => low + Math.floor(next() * (high - low + 1));
  for (let n = 0; n < 200; n++) {
    const board = { left: within(0, 200), top: within(0, 150) };
    board.right = board.left + within(560, 800);
    board.bottom = board.top + within(560, 800);
    const size = { width: within(120, 260), height: within(80, 200) };
    const side = within(40, 120);
    const fight = rect(within(board.left, board.right - side), within(board.top, board.bottom - side), side);
    const others = Array.from({ length: within(0, 20) }, () => rect(within(board.left, board.right - 40), within(board.top, board.bottom - 40)));
    const windowHeight = board.bottom + within(0, 200);
    const spot = bestSpot({ board, fight, others, size, windowHeight });
    const scene = JSON.stringify({ n, board, fight, size, windowHeight, spot });
    assert.equal(covers(spot, fight, GAP, size), false, scene);
    assert.ok(spot.left >= board.left && spot.left + size.width <= board.right, scene);
    assert.ok(spot.top >= 0 && spot.top + size.height <= windowHeight, scene);
  }
});
