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

// One log entry in words: who did what, then what happened.
export function describeEntry(store, entry) {
  const view = store.view;
  const action = entry.action || {};
  if (action.type === "join") return [`${action.player ? action.player.name : "A player"} sat down as ${seatName(view, entry.seat)}`];
  if (action.type === "start") return ["The match began", ...(entry.events || []).map((e) => describeEvent(store, e))];
  const lines = (entry.events || []).map((e) => describeEvent(store, e));
  if (!lines.length) lines.push(`${seatLabel(view, entry.seat)}: ${humanise(action.type || "action")}`);
  return lines;
}
