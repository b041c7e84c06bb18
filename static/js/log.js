// The match log in words: every action and every roll. The server words each event
// (`event.text`, as actions carry their `label`) from the rules that know it; an event
// without words reads plainly, by its type and fields.

import { humanise, ownedName, seatLabel, seatName } from "./state.js";

// An attack's outcome as the dice tray shows it.
export function describeOutcome(result) {
  return {
    "kill": "kill: the defender is destroyed",
    "push": "push: the defender is pushed",
    "counter-push": "counter-push: the attacker is pushed",
    "counter-kill": "counter-kill: the attacker is destroyed",
  }[result] || humanise(result);
}

export function describeEvent(store, event) {
  return event.text || plainly(store, event);
}

function plainly(store, event) {
  const parts = [];
  for (const [key, value] of Object.entries(event)) {
    if (key === "type" || key === "text" || value === null || value === undefined) continue;
    if (key === "seat") parts.push(seatLabel(store.view, value));
    else if (store.names[value] !== undefined) parts.push(ownedName(store, value));
    else if (typeof value !== "object") parts.push(`${humanise(key).toLowerCase()} ${value}`);
    else if (Array.isArray(value) && value.every((v) => typeof v !== "object")) {
      parts.push(`${humanise(key).toLowerCase()} ${value.map((v) => (store.names[v] !== undefined ? ownedName(store, v) : v)).join(", ")}`);
    }
  }
  return `${humanise(event.type)}${parts.length ? `: ${parts.join(", ")}` : ""}`;
}

// For each log, the versions of the entries a seat made while the game master held
// it as an NPC: the log's own "npc" and "npc_released" events (and a bot sitting
// down in the seat) say from when to when.
const npcEntries = new WeakMap();
function madeByNpc(store, entry) {
  let versions = npcEntries.get(store.entries);
  if (!versions) {
    versions = new Set();
    const held = new Set();
    for (const e of store.entries) {
      if ((e.action || {}).type === "join") held.delete(e.seat);
      else if (held.has(e.seat)) versions.add(e.version);
      for (const event of e.events || []) {
        if (event.type === "npc") held.add(event.seat);
        if (event.type === "npc_released") held.delete(event.seat);
      }
    }
    npcEntries.set(store.entries, versions);
  }
  return versions.has(entry.version);
}

// One log entry in words: who did what, then what happened.
export function describeEntry(store, entry) {
  const view = store.view;
  const action = entry.action || {};
  if (action.type === "join") return [`${action.player ? action.player.name : "A player"} sat down as ${seatName(view, entry.seat)}`];
  if (action.type === "start") return ["The match began", ...(entry.events || []).map((e) => describeEvent(store, e))];
  const lines = (entry.events || []).map((e) => describeEvent(store, e));
  if (!lines.length) lines.push(`${seatLabel(view, entry.seat)}: ${humanise(action.type || "action")}`);
  if (madeByNpc(store, entry)) lines.push(`Played by the game master as ${seatName(view, entry.seat)} (an NPC)`);
  return lines;
}

const BOARD_EVENTS = new Set(["move", "attack", "push", "place", "kill", "capture", "defeat"]);

// The last thing done on the board in one line, for under the board where it is always in
// sight: the words of the newest entry that moved, placed or fought, without its dice (the
// dice tray shows them) or whose turn it now is. `version`: the version shown (a replay's
// log runs past it). "" until something has.
export function latestWords(store, version = Infinity) {
  const entries = store.entries || [];
  for (let i = entries.length - 1; i >= 0; i--) {
    if (entries[i].version > version) continue;
    const events = (entries[i].events || []).filter((e) => e.type !== "roll" && e.type !== "turn");
    if (events.some((e) => BOARD_EVENTS.has(e.type))) return events.map((e) => describeEvent(store, e)).join(" · ");
  }
  return "";
}
