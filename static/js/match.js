// The match page: wires the store, the network, the renderer and the input together.

import { attachGm } from "./gm.js";
import { attachInput } from "./input.js";
import { followMatch } from "./net.js";
import { createRenderer } from "./render.js";
import { classifyActions, createStore, rememberNames } from "./state.js";

const root = document.getElementById("match");
const matchId = root.dataset.matchId;
const store = createStore();
const renderer = createRenderer(root, store);
store.subscribe(() => renderer.schedule());

function mergeEntries(entries, live) {
  const known = new Set(store.entries.map((e) => e.version));
  const fresh = entries.filter((e) => !known.has(e.version)).map((e) => ({ ...e, live }));
  if (!fresh.length) return { entries: store.entries, fresh };
  const all = [...store.entries, ...fresh].sort((a, b) => a.version - b.version);
  return { entries: all, fresh };
}

function rollsOf(entries) {
  const events = entries.flatMap((e) => e.events || []);
  if (!events.some((e) => e.type === "roll")) return null;
  return { version: entries[entries.length - 1].version, events };
}

// Keep a selection that still has actions; pick the piece when it is the only one
// that can act (a push: where the loser goes is then the whole decision).
function selectionFor(view) {
  const classified = classifyActions(view);
  if (store.selected && (classified.board.has(store.selected) || classified.reserve.has(store.selected))) {
    return store.selected;
  }
  const only = [...classified.board.keys(), ...classified.reserve.keys()];
  return only.length === 1 ? only[0] : null;
}

function applyView(message, newEntries, live) {
  const { type, missed, events, entries, ...view } = message;
  rememberNames(store, view);
  const merged = mergeEntries(newEntries, live);
  const rolls = live ? rollsOf(merged.fresh) : null;
  const patch = { view, entries: merged.entries, busy: false, menu: null, confirm: null };
  patch.selected = selectionFor(view);
  if (rolls) patch.rolls = rolls;
  const undone = merged.fresh.flatMap((e) => e.events || []).filter((e) => e.type === "undone");
  if (undone.length) patch.undone = [...store.undone, ...undone.map((e) => e.version)];
  store.update(patch);
}

let historyLoaded = false;
async function loadHistory() {
  if (historyLoaded) return;
  historyLoaded = true;
  try {
    const response = await fetch(`/api/v1/matches/${encodeURIComponent(matchId)}/events?after=0`);
    if (!response.ok) return;
    const { events } = await response.json();
    const merged = mergeEntries(events, false);
    store.update({ entries: merged.entries });
  } catch { historyLoaded = false; }
}

const net = followMatch(matchId, store, {
  applyView,
  onSnapshot: loadHistory,
  onAck: () => { if (store.busy) store.update({ busy: false }); },
  onError: (message) => store.update({ busy: false, error: message.message || "that did not work" }),
});

function sendAction(action) {
  if (!store.view || store.busy) return;
  const id = net.sendAction(action, store.view.version);
  if (id === null) {
    store.update({ error: "Not connected: the action was not sent. Reconnecting…" });
    return;
  }
  store.update({ busy: true, selected: null, menu: null, hovered: null, confirm: null, error: null });
}

attachInput(root, store, { sendAction, classified: () => renderer.classified });
attachGm(root, store);

// Copy buttons beside the invite and spectator links.
root.addEventListener("click", async (event) => {
  const copy = event.target.closest("[data-copy]");
  if (!copy) return;
  const input = copy.parentElement.querySelector("input");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select();
    document.execCommand("copy");
  }
  copy.textContent = "Copied!";
  setTimeout(() => { copy.textContent = "Copy"; }, 1500);
});

// For tests and the benchmark.
window.__dejarik = { store, net, renderer };
