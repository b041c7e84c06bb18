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
