// The replay viewer: any version of a match as a spectator saw it, drawn by the
// same renderers as the match page, stepped through by buttons, arrow keys or a
// timer. State, network, rendering and input are kept apart below; each version
// comes from GET /api/v1/matches/{id}/at/{version} (rebuilt from the log by the server).

import { showRolls } from "./dice.js";
import { describeEntry } from "./log.js";
import { rendererFor } from "./renderers.js";
import { createStore, humanise, pieceName, rememberNames, seatLabel } from "./state.js";
import { attachVerifyPanel } from "./verify.js";

const NO_ACTIONS = { board: new Map(), reserve: new Map(), buttons: [] };
// Drawn, not typed: the media symbols (⏵ ⏸) are missing from many system fonts.
const ICON = '<svg class="icon" viewBox="0 0 10 10" width="12" height="12" style="vertical-align:-1px" aria-hidden="true" focusable="false">';
const PLAY_ICON = `${ICON}<path d="M2 1 9 5 2 9z" fill="currentColor"/></svg> `;
const PAUSE_ICON = `${ICON}<path d="M2 1h2v8H2zM6 1h2v8H6z" fill="currentColor"/></svg> `;
const root = document.getElementById("replay");
const matchId = root.dataset.matchId;
const $ = (selector) => root.querySelector(selector);
const parts = {
  board: $("#board"), turn: $("#turn"), position: $("#position"), banner: $("#banner"), error: $("#error"),
  dice: $("#dice-tray"), odds: $("#odds"), log: $("#log"), play: $("[data-play]"), scrub: $("[data-scrub]"),
  link: $("[data-link]"), speed: $("[data-speed]"), hidden: $("#hidden-then"),
};

// --- state --------------------------------------------------------------------

const store = createStore({ connection: "live" });
const replay = {
  version: null,            // the version shown
  wanted: null,             // the version last asked for (shown once it arrives)
  latest: Number(root.dataset.latest),
  playing: false,
  speed: Number(parts.speed.value),
  timer: 0,
  views: new Map(),         // version -> the view at that version
};

// --- network ------------------------------------------------------------------

async function viewAt(version) {
  if (!replay.views.has(version)) {
    const response = await fetch(`/api/v1/matches/${encodeURIComponent(matchId)}/at/${version}?log=false`);
    if (!response.ok) throw new Error((await response.json()).detail || `the server answered ${response.status}`);
    replay.views.set(version, await response.json());
  }
  return replay.views.get(version);
}

async function wholeLog(entries = []) {
  for (;;) {
    const response = await fetch(`/api/v1/matches/${encodeURIComponent(matchId)}/events?after=${entries.length}`);
    if (!response.ok) return entries;
    const { events } = await response.json();
    if (!events.length) return entries;
    entries.push(...events);
  }
}

// --- rendering ----------------------------------------------------------------

let renderer = null, rendererKind = null, logBuilt = 0;

function text(node, value) {
  if (node.textContent !== value) node.textContent = value;
}

function turnWords(view) {
  if (view.status === "waiting") return "Waiting for players to sit down.";
  if (view.status === "finished") return "The match is over.";
  if (view.paused) return "Paused by the game master.";
  const acting = (view.to_act || []).map((s) => seatLabel(view, s)).join(" and ");
  const deciding = (view.state || {}).gm_decision;  // nobody acts while the GM decides
  return acting ? `${acting} to act.` : deciding ? `${deciding}.` : "";
}

function resultWords(result, view) {
  if (!result) return "";
  const who = result.winner === null || result.winner === undefined ? "Draw" : `${seatLabel(view, result.winner)} won`;
  return `${who} (${result.reason})`;
}

// Both odds shapes: {outcomes: [{key, probability, exact, text}]} and {kill: p, …, exact: {kill: "1/6"}}.
function oddsRows(odds) {
  if (Array.isArray(odds.outcomes)) return odds.outcomes.map((o) => ({ key: o.key, p: o.probability, exact: o.exact, words: o.text || humanise(o.key) }));
  return Object.entries(odds).filter(([, p]) => typeof p === "number")
    .map(([key, p]) => ({ key, p, exact: odds.exact ? odds.exact[key] : String(p), words: humanise(key) }));
}

function renderOdds(entry) {
  const action = entry && entry.action;
  parts.odds.innerHTML = "";
  parts.odds.hidden = !(action && action.odds);
  if (parts.odds.hidden) return;
  const title = document.createElement("p");
  title.textContent = `Odds as declared, when ${pieceName(store, action.piece)} attacked ${pieceName(store, action.target)}:`;
  const list = document.createElement("ul");
  for (const row of oddsRows(action.odds)) {
    const item = document.createElement("li");
    item.dataset.oddsOutcome = row.key;
    const percent = Math.round(row.p * 1000) / 10;
    item.innerHTML = `<span class="odds-name"></span><span class="bar" style="--p:${percent}%"></span><span class="odds-value"></span>`;
    item.children[0].textContent = row.words;
    item.children[2].textContent = `${percent}% (${row.exact})`;
    list.appendChild(item);
  }
  parts.odds.append(title, list);
}

function renderDice(entry) {
  const events = (entry && entry.events) || [];
  if (!events.some((e) => e.type === "roll")) {
    parts.dice.dataset.state = "empty";
    parts.dice.innerHTML = '<p class="hint">No dice in this step.</p>';
    return;
  }
  showRolls(parts.dice, store, events, () => {});
}

function renderLog() {
  if (logBuilt !== store.entries.length) {
    parts.log.innerHTML = "";
    for (const entry of store.entries) {
      const item = document.createElement("li");
      item.dataset.version = entry.version;
      item.value = entry.version;
      item.tabIndex = -1;
      for (const line of describeEntry(store, entry)) {
        const div = document.createElement("div");
        div.textContent = line;
        item.appendChild(div);
      }
      parts.log.appendChild(item);
    }
    logBuilt = store.entries.length;
  }
  for (const item of parts.log.children) {
    const v = Number(item.dataset.version);
    if (v === replay.version) item.setAttribute("aria-current", "step");
    else item.removeAttribute("aria-current");
    item.dataset.after = String(v > replay.version);
  }
  // The current step in view within the log, never scrolling the page away from the board.
  const current = parts.log.querySelector("[aria-current]");
  if (current) {
    const box = current.getBoundingClientRect(), frame = parts.log.getBoundingClientRect();
    if (box.top < frame.top || box.bottom > frame.bottom) parts.log.scrollTop += box.top - frame.top - (frame.height - box.height) / 2;
  }
}

function render() {
  const view = store.view;
  if (!view) return;
  const kind = (view.state && view.state.kind) || "none";
  if (kind !== rendererKind) {
    renderer = rendererFor(kind)(parts.board);
    rendererKind = kind;
    root.dataset.kind = kind;
  }
  renderer.update(store, NO_ACTIONS, new Map());
  const entry = store.entries.find((e) => e.version === replay.version);
  text(parts.turn, turnWords(view));
  text(parts.position, `Step ${replay.version} of ${replay.latest}`);
  const over = resultWords(view.result, view);
  text(parts.banner, over);
  parts.banner.hidden = !over;
  renderOdds(entry);
  renderDice(entry);
  // What nobody else could see at the time, shown once the match is over.
  const secrets = view.hidden || [];
  text(parts.hidden, secrets.length ? `Hidden at the time: ${secrets.map((s) => `${seatLabel(view, s.seat)} had chosen ${JSON.stringify(s.chosen)}`).join("; ")}` : "");
  parts.hidden.hidden = !secrets.length;
  renderLog();
  const playWords = replay.playing ? "Pause" : "Play";
  if (parts.play.textContent.trim() !== playWords) parts.play.innerHTML = `${replay.playing ? PAUSE_ICON : PLAY_ICON}${playWords}`;
  parts.play.setAttribute("aria-label", playWords);
  parts.scrub.max = String(replay.latest);
  parts.scrub.value = String(replay.version);
  parts.link.href = `?v=${replay.version}`;
  root.dataset.version = String(replay.version);
  text(parts.error, store.error || "");
  parts.error.hidden = !store.error;
  fitBoard();
}

// The board as large as the room left under it in the window (CSS reads --board-room),
// as on the match page: the whole position shows without scrolling.
function fitBoard() {
  const svg = parts.board.querySelector("svg.board");
  if (!svg) return;
  const top = svg.getBoundingClientRect().top + window.scrollY;
  const room = `${Math.max(240, Math.floor(window.innerHeight - top - 8))}px`;
  if (root.style.getPropertyValue("--board-room") !== room) root.style.setProperty("--board-room", room);
}

store.subscribe(render);
window.addEventListener("resize", render);

// --- moving through the match -------------------------------------------------

let asked = 0;  // only the newest request is shown, whatever order the answers come in

async function show(version) {
  const target = Math.max(0, Math.min(replay.latest, version));
  const ticket = ++asked;
  replay.wanted = target;  // quick presses step on from here, not from what is still shown
  try {
    const view = await viewAt(target);
    if (ticket !== asked) return;
    replay.version = target;
    rememberNames(store, view);
    history.replaceState(null, "", `?v=${target}`);
    store.update({ view, error: null });
  } catch (error) {
    if (ticket === asked) replay.wanted = replay.version;
    store.update({ error: `Could not load version ${target}: ${error.message}` });
  }
}

function pause() {
  clearTimeout(replay.timer);
  replay.playing = false;
  store.update({});
}

// One step per tick, the next tick only once this step is shown.
async function tick() {
  if (!replay.playing) return;
  if (replay.version >= replay.latest) { pause(); return; }
  await show(replay.version + 1);
  if (replay.playing) replay.timer = setTimeout(tick, replay.speed);
}

async function play() {
  clearTimeout(replay.timer);
  replay.playing = true;
  store.update({});
  if (replay.version >= replay.latest) await show(0);
  replay.timer = setTimeout(tick, replay.speed);
}

// A running match moves on: at its end, look for versions played since.
async function caughtUp() {
  if (root.dataset.status === "finished") return;
  const response = await fetch(`/api/v1/matches/${encodeURIComponent(matchId)}`);
  if (!response.ok) return;
  const now = await response.json();
  if (now.version > replay.latest) {
    replay.latest = now.version;
    store.entries = await wholeLog(store.entries.slice());
  }
  root.dataset.status = now.status;
}

const steps = {
  first: () => show(0),
  back: () => show(replay.wanted - 1),
  forward: async () => {
    if (replay.wanted >= replay.latest) await caughtUp();
    return show(replay.wanted + 1);
  },
  last: async () => { await caughtUp(); return show(replay.latest); },
};

// --- input --------------------------------------------------------------------

root.addEventListener("click", (event) => {
  const step = event.target.closest("[data-step]");
  if (step) { pause(); steps[step.dataset.step](); return; }
  if (event.target.closest("[data-play]")) { if (replay.playing) pause(); else play(); return; }
  const item = event.target.closest("#log li[data-version]");
  if (item) { pause(); show(Number(item.dataset.version)); }
});
parts.scrub.addEventListener("input", () => { pause(); show(Number(parts.scrub.value)); });
parts.speed.addEventListener("change", () => {
  replay.speed = Number(parts.speed.value);
  if (replay.playing) play();
});
document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, select, textarea")) return;
  const keys = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last" };
  if (keys[event.key]) { event.preventDefault(); pause(); steps[keys[event.key]](); }
  else if (event.key === " " && !event.target.closest("button")) {
    event.preventDefault();
    if (replay.playing) pause(); else play();
  }
});

const verifyPanel = document.getElementById("verify-dice");
if (verifyPanel) attachVerifyPanel(verifyPanel, matchId);

// --- start --------------------------------------------------------------------

(async () => {
  store.entries = await wholeLog();
  await show(Number(root.dataset.start));
})();

// For tests.
window.__dejarik = { store, replay, show };
