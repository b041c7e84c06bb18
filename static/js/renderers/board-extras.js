// What each board ruleset adds around the board, read from fields of the server's
// view (never from the ruleset's id): the strip of facts the server writes
// (state.board.facts: phase, scores, centre hold, combat ray, cycle, last move), the
// trays of pieces off the board (state.board.off_board), the shaded safe zone and combat ray on the board, the
// draft and setup rolls with their decisions as buttons, the pieces off the board in a
// tray per seat, and choices that have no space of their own (push off the board, pick
// a piece to capture) as markers on the board. Every decision is a legal action of the
// view; clicks reach input.js through data-action-index / data-reserve-piece.

import { latestWords } from "../log.js";
import { humanise } from "../state.js";
import {
  GEOMETRY, cellShape, drawToken, el, emblemOf, monograms, pieceFacts, polar, rayAngle, seatWord, setAttr, spaceCentre,
} from "./board-draw.js";

const isSpace = (s) => typeof s === "string" && /^(C|[AB]([1-9]|1[0-2]))$/.test(s);

function html(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value === true ? "" : value);
  }
  if (text !== null) node.textContent = text;
  return node;
}

// A seat's mark in text: its shape (not colour alone) and name.
function seatMark(state, seat) {
  const span = html("span", { class: "seat-mark", "data-seat": String(seat) });
  span.append(html("i", { "aria-hidden": "true" }), seatWord(state, seat));
  return span;
}

function nameOf(state, kind) {
  const legend = state.legend || {};
  return (legend[kind] && legend[kind].name) || humanise(kind);
}

// One seat's pieces off the board, with why: the board view every board ruleset fills.
function offBoard(state, seat) {
  return ((state.board && state.board.off_board) || []).filter((piece) => piece.owner === seat);
}

function keyOf(...parts) { return JSON.stringify(parts); }

export function createExtras({ top, bottom, svg, zoneLayer, choiceLayer }) {
  const info = html("div", { class: "board-info", "aria-label": "Match facts" });
  const draft = html("details", { class: "draft-panel", hidden: true });
  const trayTop = html("div", { class: "tray", "data-tray": "top", hidden: true });
  const trayBottom = html("div", { class: "tray reserve-tray", "data-tray": "bottom", hidden: true });
  const pieceInfo = html("p", { class: "piece-info" }, "Point at or focus a piece to see its name and numbers.");
  const prompt = html("p", { class: "board-prompt", hidden: true });
  const latest = html("p", { class: "board-latest", hidden: true });  // the last move or fight, in words
  top.append(info, prompt, draft, trayTop);
  bottom.append(latest, trayBottom, pieceInfo);
  const keys = { zones: "", choices: "", info: "", draft: "", trays: "" };
  let phase = null, lastStore = null, hoverWords = null;

  // Hovering or focusing a piece (board or tray) shows its name and numbers.
  function showInfo() {
    if (!lastStore) return;
    let words = hoverWords;
    if (!words && lastStore.selected) {
      const node = svg.querySelector(`[data-piece="${CSS.escape(lastStore.selected)}"]`);
      words = node ? node.getAttribute("aria-label") : null;
    }
    const text = words || "Point at or focus a piece to see its name and numbers.";
    if (pieceInfo.textContent !== text) pieceInfo.textContent = text;
  }
  const holderOf = (target) => target instanceof Element && target.closest("[data-piece],[data-tray-piece]");
  const root = top.parentElement;
  const onOver = (event) => {
    const holder = holderOf(event.target);
    hoverWords = holder ? holder.getAttribute("aria-label") : null;
    showInfo();
  };
  root.addEventListener("mouseover", onOver);
  root.addEventListener("focusin", onOver);
  // Enter or Space on a board marker (an SVG element, not a button) clicks it.
  svg.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    const marker = event.target instanceof Element && event.target.closest("[data-action-index]");
    if (!marker) return;
    event.preventDefault();
    marker.dispatchEvent(new MouseEvent("click", { bubbles: true }));
  });

  function pieceMarks(view) {
    const state = view.state || {};
    const marks = new Map();
    const used = (state.cycle && state.cycle.used) || [];
    for (const id of used.flat()) marks.set(id, { acted: true });
    if (state.active) marks.set(state.active, { ...(marks.get(state.active) || {}), active: true });
    return marks;
  }

  // --- the board: safe zone, combat ray, must-involve spaces ------------------------
  function drawZones(state, seat) {
    const safe = state.safe_zone || [];
    const ray = state.combat_ray ? state.combat_ray.spaces || [] : [];
    const must = state.attack_must_involve || [];
    const key = keyOf(safe, ray, must, seat);
    if (key === keys.zones) return;
    keys.zones = key;
    zoneLayer.innerHTML = "";
    for (const space of safe) cellShape(space, seat, zoneLayer, { class: "zone-safe", "data-zone": "safe", "data-zone-space": space });
    for (const space of must) cellShape(space, seat, zoneLayer, { class: "zone-must", "data-zone": "must", "data-zone-space": space });
    for (const space of ray) cellShape(space, seat, zoneLayer, { class: "zone-ray", "data-zone": "ray", "data-zone-space": space });
    svg.setAttribute("data-combat-ray", ray.join(" "));
  }

  // --- the board: choices with no space of their own --------------------------------
  function drawChoices(store, classified, state, seat, onBoard) {
    const at = new Map(onBoard.map((p) => [p.id, p.at]));
    const choices = [];
    const perPiece = new Map();
    classified.buttons.forEach((action, index) => {
      if (action.piece === undefined || !at.has(action.piece) || action.target !== undefined) return;
      if (action.to !== undefined && !isSpace(action.to)) choices.push({ kind: "off", index, action });
      else if (action.to === undefined) {
        perPiece.set(action.piece, (perPiece.get(action.piece) || 0) + 1);
        choices.push({ kind: "pick", index, action });
      }
    });
    const shown = store.busy ? [] : choices.filter((c) => c.kind === "off" || perPiece.get(c.action.piece) === 1);
    const key = keyOf(shown.map((c) => [c.index, c.action, at.get(c.action.piece)]), seat);
    if (key === keys.choices) return;
    keys.choices = key;
    choiceLayer.innerHTML = "";
    for (const { kind, index, action } of shown) {
      const space = at.get(action.piece);
      const name = nameOf(state, (onBoard.find((p) => p.id === action.piece) || {}).kind || action.piece);
      const words = action.label || (kind === "off" ? `Push ${name} off the board` : `${humanise(action.type)} ${name} on ${space}`);
      const g = el("g", {
        class: `choice choice-${kind}`, "data-choice": kind === "off" ? "off" : action.type, "data-action-index": String(index),
        "data-action-type": action.type, "data-for": space, "data-legal": "", tabindex: "0", role: "button", "aria-label": words,
      }, choiceLayer);
      el("title", {}, g).textContent = words;
      if (kind === "off") {
        const angle = space === "C" ? 90 : rayAngle(Number(space.slice(1)), seat);
        const [x0, y0] = polar(GEOMETRY.OUTER_R - 9, angle);
        const [x, y] = polar(GEOMETRY.OUTER_R + 8.5, angle);
        el("line", { x1: x0.toFixed(2), y1: y0.toFixed(2), x2: x.toFixed(2), y2: y.toFixed(2), class: "off-arrow" }, g);
        el("circle", { cx: x.toFixed(2), cy: y.toFixed(2), r: 7.5, class: "off-spot" }, g);
        el("text", { x: x.toFixed(2), y: (y + 0.4).toFixed(2), class: "off-text" }, g).textContent = "OFF";
      } else {
        const [x, y] = spaceCentre(space, seat);
        el("circle", { cx: x.toFixed(2), cy: y.toFixed(2), r: GEOMETRY.TOKEN_R + 3.4, class: "pick-ring" }, g);
        const label = el("g", { transform: `translate(${x.toFixed(2)} ${(y - GEOMETRY.TOKEN_R - 5).toFixed(2)})`, class: "pick-label" }, g);
        const verb = humanise(action.type);
        el("rect", { x: -(verb.length * 1.35 + 2), y: -3, width: verb.length * 2.7 + 4, height: 6, rx: 1.5 }, label);
        el("text", { y: 0.3 }, label).textContent = verb;
      }
    }
  }

  // --- facts strip ------------------------------------------------------------------
  function fact(label, parts, attrs = {}) {
    const item = html("div", { class: "fact", ...attrs });
    item.appendChild(html("span", { class: "fact-label" }, label));
    const value = html("span", { class: "fact-value" });
    for (const part of parts) value.append(part);
    item.appendChild(value);
    return item;
  }

  function buttonFor(classified, predicate, attrs = {}) {
    const index = classified.buttons.findIndex(predicate);
    if (index < 0) return null;
    const action = classified.buttons[index];
    return html("button", { type: "button", "data-action-index": String(index), "data-action-type": action.type, ...attrs },
      action.label || humanise(action.type));
  }

  // The facts the server writes for every board ruleset (state.board.facts), drawn
  // alike: a swatch for the board marking a fact explains, each seat's value beside
  // its mark (with pips for a count towards a goal), the words, and a button when
  // the fact offers a legal action.
  function drawInfo(store, classified, state) {
    const facts = (state.board && state.board.facts) || [];
    const key = keyOf(facts, classified.buttons.map((a) => a.type), store.busy);
    if (key === keys.info) return;
    keys.info = key;
    info.innerHTML = "";
    const nodes = facts.map((f) => {
      const parts = [];
      if (f.swatch) parts.push(html("i", { class: `swatch swatch-${f.swatch}`, "aria-hidden": "true" }), " ");
      (f.seats || []).forEach((words, s) => {
        if (s) parts.push(" · ");
        parts.push(seatMark(state, s));
        if (f.progress) parts.push(" ", pips(f.progress[s], f.of, s));
        parts.push(html("b", { "data-fact-seat": String(s) }, ` ${words}`));
      });
      if (f.text) parts.push(f.seats ? html("small", {}, ` ${f.text}`) : f.text);
      const button = f.action && !store.busy ? buttonFor(classified, (a) => a.type === f.action, { class: "small" }) : null;
      if (button) parts.push(" ", button);
      return fact(f.label, parts, { "data-fact": f.key, class: f.minor ? "fact minor" : "fact" });
    });
    info.hidden = nodes.length === 0;
    info.append(...nodes);
  }

  function pips(count, of, seat) {
    const node = html("span", { class: "pips", "data-progress-seat": String(seat), role: "img", "aria-label": `${count} of ${of}` });
    for (let i = 0; i < of; i++) node.appendChild(html("i", { "data-on": i < count ? "" : null }));
    return node;
  }


  // --- draft and setup (seed 004) ---------------------------------------------------
  function drawDraft(store, classified, state) {
    const d = state.draft, setup = state.setup;
    const decisions = classified.buttons.map((a, i) => [a, i]).filter(([a]) => ["draft", "defer", "choose_order"].includes(a.type));
    const key = keyOf(d, setup, state.phase, decisions, store.busy);
    if (key === keys.draft) return;
    keys.draft = key;
    draft.hidden = !d && !setup;
    if (draft.hidden) return;
    if (state.phase !== phase) {
      // Open while its decisions are made; folded while arranging, so the board shows whole.
      draft.open = state.phase === "draft" || state.phase === "order";
      phase = state.phase;
    }
    draft.innerHTML = "";
    draft.appendChild(html("summary", {}, d ? "Draft and setup rolls" : "Setup rolls"));
    const offer = new Map(decisions.filter(([a]) => a.type === "draft").map(([a, i]) => [a.creature, i]));
    if (d) {
      if (d.chooser !== null && d.chooser !== undefined) {
        draft.appendChild(html("p", { class: "draft-ask" },
          `Three misses in a row: ${seatWord(state, d.chooser)} chooses one of the last two creatures${d.deferred ? "" : " or lets the other player choose"}.`));
      }
      const list = html("ol", { class: "draft-numbers", "aria-label": "Creatures by draft number" });
      for (const n of d.numbers) {
        const item = html("li", { "data-draft-number": String(n.number), "data-kind": n.kind, "data-taken-by": n.taken_by ?? null });
        const label = [html("b", { class: "draft-no" }, `${n.number}`), html("span", { class: "draft-name" }, n.name)];
        const owner = n.taken_by !== null && n.taken_by !== undefined ? seatMark(state, n.taken_by) : html("span", { class: "free" }, "free");
        if (offer.has(n.kind) && !store.busy) {
          const index = offer.get(n.kind);
          // The words it shows, in order, begin the words it is known by (WCAG 2.5.3, label in name).
          const action = classified.buttons[index].label || `Draft ${n.name}`;
          const button = html("button", { type: "button", class: "draft-pick", "data-action-index": String(index), "data-action-type": "draft",
            "aria-label": `${n.number} ${n.name}, choose (${action})` });
          button.append(label[0], " ", label[1], " ", html("span", { class: "free" }, "choose"));
          item.appendChild(button);
        } else {
          item.append(...label, owner);
        }
        list.appendChild(item);
      }
      draft.appendChild(list);
      const defer = decisions.find(([a]) => a.type === "defer");
      if (defer && !store.busy) {
        draft.appendChild(html("button", { type: "button", class: "draft-defer", "data-action-index": String(defer[1]), "data-action-type": "defer" },
          defer[0].label || "Let the other player choose"));
      }
      if (d.rolls.length) {
        const rolls = html("ol", { class: "draft-rolls", "aria-label": "Draft rolls", tabindex: "0" });
        const word = { drafted: "drafted", tie: "tie: both roll again", taken: "already taken: roll again", miss: "both missed", choice: "third miss: the higher roll chooses" };
        for (const roll of d.rolls) {
          const parts = [0, 1].map((s) => {
            const face = roll.faces[s];
            if (face === null || face === undefined) return null;
            const fresh = roll.rolled.includes(s);
            const n = d.numbers[face - 1];
            return `${seatWord(state, s)} ${fresh ? "rolled" : "stands on"} ${face} (${n ? n.name : "?"})`;
          }).filter(Boolean);
          rolls.appendChild(html("li", { "data-outcome": roll.outcome }, `d8: ${parts.join(", ")} — ${word[roll.outcome] || roll.outcome}`));
        }
        draft.appendChild(rolls);
        rolls.scrollTop = rolls.scrollHeight;
      }
    }
    if (setup) {
      const p = html("div", { class: "setup-rolls", "data-fact": "setup" });
      const pairs = setup.rolls.map((pair, i) => `${seatWord(state, 0)} ${pair[0]}, ${seatWord(state, 1)} ${pair[1]}${i < setup.rolls.length - 1 ? " (tie: again)" : ""}`);
      p.appendChild(html("p", {}, `Setup d10: ${pairs.join("; ")}.`));
      const lower = setup.first_arranger;
      const moves = setup.first_mover === null || setup.first_mover === undefined
        ? `${seatWord(state, setup.higher)} (higher) chooses who moves first.`
        : `${seatWord(state, setup.first_mover)} moves first.`;
      p.appendChild(html("p", {}, `${seatWord(state, lower)} (lower) arranges first, ${seatWord(state, 1 - lower)} second; ${moves}`));
      const orders = decisions.filter(([a]) => a.type === "choose_order");
      if (orders.length && !store.busy) {
        const row = html("div", { class: "row" });
        for (const [action, index] of orders) {
          row.appendChild(html("button", { type: "button", "data-action-index": String(index), "data-action-type": action.type }, action.label || humanise(action.move)));
        }
        p.appendChild(row);
      }
      draft.appendChild(p);
    }
  }

  // --- trays: each seat's pieces off the board, the viewer's at the bottom -----------
  function drawTrays(store, classified, state, seat, legend) {
    const reserve = classified.reserve;
    const other = seat === 0 ? 1 : 0;
    const lists = [other, seat].map((s) => offBoard(state, s));
    // Anything the actions can bring on that the view lists nowhere joins the viewer's tray.
    const listed = new Set(lists.flat().map((p) => p.id));
    for (const id of reserve.keys()) {
      if (!listed.has(id)) lists[1].push({ id, kind: id, owner: seat, status: "to bring on" });
    }
    const key = keyOf(lists, [...reserve.keys()], store.selected, store.busy, seat);
    if (key === keys.trays) return;
    keys.trays = key;
    const kinds = new Set([...Object.keys(legend), ...lists.flat().map((p) => p.kind)]);
    const glyphs = monograms(kinds, legend);
    [trayTop, trayBottom].forEach((tray, i) => {
      const s = i === 0 ? other : seat;
      const items = lists[i];
      tray.innerHTML = "";
      tray.hidden = items.length === 0;
      tray.dataset.traySeat = String(s);
      if (!items.length) return;
      const heading = html("p", { class: "tray-title" });
      heading.append(seatMark(state, s), " off the board");
      tray.appendChild(heading);
      for (const piece of items) {
        const selectable = reserve.has(piece.id) && !store.busy;
        // The name and status the button shows are, in that order, in the words it is
        // known by (WCAG 2.5.3, label in name): "Blue Kintan Strider, to place (attack 2, …)".
        const name = store.names[piece.id] || piece.name || nameOf(state, piece.kind);
        const words = `${seatWord(state, piece.owner)} ${name}, ${piece.status}${pieceFacts(piece, legend)}`;
        const node = html(reserve.has(piece.id) ? "button" : "span", {
          class: "tray-piece reserve-piece", "data-tray-piece": piece.id, "data-status": piece.status, "aria-label": words, title: words,
        });
        if (reserve.has(piece.id)) {
          node.type = "button";
          node.dataset.reservePiece = piece.id;
          if (selectable) node.dataset.selectable = "";
          node.setAttribute("aria-pressed", String(store.selected === piece.id));
        }
        const icon = el("svg", { viewBox: "-12 -12 24 24", class: "tray-token", "aria-hidden": "true" });
        drawToken(el("g", { class: "piece" }, icon), piece, emblemOf(piece.kind, glyphs));
        // A space between name and status: read as two words ("Monnok to place", not "Monnokto place").
        node.append(icon, html("span", { class: "tray-name" }, name), " ", html("small", {}, piece.status));
        tray.appendChild(node);
      }
    });
  }

  // What to do while creatures are set up (any ruleset that places them from a tray).
  function drawPrompt(store, classified, state) {
    const view = store.view;
    const arranging = view.status === "active" && ["arrange", "setup"].includes(state.phase);
    let words = "";
    if (arranging && classified.reserve.size) {
      words = store.selected && classified.reserve.has(store.selected)
        ? "Now click a highlighted home space to place it."
        : "Set up your creatures: pick one in your tray, then a highlighted home space.";
    } else if (arranging) {
      words = `${(view.to_act || []).map((s) => seatWord(state, s)).join(" and ")} is arranging their creatures.`;
    }
    prompt.hidden = !words;
    if (prompt.textContent !== words) prompt.textContent = words;
    // While creatures are set up, a wide screen puts the trays beside the board (style.css),
    // so the board keeps the size it has in play.
    setAttr(root, "data-placing", arranging);
  }

  function update(store, classified, { seat, onBoard, legend }) {
    lastStore = store;
    const state = store.view.state || {};
    drawZones(state, seat);
    drawChoices(store, classified, state, seat, onBoard);
    drawInfo(store, classified, state);
    drawDraft(store, classified, state);
    drawPrompt(store, classified, state);
    drawTrays(store, classified, state, seat, legend);
    const words = latestWords(store, store.view.version);
    latest.hidden = !words;
    if (latest.textContent !== `Last: ${words}`) { latest.textContent = `Last: ${words}`; latest.title = words; }
    showInfo();
    setAttr(svg, "data-phase", state.phase || null);
  }

  return { update, pieceMarks };
}
