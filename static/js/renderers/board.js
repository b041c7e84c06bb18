// The Dejarik board (RULINGS §1) in SVG: the core C, ring B1..B12 and ring A1..A12,
// alternating tones, turned so the viewer's home is at the bottom. Pieces are keyed
// by id and only changed attributes are touched. What a ruleset adds (safe zone,
// combat ray, scores, draft, trays, off-board choices) comes from board-extras.js,
// and the drawing both share from board-draw.js; modules import in that one
// direction. Both read only the server's view and its legal actions.

import { dressBoard } from "../holo.js";
import { humanise, lastMarks } from "../state.js";
import { createExtras } from "./board-extras.js";
import {
  GEOMETRY, SPACES, SVG, cellShape, describePiece, drawToken, el, emblemOf, monograms, setAttr, spaceCentre,
} from "./board-draw.js";

const { CORE_R, OUTER_R, TOKEN_R } = GEOMETRY;

export function createBoardRenderer(container) {
  container.innerHTML = "";
  container.classList.add("board-box");
  const top = document.createElement("div");
  container.appendChild(top);
  const svg = el("svg", {
    viewBox: "-102 -102 204 204", class: "board", role: "group", "aria-label": "Dejarik board",
  });
  container.appendChild(svg);
  const defs = el("defs", {}, svg);
  const glow = el("radialGradient", { id: "holo-glow" }, defs);
  el("stop", { offset: "0%", "stop-color": "#6fd3ff", "stop-opacity": "0.35" }, glow);
  el("stop", { offset: "100%", "stop-color": "#6fd3ff", "stop-opacity": "0" }, glow);
  const hatch = el("pattern", { id: "safe-hatch", width: 4, height: 4, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, defs);
  el("rect", { width: 4, height: 4, class: "hatch-bg" }, hatch);
  el("line", { x1: 0, y1: 0, x2: 0, y2: 4, class: "hatch-line" }, hatch);
  el("circle", { r: 102, fill: "url(#holo-glow)", class: "halo" }, svg);
  const spaceLayer = el("g", { class: "spaces" }, svg);
  const zoneLayer = el("g", { class: "zones", "aria-hidden": "true" }, svg);
  const pieceLayer = el("g", { class: "pieces" }, svg);
  const choiceLayer = el("g", { class: "choices" }, svg);
  dressBoard(svg, spaceLayer, OUTER_R);
  // Space labels at least 12.5 px high and pieces at least 44 px to tap, however small
  // the board is drawn (a phone): sizes in the board's own units, from its drawn scale.
  new ResizeObserver(() => {
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    if (!(scale > 0)) return;
    svg.style.setProperty("--space-label-size", `${Math.min(7.5, Math.max(4.6, 12.5 / scale)).toFixed(2)}px`);
    svg.style.setProperty("--piece-reach", `${Math.max(TOKEN_R, 22.5 / scale).toFixed(2)}px`);
  }).observe(svg);
  const bottom = document.createElement("div");
  container.appendChild(bottom);
  const extras = createExtras({ top, bottom, svg, zoneLayer, choiceLayer });

  const spaces = new Map();   // space -> <g data-space>
  const pieces = new Map();   // piece id -> <g data-piece>
  let bottomSeat = null;

  function drawSpaces(seat) {
    bottomSeat = seat;
    spaceLayer.innerHTML = "";
    spaces.clear();
    for (const space of SPACES) {
      const g = el("g", { "data-space": space, class: "space", role: "img", "aria-label": `space ${space}` }, spaceLayer);
      const tone = space === "C" ? "core" : (Number(space.slice(1)) + (space[0] === "A" ? 1 : 0)) % 2;
      cellShape(space, seat, g, { class: `cell tone-${tone}`, "data-ring": space[0] });
      cellShape(space, seat, g, { class: `last-mark on-tone-${tone}` });  // shown on the last move's or attack's two spaces
      const [x, y] = spaceCentre(space, seat);
      el("circle", { cx: x, cy: y, r: TOKEN_R + 3.2, class: "marker" }, g);
      el("circle", { cx: x, cy: y, r: 3, class: "marker-dot" }, g);
      const [lx, ly] = space === "C" ? [0, -CORE_R + 5] : spaceCentre(space, seat).map((n) => n * (space[0] === "A" ? 1.165 : 1.3));
      const label = el("text", { x: lx.toFixed(1), y: ly.toFixed(1), class: `space-label on-tone-${tone}`, "aria-hidden": "true" }, g);
      label.textContent = space;
      spaces.set(space, g);
    }
  }

  function pieceElement(piece, emblem) {
    const g = el("g", { "data-piece": piece.id, class: "piece", tabindex: "0", role: "button" }, pieceLayer);
    g.appendChild(document.createElementNS(SVG, "title"));
    drawToken(g, piece, emblem);
    el("circle", { r: TOKEN_R, class: "reach" }, g);  // the area a tap reaches (style.css: --piece-reach)
    return g;
  }

  function update(store, classified, targets) {
    const view = store.view;
    const state = view.state || {};
    const seat = view.you && view.you.seat !== null && view.you.seat !== undefined ? view.you.seat : 0;
    if (seat !== bottomSeat) drawSpaces(seat);
    svg.setAttribute("data-bottom-seat", String(seat));
    // Seats named White and Black (orbit chess) get white and black tokens, so the
    // names match what the players see.
    const named = (state.seat_names || []).join(" ").toLowerCase();
    setAttr(container, "data-seat-colours", named === "white black" ? "white-black" : null);
    // Rulesets that push pieces off the board get a margin for the off-board choices.
    setAttr(svg, "viewBox", state.points_to_win !== undefined ? "-114 -114 228 228" : "-102 -102 204 204");
    const legend = state.legend || {};
    const onBoard = (state.pieces || []).filter((p) => p.at);
    const glyphs = monograms(new Set([...Object.keys(legend), ...onBoard.map((p) => p.kind)]), legend);
    const marks = extras.pieceMarks(view);

    // Pieces: keyed by id; several on one space (To-The-Death in the core) sit side by side.
    const perSpace = new Map();
    for (const p of onBoard) perSpace.set(p.at, [...(perSpace.get(p.at) || []), p.id]);
    const seen = new Set();
    for (const p of onBoard) {
      seen.add(p.id);
      let g = pieces.get(p.id);
      if (!g || g.getAttribute("data-kind") !== p.kind || g.getAttribute("data-owner") !== String(p.owner)) {
        if (g) g.remove();
        g = pieceElement(p, emblemOf(p.kind, glyphs));
        pieces.set(p.id, g);
      }
      const sharing = perSpace.get(p.at);
      let [x, y] = spaceCentre(p.at, seat);
      if (sharing.length > 1) x += (sharing.indexOf(p.id) - (sharing.length - 1) / 2) * (TOKEN_R * 2.1);
      const transform = `translate(${x.toFixed(2)}px, ${y.toFixed(2)}px)`;
      if (g.style.transform !== transform) g.style.transform = transform;
      const flags = Object.entries(p).filter(([k, v]) => v === true && !["id", "stunned", "protected"].includes(k));
      const mark = marks.get(p.id) || {};
      let words = describePiece(view, p, legend);
      if (mark.acted) words += ", has acted this cycle";
      if (mark.active) words += ", active";
      setAttr(g, "data-kind", p.kind);
      setAttr(g, "data-at", p.at);
      setAttr(g, "data-flagged", flags.length ? flags.map(([k]) => k).join(" ") : null);
      setAttr(g, "data-stunned", p.stunned === true);
      setAttr(g, "data-protected", p.protected === true);
      setAttr(g, "data-acted", Boolean(mark.acted));
      setAttr(g, "data-active", Boolean(mark.active));
      setAttr(g, "aria-label", words);
      if (g.firstChild.textContent !== words) g.firstChild.textContent = words;
      setAttr(g, "data-selectable", !store.busy && classified.board.has(p.id));
      // Tab reaches the pieces that can act (every piece when none can); arrows reach all.
      const tabbable = classified.board.size ? classified.board.has(p.id) && (!store.selected || store.selected === p.id) : true;
      setAttr(g, "tabindex", tabbable ? "0" : "-1");
      setAttr(g, "data-selected", store.selected === p.id);
      setAttr(g, "aria-pressed", classified.board.has(p.id) ? String(store.selected === p.id) : null);
    }
    for (const [id, g] of pieces) {
      if (!seen.has(id)) {
        pieces.delete(id);
        // motion.js may take the piece to fade it out (a cancelled event); else it goes now.
        if (container.dispatchEvent(new CustomEvent("dejarik:retire", { detail: g, cancelable: true }))) g.remove();
      }
    }

    // Spaces: legal targets of the selected piece, and the two spaces of the last move or attack.
    const last = lastMarks(store.entries, state.pieces, view.version) || {};
    for (const [space, g] of spaces) {
      const legal = targets.has(space);
      setAttr(g, "data-last", space === last.from ? "from" : space === last.to ? "to" : null);
      setAttr(g, "data-legal", legal);
      setAttr(g, "tabindex", legal ? "0" : "-1");  // -1: reached by the arrow keys
      setAttr(g, "role", legal ? "button" : "img");
      setAttr(g, "data-hovered", legal && store.hovered === space);
      const occupant = onBoard.find((p) => p.at === space);
      const lastWords = space === last.from ? ", the last move started here" : space === last.to ? ", the last move ended here" : "";
      const label = `space ${space}${occupant ? `, ${occupant.name || humanise(occupant.kind)}` : ""}${lastWords}${legal ? ", legal target" : ""}`;
      setAttr(g, "aria-label", label);
    }

    extras.update(store, classified, { seat, glyphs, onBoard, legend });
  }

  return { update, svg };
}
