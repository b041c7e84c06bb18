// The `eote` table (RULINGS §9, docs/rulesets/eote.md): no board, but each
// character's piles (active, inactive, set), sheet and strain, the round's step and
// whose decision it is, the pool and the latest roll in narrative dice, the spending
// step and the effects pending for later rounds. Reads only the server's view: the
// decisions themselves are the generic action buttons (render.js).

import {
  count, dieWords, narrativeDie, netChips, poolDice, poolWords, symbolKey,
} from "../narrative.js";
import { humanise, seatName } from "../state.js";

const TUMBLE_MS = 700;
const PILES = [
  ["active", "Active"],
  ["inactive", "Inactive"],
  ["set", "Set"],
];
const SHEET = [
  ["intellect", "Intellect"],
  ["cunning", "Cunning"],
  ["willpower", "Willpower"],
  ["presence", "Presence"],
];
const DIFFICULTY = { 1: "Easy", 2: "Average", 3: "Difficult", 4: "Daunting", 5: "Formidable" };

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

// "Light (Rey)", or with a character name "Han (Light, Rey)".
export function characterLabel(view, seat) {
  if (seat === null || seat === undefined) return "Nobody";
  const state = view.state || {};
  const character = (state.characters || [])[seat];
  const side = seatName(view, seat);
  const row = (view.seats || []).find((s) => s.seat === seat);
  const player = row && row.player ? row.player.name : null;
  if (character && character.name && character.name !== side) {
    return `${character.name} (${side}${player ? `, ${player}` : ""})`;
  }
  return player ? `${side} (${player})` : side;
}

function isYou(view, seat) {
  const you = view.you || {};
  return you.seat !== null && you.seat !== undefined && you.seat === seat;
}

// What the match waits for, in words: [headline, detail].
export function stepWords(view) {
  const state = view.state || {};
  if (view.status === "waiting") return ["Waiting for players", ""];
  if (view.status === "finished" || state.step === "over") return ["The match is over", ""];
  const actor = (view.to_act || [])[0];
  const yours = isYou(view, actor);
  const who = yours ? "You" : characterLabel(view, actor);
  const s = yours ? "" : "s";
  const round = state.round ? `Round ${state.round}` : "Before the first round";
  switch (state.step) {
    case "ranks": {
      const check = state.ranks_check || {};
      if (check.step === "reroll") {
        const take = state.gm_hosted ? "ask the game master for a re-roll" : "re-roll";
        return ["Initial ranks check", `${who} decide${s} whether to ${take}.`];
      }
      if (check.step === "asked") return ["Initial ranks check", `${state.gm_decision}.`];
      if (check.step === "split") return ["Initial ranks check", `${who} split${s} ${plural(check.difficulty, "rank")} between Dejarik Attack and Defence.`];
      return ["Initial ranks check", `${who} choose${s} the difficulty of the Knowledge (Core Worlds) check.`];
    }
    case "setting": {
      const order = state.setting_order || [];
      const first = order[0] === actor ? "first" : "second";
      return [`${round}: setting pieces`, `${who} set${s} pieces (${first}), hidden until confirmed.`];
    }
    case "adjust":
      return [`${round}: adjusting`, `${who} may add or remove one of the defender's set pieces.`];
    case "defence":
      return [`${round}: defence`, `${who} choose${s} a primary or secondary defence.`];
    case "attack":
      return [`${round}: attack`, `${who} choose${s} a primary or secondary attack, and roll${s}.`];
    case "spend": {
      const spending = state.spending || {};
      const what = spending.currency === "threat" ? "threats and despairs" : "advantages and triumphs";
      return [`${round}: spending`, `${who} spend${s} ${what}, one effect at a time.`];
    }
    default:
      return [round, actor !== undefined ? `${who} to decide.` : ""];
  }
}

function tokens(n, side, extra = {}) {
  const list = [];
  for (let i = 0; i < n; i++) list.push(h("span", { class: "token", "data-side": side, "aria-hidden": "true", ...extra }));
  return list;
}

function pileNode(name, title, n, side, extra = []) {
  return h("div", { class: "pile", "data-pile": name, "data-count": n },
    h("span", { class: "pile-name" }, title),
    h("span", { class: "pile-tokens" }, tokens(n, side), extra),
    h("span", { class: "pile-count" }, String(n)));
}

function seatPanel(view, character) {
  const state = view.state || {};
  const seat = character.seat;
  const sideWord = seat === 0 ? "light" : "dark";
  const role = state.attacker === seat ? "attacker" : state.defender === seat ? "defender" : null;
  const acting = view.status === "active" && (view.to_act || []).includes(seat);
  const piles = character.piles || {};
  const setting = state.setting;

  // The setter's hidden choice: the setter sees it as tentative, everyone else face down.
  let active = piles.active || 0;
  const setExtra = [];
  let setNote = null;
  if (setting && setting.seat === seat) {
    if (setting.chosen !== null && setting.chosen !== undefined) {
      active -= setting.chosen;
      for (let i = 0; i < setting.chosen; i++) {
        setExtra.push(h("span", { class: "token tentative", "data-side": sideWord, "aria-hidden": "true" }));
      }
      setNote = `${plural(setting.chosen, "piece")} chosen, not yet revealed`;
    } else {
      setExtra.push(h("span", { class: "token face-down", "data-side": sideWord, "aria-hidden": "true" }, "?"));
      setNote = "choosing in secret: face down until confirmed";
    }
  }
  const strain = character.strain || 0;
  const threshold = character.strain_threshold || 12;
  const percent = Math.min(100, Math.round((strain / threshold) * 100));
  const sheet = character.sheet || {};
  const you = isYou(view, seat) ? h("span", { class: "you-badge" }, "You") : null;

  const pileWords = `${character.name}: ${active} active, ${piles.inactive || 0} inactive, ${piles.set || 0} set` +
    `${setNote ? ` (${setNote})` : ""}, ${character.lost || 0} lost`;
  return h("section", {
    class: "eote-seat", "data-seat": seat, "data-side": sideWord, "data-role": role, "data-acting": acting,
    "aria-label": characterLabel(view, seat),
  },
  h("h2", { class: "eote-name" },
    h("span", { class: "side-mark", "data-side": sideWord, "aria-hidden": "true" }),
    characterLabel(view, seat), " ", you,
    role ? h("span", { class: "role-badge", "data-role": role }, humanise(role)) : null,
    acting ? h("span", { class: "acting-badge" }, "deciding") : null),
  h("div", { class: "piles", role: "group", "aria-label": pileWords },
    pileNode("active", "Active", active, sideWord),
    pileNode("inactive", "Inactive", piles.inactive || 0, sideWord),
    pileNode("set", "Set", piles.set || 0, sideWord, setExtra),
    setNote ? h("p", { class: "pile-note", "data-hidden-set": setting && setting.chosen === null ? "true" : "false" }, setNote) : null,
    h("p", { class: "pile-lost", "data-lost": character.lost || 0 }, `Lost: ${character.lost || 0} of 4`)),
  h("div", { class: "strain", "data-strain": strain, "data-threshold": threshold, "data-danger": strain >= threshold },
    h("span", { class: "strain-words" }, `Strain ${strain} / ${threshold}`),
    h("span", { class: "strain-bar", "aria-hidden": "true" }, h("span", { style: `width:${percent}%` }))),
  h("dl", { class: "sheet" },
    SHEET.map(([key, title]) => [h("dt", {}, title), h("dd", { "data-stat": key }, String(sheet[key] ?? "–"))]),
    h("dt", {}, "Dejarik Attack"), h("dd", { "data-stat": "attack_ranks" }, String(character.attack_ranks ?? 0)),
    h("dt", {}, "Dejarik Defence"), h("dd", { "data-stat": "defence_ranks" }, String(character.defence_ranks ?? 0))));
}

function rollTitle(view, roll) {
  if (roll.purpose === "initial ranks check") {
    const level = DIFFICULTY[roll.difficulty] || roll.difficulty;
    return `${characterLabel(view, roll.seat)}: initial ranks check (${level}${roll.rerolls ? `, re-roll ${roll.rerolls}` : ""})`;
  }
  const attack = roll.attack ? `${roll.attack} attack` : "attack";
  const defence = roll.defence ? `${roll.defence} defence` : "defence";
  return `Round ${roll.round}: ${characterLabel(view, roll.seat)}'s ${attack} against ${characterLabel(view, roll.defender)}'s ${defence}`;
}

function resultWords(view, result) {
  if (!result) return null;
  if (result.loser === null || result.loser === undefined || !result.lost) return "No piece lost this round.";
  const from = result.pile === "set" ? "set pile" : `${result.pile} pile (no piece was set)`;
  return `${characterLabel(view, result.loser)} lost ${plural(result.lost, "piece")} from the ${from}.`;
}

function rollSection(view) {
  const state = view.state || {};
  const roll = state.last_roll;
  const section = h("section", { class: "eote-roll", "aria-label": "Dice" });
  // Before the attack: the pools each choice would roll.
  const preview = state.pool_preview;
  if (preview && view.status === "active") {
    const heading = state.step === "defence" ? "The difficulty each defence sets" : "The pool each attack would roll";
    section.append(h("h3", {}, heading));
    for (const [mode, pool] of Object.entries(preview)) {
      section.append(h("div", { class: "pool-preview", "data-mode": mode },
        h("span", { class: "pool-mode" }, `${humanise(mode)}: ${poolWords(pool)}`), poolDice(pool)));
    }
  }
  if (!roll) {
    if (!preview) section.append(h("p", { class: "hint" }, "No dice rolled yet."));
    return section;
  }
  const dice = h("div", { class: "ndice rolled", role: "list", "aria-label": `The dice rolled: ${poolWords(roll.pool)}` });
  for (const die of roll.dice || []) {
    const node = narrativeDie(die);
    node.setAttribute("role", "listitem");
    node.setAttribute("aria-label", dieWords(die));
    dice.appendChild(node);
  }
  const result = roll.purpose === "round" && state.last_result && state.last_result.round === roll.round ? state.last_result : null;
  section.append(...[
    h("h3", {}, "Latest roll"),
    h("p", { class: "roll-about" }, rollTitle(view, roll)),
    h("p", { class: "pool-words" }, `Pool: ${poolWords(roll.pool)}`),
    dice,
    h("div", { class: "net-line" }, h("span", { class: "net-label" }, "Net result:"), netChips(roll.net)),
    result ? h("p", { class: "round-result", "data-loser": result.loser ?? "none", "data-lost": result.lost }, resultWords(view, result)) : null,
  ].filter(Boolean));  // DOM append writes a null as the text "null"
  return section;
}

function spendingSection(view) {
  const state = view.state || {};
  const spending = state.spending;
  if (!spending || view.status !== "active") return null;
  const threat = spending.currency === "threat";
  const special = threat ? "despair" : "triumph";
  const lines = [
    `${characterLabel(view, spending.seat)} spends ${threat ? "threats and despairs" : "advantages and triumphs"}.`,
    `Left: ${count(spending.left, spending.currency)} of ${spending.total}, ${count(spending.specials_left, special)}.`,
    `Limit Rule: each "1 ${spending.currency}" effect at most ${Math.ceil(spending.total / 2)} time${Math.ceil(spending.total / 2) === 1 ? "" : "s"}.`,
  ];
  return h("section", { class: "eote-spend", "data-currency": spending.currency, "aria-label": "Spending" },
    h("h3", {}, "Spending"), lines.map((l) => h("p", {}, l)));
}

function pendingSection(view) {
  const effects = (view.state && view.state.pending_effects) || [];
  const section = h("section", { class: "eote-pending", "aria-label": "Pending effects" }, h("h3", {}, "Pending effects"));
  if (!effects.length) {
    section.append(h("p", { class: "hint" }, "None."));
    return section;
  }
  section.append(h("ul", {}, effects.map((e) => h("li", {
    "data-effect": e.kind, "data-seat": e.seat, "data-round": e.round,
  }, e.kind === "boost" || e.kind === "setback" ? narrativeDie({ kind: e.kind }, { label: false }) : null,
  h("span", {}, `${e.text}${e.source ? ` (bought with ${e.source})` : ""}`)))));
  return section;
}

export function createEoteRenderer(container, { table = false } = {}) {
  container.innerHTML = "";
  const root = h("div", { class: "eote", "data-table": table });
  container.appendChild(root);
  let lastKey = "";
  let seenRolls = null;

  function update(store) {
    const view = store.view;
    const state = view.state || {};
    const freshRoll = store.rolls && store.rolls !== seenRolls;
    seenRolls = store.rolls;
    const key = JSON.stringify([state, view.to_act, view.status, view.you, view.seats, view.paused]);
    if (key === lastKey && !freshRoll) return;
    lastKey = key;
    root.innerHTML = "";
    const [headline, detail] = stepWords(view);
    const characters = state.characters || [];
    root.append(...[
      h("div", { class: "eote-step", "data-step": state.step || "" },
        h("p", { class: "step-headline" }, headline),
        detail ? h("p", { class: "step-detail" }, detail) : null),
      h("div", { class: "eote-seats" }, characters.map((c) => seatPanel(view, c))),
      rollSection(view),
      spendingSection(view),
      pendingSection(view),
      table ? h("section", { class: "eote-key", "aria-label": "Dice symbols" }, symbolKey())
        : h("details", { class: "eote-key" }, h("summary", {}, "Dice symbols"), symbolKey()),
    ].filter(Boolean));
    if (freshRoll) tumble(root.querySelectorAll(".ndice.rolled .ndie"), root.querySelector(".eote-roll"));
  }

  return { update };
}

function tumble(dice, section) {
  const reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  if (reduced || !dice.length) return;
  for (const die of dice) die.classList.add("tumbling");
  if (section) section.dataset.state = "rolling";
  setTimeout(() => {
    for (const die of dice) die.classList.remove("tumbling");
    if (section) section.dataset.state = "settled";
  }, TUMBLE_MS);
}
