// The words of the game master's buttons: seats by their characters (eote's sheets
// name them), and the undo button naming the action it undoes in the log's own words
// (the server's words of that entry's events). The log's words of the GM's controls
// themselves come from the server, like every event's.

import { describeEntry } from "./log.js";
import { seatName } from "./state.js";

// A seat by the character sitting there (eote's sheets name them), else by its name.
function characterName(view, seat) {
  const character = ((view.state && view.state.characters) || []).find((c) => c.seat === seat);
  return (character && character.name) || seatName(view, seat);
}

// Null for any action that is not the GM's.
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
