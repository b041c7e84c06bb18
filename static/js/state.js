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
    connection: "connecting",
    retryIn: 0,
    busy: false,           // an action is on its way
    error: null,
    entries: [],           // match log entries, oldest first
    names: {},             // piece id -> display name, kept after a piece is gone
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
  for (const list of [state.pieces, state.lost, state.captured, state.inactive, state.reserve]) {
    for (const p of list || []) {
      if (p && p.id) store.names[p.id] = p.name || (legend[p.kind] && legend[p.kind].name) || humanise(p.kind || p.id);
    }
  }
}

export function pieceName(store, id) {
  return store.names[id] || humanise(String(id));
}

export function humanise(word) {
  const text = String(word).replace(/[_-]+/g, " ").trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
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
  return row && row.player ? `${name} (${row.player.name})` : name;
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
    const shown = (key === "piece" || key === "target" || key === "push") ? pieceName(store, value) : value;
    parts.push(key === "piece" ? shown : `${humanise(key).toLowerCase()} ${shown}`);
  }
  return parts.join(" ");
}

// Whether "N actions left" means anything now: only while a turn of actions is
// under way (not during a draft or set-up phase, nor between simeone activations).
export function countsActions(state) {
  const left = state.actions_left;
  return typeof left === "number" && left > 0 && (state.phase === undefined || state.phase === "play");
}
