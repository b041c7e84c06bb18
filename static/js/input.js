// Clicks and keys -> intents. Select a piece that can act (data-selectable), then a
// highlighted space (data-legal) to send the action; several actions on one space
// open a small menu; an action with odds (an attack) first opens a confirm step
// beside its target, and is sent only by its Attack button. Everything else is a
// button. Enter or Space work like a click.

import { targetsOf } from "./state.js";

export function attachInput(root, store, { sendAction: send, classified }) {
  const boardActions = () => classified().board;

  function select(pieceId) {
    const current = store.selected === pieceId ? null : pieceId;
    store.update({ selected: current, menu: null, hovered: null, confirm: null, attack: null, error: null });
  }

  // An action with odds waits for the player to see them and press Attack.
  function perform(action, destination) {
    if (action.odds) store.update({ attack: { destination, action }, menu: null, hovered: null });
    else sendAction(action);
  }

  function choose(space) {
    const actions = targetsOf(store, classified()).get(space) || [];
    if (actions.length === 1) perform(actions[0], space);
    else if (actions.length > 1) store.update({ menu: { destination: space, actions }, hovered: null, attack: null });
  }

  function isTarget(space) {
    return space && targetsOf(store, classified()).has(space);
  }

  function activate(target) {
    if (store.busy) return pickNext(target);
    const piece = target.closest("[data-piece]");
    if (piece) {
      const at = piece.getAttribute("data-at");
      if (isTarget(at)) { choose(at); return true; }
      if (boardActions().has(piece.dataset.piece)) { select(piece.dataset.piece); return true; }
      if (store.selected) { select(null); return true; }
      return false;
    }
    const space = target.closest("[data-space]");
    if (space) {
      if (space.hasAttribute("data-legal")) choose(space.dataset.space);
      else if (store.selected) select(null);
      return true;
    }
    const reserve = target.closest("[data-reserve-piece]");
    if (reserve) { select(reserve.dataset.reservePiece); return true; }
    const actionButton = target.closest("[data-action-index]");
    if (actionButton) {
      const index = Number(actionButton.dataset.actionIndex);
      const action = classified().buttons[index];
      if (!action) return true;
      if (action.type === "resign" && store.confirm !== index) store.update({ confirm: index });
      else sendAction(action);
      return true;
    }
    const menuButton = target.closest("[data-menu-index]");
    if (menuButton && store.menu) {
      perform(store.menu.actions[Number(menuButton.dataset.menuIndex)], store.menu.destination);
      return true;
    }
    if (target.closest("[data-menu-cancel]")) { store.update({ menu: null }); return true; }
    if (target.closest("[data-confirm]") && store.attack) { sendAction(store.attack.action); return true; }
    if (target.closest("[data-confirm-cancel]")) { store.update({ attack: null }); return true; }
    return false;
  }

  // While an action is on its way, a quick click on the next piece (setting up, one creature
  // after another) still picks it; nothing is sent, and the server's update keeps the pick
  // if the piece can still act (match.js selectionFor).
  function pickNext(target) {
    const reserve = target.closest("[data-reserve-piece]");
    const piece = reserve ? reserve.dataset.reservePiece : target.closest("[data-piece]")?.dataset.piece;
    if (piece === undefined || !(boardActions().has(piece) || classified().reserve.has(piece))) return false;
    store.update({ selected: piece, menu: null, hovered: null, confirm: null, attack: null });
    return true;
  }

  root.addEventListener("click", (event) => { activate(event.target); });

  // --- the keyboard ----------------------------------------------------------------
  const board = () => root.querySelector("svg.board");
  const afterRender = (fn) => requestAnimationFrame(() => requestAnimationFrame(fn));

  // The focusable things of the board an arrow key moves among: every piece, and the
  // spaces no piece stands on.
  function stops() {
    const svg = board();
    if (!svg) return [];
    const taken = new Set([...svg.querySelectorAll("[data-piece]")].map((p) => p.getAttribute("data-at")));
    const spaces = [...svg.querySelectorAll("[data-space]")].filter((s) => !taken.has(s.dataset.space));
    return [...svg.querySelectorAll("[data-piece]"), ...spaces];
  }

  function centre(node) {
    const dot = node.querySelector(".marker-dot") || node;
    const box = dot.getBoundingClientRect();
    return [box.left + box.width / 2, box.top + box.height / 2];
  }

  const DIRECTIONS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

  // The nearest stop in the arrow's direction on screen (straight ahead counts most).
  function neighbour(from, [dx, dy]) {
    const [x, y] = centre(from);
    let best = null, bestScore = Infinity;
    for (const node of stops()) {
      if (node === from) continue;
      const [nx, ny] = centre(node);
      const ahead = (nx - x) * dx + (ny - y) * dy;
      if (ahead <= 4) continue;
      const aside = Math.abs((nx - x) * dy) + Math.abs((ny - y) * dx);
      const score = ahead + 2 * aside;
      if (score < bestScore) { best = node; bestScore = score; }
    }
    return best;
  }

  function focusFirstTarget() {
    const svg = board();
    const first = svg && svg.querySelector("[data-space][data-legal]");
    if (first) first.focus();
  }

  // After a move sent from the board the focus stays there: on the piece that moved
  // when it is still on the board, else a piece that can act, else the board.
  let refocus = null;
  store.subscribe(() => {
    if (!refocus || store.busy) return;
    const { piece, version } = refocus;
    if (!store.view || store.view.version <= version) return;
    refocus = null;
    afterRender(() => {
      const now = document.activeElement;
      if (now && now !== document.body && !boardFocused()) return;  // the player went elsewhere meanwhile
      const svg = board();
      if (!svg) return;
      const node = svg.querySelector(`[data-piece="${CSS.escape(String(piece))}"]`)
        || svg.querySelector("[data-piece][data-selectable]") || svg.querySelector("[data-piece]");
      if (node) node.focus();
      else { svg.setAttribute("tabindex", "-1"); svg.focus(); }
    });
  });
  const boardFocused = () => document.activeElement instanceof Element
    && Boolean(document.activeElement.closest("svg.board, #attack-confirm, #choice-menu"));
  function sendAction(action) {
    if (boardFocused() && store.view) refocus = { piece: action.piece, version: store.view.version };
    send(action);
  }

  root.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      const back = store.selected;
      store.update({ selected: null, menu: null, hovered: null, confirm: null, attack: null });
      if (back && boardFocused()) afterRender(() => {
        const node = board() && board().querySelector(`[data-piece="${CSS.escape(back)}"]`);
        if (node) node.focus();
      });
      return;
    }
    const target = event.target;
    if (!(target instanceof Element) || !target.closest("svg.board")) return;
    const holder = target.closest("[data-piece],[data-space]");
    if (DIRECTIONS[event.key] && holder) {
      event.preventDefault();
      const next = neighbour(holder, DIRECTIONS[event.key]);
      if (next) next.focus();
      return;
    }
    if (event.key !== "Enter" && event.key !== " ") return;
    if (!holder) return;
    event.preventDefault();  // Space would scroll; buttons handle their own keys
    const before = store.selected;
    activate(holder);
    // A piece just selected: its legal targets come next, the first one focused.
    if (store.selected && store.selected !== before) afterRender(focusFirstTarget);
  });

  // Hovering or focusing a target shows what would happen (odds of an attack).
  function hoverFrom(target) {
    if (!(target instanceof Element)) return null;
    const holder = target.closest("[data-piece],[data-space]");
    if (!holder) return null;
    const space = holder.getAttribute("data-at") || holder.getAttribute("data-space");
    return isTarget(space) ? space : null;
  }
  const setHover = (space) => { if (store.hovered !== space) store.update({ hovered: space }); };
  root.addEventListener("mouseover", (event) => setHover(hoverFrom(event.target)));
  root.addEventListener("focusin", (event) => setHover(hoverFrom(event.target)));
}
