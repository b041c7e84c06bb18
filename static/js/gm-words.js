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

// The undo button names the step it takes back as the players saw it in the log. A
// seat's secret step (an eote setting, shown to others as "hidden") is named by what
// the players know of it, never by the log's placeholder for it.
function undoLabel(store, action) {
  const view = store.view;
  const entry = (store.entries || []).find((e) => e.version === action.version);
  if (!entry) return "Undo the last move";
  const seated = entry.seat !== null && entry.seat !== undefined;
  if (seated && (entry.action || {}).type === "hidden") {
    return `Undo ${characterName(view, entry.seat)}'s last secret setting step (its piece stays secret)`;
  }
  const lines = describeEntry(store, entry).filter((l) => !/ rolled /.test(l));
  return lines.length ? `Undo: ${lines[0]}` : "Undo the last move";
}

// Null for any action that is not the GM's.
export function gmButtonLabel(store, action) {
  const view = store.view;
  const type = String(action.type || "");
  if (!type.startsWith("gm_")) return null;
  if (type === "gm_undo") return undoLabel(store, action);
  if (action.seat === undefined || action.seat === null) return null;
  const name = characterName(view, action.seat);
  return {
    gm_take_seat: `Play ${name} as an NPC`,
    gm_release_seat: `Hand ${name} back to their player`,
    gm_open_seat: `Replace ${name}'s player`,
  }[type] || null;
}

// A GM-run match: its host plays no seat (created with "seat": null).
function gmRun(view) {
  const hostId = view.host && view.host.id;
  return Boolean(hostId) && !(view.seats || []).some((s) => s.player && s.player.id === hostId && !s.npc);
}

// Before the start, a GM-run match whose seats are all taken (or held as NPCs)
// waits for its game master, not for an invite.
export function waitsForGm(view) {
  const seats = view.seats || [];
  return view.status === "waiting" && seats.length > 0 && seats.every((s) => s.player || s.npc) && gmRun(view);
}

// Before the start: who the match waits for.
export function waitingWords(view, { table = false } = {}) {
  if (waitsForGm(view)) {
    const seated = view.seats.length === 2 ? "Both players are seated" : "Every seat is taken";
    if (view.you && view.you.gm) return `${seated}: start the match when you are ready.`;
    return `${seated} — the game master starts the match.`;
  }
  return table ? "Waiting for players: scan the code to sit down." : "Waiting for players: share an invite link below.";
}
