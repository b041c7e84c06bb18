// The Dejarik board (RULINGS §1) in SVG: the core C, ring B1..B12 and ring A1..A12,
// alternating tones, turned so the viewer's home is at the bottom. Pieces are keyed
// by id and only changed attributes are touched.

import { humanise } from "../state.js";

const SVG = "http://www.w3.org/2000/svg";
const CORE_R = 20, INNER_R = 60, OUTER_R = 98;
const B_CENTRE = 41, A_CENTRE = 79, TOKEN_R = 9.2;
export const SPACES = ["C", ...range(12).map((i) => `B${i + 1}`), ...range(12).map((i) => `A${i + 1}`)];

function range(n) { return Array.from({ length: n }, (_, i) => i); }

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

function setAttr(node, name, value) {
  if (value === null || value === false || value === undefined) {
    if (node.hasAttribute(name)) node.removeAttribute(name);
  } else if (node.getAttribute(name) !== String(value)) {
    node.setAttribute(name, value === true ? "" : value);
  }
}

// Angle (degrees, SVG: 0 = right, 90 = down, increasing clockwise on screen) of ray i.
function rayAngle(i, bottomSeat) {
  const homeCentre = bottomSeat === 1 ? 8.5 : 2.5;   // A1..A4 or A7..A10 centred at the bottom
  return 90 + (i - homeCentre) * 30;
}

function polar(r, degrees) {
  const a = (degrees * Math.PI) / 180;
  return [r * Math.cos(a), r * Math.sin(a)];
}

function sectorPath(r0, r1, a0, a1) {
  const [x0, y0] = polar(r1, a0), [x1, y1] = polar(r1, a1);
  const [x2, y2] = polar(r0, a1), [x3, y3] = polar(r0, a0);
  const f = (n) => n.toFixed(2);
  return `M${f(x0)} ${f(y0)}A${r1} ${r1} 0 0 1 ${f(x1)} ${f(y1)}L${f(x2)} ${f(y2)}A${r0} ${r0} 0 0 0 ${f(x3)} ${f(y3)}Z`;
}

export function spaceCentre(space, bottomSeat) {
  if (space === "C") return [0, 0];
  const ring = space[0], i = Number(space.slice(1));
  return polar(ring === "A" ? A_CENTRE : B_CENTRE, rayAngle(i, bottomSeat));
}

// Short distinct monograms for the creature kinds of the legend ("Mo", "KS", ...).
export function monograms(kinds, legend) {
  const taken = new Set(), result = {};
  for (const kind of [...kinds].sort()) {
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

// Owner shapes, so colour is never the only signal: circle, hexagon, square, triangle.
function tokenShape(owner, group) {
  const r = TOKEN_R;
  if (owner === 0) return el("circle", { r, class: "token" }, group);
  const corners = owner === 1 ? 6 : owner === 2 ? 4 : 3;
  const offset = owner === 1 ? 0 : owner === 2 ? 45 : -90;
  const points = range(corners).map((k) => polar(r * 1.08, offset + (360 / corners) * k).map((n) => n.toFixed(2)).join(","));
  return el("polygon", { points: points.join(" "), class: "token" }, group);
}

export function createBoardRenderer(container) {
  container.innerHTML = "";
  const svg = el("svg", {
    viewBox: "-102 -102 204 204", class: "board", role: "group", "aria-label": "Dejarik board",
  });
  container.appendChild(svg);
  const defs = el("defs", {}, svg);
  const glow = el("radialGradient", { id: "holo-glow" }, defs);
  el("stop", { offset: "0%", "stop-color": "#6fd3ff", "stop-opacity": "0.35" }, glow);
  el("stop", { offset: "100%", "stop-color": "#6fd3ff", "stop-opacity": "0" }, glow);
  el("circle", { r: 102, fill: "url(#holo-glow)", class: "halo" }, svg);
  const spaceLayer = el("g", { class: "spaces" }, svg);
  const pieceLayer = el("g", { class: "pieces" }, svg);
  const tray = document.createElement("div");
  tray.className = "reserve-tray";
  tray.setAttribute("aria-label", "Pieces off the board");
  container.appendChild(tray);

  const spaces = new Map();   // space -> <g data-space>
  const pieces = new Map();   // piece id -> <g data-piece>
  let bottomSeat = null;

  function drawSpaces(seat) {
    bottomSeat = seat;
    spaceLayer.innerHTML = "";
    spaces.clear();
    for (const space of SPACES) {
      const g = el("g", { "data-space": space, class: "space", "aria-label": `space ${space}` }, spaceLayer);
      let shape;
      if (space === "C") {
        shape = el("circle", { r: CORE_R, class: "cell tone-core" }, g);
      } else {
        const ring = space[0], i = Number(space.slice(1));
        const centre = rayAngle(i, seat);
        const [r0, r1] = ring === "A" ? [INNER_R, OUTER_R] : [CORE_R, INNER_R];
        const tone = (i + (ring === "A" ? 1 : 0)) % 2;
        shape = el("path", { d: sectorPath(r0, r1, centre - 15, centre + 15), class: `cell tone-${tone}` }, g);
      }
      shape.setAttribute("data-ring", space[0]);
      const [x, y] = spaceCentre(space, seat);
      el("circle", { cx: x, cy: y, r: TOKEN_R + 3.2, class: "marker" }, g);
      el("circle", { cx: x, cy: y, r: 3, class: "marker-dot" }, g);
      const [lx, ly] = space === "C" ? [0, -CORE_R + 5] : spaceCentre(space, seat).map((n) => n * (space[0] === "A" ? 1.165 : 1.36));
      const label = el("text", { x: lx.toFixed(1), y: ly.toFixed(1), class: "space-label", "aria-hidden": "true" }, g);
      label.textContent = space;
      spaces.set(space, g);
    }
  }

  function pieceElement(piece, glyph) {
    const g = el("g", { "data-piece": piece.id, class: "piece", tabindex: "0", role: "button" }, pieceLayer);
    g.appendChild(document.createElementNS(SVG, "title"));
    tokenShape(piece.owner, g).setAttribute("data-owner-shape", String(piece.owner));
    const text = el("text", { class: "glyph", "aria-hidden": "true", y: "0.4" }, g);
    text.textContent = glyph;
    el("circle", { r: 2.4, cx: 6.5, cy: -6.5, class: "flag" }, g);
    return g;
  }

  function update(store, classified, targets) {
    const view = store.view;
    const state = view.state || {};
    const seat = view.you && view.you.seat !== null && view.you.seat !== undefined ? view.you.seat : 0;
    if (seat !== bottomSeat) drawSpaces(seat);
    svg.setAttribute("data-bottom-seat", String(seat));
    const legend = state.legend || {};
    const onBoard = (state.pieces || []).filter((p) => p.at);
    const glyphs = monograms(new Set([...Object.keys(legend), ...onBoard.map((p) => p.kind)]), legend);

    // Pieces: keyed by id; several on one space (To-The-Death in the core) sit side by side.
    const perSpace = new Map();
    for (const p of onBoard) perSpace.set(p.at, [...(perSpace.get(p.at) || []), p.id]);
    const seen = new Set();
    for (const p of onBoard) {
      seen.add(p.id);
      let g = pieces.get(p.id);
      if (!g || g.getAttribute("data-kind") !== p.kind) {
        if (g) g.remove();
        g = pieceElement(p, glyphs[p.kind] || "?");
        pieces.set(p.id, g);
      }
      const sharing = perSpace.get(p.at);
      let [x, y] = spaceCentre(p.at, seat);
      if (sharing.length > 1) x += (sharing.indexOf(p.id) - (sharing.length - 1) / 2) * (TOKEN_R * 2.1);
      const transform = `translate(${x.toFixed(2)}px, ${y.toFixed(2)}px)`;
      if (g.style.transform !== transform) g.style.transform = transform;
      const info = legend[p.kind] || {};
      const name = p.name || info.name || humanise(p.kind);
      const flags = Object.entries(p).filter(([k, v]) => v === true && !["id"].includes(k)).map(([k]) => humanise(k).toLowerCase());
      const numbers = ["attack", "defense", "movement"].filter((k) => p[k] !== undefined).map((k) => `${k} ${p[k]}`);
      const owner = (state.seat_names && state.seat_names[p.owner]) || `Seat ${p.owner + 1}`;
      const words = `${owner} ${name} on ${p.at}${numbers.length ? ` (${numbers.join(", ")})` : ""}${flags.length ? `, ${flags.join(", ")}` : ""}`;
      setAttr(g, "data-kind", p.kind);
      setAttr(g, "data-at", p.at);
      setAttr(g, "data-owner", String(p.owner));
      setAttr(g, "data-flagged", flags.length ? flags.join(" ") : null);
      setAttr(g, "aria-label", words);
      if (g.firstChild.textContent !== words) g.firstChild.textContent = words;
      setAttr(g, "data-selectable", !store.busy && classified.board.has(p.id));
      setAttr(g, "data-selected", store.selected === p.id);
      setAttr(g, "aria-pressed", classified.board.has(p.id) ? String(store.selected === p.id) : null);
    }
    for (const [id, g] of pieces) {
      if (!seen.has(id)) { g.remove(); pieces.delete(id); }
    }

    // Spaces: legal targets of the selected piece.
    for (const [space, g] of spaces) {
      const legal = targetsOf(targets, space);
      setAttr(g, "data-legal", legal);
      setAttr(g, "tabindex", legal ? "0" : null);
      setAttr(g, "role", legal ? "button" : null);
      setAttr(g, "data-hovered", legal && store.hovered === space);
      const occupant = onBoard.find((p) => p.at === space);
      const label = `space ${space}${occupant ? `, ${occupant.name || humanise(occupant.kind)}` : ""}${legal ? ", legal target" : ""}`;
      setAttr(g, "aria-label", label);
    }

    // Reserve tray: pieces off the board that an action can bring on.
    const reserveIds = [...classified.reserve.keys()];
    const trayKey = reserveIds.join("|") + `#${store.selected}#${store.busy}`;
    if (tray.dataset.key !== trayKey) {
      tray.dataset.key = trayKey;
      tray.innerHTML = "";
      tray.hidden = reserveIds.length === 0;
      if (reserveIds.length) {
        const heading = document.createElement("p");
        heading.textContent = "To bring onto the board:";
        tray.appendChild(heading);
      }
      for (const id of reserveIds) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "reserve-piece";
        button.dataset.reservePiece = id;
        if (!store.busy) button.dataset.selectable = "";
        button.setAttribute("aria-pressed", String(store.selected === id));
        button.textContent = store.names[id] || (legend[id] && legend[id].name) || humanise(id);
        tray.appendChild(button);
      }
    }
  }

  return { update, svg };
}

function targetsOf(targets, space) {
  return targets.has(space);
}
