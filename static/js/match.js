// The match page: wires the store, the network, the renderer and the input together.

import { attachChat } from "./chat.js";
import { attachDeadline } from "./clock.js";
import { attachCopyButtons } from "./copy.js";
import { attachGm } from "./gm.js";
import { attachLearning } from "./howto.js";
import { attachInput } from "./input.js";
import { stepHoldMs } from "./motion.js";
import { followMatch } from "./net.js";
import { attachPresence } from "./presence.js";
import { createRenderer } from "./render.js";
import { classifyActions, createStore, latestRolls, rememberNames, seatLabel } from "./state.js";
import { attachRematch } from "./rematch.js";
import { attachVerifyPanel } from "./verify.js";

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

// A pending attack stays open across an update only while it is still legal as it was.
function stillLegal(attack, view) {
  if (!attack) return null;
  const wanted = JSON.stringify(attack.action);
  return (view.legal_actions || []).some((a) => JSON.stringify(a) === wanted) ? attack : null;
}

function applyView(message, newEntries, live) {
  const { type, missed, events, entries, ...view } = message;
  rememberNames(store, view);
  const merged = mergeEntries(newEntries, live);
  const rolls = live ? latestRolls(merged.fresh, true) : null;
  const patch = { view, entries: merged.entries, busy: false, menu: null, confirm: null };
  patch.selected = selectionFor(view);
  patch.attack = stillLegal(store.attack, view);
  if (rolls) patch.rolls = rolls;
  const undone = undoneVersions(merged.fresh);
  if (undone.length) patch.undone = [...store.undone, ...undone];
  store.update(patch);
}

function undoneVersions(entries) {
  return entries.flatMap((e) => e.events || []).filter((e) => e.type === "undone").map((e) => e.version);
}

let historyLoaded = false;
async function loadHistory() {
  if (historyLoaded) return;
  historyLoaded = true;
  try {
    const response = await fetch(`/api/v1/matches/${encodeURIComponent(matchId)}/events?after=0`);
    if (!response.ok) throw new Error(`the log answered ${response.status}`);
    const { events } = await response.json();
    const merged = mergeEntries(events, false);
    const patch = { entries: merged.entries, undone: [...store.undone, ...undoneVersions(merged.fresh)], history: "loaded" };
    // A page that opens mid-match shows the latest roll, as it was shown live.
    if (!store.rolls) patch.rolls = latestRolls(merged.entries, false);
    store.update(patch);
  } catch {
    historyLoaded = false;  // the next snapshot (a reconnection) tries again
    store.update({ history: "failed" });
  }
}

const chat = attachChat(document.getElementById("chat"));
const rematch = attachRematch(document.getElementById("rematch"), matchId, store);
const net = followMatch(matchId, store, {
  applyView,
  onSnapshot: () => { loadHistory(); chat.resync(); rematch.resync(); },
  onChat: (message) => chat.receive(message),
  onRematch: (message) => rematch.receive(message),
  onAck: () => { if (store.busy) store.update({ busy: false }); },
  onError: (message) => store.update({ busy: false, error: message.message || "that did not work" }),
  holdFor: botStepHold,
});

// A bot's reply comes as several updates, one per action, which may arrive closer together
// than anyone can follow. Each of them waits until the step before has been seen.
function botStepHold(update, before) {
  const bots = new Set((update.seats || []).filter((seat) => seat.bot).map((seat) => seat.seat));
  const byBot = (update.entries || []).some((entry) => bots.has(entry.seat));
  return byBot && before ? stepHoldMs(before.entries) : 0;
}

function sendAction(action) {
  if (!store.view || store.busy) return;
  const id = net.sendAction(action, store.view.version);
  if (id === null) {
    store.update({ error: "Not connected: the action was not sent. Reconnecting…" });
    return;
  }
  store.update({ busy: true, selected: null, menu: null, hovered: null, confirm: null, attack: null, error: null });
}

attachInput(root, store, { sendAction, classified: () => renderer.classified });
attachVerifyPanel(document.getElementById("verify-dice"), matchId);

// The replay link and the dice check appear once the match is over.
const records = document.getElementById("records");
store.subscribe(() => { records.hidden = !store.view || store.view.status !== "finished"; });
attachGm(root, store);
attachDeadline(root, store, { seatLabel, onExpired: () => store.view && net.sync(store.view.version) });
attachPresence(root, matchId, store, { seatLabel });
attachLearning(root, store);
if (root.dataset.tutorial) import("./tutorial.js").then(({ attachTutorial }) => attachTutorial(root, store));

attachCopyButtons(root);  // beside the invite and spectator links

// For tests and the benchmark.
window.__dejarik = { store, net, renderer };
