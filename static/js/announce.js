// What a screen reader hears (the page's aria-live region): each update's events as
// short sentences in player words, "Blue Savrip moves from A3 to B5. Red's turn.", and
// an exchange of blows as one sentence once the dice settle: "Red Molator attacks Blue
// Ng'ok: 8 dice total 31 against 8 dice total 27, push." The log keeps the details.

import { describeEvent } from "./log.js";
import { humanise, ownedName, pieceName, seatName } from "./state.js";

function diceWords(roll) {
  const count = (roll.dice || []).length;
  const dice = count ? `${count} ${count === 1 ? "die" : "dice"}` : "no dice";
  return `${dice}${roll.bonus ? ` plus ${roll.bonus}` : ""} total ${roll.total}`;
}

function outcomeWords(result) {
  return { nothing: "nothing happens", stunned: "the attacker is stunned" }[result] || String(result);
}

// The events of one exchange of blows: the attack, both rolls and its outcome; null if incomplete.
function exchangeOf(events) {
  const attack = events.find((e) => e.type === "attack");
  const outcome = events.find((e) => e.type === "combat" || e.type === "battle");
  if (!attack || !outcome) return null;
  const rolls = events.filter((e) => e.type === "roll");
  const mine = rolls.find((r) => r.piece === attack.piece) || rolls[0];
  const theirs = rolls.find((r) => r.piece === attack.target) || rolls[1];
  return mine && theirs && mine !== theirs ? { attack, outcome, mine, theirs } : null;
}

export function combatSentence(store, events) {
  const exchange = exchangeOf(events);
  if (!exchange) return null;
  const { attack, outcome, mine, theirs } = exchange;
  return `${ownedName(store, attack.piece)} attacks ${ownedName(store, attack.target)}: `
    + `${diceWords(mine)} against ${diceWords(theirs)}, ${outcomeWords(outcome.result)}`;
}

// A log line read aloud: arrows and chess notation are for the eye.
function spokenLine(line) {
  return line.replace(/ → /g, " to ").replace(/ \[[^\]]*\]/g, "").replace(/#(\d)/g, "number $1");
}

// One event in a short sentence (without its full stop): the common piece-game events
// in the present tense, every other event in the server's words (`text`: eote's, the
// game master's, a ruleset's own).
export function spokenEvent(store, event) {
  const view = store.view;
  const name = (id) => ownedName(store, id);
  const seat = (s) => seatName(view, s);
  const you = view.you && view.you.seat;
  const where = (space) => (space === "off" ? "off the board" : `to ${space}`);
  switch (event.type) {
    case "move": return `${name(event.piece)} moves${event.from ? ` from ${event.from}` : ""} to ${event.to}`;
    case "push": return `${name(event.piece)} is pushed${event.from ? ` from ${event.from}` : ""} ${where(event.to)}`;
    case "push_blocked": return `${name(event.piece)} has nowhere to be pushed`;
    case "place": return `${name(event.piece)} is placed on ${event.to}`;
    case "attack": return event.piece ? `${name(event.piece)} attacks ${name(event.target)}` : spokenLine(describeEvent(store, event));
    case "kill": case "defeat": return `${name(event.piece)} is destroyed`;
    case "capture": return `${name(event.piece)} is captured${event.at ? ` on ${event.at}` : ""}`;
    case "stunned": return `${name(event.piece)} is stunned`;
    case "turn": return event.seat === you ? "Your turn" : `${seat(event.seat)}'s turn`;
    case "first_player": return event.seat === you ? "You go first" : `${seat(event.seat)} goes first`;
    case "pass": return `${seat(event.seat)} passes: ${event.reason || "no legal action"}`;
    case "resign": return `${seat(event.seat)} resigns`;
    case "draft_pick": {
      const legend = (view.state && view.state.legend) || {};
      return `${seat(event.seat)} drafts ${(legend[event.creature] || {}).name || pieceName(store, event.creature)}`;
    }
    case "end": return event.winner === null || event.winner === undefined
      ? `The match is drawn: ${event.reason}` : `${seat(event.winner)} wins: ${event.reason}`;
    case "roll": {
      // Shuffles and narrative dice (eote) have no total: their words say what was drawn.
      if (event.total === undefined || event.shuffled) return spokenLine(describeEvent(store, event));
      const who = event.seat === undefined || event.seat === null ? "Rolled" : `${seat(event.seat)} rolls`;
      const whose = event.piece ? ` for ${pieceName(store, event.piece)}` : "";
      return `${who} ${event.total}${event.purpose ? ` on ${humanise(event.purpose).toLowerCase()}` : ""}${whose}`;
    }
    default: return spokenLine(describeEvent(store, event));
  }
}

// The sentences of one log entry's events: an exchange of blows as one, the rest one each.
export function spokenEvents(store, events) {
  const exchange = exchangeOf(events);
  const told = new Set(exchange ? Object.values(exchange) : []);
  const sentences = exchange ? [combatSentence(store, events)] : [];
  for (const event of events) if (!told.has(event)) sentences.push(spokenEvent(store, event));
  return sentences.filter(Boolean).map((s) => (/[.!?]$/.test(s) ? s : `${s}.`));
}

// What the viewer must decide now, when the events alone do not say it.
function nextStep(store) {
  const view = store.view;
  const push = view.state && view.state.push;
  const you = view.you && view.you.seat;
  if (view.status === "active" && push && push.chooser === you && you !== null && you !== undefined) {
    return `Choose where ${ownedName(store, push.piece)} is pushed.`;
  }
  return null;
}

// The voice of one page: `hear` the fresh live entries of an update; what they say is
// spoken at once, or, when their dice are about to tumble, once `diceSettled` is called,
// so the words never run ahead of the dice. Anything heard meanwhile waits its turn.
export function createSpeaker(region) {
  const queued = [];
  let waiting = false;
  function speak() {
    if (!queued.length) return;
    const message = queued.join(" ");
    queued.length = 0;
    // The same words twice (two turns alike) are spoken twice: the region is emptied first.
    if (region.textContent === message) region.textContent = "";
    region.textContent = message;
  }
  return {
    hear(store, entries, diceComing) {
      for (const entry of entries) queued.push(...spokenEvents(store, entry.events || []));
      if (entries.length) {
        const step = nextStep(store);
        if (step) queued.push(step);
      }
      if (diceComing) waiting = true;
      if (!waiting) speak();
    },
    diceSettled() {
      waiting = false;
      speak();
    },
  };
}
