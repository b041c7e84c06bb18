// The page's state: the server's match view plus what this browser adds to it
// (selection, menu, connection, log). No rules live here: everything a player can do
// comes from view.legal_actions.

export function createStore(initial = {}) {
  const listeners = new Set();
  const store = {
    view: null,            // the last match view the server sent
    selected: null,        // id of the selected piece (board or reserve)
    menu: null,            // {destination, actions} when several actions share one destination
    hovered: null,         // destination whose odds are shown
    attack: null,          // {destination, action}: an action with odds waiting for Attack or Cancel
    connection: "connecting",
    retryIn: 0,
    busy: false,           // an action is on its way
    error: null,
    entries: [],           // match log entries, oldest first
    history: "loading",    // the log so far: "loading", "loaded" or "failed"
    names: {},             // piece id -> display name, kept after a piece is gone
    owners: {},            // piece id -> owner seat, kept likewise
    rolls: null,           // {version, events} of the latest update with dice, to animate
    undone: [],            // versions a game master undid (their dice no longer count)
    ...initial,
    update(patch) {
      Object.assign(store, patch);
      for (const listener of listeners) listener(store);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return store;
}

// --- reading the view -------------------------------------------------------

export function piecesOnBoard(view) {
  const pieces = (view && view.state && view.state.pieces) || [];
  return pieces.filter((p) => p.at);
}

export function rememberNames(store, view) {
  const state = view.state || {};
  const legend = state.legend || {};
  const remember = (p, owner) => {
    const piece = typeof p === "string" ? { id: p, kind: p, owner } : p;
    if (!piece || !piece.id) return;
    store.names[piece.id] = piece.name || (legend[piece.kind] && legend[piece.kind].name) || humanise(piece.kind || piece.id);
    if (typeof piece.owner === "number") store.owners[piece.id] = piece.owner;
  };
  const board = state.board || {};
  for (const list of [board.pieces, board.off_board, state.pieces, state.lost, state.captured, state.inactive, state.reserve, state.defeated]) {
    for (const p of list || []) remember(p);
  }
  // Lists per seat (teams, pieces still to place): the index is the owner.
  for (const perSeat of [state.teams, state.unplaced]) {
    if (!Array.isArray(perSeat) || !perSeat.every(Array.isArray)) continue;
    perSeat.forEach((list, seat) => list.forEach((p) => remember(p, seat)));
  }
}

export function pieceName(store, id) {
  return store.names[id] || humanise(String(id));
}

// A piece by its owner and name ("Red Monnok", "Blue Guard"): both sides may have the same pieces.
export function ownedName(store, id) {
  const owner = store.owners[id];
  const name = pieceName(store, id);
  return owner === undefined || !store.view ? name : `${seatName(store.view, owner)} ${name}`;
}

export function humanise(word) {
  const text = String(word).replace(/[_-]+/g, " ").trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// A legend value as players write it: a die's sides as "d8", not "8".
export function asWritten(key, value) {
  return key.endsWith("_die") && typeof value === "number" ? `d${value}` : value;
}

export function seatName(view, seat) {
  if (seat === null || seat === undefined) return "Nobody";
  const names = (view.state && view.state.seat_names) || [];
  const row = (view.seats || []).find((s) => s.seat === seat);
  return names[seat] || (row && row.name) || `Seat ${seat + 1}`;
}

export function seatLabel(view, seat) {
  const row = (view.seats || []).find((s) => s.seat === seat);
  const name = seatName(view, seat);
  if (row && row.npc) return `${name} (the game master, as an NPC)`;  // not its player, who watches
  return row && row.player ? `${name} (${row.player.name})` : name;
}

// The dice of the latest log entry that rolled any, as the dice tray shows them:
// {version, events, live}. The same for a live update and for a page that just loaded.
export function latestRolls(entries, live) {
  for (let i = entries.length - 1; i >= 0; i--) {
    const events = entries[i].events || [];
    if (events.some((e) => e.type === "roll")) return { version: entries[i].version, events, live };
  }
  return null;
}

const isBoardSpace = (s) => typeof s === "string" && /^(C|[AB]([1-9]|1[0-2]))$/.test(s);

// The two spaces of the last move or attack, as lichess marks the last move:
// {from, to}, or null when nothing has moved yet. Read from the log and the pieces'
// places now (never from a click), so a reload marks the same spaces. An attack's
// events name pieces, not spaces: where its two pieces stood is found by walking the
// later events back (a push moved one, a kill took one off) from where they stand now.
// `version`: the version the pieces are at (a replay's log runs past it).
export function lastMarks(entries, pieces, version = Infinity) {
  const at = new Map((pieces || []).filter((p) => p.at).map((p) => [p.id, p.at]));
  for (let i = (entries || []).length - 1; i >= 0; i--) {
    if (entries[i].version > version) continue;
    const events = entries[i].events || [];
    for (let j = events.length - 1; j >= 0; j--) {
      const event = events[j];
      if (event.type === "move" && isBoardSpace(event.from) && isBoardSpace(event.to)) return { from: event.from, to: event.to };
      if (event.type === "attack" && at.has(event.piece) && at.has(event.target)) {
        return { from: at.get(event.piece), to: at.get(event.target) };
      }
      // Before this event, the piece stood where it came from (a push) or where it fell (a kill).
      if (event.piece === undefined) continue;
      if (isBoardSpace(event.from)) at.set(event.piece, event.from);
      else if (isBoardSpace(event.at)) at.set(event.piece, event.at);
      else if (event.type === "place") at.delete(event.piece);
    }
  }
  return null;
}

// Sort the legal actions into what the board offers, what the reserve tray offers,
// and buttons. A board action names a piece on the board and a destination: a space
// ("to") or a piece ("target", meaning its space).
export function classifyActions(view) {
  const onBoard = new Map(piecesOnBoard(view).map((p) => [p.id, p]));
  const spaces = new Set((view.state && view.state.spaces) || []);
  const isSpace = (s) => typeof s === "string" && (spaces.has(s) || /^(C|[AB]([1-9]|1[0-2]))$/.test(s));
  const board = new Map();    // piece id -> [{action, destination}]
  const reserve = new Map();  // piece id (off the board) -> [{action, destination}]
  const buttons = [];
  for (const action of (view.legal_actions || [])) {
    let destination = null;
    if (isSpace(action.to)) destination = action.to;
    else if (action.target !== undefined && onBoard.has(action.target)) destination = onBoard.get(action.target).at;
    const piece = action.piece;
    if (piece !== undefined && destination !== null) {
      const bucket = onBoard.has(piece) ? board : reserve;
      if (!bucket.has(piece)) bucket.set(piece, []);
      bucket.get(piece).push({ action, destination });
    } else {
      buttons.push(action);
    }
  }
  return { board, reserve, buttons };
}

// The actions of the selected piece, grouped by destination space.
export function targetsOf(store, classified) {
  const options = store.selected && (classified.board.get(store.selected) || classified.reserve.get(store.selected));
  const byDestination = new Map();
  for (const option of options || []) {
    if (!byDestination.has(option.destination)) byDestination.set(option.destination, []);
    byDestination.get(option.destination).push(option.action);
  }
  return byDestination;
}

// A button's words: the action's label, else its type and fields in words.
export function actionLabel(store, action) {
  if (action.label) return action.label;
  const parts = [humanise(action.type)];
  for (const [key, value] of Object.entries(action)) {
    if (key === "type" || key === "odds" || key === "notation" || value === null || typeof value === "object") continue;
    if (key === "piece" || key === "target" || key === "push") parts.push(ownedName(store, value));
    else if (key === "to" || key === "push_to") parts.push(value === "off" ? "off the board" : `to ${value}`);
    else parts.push(`${humanise(key).toLowerCase()} ${value}`);
  }
  return parts.join(" ");
}

// Whether "N actions left" means anything now: only while a turn of actions is
// under way (not during a draft or set-up phase, nor between simeone activations).
export function countsActions(state) {
  const left = state.actions_left;
  return typeof left === "number" && left > 0 && (state.phase === undefined || state.phase === "play");
}

// --- the odds of an action ---------------------------------------------------

function fraction(text) {
  const [n, d = "1"] = String(text).split("/");
  return [Number(n), Number(d)];
}

// The outcomes of an attack's odds: every ruleset's one shape,
// {outcomes: [{key, probability, exact, text}]}, worded by the server.
export function oddsOutcomes(action) {
  return (action && action.odds && action.odds.outcomes) || [];
}

// A chance as players read it: a percentage (never a bare 0% or 100% for what can
// happen or fail), with the exact fraction when it is a short one.
export function chanceWords(outcome) {
  const p = outcome.probability * 100;
  let percent = p >= 10 || p === 0 ? p.toFixed(1) : p.toPrecision(2);
  if (p > 0 && Number(percent) === 0) percent = "<0.01";
  if (p < 100 && Number(percent) === 100) percent = ">99.9";
  const [, denominator] = fraction(outcome.exact || "0/1");
  const exact = outcome.exact && denominator > 1 && denominator <= 1296 ? ` · ${outcome.exact.replace("/", " in ")}` : "";
  return `${percent.replace(/\.0$/, "")}%${exact}`;
}
