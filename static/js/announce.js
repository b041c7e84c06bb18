// One sentence for a screen reader about an exchange of blows, once the dice settle:
// "Red Molator attacks Blue Ng'ok: 8 d6 total 31 against 8 d6 total 27, push: the
// defender is pushed". Null when the events hold no attack with its two rolls.

import { describeOutcome } from "./log.js";
import { pieceName, seatName } from "./state.js";

function diceWords(roll) {
  const dice = roll.dice || [];
  const sides = [...new Set(dice.map((d) => d.sides))];
  const counted = sides.length === 1 ? `${dice.length} d${sides[0]}` : dice.map((d) => `d${d.sides}`).join(" + ");
  const parts = [roll.bonus ? `${roll.bonus}` : "", dice.length ? counted : "no dice"].filter(Boolean);
  return `${parts.join(" + ")} total ${roll.total}`;
}

export function combatSentence(store, events) {
  const attack = events.find((e) => e.type === "attack");
  const outcome = events.find((e) => e.type === "combat" || e.type === "battle");
  if (!attack || !outcome) return null;
  const rolls = events.filter((e) => e.type === "roll");
  const mine = rolls.find((r) => r.piece === attack.piece) || rolls[0];
  const theirs = rolls.find((r) => r.piece === attack.target) || rolls[1];
  if (!mine || !theirs) return null;
  const view = store.view;
  const who = (roll, id) => `${roll.seat !== undefined && roll.seat !== null ? `${seatName(view, roll.seat)} ` : ""}${pieceName(store, id)}`;
  return `${who(mine, attack.piece)} attacks ${who(theirs, attack.target)}: ${diceWords(mine)} against ${diceWords(theirs)}, ${describeOutcome(String(outcome.result))}`;
}
