// Animation of what just happened on the board, after the board already shows the
// result: a move slides along its path, an attack lunges at its target and back, a
// push shoves the loser (after the dice have settled), and a piece that leaves the
// board fades out where it stood. Everything is skipped under prefers-reduced-motion.
// Reads only the events of live log entries and the positions of the previous update.

import { spaceCentre } from "./renderers/board-draw.js";
import { playSounds } from "./sound.js";

const STEP_MS = 170;          // one space of a slide
const LUNGE_MS = 420;
const SHOVE_MS = 380;
const FADE_MS = 650;
const AFTER_DICE_MS = 760;    // the dice tray tumbles 700 ms before showing the result

// How long a step of the match stays on screen before a bot's next step is drawn
// (match.js, net.js): its dice tumble, settle and are read, its pieces arrive and are
// seen where they stand. Without motion, nothing moves: a moment to read what changed.
const STILL_HOLD_MS = 600;
const MOVE_HOLD_MS = 1100;
const DICE_HOLD_MS = AFTER_DICE_MS + FADE_MS + 700;

export function stepHoldMs(entries) {
  const events = (entries || []).flatMap((entry) => entry.events || []);
  if (reducedMotion() || !events.length) return STILL_HOLD_MS;
  if (events.some((e) => e.type === "roll")) return DICE_HOLD_MS;
  if (events.some((e) => ["move", "attack", "push", "place"].includes(e.type))) return MOVE_HOLD_MS;
  return STILL_HOLD_MS;
}

export function reducedMotion() {
  return Boolean(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

const isSpace = (s) => typeof s === "string" && /^(C|[AB]([1-9]|1[0-2]))$/.test(s);

export function createMotion(holder) {
  let lastVersion = null;
  let positions = new Map();  // piece id -> space, as of the previous update
  const ghosts = [];          // pieces the board just removed, waiting to fade

  // The board asks before removing a piece; while animating, we take it and fade it.
  holder.addEventListener("dejarik:retire", (event) => {
    if (reducedMotion()) return;
    event.preventDefault();
    const g = event.detail;
    g.setAttribute("data-retired", g.getAttribute("data-piece"));  // an attacker killed may still lunge
    g.removeAttribute("data-piece");
    g.removeAttribute("tabindex");
    g.removeAttribute("role");
    g.setAttribute("aria-hidden", "true");
    g.setAttribute("data-retiring", "");
    ghosts.push(g);
  });

  // A piece on its way is watched, not clicked: while it slides, lunges or is shoved, a
  // click where it passes reaches the space beneath, the one the player aimed at.
  const inFlight = new WeakMap();  // piece -> its animations still running
  function animatePiece(g, frames, options) {
    inFlight.set(g, (inFlight.get(g) || 0) + 1);
    g.style.pointerEvents = "none";
    g.setAttribute("data-in-flight", "");  // its tap area too (style.css: .reach)
    const landed = () => {
      inFlight.set(g, inFlight.get(g) - 1);
      if (!inFlight.get(g)) { g.style.pointerEvents = ""; g.removeAttribute("data-in-flight"); }
    };
    g.animate(frames, options).finished.then(landed, landed);
  }

  const board = () => holder.querySelector("svg.board[data-bottom-seat]");
  const at = (space, seat) => {
    const [x, y] = spaceCentre(space, seat);
    return `translate(${x.toFixed(2)}px, ${y.toFixed(2)}px)`;
  };
  const between = (a, b, seat, share) => {
    const [x0, y0] = spaceCentre(a, seat), [x1, y1] = spaceCentre(b, seat);
    return `translate(${(x0 + (x1 - x0) * share).toFixed(2)}px, ${(y0 + (y1 - y0) * share).toFixed(2)}px)`;
  };

  // The events of live entries past the version last shown. The first view shown is the
  // starting point, whether or not the log's history has arrived yet: a move made right
  // after the page opened still slides.
  function freshEvents(store) {
    if (lastVersion === null) { lastVersion = store.view.version; return []; }
    const fresh = [];
    for (let i = store.entries.length - 1; i >= 0; i--) {
      const entry = store.entries[i];
      if (entry.version <= lastVersion) break;
      if (entry.live) fresh.unshift(...(entry.events || []));
    }
    lastVersion = Math.max(lastVersion, store.view.version);
    return fresh;
  }

  function play(store) {
    const view = store.view;
    const events = freshEvents(store);
    const svg = board();
    const before = positions;
    positions = new Map(((view.state && view.state.pieces) || []).filter((p) => p.at).map((p) => [p.id, p.at]));
    const rolled = events.some((e) => e.type === "roll");
    const fading = ghosts.splice(0);
    if (events.length) playSounds(events);
    if (!svg || reducedMotion()) { for (const g of fading) g.remove(); return; }
    const seat = Number(svg.getAttribute("data-bottom-seat"));
    const piece = (id) => svg.querySelector(`[data-piece="${CSS.escape(String(id))}"]`)
      || fading.find((g) => g.getAttribute("data-retired") === String(id)) || null;
    for (const event of events) {
      const g = event.piece !== undefined ? piece(event.piece) : null;
      if (event.type === "move" && g && isSpace(event.from) && isSpace(event.to)) {
        const path = (event.path || [event.to]).filter((s, i) => isSpace(s) && !(i === 0 && s === event.from));
        const frames = [event.from, ...path].map((s) => ({ transform: at(s, seat) }));
        frames[frames.length - 1] = { transform: g.style.transform };
        animatePiece(g, frames, { id: "slide", duration: STEP_MS * (frames.length - 1), easing: "ease-in-out" });
      } else if (event.type === "attack" && g && before.has(event.piece) && before.has(event.target)) {
        const from = before.get(event.piece), target = before.get(event.target);
        animatePiece(g, [
          { transform: at(from, seat) }, { transform: between(from, target, seat, 0.42), offset: 0.45 }, { transform: at(from, seat) },
        ], { id: "lunge", duration: LUNGE_MS, easing: "ease-out" });
      } else if (event.type === "push" && g && isSpace(event.from) && isSpace(event.to)) {
        animatePiece(g, [{ transform: at(event.from, seat) }, { transform: g.style.transform }], {
          id: "shove", duration: SHOVE_MS, delay: rolled ? AFTER_DICE_MS : 0, fill: "backwards", easing: "cubic-bezier(0.2, 1.5, 0.45, 1)",
        });
      }
    }
    for (const g of fading) {
      const still = g.style.transform;
      g.animate([{ opacity: 1, transform: still }, { opacity: 0, transform: `${still} scale(0.55)` }], {
        id: "fade", duration: FADE_MS, delay: rolled ? AFTER_DICE_MS : 0, fill: "forwards", easing: "ease-in",
      }).finished.then(() => g.remove(), () => g.remove());
    }
  }

  return { play };
}
