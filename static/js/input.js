// Clicks and keys -> intents. Select a piece that can act (data-selectable), then a
// highlighted space (data-legal) to send the action; several actions on one space
// open a small menu; everything else is a button. Enter or Space work like a click.

import { targetsOf } from "./state.js";

export function attachInput(root, store, { sendAction, classified }) {
  const boardActions = () => classified().board;

  function select(pieceId) {
    const current = store.selected === pieceId ? null : pieceId;
    store.update({ selected: current, menu: null, hovered: null, confirm: null, error: null });
  }

  function choose(space) {
    const actions = targetsOf(store, classified()).get(space) || [];
    if (actions.length === 1) sendAction(actions[0]);
    else if (actions.length > 1) store.update({ menu: { destination: space, actions }, hovered: null });
  }

  function isTarget(space) {
    return space && targetsOf(store, classified()).has(space);
  }

  function activate(target) {
    if (store.busy) return false;
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
    if (menuButton && store.menu) { sendAction(store.menu.actions[Number(menuButton.dataset.menuIndex)]); return true; }
    if (target.closest("[data-menu-cancel]")) { store.update({ menu: null }); return true; }
    return false;
  }

  root.addEventListener("click", (event) => { activate(event.target); });

  root.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      store.update({ selected: null, menu: null, hovered: null, confirm: null });
      return;
    }
    if (event.key !== "Enter" && event.key !== " ") return;
    const target = event.target;
    if (!(target instanceof Element) || !target.closest("[data-piece],[data-space]")) return;
    event.preventDefault();  // Space would scroll; buttons handle their own keys
    activate(target);
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
