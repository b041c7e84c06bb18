// The match log in words for the game master's entries (gm_… controls, seat null):
// paused, resumed, an action undone (which one), NPC taken and handed back, a seat
// opened for a new player, the options changed (which, from what to what).
// log.js asks here first; null means "not a GM event".

import { describeEntry } from "./log.js";
import { humanise, seatLabel, seatName } from "./state.js";

const GM = "The game master";

// "sheets.0.intellect" -> "Rey's sheet: intellect" for eote's sheets, else "Turns without kill".
function optionName(view, path) {
  const keys = String(path).split(".");
  if (keys[0] === "sheets" && /^\d+$/.test(keys[1] || "")) {
    const rest = keys.slice(2).map((k) => humanise(k).toLowerCase()).join(" ");
    return `${seatName(view, Number(keys[1]))}'s sheet${rest ? `: ${rest}` : ""}`;
  }
  return keys.map((k) => (/^\d+$/.test(k) ? `#${Number(k) + 1}` : humanise(k).toLowerCase())).join(" ").replace(/^./, (c) => c.toUpperCase());
}

function shown(value) {
  if (value === "" || value === null || value === undefined) return "(none)";
  if (typeof value === "boolean") return value ? "on" : "off";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

// What the undone action was: its own words from the log when the page has them
// ("The game master undid #8, Dark (Dorn)'s attack: Lowbacca made a primary attack").
function undoneWords(store, event) {
  const view = store.view;
  const who = event.seat === null || event.seat === undefined ? "" : `${seatLabel(view, event.seat)}'s `;
  const action = event.action || {};
  const entry = (store.entries || []).find((e) => e.version === event.version);
  const rolled = entry && (entry.events || []).some((e) => e.type === "roll");
  const lines = entry ? describeEntry(store, entry).filter((l) => !/ rolled /.test(l)) : [];
  const what = lines.length ? lines[0] : action.label || humanise(action.type || "action").toLowerCase();
  const kind = humanise(action.type || "action").toLowerCase();
  const dice = rolled ? ". Its dice stay in the log" : "";
  // Its own decision (an eote re-roll granted or refused) names itself: "The game master granted …".
  if (String(action.type || "").startsWith("gm_")) return `${GM} undid #${event.version}: ${what}${dice}`;
  return `${GM} undid #${event.version}, ${who}${kind}: ${what}${dice}`;
}

// A seat by the character sitting there (eote's sheets name them), else by its name.
function characterName(view, seat) {
  const character = ((view.state && view.state.characters) || []).find((c) => c.seat === seat);
  return (character && character.name) || seatName(view, seat);
}

// The words of the game master's buttons: seats by their characters, and the undo
// button naming the action it undoes. Null for any other action.
export function gmButtonLabel(store, action) {
  const view = store.view;
  const type = String(action.type || "");
  if (!type.startsWith("gm_")) return null;
  if (type === "gm_undo") {
    const entry = (store.entries || []).find((e) => e.version === action.version);
    const lines = entry ? describeEntry(store, entry).filter((l) => !/ rolled /.test(l)) : [];
    const who = entry && entry.seat !== null && entry.seat !== undefined ? `${characterName(view, entry.seat)}: ` : "";
    return `Undo #${action.version}${lines.length ? `, ${who}${lines[0]}` : ""}`;
  }
  if (action.seat === undefined || action.seat === null) return null;
  const name = characterName(view, action.seat);
  return {
    gm_take_seat: `Play ${name} as an NPC`,
    gm_release_seat: `Hand ${name} back to their player`,
    gm_open_seat: `Replace ${name}'s player`,
  }[type] || null;
}

export function describeGmEvent(store, event) {
  const view = store.view;
  switch (event.type) {
    case "paused": return `${GM} paused the match`;
    case "resumed": return `${GM} resumed play`;
    case "npc": return `${GM} took over ${seatLabel(view, event.seat)} and plays it as an NPC`;
    case "npc_released": return `${GM} handed ${seatName(view, event.seat)} back to its player`;
    case "seat_opened": return `${GM} opened ${seatName(view, event.seat)}: a new player can join with its invite link`;
    case "undone": return undoneWords(store, event);
    case "options_changed": {
      const changes = event.changes || [];
      if (!changes.length) return `${GM} saved the options (nothing changed)`;
      const list = changes.map((c) => `${optionName(view, c.option)} ${shown(c.from)} → ${shown(c.to)}`);
      return `${GM} changed the options: ${list.join("; ")}`;
    }
    default: return null;
  }
}
