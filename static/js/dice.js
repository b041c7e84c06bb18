// The dice tray: every roll of the latest update tumbles for a moment, then shows
// each die (sides and face), the total and the outcome of the exchange.

import { describeOutcome } from "./log.js";
import { humanise, pieceName, seatName } from "./state.js";

const TUMBLE_MS = 700;

function dieElement(die) {
  const node = document.createElement("span");
  node.className = `die d${die.sides}`;
  node.dataset.sides = die.sides;
  node.dataset.face = die.face;
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", `d${die.sides} showing ${die.face}`);
  node.title = `d${die.sides} showing ${die.face}`;
  const face = document.createElement("b");
  face.textContent = die.face;
  const sides = document.createElement("small");
  sides.textContent = `d${die.sides}`;
  node.append(face, sides);
  return node;
}

// Rows of the tray: one per roll, except that many one-die rolls for the same purpose
// and seat (a draft's) share one row.
function rowsOf(rolls) {
  const rows = [], grouped = new Map();
  for (const roll of rolls) {
    const single = (roll.dice || []).length === 1 && !roll.piece;
    const key = `${roll.purpose}|${roll.seat}`;
    const similar = single ? rolls.filter((r) => `${r.purpose}|${r.seat}` === key && (r.dice || []).length === 1) : [];
    if (similar.length > 1) {
      if (!grouped.has(key)) { grouped.set(key, { ...roll, dice: [], group: true }); rows.push(grouped.get(key)); }
      grouped.get(key).dice.push(...roll.dice);
    } else {
      rows.push(roll);
    }
  }
  return rows;
}

// Show the rolls of `events` in `tray`; calls `settled()` once the dice stop.
export function showRolls(tray, store, events, settled) {
  clearInterval(tray.tumbleSpin);  // a roll still tumbling stops: the new one replaces it
  clearTimeout(tray.tumbleStop);
  const rolls = events.filter((e) => e.type === "roll");
  const outcomes = events.filter((e) => e.type === "combat" || e.type === "battle");
  tray.innerHTML = "";
  tray.dataset.state = "rolling";
  const tumbling = [];
  for (const roll of rowsOf(rolls)) {
    const row = document.createElement("div");
    row.className = roll.group ? "roll roll-group" : "roll";
    row.dataset.purpose = roll.purpose || "";
    const title = document.createElement("div");
    title.className = "roll-title";
    const who = roll.seat !== undefined && roll.seat !== null ? `${seatName(store.view, roll.seat)} · ` : "";
    title.textContent = `${who}${humanise(roll.purpose || "roll")}${roll.piece ? ` · ${pieceName(store, roll.piece)}` : ""}`;
    const dice = document.createElement("div");
    dice.className = "dice";
    for (const die of roll.dice || []) {
      const node = dieElement(die);
      node.classList.add("tumbling");
      tumbling.push(node);
      dice.appendChild(node);
    }
    row.append(title, dice);
    if (!roll.group && roll.total !== undefined) {  // shuffles and narrative dice have no total
      const total = document.createElement("div");
      total.className = "roll-total";
      total.dataset.total = roll.total;
      total.textContent = `${roll.bonus ? `+${roll.bonus} ` : ""}= ${roll.total}`;
      row.appendChild(total);
    } else if (roll.group) {
      title.textContent += ` · ${roll.dice.length} rolls, in order`;
    }
    tray.appendChild(row);
  }
  for (const outcome of outcomes) {
    const line = document.createElement("p");
    line.className = `outcome outcome-${outcome.result}`;
    line.dataset.outcome = outcome.result;
    const numbers = outcome.attack !== undefined ? `${outcome.attack} vs ${outcome.defense}: ` : "";
    line.textContent = `${numbers}${describeOutcome(String(outcome.result))}`;
    tray.appendChild(line);
  }
  const reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  tray.tumbleSpin = reduced ? null : setInterval(() => {
    for (const node of tumbling) node.firstChild.textContent = 1 + Math.floor(Math.random() * Number(node.dataset.sides));
  }, 70);
  tray.tumbleStop = setTimeout(() => {
    clearInterval(tray.tumbleSpin);
    for (const node of tumbling) {
      node.classList.remove("tumbling");
      node.firstChild.textContent = node.dataset.face;
    }
    tray.dataset.state = "settled";
    settled();
  }, reduced ? 0 : TUMBLE_MS);
}
