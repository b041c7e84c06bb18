// The rules page's board diagrams, drawn by the match page's own board renderer from a
// real position the server set up (a view with its legal actions): the start, and the
// spaces one piece may go to.

import { installArt } from "./art.js";
import { createBoardRenderer } from "./renderers/board.js";
import { classifyActions, humanise, targetsOf } from "./state.js";

installArt();

for (const holder of document.querySelectorAll(".diagram[data-view]")) {
  const view = JSON.parse(holder.dataset.view);
  const classified = classifyActions(view);
  const store = { view, selected: null, busy: true, hovered: null, names: {} };
  if (holder.dataset.diagram === "moves") {
    // The piece with the most places to go shows the movement best.
    const [piece] = [...classified.board.entries()].sort((a, b) => b[1].length - a[1].length)[0] || [];
    store.selected = piece || null;
    const caption = holder.parentElement.querySelector("[data-caption]");
    const info = piece && view.state.pieces.find((p) => p.id === piece);
    if (info && caption) {
      const legend = view.state.legend || {};
      const name = info.name || (legend[info.kind] && legend[info.kind].name) || humanise(info.kind);
      caption.textContent = `Where ${name} on ${info.at} may go on the first turn: the lit spaces.`;
    }
  }
  const board = createBoardRenderer(holder);
  board.update(store, { ...classified, board: new Map(), reserve: new Map(), buttons: [] }, targetsOf(store, classified));
  board.svg.setAttribute("aria-label", holder.parentElement.querySelector("figcaption").textContent);
  // A picture, not controls: nothing in it takes focus.
  for (const node of holder.querySelectorAll("[tabindex]")) node.removeAttribute("tabindex");
  for (const node of holder.querySelectorAll("[role=button]")) node.setAttribute("role", "img");
  for (const node of holder.querySelectorAll("[aria-pressed]")) node.removeAttribute("aria-pressed");
}
