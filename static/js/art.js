// The figures of the pieces: an original silhouette for each creature and for the
// chess and courtier pieces, drawn for this project as SVG paths on a 24 × 24 grid
// centred on 0 (creatures face right). installArt() puts them once into the page as
// <symbol id="art-KIND">; a token shows one through <use>, which gives it its colours:
// `fill` the body (light), `stroke` the outline and details (dark), `color` the eyes
// and accents (the seat's colour). Kinds with no figure keep their monogram.

const SVG = "http://www.w3.org/2000/svg";

// Each figure: a body path (filled, outlined), detail strokes and accent dots [x, y, r].
export const FIGURES = {
  // Mantellian Savrip: a hunched reptile, long arms reaching to the ground.
  savrip: {
    body: "M-7 10 L-5.2 2.5 C-7.5 -1.5 -5 -8.5 0.5 -8.6 L4 -9.4 C6.2 -10.6 9.4 -9.6 10.6 -7.4 L7.6 -5.8 "
      + "L5.4 -5.4 C6.4 -2.4 8.6 1.2 9.4 6.4 L10.8 9.6 L8.4 9.6 L7.6 6.8 L5 1.6 C3.6 3.4 2.8 6 2.9 10 "
      + "L0.6 10 L0 5.4 C-1.8 4.6 -3 6.4 -4.4 10 Z",
    details: ["M-3.6 -5.4 C-1.6 -3.4 1 -3.6 3 -5.6", "M8.2 -7.2 L9.8 -7"],
    eyes: [[7.3, -8.1, 0.9]],
  },
  // Monnok: a broad ape-like brute with a gaping, toothed mouth.
  monnok: {
    body: "M-9.5 10 L-8.4 2.6 C-10.6 -3.4 -7 -9.8 -0.8 -9.8 C3.4 -9.8 5.6 -8.6 6.4 -6.6 L10.8 -5.6 L7.6 -3.4 "
      + "L10.6 -1.2 L5.4 -0.2 C6.4 3 7.6 6 8.6 10 L5.6 10 L3.6 4 L1.8 10 L-1.4 10 L-2.4 4.8 L-6 10 Z",
    details: ["M7.6 -5 L8.2 -3.9 L8.8 -4.8", "M7.8 -1.6 L8.4 -2.6 L9 -1.5", "M-5.4 -3 C-3.6 -0.6 -1 0.4 1.6 -0.6"],
    eyes: [[4.4, -6.8, 0.9]],
  },
  // Ghhhk: a squat four-legged beast, a spiny back and a horn on its snout.
  ghhhk: {
    body: "M-10.6 6.4 C-10.8 0.6 -7.6 -3.8 -2.8 -4.8 L-1.8 -8.2 L-0.4 -5 L1.4 -8.6 L2.6 -5 L4 -7.6 L4.6 -4.6 "
      + "C7 -4.2 8.6 -2.6 9.4 -0.8 L11.4 -4.6 L10.8 1.4 C10.6 3.2 9 4.4 7.6 4.4 L7.6 9.6 L5.2 9.6 L4.6 5.2 "
      + "L-3.8 5.2 L-4.4 9.6 L-6.8 9.6 L-7.2 5.6 C-8.8 6.8 -10.4 7.6 -10.6 6.4 Z",
    details: ["M-6 1.2 C-3 2.6 1 2.6 4 1.2"],
    eyes: [[7.2, -1.6, 0.9]],
  },
  // Houjix: a heavy pear of a creature with a small head and stubby arms.
  houjix: {
    body: "M-6.6 10.4 C-10.6 4.4 -9.6 -3 -4.4 -5.8 C-4 -10.4 3.2 -11.6 4.6 -7 C9.8 -3.8 10.8 4.4 6.6 10.4 Z",
    details: ["M-7.4 1.4 L-10.2 3.6", "M7.8 1.2 L10.8 3.2", "M1.2 -4.8 L4.2 -4.6", "M-3 4 C-1 5.6 2 5.6 4 4"],
    eyes: [[2.2, -7.4, 0.9], [4.8, -7.2, 0.7]],
  },
  // Kintan Strider: tall and thin, two long legs, a crested head on a long neck.
  strider: {
    body: "M-3.4 10.6 L-2.2 2.4 C-6.4 1.6 -7.4 -2.8 -4.4 -4.8 C-1.6 -6.4 1.8 -5 2.8 -7.4 L3.6 -10.8 "
      + "L8.6 -11.4 L6.4 -9.4 L10.4 -8.2 L5.4 -7.2 C4.4 -4 4.6 0 2.4 2.2 L4.6 10.6 L2.8 10.6 L0.6 3.4 "
      + "L-1.4 10.6 Z",
    details: ["M-4.6 -1.6 C-3 -0.4 -1 -0.6 0.6 -1.8"],
    eyes: [[6.2, -8.8, 0.8]],
  },
  // Ng'ok: low and armoured, a plated shell over four short legs, a hooked beak.
  ngok: {
    body: "M-11.2 5.4 C-10.6 -3.4 -4.4 -7.4 2 -6.6 C6.4 -6.2 8.4 -3.4 9.2 -1.2 L11.6 0.2 L9.4 2.2 L8.4 2.4 "
      + "L8.4 8.6 L6 8.6 L5.6 4.6 L1.2 4.6 L0.8 8.6 L-1.6 8.6 L-2 4.6 L-5 4.6 L-5.6 8.6 L-8 8.6 L-8.4 5.4 Z",
    details: ["M-7.6 2.4 C-6.8 -2.6 -3.6 -4.8 0 -5", "M-3.4 4.2 C-3.4 -0.6 -1.4 -3.8 2.4 -4.4",
      "M1.2 4.2 C1.4 0.4 3 -2.4 6 -3"],
    eyes: [[7.4, -2.6, 0.8]],
  },
  // K'lor'slug: a segmented slug rearing up, pincers open.
  klorslug: {
    body: "M-11.4 9 C-11.6 4.6 -6.6 3.4 -2.4 3.4 C0.8 3.4 2 -1.8 3 -5.2 C4 -8.6 7.2 -9 8.4 -6.6 L11.6 -9.2 "
      + "L9.6 -5.4 L11.8 -3.4 L8.4 -3.2 C7.4 0.4 5.4 4.6 4.4 9 Z",
    details: ["M-7.6 4.2 L-7.4 9", "M-3.4 3.6 L-3 9", "M0.6 2.4 L1 9", "M3.4 -2.2 L6.8 -0.8"],
    eyes: [[6, -6, 0.8]],
  },
  // Molator: a massive lowered head with curling horns, thick neck, heavy legs.
  molator: {
    body: "M-10.2 9 L-9.4 0.4 C-9.6 -5 -4.6 -8.2 0.8 -7.2 C2.6 -9.2 3 -10.4 2.2 -12 C6 -11.6 7.6 -8.6 6.4 -6.2 "
      + "C9.4 -5.2 11.6 -2.2 10.6 1.2 L7.4 3 L6.6 9 L4.2 9 L3.8 4.4 L-4 4.4 L-4.6 9 L-7 9 L-7.4 3.8 Z",
    details: ["M3.4 -6.4 C4.6 -7.6 4.8 -9.2 4 -10.2", "M-6 -2.8 C-3.6 -1.2 -0.6 -1.4 2 -3"],
    eyes: [[7.6, -3, 0.9]],
  },
  // Grimtaash: a wolf-like hunter with a ridge of spikes down its back and open jaws.
  grimtaash: {
    body: "M-11.2 7.6 L-9.2 -0.6 L-8.4 -5.6 L-6.2 -2.2 L-5.2 -7.6 L-3 -3.2 L-1.2 -8.6 L0.8 -3.4 L3 -7.6 "
      + "C7 -7.6 10 -4.8 11.4 -1.6 L8 -0.6 L11.4 1.6 L7.2 3 L7.2 8.6 L4.8 8.6 L4.4 4.4 L-4 4.4 L-4.6 8.6 "
      + "L-7 8.6 L-7.4 4.6 Z",
    details: ["M-6.8 1.4 C-3.6 2.6 0.4 2.4 3.6 1"],
    eyes: [[6.4, -4.4, 0.9]],
  },
  // The chess analogue and Courtier.
  king: {
    body: "M-7.6 10 L7.6 10 L6.6 6.6 L-6.6 6.6 Z M-6.4 5.4 L-8.6 -3.2 L-4.2 0 L0 -5.4 L4.2 0 L8.6 -3.2 L6.4 5.4 Z "
      + "M-1.1 -11.6 H1.1 V-9.6 H3 V-7.6 H1.1 V-5.6 H-1.1 V-7.6 H-3 V-9.6 H-1.1 Z",
    details: ["M-5.2 3 H5.2"],
    eyes: [[0, 1.6, 1.1]],
  },
  queen: {
    body: "M-7.6 10 L7.6 10 L6.6 6.6 L-6.6 6.6 Z M-6.4 5.4 L-9.4 -4 L-4.4 -0.4 L0 -7.2 L4.4 -0.4 L9.4 -4 L6.4 5.4 Z "
      + "M-9.4 -7.6 a1.9 1.9 0 1 0 0.01 0 Z M0 -11.6 a1.9 1.9 0 1 0 0.01 0 Z M9.4 -7.6 a1.9 1.9 0 1 0 0.01 0 Z",
    details: ["M-5.2 3 H5.2"],
    eyes: [[0, 1.4, 1.1]],
  },
  knight: {
    body: "M-6.8 10.6 L7.4 10.6 L6.4 7.2 C8.6 2 7.6 -4.6 3.4 -8.2 L2.4 -11.6 L0.2 -8.6 C-3.4 -8.4 -6.6 -5 -8.6 -1.2 "
      + "L-9.4 2 L-7.4 3.2 L-4 1.2 C-1.8 2.4 -1.4 4 -3.6 7.2 L-5.8 7.2 Z",
    details: ["M2.4 -6.6 C5 -4 5.6 0.4 4.4 4.6"],
    eyes: [[-2.4, -4.6, 0.9]],
  },
  pawn: {
    body: "M-7.4 10.4 L7.4 10.4 L6.4 7 L3 5.8 C4.2 3.2 4 0.2 2.2 -1 A4.6 4.6 0 1 0 -2.2 -1 C-4 0.2 -4.2 3.2 -3 5.8 "
      + "L-6.4 7 Z",
    details: ["M-3.6 -0.8 H3.6"],
    eyes: [],
  },
  guard: {
    body: "M0 -10.4 L8 -7 C8 2.2 4.6 7.6 0 10.8 C-4.6 7.6 -8 2.2 -8 -7 Z",
    details: ["M-4.8 -2.6 L0 1.2 L4.8 -2.6", "M-4.8 2 L0 5.8 L4.8 2"],
    eyes: [[0, -5, 1.2]],
  },
};

export function hasArt(kind) {
  return Object.prototype.hasOwnProperty.call(FIGURES, kind);
}

// The <symbol> of one figure, as markup (also used by the server-free rules diagrams).
export function symbolMarkup(kind) {
  const figure = FIGURES[kind];
  const details = figure.details.map((d) => `<path d="${d}" fill="none" stroke-linecap="round"/>`).join("");
  const eyes = figure.eyes.map(([x, y, r]) => `<circle cx="${x}" cy="${y}" r="${r}" fill="currentColor" stroke="none"/>`).join("");
  return `<symbol id="art-${kind}" viewBox="-12.5 -12.5 25 25"><path d="${figure.body}" stroke-linejoin="round"/>${details}${eyes}</symbol>`;
}

// Put every figure into the page once, in a hidden <svg>; later calls do nothing.
export function installArt(doc = document) {
  if (doc.getElementById("dejarik-art")) return;
  const holder = doc.createElementNS(SVG, "svg");
  holder.setAttribute("id", "dejarik-art");
  holder.setAttribute("aria-hidden", "true");
  holder.setAttribute("style", "position:absolute;width:0;height:0;overflow:hidden");
  holder.innerHTML = Object.keys(FIGURES).map(symbolMarkup).join("");
  doc.body.prepend(holder);
}

// A <use> of the figure of `kind`, `size` units across, centred on 0.
export function figureUse(kind, size) {
  installArt();
  const use = document.createElementNS(SVG, "use");
  use.setAttribute("href", `#art-${kind}`);
  use.setAttribute("x", String(-size / 2));
  use.setAttribute("y", String(-size / 2));
  use.setAttribute("width", String(size));
  use.setAttribute("height", String(size));
  use.setAttribute("class", "figure");
  use.setAttribute("data-figure", kind);
  return use;
}

// A small standalone picture of the figure of `kind` (legends, rules pages, tutorial).
export function figureIcon(kind, className = "figure-icon") {
  installArt();
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "-12.5 -12.5 25 25");
  svg.setAttribute("class", className);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const use = document.createElementNS(SVG, "use");
  use.setAttribute("href", `#art-${kind}`);
  for (const [key, value] of Object.entries({ x: -12.5, y: -12.5, width: 25, height: 25 })) use.setAttribute(key, String(value));
  svg.appendChild(use);
  return svg;
}
