// Learning on the match page: a "How to play" drawer with the ruleset's rules (the
// rules page's own text, fetched when first opened), the sound switch, and short
// first-time hints that say what to click now. The hints can be dismissed; that is
// remembered in localStorage.

import { soundToggle } from "./sound.js";
import { waitsForGm } from "./gm-words.js";
import { classifyActions } from "./state.js";

const HINTS_KEY = "dejarik-hints";

function hintsWanted() {
  try { return localStorage.getItem(HINTS_KEY) !== "off"; } catch { return true; }
}

// What to click now, in a few words; null when there is nothing to say.
export function hintFor(store) {
  const view = store.view;
  if (!view) return null;
  const you = view.you || {};
  if (view.status === "waiting") {
    if (you.seat === null || you.seat === undefined) return null;
    return waitsForGm(view) ? "Nothing to do yet: once the game master starts the match, your moves show here."
      : "Waiting for your opponent: send them the invite link below.";
  }
  if (view.status !== "active" || you.seat === null || you.seat === undefined) return null;
  if (!(view.to_act || []).length && (view.state || {}).gm_decision) return "The game master decides; play goes on once they have.";
  if (!(view.to_act || []).includes(you.seat)) return "Your opponent is thinking. Their moves appear on the board and in “What happened”.";
  const state = view.state || {};
  const classified = classifyActions(view);
  if (state.push && state.push.chooser === you.seat) return "You won the exchange: click a lit space to choose where the loser goes.";
  if (store.selected) return "Now click a lit space: an empty one to move there, an enemy to attack it (the odds show first).";
  if (classified.board.size) return "Your turn: click one of your outlined pieces to see where it can go.";
  if (classified.reserve.size) return "Your turn: choose a piece from your tray, then a lit space.";
  if (classified.buttons.length) return "Your turn: choose one of the buttons beside the board.";
  return null;
}

async function loadGuide(rulesetId, body) {
  body.textContent = "Loading the rules…";
  try {
    const response = await fetch(`/rules/${encodeURIComponent(rulesetId)}/guide`);
    if (!response.ok) throw new Error(String(response.status));
    body.innerHTML = await response.text();
    const more = document.createElement("p");
    more.innerHTML = `<a href="/rules/${encodeURIComponent(rulesetId)}">The full rules page, with diagrams</a>`;
    body.appendChild(more);
  } catch {
    body.textContent = "The rules could not be loaded; try again later.";
    body.dataset.loaded = "";
  }
}

export function attachLearning(root, store) {
  const side = root.querySelector(".side") || root;
  const drawer = document.createElement("details");
  drawer.className = "card howto";
  drawer.innerHTML = '<summary>How to play</summary><div class="howto-tools"></div><div class="howto-body guide"></div>';
  drawer.querySelector(".howto-tools").appendChild(soundToggle());
  side.prepend(drawer);
  const body = drawer.querySelector(".howto-body");
  drawer.addEventListener("toggle", () => {
    if (drawer.open && !body.dataset.loaded && store.view) {
      body.dataset.loaded = "yes";
      loadGuide(store.view.ruleset, body);
    }
  });

  const bar = document.createElement("div");
  bar.className = "hint-bar";
  bar.hidden = true;
  bar.innerHTML = '<p class="hint-text" role="status"></p><button type="button" class="small" data-hints-off>Hide hints</button>';
  // Under the board: the hint says what to click there, and its button comes after
  // the board's pieces in the focus order (a keyboard player reaches them first).
  const board = root.querySelector("#board");
  if (board) board.after(bar); else root.prepend(bar);
  const words = bar.querySelector(".hint-text");
  bar.querySelector("[data-hints-off]").addEventListener("click", () => {
    try { localStorage.setItem(HINTS_KEY, "off"); } catch { /* not remembered */ }
    bar.hidden = true;
  });

  let shown = null;
  store.subscribe(() => {
    const hint = hintsWanted() ? hintFor(store) : null;
    if (hint === shown) return;
    shown = hint;
    bar.hidden = !hint;
    if (hint) words.textContent = hint;
  });
}
