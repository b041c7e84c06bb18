// Edge-of-the-Empire narrative dice (RULINGS §9) drawn in SVG: the die's shape and
// colour by kind, the symbols on its face as glyphs, and every die and symbol also
// in words (visible kind name, aria-label, title), so colour is never the only signal.

const SVG = "http://www.w3.org/2000/svg";

// Shapes: d6 square, d8 diamond, d12 hexagon.
export const DIE_KINDS = {
  boost: { sides: 6, shape: "square", colour: "light blue" },
  setback: { sides: 6, shape: "square", colour: "black" },
  ability: { sides: 8, shape: "diamond", colour: "green" },
  difficulty: { sides: 8, shape: "diamond", colour: "purple" },
  proficiency: { sides: 12, shape: "hexagon", colour: "yellow" },
  challenge: { sides: 12, shape: "hexagon", colour: "red" },
};
// The order a pool is listed in (the character's dice, then the opposition's).
export const KIND_ORDER = ["proficiency", "ability", "boost", "challenge", "difficulty", "setback"];

// Glyphs in pairs: the good symbol and its opposite mirror each other.
export const SYMBOLS = {
  success: { glyph: "★", one: "success", many: "successes" },
  failure: { glyph: "✖", one: "failure", many: "failures" },
  advantage: { glyph: "▲", one: "advantage", many: "advantages" },
  threat: { glyph: "▼", one: "threat", many: "threats" },
  triumph: { glyph: "✪", one: "triumph", many: "triumphs" },
  despair: { glyph: "⊗", one: "despair", many: "despairs" },
};

export function isNarrative(die) {
  return Boolean(die && die.kind && DIE_KINDS[die.kind]);
}

export function count(n, symbol) {
  const info = SYMBOLS[symbol];
  return `${n} ${n === 1 ? info.one : info.many}`;
}

// "success, 2 advantages" for one face; "blank" for none.
export function faceWords(symbols) {
  if (!symbols || !symbols.length) return "blank";
  const counted = new Map();
  for (const s of symbols) counted.set(s, (counted.get(s) || 0) + 1);
  return [...counted].map(([s, n]) => (n === 1 ? SYMBOLS[s].one : count(n, s))).join(", ");
}

export function dieWords(die) {
  const info = DIE_KINDS[die.kind];
  const what = `${die.kind} die (${info.colour} d${info.sides})`;
  return die.symbols ? `${what}: ${faceWords(die.symbols)}` : what;
}

// A pool {kind: count} in words: "2 ability + 1 difficulty".
export function poolWords(pool) {
  const parts = KIND_ORDER.filter((k) => pool && pool[k]).map((k) => `${pool[k]} ${k}`);
  return parts.join(" + ") || "no dice";
}

// The net result as [{symbol, n}] (success/failure, advantage/threat, triumph, despair).
export function netParts(net) {
  if (!net) return [];
  const parts = [];
  if (net.success > 0) parts.push({ symbol: "success", n: net.success });
  if (net.success < 0) parts.push({ symbol: "failure", n: -net.success });
  if (net.advantage > 0) parts.push({ symbol: "advantage", n: net.advantage });
  if (net.advantage < 0) parts.push({ symbol: "threat", n: -net.advantage });
  if (net.triumph > 0) parts.push({ symbol: "triumph", n: net.triumph });
  if (net.despair > 0) parts.push({ symbol: "despair", n: net.despair });
  return parts;
}

function svgEl(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function outline(shape) {
  if (shape === "square") return ["rect", { x: 5, y: 5, width: 30, height: 30, rx: 3 }];
  if (shape === "diamond") return ["polygon", { points: "20,1.5 38.5,20 20,38.5 1.5,20" }];
  const points = Array.from({ length: 6 }, (_, i) => {
    const a = (Math.PI / 3) * i + Math.PI / 6;
    return `${(20 + 18.5 * Math.cos(a)).toFixed(2)},${(20 + 18.5 * Math.sin(a)).toFixed(2)}`;
  });
  return ["polygon", { points: points.join(" ") }];
}

// One die: <span class="ndie" data-kind data-face> with the SVG shape, the glyphs
// of its face (when rolled) and its kind in words underneath.
export function narrativeDie(die, { label = true } = {}) {
  const info = DIE_KINDS[die.kind];
  const node = document.createElement("span");
  node.className = "ndie";
  node.dataset.kind = die.kind;
  node.dataset.shape = info.shape;
  node.dataset.sides = String(info.sides);
  if (die.face !== undefined) node.dataset.face = String(die.face);
  if (die.symbols) node.dataset.symbols = die.symbols.join(" ");
  const words = dieWords(die);
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", words);
  node.title = words;
  const svg = svgEl("svg", { viewBox: "0 0 40 40", class: "ndie-shape", "aria-hidden": "true", focusable: "false" });
  const [tag, attrs] = outline(info.shape);
  svgEl(tag, { ...attrs, class: "ndie-body" }, svg);
  if (die.symbols) {
    const glyphs = die.symbols.map((s) => SYMBOLS[s].glyph);
    const text = svgEl("text", { x: 20, y: 21, class: "ndie-glyphs", "data-glyphs": String(glyphs.length) }, svg);
    text.textContent = glyphs.length ? glyphs.join("") : "–";
    if (!glyphs.length) text.classList.add("blank");
  }
  node.appendChild(svg);
  if (label) {
    const name = document.createElement("small");
    name.className = "ndie-kind";
    name.textContent = die.kind;
    node.appendChild(name);
  }
  return node;
}

// The dice of a pool {kind: count}, unrolled.
export function poolDice(pool) {
  const holder = document.createElement("span");
  holder.className = "ndice pool";
  holder.setAttribute("role", "list");
  holder.setAttribute("aria-label", poolWords(pool));
  for (const kind of KIND_ORDER) {
    for (let i = 0; i < ((pool && pool[kind]) || 0); i++) {
      const die = narrativeDie({ kind });
      die.setAttribute("role", "listitem");
      holder.appendChild(die);
    }
  }
  return holder;
}

// The net result as glyph chips with words: "★ 2 successes", "▼ 1 threat".
export function netChips(net) {
  const holder = document.createElement("span");
  holder.className = "net";
  holder.dataset.net = JSON.stringify(net || {});
  const parts = netParts(net);
  if (!parts.length) {
    const none = document.createElement("span");
    none.className = "net-none";
    none.textContent = "Nothing: everything cancelled";
    holder.appendChild(none);
  }
  for (const { symbol, n } of parts) {
    const chip = document.createElement("span");
    chip.className = "sym";
    chip.dataset.symbol = symbol;
    chip.dataset.count = String(n);
    const glyph = document.createElement("b");
    glyph.setAttribute("aria-hidden", "true");
    glyph.textContent = SYMBOLS[symbol].glyph;
    chip.append(glyph, ` ${count(n, symbol)}`);
    holder.appendChild(chip);
  }
  return holder;
}

// A small key of the glyphs, for players new to the dice.
export function symbolKey() {
  const list = document.createElement("ul");
  list.className = "symbol-key";
  for (const [symbol, info] of Object.entries(SYMBOLS)) {
    const item = document.createElement("li");
    item.dataset.symbol = symbol;
    const glyph = document.createElement("b");
    glyph.setAttribute("aria-hidden", "true");
    glyph.textContent = info.glyph;
    item.append(glyph, ` ${info.one}`);
    list.appendChild(item);
  }
  return list;
}

// --- what an eote choice does, and why one might pick it (the action buttons) -----------

// The symbols a die shows on average (RULINGS §9's faces): successes of the character's
// dice (a triumph counts as one), failures of the opposition's (a despair counts as one).
const AVERAGE = {
  ability: 5 / 8, proficiency: 10 / 12, boost: 2 / 6, difficulty: 4 / 8, challenge: 9 / 12, setback: 2 / 6,
};
const CHARACTER_DICE = ["proficiency", "ability", "boost"];
const OPPOSITION_DICE = ["challenge", "difficulty", "setback"];

function average(pool, kinds) {
  return kinds.reduce((sum, kind) => sum + ((pool && pool[kind]) || 0) * AVERAGE[kind], 0);
}

function oneDecimal(x) {
  return (Math.round(x * 10) / 10).toFixed(1);
}

function previewWords(view, mode, own) {
  const preview = (view.state || {}).pool_preview || {};
  const pools = ["primary", "secondary"].map((m) => preview[m]).filter(Boolean);
  if (!preview[mode] || pools.length < 2) return "";
  if (own === "attack") {  // the whole opposed roll: successes less failures
    const net = (pool) => average(pool, CHARACTER_DICE) - average(pool, OPPOSITION_DICE);
    const mine = net(preview[mode]);
    const best = Math.max(...pools.map(net));
    const words = mine >= 0
      ? `On average ${oneDecimal(mine)} net successes against this defence`
      : `On average ${oneDecimal(-mine)} net failures against this defence`;
    return `${words}${mine === best && pools.some((p) => net(p) !== best) ? ": the stronger attack now." : "."}`;
  }
  const failures = (pool) => average(pool, OPPOSITION_DICE);
  const mine = failures(preview[mode]);
  const best = Math.max(...pools.map(failures));
  const stronger = mine === best && pools.some((p) => failures(p) !== best);
  return `On average ${oneDecimal(mine)} failures for the attacker${stronger ? ": the stronger defence now." : "."}`;
}

// A sentence under an eote action's button: what the choice does and when it is the better
// one, from the characters' sheets and the pools the server previews; "" for other actions.
export function choiceWhy(view, action) {
  const state = view && view.state;
  if (!state || state.kind !== "eote" || !action) return "";
  const you = (view.you || {}).seat;
  const seat = action.type === "attack" ? state.attacker : action.type === "defence" ? state.defender : you;
  const character = (state.characters || [])[seat] || {};
  const sheet = character.sheet || {};
  switch (action.type) {
    case "attack":
      return action.mode === "primary"
        ? `Your Intellect (${sheet.intellect}) and Dejarik Attack ranks (${character.attack_ranks}), each piece you `
          + `set upgrading a die: better when Intellect or ranks are your strength. ${previewWords(view, "primary", "attack")}`
        : `Your Willpower (${sheet.willpower}) alone, ranks left out, and at least one die a piece you set: better `
          + `when Willpower is your best, or you set many pieces. ${previewWords(view, "secondary", "attack")}`;
    case "defence":
      return action.mode === "primary"
        ? `Your Cunning (${sheet.cunning}) and Dejarik Defence ranks (${character.defence_ranks}) make the `
          + `difficulty, each piece you set upgrading a die: better when Cunning or ranks are your strength. `
          + previewWords(view, "primary", "defence")
        : `Your Presence (${sheet.presence}) alone, ranks left out, and at least one die a piece you set: better `
          + `when Presence is your best, or you set many pieces. ${previewWords(view, "secondary", "defence")}`;
    case "set_piece":
      return "Stronger dice this round (a die upgraded), but one more piece at stake: "
        + "if the roll goes against you, each net success or failure takes a set piece.";
    case "unset_piece":
      return "Weaker dice, one piece fewer at stake.";
    case "done_setting": {
      const chosen = (state.setting && state.setting.chosen) || 0;
      const seen = (state.setting_order || [])[0] === you ? " Your opponent sees how many before setting theirs." : "";
      return (chosen
        ? `Your dice are upgraded ${chosen === 1 ? "once" : `${chosen} times`}; losing the roll can cost you up to `
          + `${chosen === 1 ? "that piece" : `those ${chosen} pieces`}.`
        : "Plain dice; losing the roll costs you only one piece.") + seen;
    }
    case "adjust_set":
      return {
        add: "Their dice grow stronger, but they have one more piece at stake.",
        remove: "Their dice grow weaker, and they have one piece fewer at stake.",
        none: "The round goes on as both sides set it.",
      }[action.change] || "";
    case "choose_difficulty":
      return "A harder check grants more ranks if it succeeds, but fails more often.";
    default:
      return "";
  }
}
