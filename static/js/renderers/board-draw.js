// The board's drawing in SVG, shared by the board (board.js) and what a ruleset adds
// around it (board-extras.js): the geometry of the spaces, turned so the viewer's home
// is at the bottom, the tokens with their emblems and badges, and a piece in words.
// Both import from here; this imports neither.

import { figureUse, hasArt } from "../art.js";
import { asWritten, humanise } from "../state.js";

export const SVG = "http://www.w3.org/2000/svg";
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
  const where = piece.at ? ` on ${piece.at}` : "";
  return `${seatWord(state, piece.owner)} ${name}${where}${pieceFacts(piece, legend)}`;
}

// A piece's numbers and states, as describePiece ends: " (attack 2, defence 3), stunned".
export function pieceFacts(piece, legend) {
  const info = legend[piece.kind] || {};
  const skip = new Set(["id", "kind", "owner", "at", "name", "moves", "status"]);
  const numbers = Object.entries({ ...info, ...piece })
    .filter(([k, v]) => !skip.has(k) && (typeof v === "number" || (typeof v === "string" && v.length < 6)))
    .map(([k, v]) => `${humanise(k).toLowerCase()} ${asWritten(k, v)}`);
  const flags = Object.entries(piece).filter(([k, v]) => v === true && k !== "id").map(([k]) => humanise(k).toLowerCase());
  return `${numbers.length ? ` (${numbers.join(", ")})` : ""}${flags.length ? `, ${flags.join(", ")}` : ""}`;
}

export function seatWord(state, seat) {
  return (state.seat_names && state.seat_names[seat]) || `Seat ${Number(seat) + 1}`;
}
