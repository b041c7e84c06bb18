// The table view: a big screen at the physical table. Follows the match live over
// the websocket as a spectator (reconnecting by itself), draws the board or the piles
// large with the latest roll, and offers no controls at all.

import { showRolls } from "./dice.js";
import { createSpeaker } from "./announce.js";
import { describeEntry } from "./log.js";
import { waitingWords } from "./gm-words.js";
import { followMatch } from "./net.js";
import { rendererFor } from "./renderers.js";
import { stepWords } from "./renderers/eote.js";
import { countsActions, createStore, latestRolls, rememberNames, seatLabel } from "./state.js";

const LOG_LINES = 6;
const NO_ACTIONS = { board: new Map(), reserve: new Map(), buttons: [] };

const root = document.getElementById("tv");
const matchId = root.dataset.matchId;
const parts = {
  board: document.getElementById("tv-board"),
  turn: document.getElementById("tv-turn"),
  join: document.getElementById("tv-join"),
  connection: document.getElementById("tv-connection"),
  banner: document.getElementById("tv-banner"),
  roll: document.getElementById("tv-roll"),
  log: document.getElementById("tv-log"),
  announce: document.getElementById("tv-announce"),
};
const store = createStore();
let renderer = null, rendererKind = null, frame = 0, shownRolls = null, logKey = "";

function text(node, value) {
  if (node.textContent !== value) node.textContent = value;
}

const speaker = createSpeaker(parts.announce);

// The dice the big screen shows: a deal's shuffles stay in the log (their many one-die
// draws would take the board's room).
function shownDice(events) {
  return events.filter((event) => event.type !== "roll" || !event.shuffled);
}

function render() {
  frame = 0;
  const view = store.view;
  renderConnection();
  if (!view) return;
  const kind = (view.state && view.state.kind) || "none";
  if (kind !== rendererKind) {
    renderer = rendererFor(kind)(parts.board, { table: true });
    rendererKind = kind;
    root.dataset.kind = kind;
  }
  renderer.update(store, NO_ACTIONS, new Map());
  // No controls: nothing on the table can be focused or pressed.
  for (const node of parts.board.querySelectorAll("[tabindex], [role='button']")) {
    node.removeAttribute("tabindex");
    if (node.getAttribute("role") === "button") node.setAttribute("role", "img");
  }
  renderTurn(view);
  renderJoin(view);
  renderLog();
  renderRoll();
  fitScreen();
  root.dataset.version = String(view.version);
}

// A TV cannot scroll. The board takes all the height under its top (and the width
// of its column); the side column clips its log's oldest lines rather than make the
// page taller (table.css). While the page is still taller than the screen (a long
// draft, eote's sheets), every size shrinks together (they follow the root font size).
function fitScreen() {
  const page = document.documentElement;
  const svg = parts.board.querySelector("svg.board");
  page.style.fontSize = "";
  for (let i = 0; i < 16; i++) {
    if (svg) {
      const below = parts.board.getBoundingClientRect().bottom - svg.getBoundingClientRect().bottom;
      const padding = parseFloat(getComputedStyle(root).paddingBottom);
      const room = window.innerHeight - svg.getBoundingClientRect().top - Math.max(0, below) - padding;
      root.style.setProperty("--board-room", `${Math.max(120, Math.floor(room))}px`);
    }
    if (page.scrollHeight <= window.innerHeight) break;
    const size = parseFloat(getComputedStyle(page).fontSize);
    page.style.fontSize = `${(size * Math.min(0.95, Math.max(0.6, window.innerHeight / page.scrollHeight))).toFixed(2)}px`;
  }
  fitSide();
}

// The side column's words and dice shrink together (table.css sizes them in em), a
// little, so that the newest lines of the log show whole; an older line the card's top
// would cut in half is hidden instead.
const WHOLE_LINES = 3;
function fitSide() {
  const side = root.querySelector(".tv-side");
  const items = [...parts.log.children];
  const top = () => parts.log.getBoundingClientRect().top - 1;
  const fits = () => items.slice(-WHOLE_LINES).every((item) => item.getBoundingClientRect().top >= top());
  side.style.fontSize = "";
  // At most to 0.72: the dice are what the table looks at, and stay large.
  for (let step = 1; step <= 4 && !fits(); step++) side.style.fontSize = `${(0.92 ** step).toFixed(3)}em`;
  for (const item of items) item.style.visibility = item.getBoundingClientRect().top < top() ? "hidden" : "";
}
window.addEventListener("resize", schedule);

function schedule() {
  if (!frame) frame = requestAnimationFrame(render);
}
store.subscribe(schedule);

function renderConnection() {
  const states = {
    connecting: "Connecting…", live: "Live", offline: "Connection lost: retrying…",
    reconnecting: "Reconnecting…", closed: "Disconnected",
  };
  text(parts.connection, states[store.connection] || store.connection);
  parts.connection.dataset.connection = store.connection;
}

function renderTurn(view) {
  const state = view.state || {};
  let turn;
  if (view.status === "waiting") turn = waitingWords(view, { table: true });
  else if (view.status === "finished") turn = "The match is over.";
  else if (view.paused) turn = "Paused.";
  else if (state.kind === "eote") turn = stepWords(view).filter(Boolean).join(": ");
  else {
    turn = `${(view.to_act || []).map((s) => seatLabel(view, s)).join(" and ")} to act.`;
    if (countsActions(state) && !state.push) {
      turn += ` ${state.actions_left} action${state.actions_left === 1 ? "" : "s"} left.`;
    }
  }
  text(parts.turn, turn);
  const result = view.result;
  let banner = null, outcome = null;
  if (view.status === "finished" && result) {
    const winner = result.winner === null || result.winner === undefined ? null : result.winner;
    banner = `${winner === null ? "Draw" : `${seatLabel(view, winner)} won`} (${result.reason})`;
    outcome = winner === null ? "draw" : "over";
  } else if (view.paused && view.status === "active") {
    banner = "Paused by the game master";
    outcome = "paused";
  }
  parts.banner.hidden = !banner;
  if (banner) {
    text(parts.banner, banner);
    parts.banner.dataset.outcome = outcome;
  }
}

// The QR code of the first open seat's invite, while the match has one to fill.
function renderJoin(view) {
  const open = view.status === "finished" ? null : (view.seats || []).find((s) => !s.player && !s.npc);
  for (const invite of parts.join.querySelectorAll("[data-invite-seat]")) {
    invite.hidden = !open || invite.dataset.inviteSeat !== String(open.seat);
  }
  parts.join.hidden = !open;
}

function renderLog() {
  const recent = store.entries.slice(-LOG_LINES);
  const key = recent.map((e) => e.version).join(",");
  if (key === logKey) return;
  logKey = key;
  parts.log.innerHTML = "";
  for (const entry of recent) {
    const item = document.createElement("li");
    item.dataset.version = entry.version;
    const words = document.createElement("span");  // at most four lines on the TV (table.css)
    words.textContent = describeEntry(store, entry).join(". ");
    item.appendChild(words);
    parts.log.appendChild(item);
  }
}

function renderRoll() {
  const rolls = store.rolls;
  if (!rolls || rolls === shownRolls) return;
  shownRolls = rolls;
  const events = shownDice(rolls.events);
  if (!events.length) return;
  showRolls(parts.roll, store, events, () => {
    fitScreen();  // the settled dice may take other room than the tumbling ones
    speaker.diceSettled();
  });
}

// --- the match over the websocket --------------------------------------------------

function merge(entries) {
  const known = new Set(store.entries.map((e) => e.version));
  const fresh = entries.filter((e) => !known.has(e.version));
  const all = [...store.entries, ...fresh].sort((a, b) => a.version - b.version);
  return { all, fresh };
}

function applyView(message, entries, live) {
  // The server's spectator projection (the page and the socket both ask for it):
  // no seat, no actions, no setter's hidden choice.
  const { type, missed, events, entries: _entries, ...view } = message;
  rememberNames(store, view);
  const { all, fresh } = merge(entries);
  const patch = { view, entries: all };
  const rolls = live ? latestRolls(fresh, true) : null;
  if (rolls) patch.rolls = rolls;
  if (live) {
    // Spoken as the players' pages speak, once the dice shown here stop tumbling.
    const diceComing = Boolean(rolls) && shownDice(rolls.events).length > 0;
    speaker.hear({ ...store, view }, fresh, diceComing);
  }
  store.update(patch);
}

async function loadHistory() {
  try {
    const response = await fetch(`/api/v1/matches/${encodeURIComponent(matchId)}/events?after=0`);
    if (!response.ok) return;
    const { events } = await response.json();
    const { all } = merge(events);
    const patch = { entries: all };
    if (!store.rolls) {
      const rolls = latestRolls(all, false);
      if (rolls) patch.rolls = rolls;
    }
    store.update(patch);
  } catch { /* the live updates still come */ }
}

let historyLoaded = false;
const net = followMatch(matchId, store, {
  applyView,
  onSnapshot: () => { if (!historyLoaded) { historyLoaded = true; loadHistory(); } },
  spectator: true, // the TV never shows a seat's private view, whoever is signed in
});

// For tests.
window.__dejarik = { store, net };
