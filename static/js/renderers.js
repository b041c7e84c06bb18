// Renderers keyed by the view's "kind" (state.kind): "board" for every board
// ruleset; other kinds (e.g. "eote") register their own. Unknown kinds get the
// readable fallback.
//
// A renderer is a function (container) -> {update(store, classified, targets)}.

import { createBoardRenderer } from "./renderers/board.js";
import { createEoteRenderer } from "./renderers/eote.js";
import { createFallbackRenderer } from "./renderers/fallback.js";

const renderers = new Map();

export function registerRenderer(kind, factory) {
  renderers.set(kind, factory);
}

export function rendererFor(kind) {
  return renderers.get(kind) || createFallbackRenderer;
}

registerRenderer("board", createBoardRenderer);
registerRenderer("eote", createEoteRenderer);
