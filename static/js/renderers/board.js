// The Dejarik board (RULINGS §1) in SVG: the core C, ring B1..B12 and ring A1..A12,
// alternating tones, turned so the viewer's home is at the bottom. Pieces are keyed
// by id and only changed attributes are touched. What a ruleset adds (safe zone,
// combat ray, scores, draft, trays, off-board choices) comes from board-extras.js;
// both read only the server's view and its legal actions.

import { figureUse, hasArt } from "../art.js";
import { dressBoard } from "../holo.js";
import { humanise } from "../state.js";
import { createExtras, seatWord } from "./board-extras.js";

const SVG = "http://www.w3.org/2000/svg";
const CORE_R = 20, INNER_R = 60, OUTER_R = 98;
const B_CENTRE = 41, A_CENTRE = 79, TOKEN_R = 9.2;
export const SPACES = ["C", ...range(12).map((i) => `B${i + 1}`), ...range(12).map((i) => `A${i + 1}`)];
export const GEOMETRY = { CORE_R, INNER_R, OUTER_R, TOKEN_R };

function range(n) { return Array.from({ length: n }, (_, i) => i); }

export function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

export function setAttr(node, name, value) {
  if (value === null || value === false || value === undefined) {
    if (node.hasAttribute(name)) node.removeAttribute(name);
  } else if (node.getAttribute(name) !== String(value)) {
    node.setAttribute(name, value === true ? "" : value);
  }
}

// Angle (degrees, SVG: 0 = right, 90 = down, increasing clockwise on screen) of ray i.
export function rayAngle(i, bottomSeat) {
  const homeCentre = bottomSeat === 1 ? 8.5 : 2.5;   // A1..A4 or A7..A10 centred at the bottom
  return 90 + (i - homeCentre) * 30;
}

export function polar(r, degrees) {
  const a = (degrees * Math.PI) / 180;
  return [r * Math.cos(a), r * Math.sin(a)];
}

function sectorPath(r0, r1, a0, a1) {
  const [x0, y0] = polar(r1, a0), [x1, y1] = polar(r1, a1);
  const [x2, y2] = polar(r0, a1), [x3, y3] = polar(r0, a0);
  const f = (n) => n.toFixed(2);
  return `M${f(x0)} ${f(y0)}A${r1} ${r1} 0 0 1 ${f(x1)} ${f(y1)}L${f(x2)} ${f(y2)}A${r0} ${r0} 0 0 0 ${f(x3)} ${f(y3)}Z`;
}

// The outline of one space: a circle for the core, a ring sector otherwise.
export function cellShape(space, seat, parent, attrs = {}) {
  if (space === "C") return el("circle", { r: CORE_R, ...attrs }, parent);
  const ring = space[0], centre = rayAngle(Number(space.slice(1)), seat);
  const [r0, r1] = ring === "A" ? [INNER_R, OUTER_R] : [CORE_R, INNER_R];
  return el("path", { d: sectorPath(r0, r1, centre - 15, centre + 15), ...attrs }, parent);
}

export function spaceCentre(space, bottomSeat) {
  if (space === "C") return [0, 0];
  const ring = space[0], i = Number(space.slice(1));
  return polar(ring === "A" ? A_CENTRE : B_CENTRE, rayAngle(i, bottomSeat));
}

const CHESS = { king: "♚", queen: "♛", knight: "♞", pawn: "♟" };

// Short distinct monograms for the creature kinds of the legend ("Mo", "KS", ...).
export function monograms(kinds, legend) {
  const taken = new Set(), result = {};
  for (const kind of [...kinds].sort()) {
    if (CHESS[kind]) { result[kind] = CHESS[kind]; continue; }
    const name = (legend[kind] && legend[kind].name) || humanise(kind);
    const words = name.split(/\s+/).map((w) => w.replace(/[^A-Za-z]/g, "")).filter(Boolean);
    const letters = words.join("");
    const candidates = [];
    if (words.length > 1) candidates.push(words[0][0] + words[words.length - 1][0].toUpperCase());
    for (let j = 1; j < letters.length; j++) candidates.push(letters[0].toUpperCase() + letters[j].toLowerCase());
    candidates.push(kind.slice(0, 3));
    const pick = candidates.find((c) => !taken.has(c)) || kind;
    taken.add(pick);
    result[kind] = pick;
  }
  return result;
}

// Every piece shows its figure (art.js): the creatures, the chess analogue's pieces,
// Courtier's king and guards; a kind without a figure shows its monogram.
const SHIELD = "M0 -5.6 L4.6 -3.6 C4.6 1.2 2.6 4 0 5.8 C-2.6 4 -4.6 1.2 -4.6 -3.6 Z";

export function emblemOf(kind, glyphs) {
  const family = CHESS[kind] ? "chess" : kind === "guard" ? "guard" : "creature";
  if (hasArt(kind)) return { art: kind, family };
  return { text: glyphs[kind] || "?", family };
}

// Owner shapes, so colour is never the only signal: circle, hexagon, square, triangle.
function tokenShape(owner, group) {
  const r = TOKEN_R;
  if (owner === 0) return el("circle", { r, class: "token" }, group);
  const corners = owner === 1 ? 6 : owner === 2 ? 4 : 3;
  const offset = owner === 1 ? 0 : owner === 2 ? 45 : -90;
  const points = range(corners).map((k) => polar(r * 1.08, offset + (360 / corners) * k).map((n) => n.toFixed(2)).join(","));
  return el("polygon", { points: points.join(" "), class: "token" }, group);
}

// One token (owner shape, emblem, badges) into `g`; used on the board and in the trays.
export function drawToken(g, piece, emblem) {
  g.setAttribute("data-owner", String(piece.owner));
  g.setAttribute("data-family", emblem.family);
  if (piece.kind === "king") el("circle", { r: TOKEN_R + 2.2, class: "royal-ring" }, g);
  tokenShape(piece.owner, g).setAttribute("data-owner-shape", String(piece.owner));
  if (emblem.art) g.appendChild(figureUse(emblem.art, TOKEN_R * 1.8));
  else {
    const text = el("text", { class: `glyph glyph-${emblem.family}`, "aria-hidden": "true", y: emblem.family === "chess" ? "0.9" : "0.4" }, g);
    text.textContent = emblem.text;
  }
  el("circle", { r: 2.4, cx: 6.5, cy: -6.5, class: "flag" }, g);
  // Badges, shown by data attributes on the piece: stunned, protected, acted this cycle.
  const stun = el("g", { class: "badge badge-stun", transform: "translate(0 10)" }, g);
  el("rect", { x: -8.5, y: -3.2, width: 17, height: 6.4, rx: 1.6 }, stun);
  el("text", { y: 0.3 }, stun).textContent = "STUN";
  const guard = el("g", { class: "badge badge-protected", transform: "translate(-7 -6.6) scale(0.62)" }, g);
  el("path", { d: SHIELD }, guard);
  const acted = el("g", { class: "badge badge-acted", transform: "translate(7 -6.6)" }, g);
  el("circle", { r: 3.1 }, acted);
  el("path", { d: "M-1.6 0 L-0.4 1.3 L1.7 -1.3" }, acted);
  return g;
}

// The words for a piece: owner, name, place, numbers and states.
export function describePiece(view, piece, legend) {
  const state = view.state || {};
  const info = legend[piece.kind] || {};
  const name = piece.name || info.name || humanise(piece.kind);
  const skip = new Set(["id", "kind", "owner", "at", "name", "moves", "status"]);
  const numbers = Object.entries({ ...info, ...piece })
    .filter(([k, v]) => !skip.has(k) && (typeof v === "number" || (typeof v === "string" && v.length < 6)))
    .map(([k, v]) => `${humanise(k).toLowerCase()} ${k.endsWith("_die") && typeof v === "number" ? `d${v}` : v}`);
  const flags = Object.entries(piece).filter(([k, v]) => v === true && k !== "id").map(([k]) => humanise(k).toLowerCase());
  const where = piece.at ? ` on ${piece.at}` : "";
  return `${seatWord(state, piece.owner)} ${name}${where}${numbers.length ? ` (${numbers.join(", ")})` : ""}${flags.length ? `, ${flags.join(", ")}` : ""}`;
}

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
      const [x, y] = spaceCentre(space, seat);
      el("circle", { cx: x, cy: y, r: TOKEN_R + 3.2, class: "marker" }, g);
      el("circle", { cx: x, cy: y, r: 3, class: "marker-dot" }, g);
      const [lx, ly] = space === "C" ? [0, -CORE_R + 5] : spaceCentre(space, seat).map((n) => n * (space[0] === "A" ? 1.165 : 1.36));
      const label = el("text", { x: lx.toFixed(1), y: ly.toFixed(1), class: "space-label", "aria-hidden": "true" }, g);
      label.textContent = space;
      spaces.set(space, g);
    }
  }

  function pieceElement(piece, emblem) {
    const g = el("g", { "data-piece": piece.id, class: "piece", tabindex: "0", role: "button" }, pieceLayer);
    g.appendChild(document.createElementNS(SVG, "title"));
    return drawToken(g, piece, emblem);
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

    // Spaces: legal targets of the selected piece.
    for (const [space, g] of spaces) {
      const legal = targets.has(space);
      setAttr(g, "data-legal", legal);
      setAttr(g, "tabindex", legal ? "0" : "-1");  // -1: reached by the arrow keys
      setAttr(g, "role", legal ? "button" : "img");
      setAttr(g, "data-hovered", legal && store.hovered === space);
      const occupant = onBoard.find((p) => p.at === space);
      const label = `space ${space}${occupant ? `, ${occupant.name || humanise(occupant.kind)}` : ""}${legal ? ", legal target" : ""}`;
      setAttr(g, "aria-label", label);
    }

    extras.update(store, classified, { seat, glyphs, onBoard, legend });
  }

  return { update, svg };
}
