// Where a panel goes over the board (the attack's odds): pure geometry over the
// rectangles of what is on screen, in window coordinates.

const STEP = 8;

const overlaps = (spot, size, r, margin = 0) => spot.left < r.right + margin && r.left - margin < spot.left + size.width
  && spot.top < r.bottom + margin && r.top - margin < spot.top + size.height;

const hidesCentre = (spot, size, r) => {
  const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
  return spot.left <= x && x <= spot.left + size.width && spot.top <= y && y <= spot.top + size.height;
};

// Values from `anchor` in steps of STEP within [low, high]; `low` alone when none fits.
function steps(anchor, low, high) {
  const out = [];
  for (let k = Math.ceil((low - anchor) / STEP); anchor + k * STEP <= high; k++) out.push(anchor + k * STEP);
  return out.length ? out : [low];
}

// The spot ({left, top}) for a panel of `size` ({width, height}) that never covers
// `fight` (the box around the attacker and its target, kept `gap` away), inside the
// board's width and the window's height. Of the spots on a grid from the board's
// corner, the one that hides the fewest `others` (pieces: their centres, then their
// edges), then stays on the board and off `words` (the selected piece's line under
// it), then sits nearest the fight. A phone's board is too narrow for a panel beside
// a piece, so the panel may go past the board's top or bottom edge.
export function bestSpot({ board, fight, others, words, size, windowHeight, gap = 8 }) {
  const middle = { x: (fight.left + fight.right) / 2, y: (fight.top + fight.bottom) / 2 };
  const cost = (spot) => [
    others.filter((r) => hidesCentre(spot, size, r)).length,
    others.filter((r) => overlaps(spot, size, r)).length,
    (spot.top < board.top || spot.top + size.height > board.bottom ? 1 : 0)
      + (words && words.width > 0 && overlaps(spot, size, words) ? 1 : 0),
    Math.hypot(spot.left + size.width / 2 - middle.x, spot.top + size.height / 2 - middle.y),
  ];
  const better = (a, b) => {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
    return false;
  };
  let best = null, bestCost = null;
  for (const top of steps(board.top, 0, windowHeight - size.height)) {
    for (const left of steps(board.left, board.left, board.right - size.width)) {
      const spot = { left, top };
      if (overlaps(spot, size, fight, gap)) continue;
      const c = cost(spot);
      if (!best || better(c, bestCost)) [best, bestCost] = [spot, c];
    }
  }
  if (best) return best;
  // No room clear of the fight: below it, within the board's width and the window.
  return {
    left: Math.min(Math.max(middle.x - size.width / 2, board.left), Math.max(board.left, board.right - size.width)),
    top: Math.min(Math.max(fight.bottom + gap, 0), Math.max(0, windowHeight - size.height)),
  };
}
