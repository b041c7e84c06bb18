// The match log in words: every action and every roll. Knows the common event
// shapes and falls back to a plain reading of any other event.

import { describeGmEvent } from "./gm-words.js";
import { humanise, ownedName, pieceName, seatLabel, seatName } from "./state.js";

const COUNTS = ["no", "a", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];

function listWords(items) {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

// Dice as players say them: "6 and 1 on two d6", "5 and 2 on two d10 and 3 on a d6".
export function diceWords(dice) {
  const bySides = new Map();
  for (const die of dice || []) bySides.set(die.sides, [...(bySides.get(die.sides) || []), die.face]);
  return listWords([...bySides].map(([sides, faces]) => `${listWords(faces.map(String))} on ${COUNTS[faces.length] || faces.length} d${sides}`));
}

export function describeRoll(store, roll) {
  const view = store.view;
  const who = roll.seat !== undefined && roll.seat !== null ? `${seatName(view, roll.seat)} ` : "";
  const whose = roll.piece ? ` for ${pieceName(store, roll.piece)}` : "";
  const bonus = roll.bonus ? `, +${roll.bonus}` : "";
  const what = who ? `${who}rolled ${roll.purpose || "dice"}` : `Rolled for ${roll.purpose || "dice"}`;
  if (!(roll.dice || []).length) return `${what}${whose}: no die to roll, a flat ${roll.total}`;
  const total = roll.total !== undefined ? `: ${roll.total}` : "";  // shuffles and narrative dice have none
  return `${what}${whose}: ${diceWords(roll.dice)}${bonus}${total}`;
}

export function describeOutcome(result) {
  return {
    "kill": "kill: the defender is destroyed",
    "push": "push: the defender is pushed",
    "counter-push": "counter-push: the attacker is pushed",
    "counter-kill": "counter-kill: the attacker is destroyed",
  }[result] || humanise(result);
}

// Words for the events of one view kind (e.g. "eote"), registered by its renderer;
// returning null falls back to the common words below.
const kindWords = new Map();
export function registerEventWords(kind, describe) {
  kindWords.set(kind, describe);
}

// The words a view kind or the game master's controls give an event; null when neither knows it.
export function describeSpecialEvent(store, event) {
  const view = store.view;
  const special = kindWords.get(view && view.state && view.state.kind);
  return (special ? special(store, event) : null) || describeGmEvent(store, event);
}

export function describeEvent(store, event) {
  const view = store.view;
  const words = describeSpecialEvent(store, event);
  if (words) return words;
  const name = (id) => ownedName(store, id);
  switch (event.type) {
    case "roll": return describeRoll(store, event);
    case "move": {
      const steps = (event.path || []).filter((space, i, all) => i < all.length - 1 && !(i === 0 && space === event.from));
      const path = steps.length ? ` (via ${steps.join(", ")})` : "";
      return `${name(event.piece)} moved ${event.from || ""} → ${event.to}${path}${notation(event)}`;
    }
    case "attack": return `${name(event.piece)} attacked ${name(event.target)}`;
    case "combat": return `Attack ${event.attack} against defense ${event.defense} (difference ${event.difference}): ${describeOutcome(event.result)}`;
    case "kill": case "defeat": return `${name(event.piece)} was destroyed${event.by ? ` by ${name(event.by)}` : ""}${event.at ? ` on ${event.at}` : ""}`;
    case "capture": return `${name(event.piece)} was captured${event.by ? ` by ${name(event.by)}` : ""}${event.at ? ` on ${event.at}` : ""}`;
    case "push": return `${name(event.piece)} was pushed ${event.from || ""} → ${event.to}`;
    case "push_blocked": return `${name(event.piece)} had nowhere to be pushed`;
    case "turn": return `${seatLabel(view, event.seat)}'s turn${event.number ? ` (turn ${event.number})` : ""}${event.round ? ` (round ${event.round})` : ""}`;
    case "first_player": return `${seatLabel(view, event.seat)} goes first`;
    case "pass": return `${seatLabel(view, event.seat)} passed: ${event.reason || "no legal action"}`;
    case "resign": return `${seatLabel(view, event.seat)} resigned`;
    case "timeout": return `${(event.seats || []).map((s) => seatLabel(view, s)).join(" and ")} ran out of time; ${seatLabel(view, event.seat)} claimed the win`;
    case "draw_offered": return `${seatLabel(view, event.seat)} offered a draw`;
    case "draw_agreed": return "The draw was agreed";
    case "draw_declined": return `${seatLabel(view, event.seat)} declined the draw`;
    case "end": return event.winner === null || event.winner === undefined
      ? `The match ended in a draw: ${event.reason}` : `${seatLabel(view, event.winner)} won: ${event.reason}`;
    case "deal": return "The creatures were dealt";
    case "to_the_death": return `To-The-Death: ${(event.pieces || []).map(name).join(" and ")} fight in the core`;
    case "activate": return `${name(event.piece)} was activated${event.to ? ` on ${event.to}` : ""}${notation(event)}`;
    case "inactive": return `${name(event.piece)} is inactive until its side activates it`;
    case "stunned": return `${name(event.piece)} was stunned`;
    case "unstun": return `${name(event.piece)} shook off the stun`;
    case "score": return `${seatLabel(view, event.seat)} scored ${event.points} (${event.why}): ${event.total} in all`;
    case "draft_pick": return `${seatLabel(view, event.seat)} drafted #${event.number} ${legendName(view, event.creature) || name(event.creature)} (${{ roll: "by roll", default: "the last one, by default", choice: "by choice" }[event.how] || event.how})`;
    case "draft_reroll": return `Draft: ${{ tie: "a tie", taken: "a creature already taken", miss: "both missed" }[event.reason] || event.reason} (${(event.faces || []).join(", ")}): roll again`;
    case "draft_defer": return `${seatLabel(view, event.seat)} let ${seatLabel(view, event.to)} choose`;
    case "teams": return `Teams ${event.how === "draft" ? "drafted" : "dealt at random"}: ${(event.teams || []).map((t, s) => `${seatName(view, s)} ${t.map((k) => legendName(view, k) || k).join(", ")}`).join("; ")}`;
    case "setup_order": return `${seatLabel(view, event.arranges_first)} arranges first${event.moves_first === null || event.moves_first === undefined ? "" : `; ${seatLabel(view, event.moves_first)} moves first`}`;
    case "combat_ray": return `Combat ray: ${event.ring === "C" ? "the core" : `ray ${event.ray} (${(event.spaces || []).join(", ")})`}`;
    case "cycle_complete": return `${seatLabel(view, event.seat)} completed a cycle${event.skipped ? " (the rest could not act)" : ""}`;
    case "place": return `${name(event.piece)} was placed on ${event.to}`;
    case "battle": return `${name(event.piece)} rolled ${event.attack} against ${name(event.target)}'s ${event.defense}: ${battleWords(store, event)}`;
    case "centre_hold": return event.broken_by
      ? `${name(event.broken_by)} broke ${seatName(view, event.seat)}'s hold on the core`
      : `${seatLabel(view, event.seat)} has held the core for ${event.turns} turn${event.turns === 1 ? "" : "s"}`;
    case "double_capture": return `Double capture: ${(event.pieces || []).map(name).join(" and ")} took each other`;
    case "round_end": return `Round ${event.round} ended`;
    case "setup": return event.seat !== undefined ? `Setting up: ${seatLabel(view, event.seat)} places first` : "The pieces were set up";
    case "end_activation": return `${seatLabel(view, event.seat)} ended ${name(event.piece)}'s activation`;
    case "draft_choice": return `${seatLabel(view, event.seat)} chooses between ${(event.creatures || []).map((k) => legendName(view, k) || humanise(k)).join(" and ")}`;
    case "initiative": return `${seatLabel(view, event.seat)} has the initiative`;
    case "initiative_tie": return `Initiative: a tie at ${event.total}, roll again`;
    case "order_chosen": return `${seatLabel(view, event.seat)} chose to move ${event.moves_first === event.seat ? "first" : "second"}`;
    case "setup_reroll": return `Setup: a tie (${(event.faces || []).join(", ")}), roll again`;
    default: return plainly(store, event);
  }
}

function battleWords(store, event) {
  const target = ownedName(store, event.target), attacker = ownedName(store, event.piece);
  return {
    defeated: `${target} is defeated`, pushed: `${target} is pushed`,
    stunned: `${attacker} is stunned`, nothing: "nothing happens",
  }[event.result] || humanise(event.result);
}

function legendName(view, kind) {
  const legend = (view && view.state && view.state.legend) || {};
  return legend[kind] && legend[kind].name;
}

// Chess-like notation of a move, when the event carries one ("N A4-B3-B2").
function notation(event) {
  return event.notation ? ` [${event.notation}]` : "";
}

function plainly(store, event) {
  const parts = [];
  for (const [key, value] of Object.entries(event)) {
    if (key === "type" || value === null || value === undefined) continue;
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
