// Drawing the page from the store, once per animation frame. The board comes from
// the renderer registered for the view's kind; the panels around it (turn, dice,
// buttons, legend, log) are the same for every ruleset. Each render is measured
// with performance.mark/measure under the name "dejarik-render".

import { showRolls } from "./dice.js";
import { describeEntry, describeEvent } from "./log.js";
import { rendererFor } from "./renderers.js";
import { monograms } from "./renderers/board.js";
import { actionLabel, classifyActions, countsActions, humanise, pieceName, seatLabel, targetsOf } from "./state.js";

export const RENDER_MEASURE = "dejarik-render";

function text(node, value) {
  if (node && node.textContent !== value) node.textContent = value;
}

function button(label, attrs = {}) {
  const node = document.createElement("button");
  node.type = "button";
  node.textContent = label;
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  return node;
}

export function createRenderer(root, store) {
  const $ = (selector) => root.querySelector(selector);
  const parts = {
    board: $("#board"), turn: $("#turn"), actionsLeft: $("#actions-left"), connection: $("#connection"),
    banner: $("#banner"), buttons: $("#buttons"), menu: $("#choice-menu"), odds: $("#odds"),
    dice: $("#dice-tray"), legend: $("#legend"), lost: $("#lost"), log: $("#log"), announce: $("#announce"),
    error: $("#error"), role: $("#role"), invites: $("#invites"),
  };
  let renderer = null, rendererKind = null;
  let frame = 0, renderCount = 0;
  let shownRolls = null, loggedCount = 0, legendKey = "", lostKey = "", buttonsKey = "", menuKey = "";
  let lastClassified = { board: new Map(), reserve: new Map(), buttons: [] };

  function schedule() {
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; renderNow(); });
  }

  function renderNow() {
    const view = store.view;
    if (!view) { renderConnection(); return; }
    const id = renderCount++;
    performance.mark(`${RENDER_MEASURE}-start-${id}`);
    const classified = classifyActions(view);
    lastClassified = classified;
    const targets = targetsOf(store, classified);
    const kind = (view.state && view.state.kind) || "none";
    if (kind !== rendererKind) {
      renderer = rendererFor(kind)(parts.board);
      rendererKind = kind;
    }
    renderer.update(store, classified, targets);
    root.dataset.kind = kind;
    renderStatus(view);
    renderConnection();
    renderButtons(classified);
    renderMenu();
    renderOdds(targets);
    renderLegend(view);
    renderLost(view);
    renderLog();
    renderRolls();
    renderInvites(view);
    text(parts.error, store.error || "");
    parts.error.hidden = !store.error;
    performance.mark(`${RENDER_MEASURE}-end-${id}`);
    performance.measure(RENDER_MEASURE, `${RENDER_MEASURE}-start-${id}`, `${RENDER_MEASURE}-end-${id}`);
    performance.clearMarks(`${RENDER_MEASURE}-start-${id}`);
    performance.clearMarks(`${RENDER_MEASURE}-end-${id}`);
    root.dataset.version = String(view.version);
  }

  function renderStatus(view) {
    const state = view.state || {};
    const you = view.you || {};
    const mySeat = you.seat;
    let turn, left = "";
    if (view.status === "waiting") {
      turn = "Waiting for players: share an invite link below.";
    } else if (view.status === "finished") {
      turn = "The match is over.";
    } else if (view.paused) {
      turn = "The host has paused the match.";
    } else {
      const acting = view.to_act || [];
      const yours = mySeat !== null && mySeat !== undefined && acting.includes(mySeat);
      const names = acting.map((s) => seatLabel(view, s)).join(" and ");
      if (state.push && acting.includes(state.push.chooser)) {
        const who = yours ? "You choose" : `${names} chooses`;
        turn = `${who} where ${pieceName(store, state.push.piece)} is pushed.`;
      } else {
        turn = yours ? `Your turn (${seatLabel(view, mySeat)}).` : `${names} to act.`;
      }
      if (countsActions(state)) {
        left = `${state.actions_left} action${state.actions_left === 1 ? "" : "s"} left this turn`;
      }
    }
    text(parts.turn, turn);
    text(parts.actionsLeft, left);
    parts.actionsLeft.hidden = !left;
    root.dataset.myTurn = String(view.status === "active" && (view.to_act || []).includes(you.seat));

    const seat = you.seat;
    const role = seat !== null && seat !== undefined ? `You play ${seatLabel(view, seat)}.`
      : you.host ? "You host this match." : "You are watching.";
    text(parts.role, role);

    const result = view.result;
    if (view.status === "finished" && result) {
      let headline;
      if (result.winner === null || result.winner === undefined) headline = "Draw";
      else if (seat === result.winner) headline = "You won!";
      else if (seat !== null && seat !== undefined) headline = `You lost: ${seatLabel(view, result.winner)} won`;
      else headline = `${seatLabel(view, result.winner)} won`;
      text(parts.banner, `${headline} (${result.reason})`);
      parts.banner.dataset.outcome = result.winner === null || result.winner === undefined ? "draw"
        : seat === result.winner ? "win" : seat !== null && seat !== undefined ? "loss" : "over";
      parts.banner.hidden = false;
    } else if (view.paused && view.status === "active") {
      text(parts.banner, "Paused by the game master");
      parts.banner.dataset.outcome = "paused";
      parts.banner.hidden = false;
    } else {
      parts.banner.hidden = true;
    }
  }

  function renderConnection() {
    const states = {
      connecting: "Connecting…", live: "Live", offline: `Connection lost: retrying in ${Math.ceil(store.retryIn / 1000)} s…`,
      reconnecting: "Reconnecting…", closed: "Disconnected",
    };
    text(parts.connection, states[store.connection] || store.connection);
    parts.connection.dataset.connection = store.connection;
  }

  function renderButtons(classified) {
    const key = JSON.stringify(classified.buttons) + store.busy + (store.confirm || "");
    if (key === buttonsKey) return;
    buttonsKey = key;
    parts.buttons.innerHTML = "";
    // The host's game-master controls ("gm_…") go in a group of their own, after the rest.
    let gm = null;
    classified.buttons.forEach((action, index) => {
      const confirming = store.confirm === index;
      const label = confirming ? `Really: ${actionLabel(store, action).toLowerCase()}?` : actionLabel(store, action);
      const node = button(label, { "data-action-index": String(index), "data-action-type": action.type });
      if (action.type === "resign") node.classList.add("danger");
      if (store.busy) node.disabled = true;
      if (String(action.type).startsWith("gm_")) {
        if (!gm) {
          gm = document.createElement("div");
          gm.className = "gm-actions";
          gm.setAttribute("role", "group");
          gm.setAttribute("aria-labelledby", "gm-actions-title");
          gm.style.cssText = "flex-basis:100%;display:flex;flex-wrap:wrap;gap:0.5rem;align-items:center";
          gm.innerHTML = '<h3 id="gm-actions-title" style="flex-basis:100%;margin:0.4rem 0 0;font-size:0.9rem">Game master</h3>';
        }
        gm.appendChild(node);
      } else {
        parts.buttons.appendChild(node);
      }
    });
    if (gm) parts.buttons.appendChild(gm);
    parts.buttons.hidden = classified.buttons.length === 0;
  }

  function renderMenu() {
    const menu = store.menu;
    const key = menu ? JSON.stringify(menu) : "";
    if (key === menuKey) return;
    menuKey = key;
    parts.menu.innerHTML = "";
    parts.menu.hidden = !menu;
    if (!menu) return;
    const heading = document.createElement("p");
    heading.textContent = `Several choices on ${menu.destination}:`;
    parts.menu.appendChild(heading);
    menu.actions.forEach((action, index) => {
      parts.menu.appendChild(button(actionLabel(store, action), { "data-menu-index": String(index) }));
    });
    parts.menu.appendChild(button("Cancel", { "data-menu-cancel": "" }));
    const first = parts.menu.querySelector("button");
    if (first) first.focus();
  }

  function renderOdds(targets) {
    const actions = store.hovered ? targets.get(store.hovered) || [] : [];
    const withOdds = actions.filter((a) => a.odds);
    parts.odds.hidden = withOdds.length === 0;
    if (!withOdds.length) { parts.odds.innerHTML = ""; return; }
    const key = JSON.stringify(withOdds);
    if (parts.odds.dataset.key === key) return;
    parts.odds.dataset.key = key;
    parts.odds.innerHTML = "";
    for (const action of withOdds) {
      const title = document.createElement("p");
      title.textContent = `Odds if ${pieceName(store, action.piece)} attacks ${pieceName(store, action.target)}:`;
      const list = document.createElement("ul");
      for (const [outcome, chance] of Object.entries(action.odds)) {
        if (typeof chance !== "number") continue;  // e.g. "exact": the same odds as fractions
        const item = document.createElement("li");
        item.dataset.oddsOutcome = outcome;
        const percent = Math.round(chance * 1000) / 10;
        item.innerHTML = `<span class="odds-name"></span><span class="bar" style="--p:${percent}%"></span><span class="odds-value"></span>`;
        item.children[0].textContent = humanise(outcome);
        item.children[2].textContent = `${percent}%`;
        list.appendChild(item);
      }
      parts.odds.append(title, list);
    }
  }

  function renderLegend(view) {
    const legend = (view.state && view.state.legend) || null;
    const key = JSON.stringify(legend);
    if (key === legendKey) return;
    legendKey = key;
    parts.legend.innerHTML = "";
    parts.legend.closest("section").hidden = !legend;
    if (!legend) return;
    const kinds = Object.keys(legend);
    const glyphs = monograms(new Set(kinds), legend);
    const columns = [...new Set(kinds.flatMap((k) => Object.keys(legend[k]).filter((c) => c !== "name" && typeof legend[k][c] !== "object")))];
    const head = document.createElement("tr");
    head.innerHTML = "<th scope=col>Creature</th>";
    for (const column of columns) {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = humanise(column);
      head.appendChild(th);
    }
    const thead = document.createElement("thead");
    thead.appendChild(head);
    const tbody = document.createElement("tbody");
    for (const kind of kinds) {
      const row = document.createElement("tr");
      row.dataset.kind = kind;
      const name = document.createElement("th");
      name.scope = "row";
      name.innerHTML = `<span class="legend-glyph" aria-hidden="true"></span> `;
      name.firstChild.textContent = glyphs[kind];
      name.append(legend[kind].name || humanise(kind));
      row.appendChild(name);
      for (const column of columns) {
        const td = document.createElement("td");
        td.textContent = legend[kind][column] ?? "";
        if (typeof legend[kind][column] === "string" && legend[kind][column].length > 12) td.className = "words";
        row.appendChild(td);
      }
      tbody.appendChild(row);
    }
    parts.legend.append(thead, tbody);
  }

  function renderLost(view) {
    const state = view.state || {};
    const gone = [...(state.lost || []), ...(state.captured || [])];
    const key = gone.map((p) => p.id).join(",");
    if (key === lostKey) return;
    lostKey = key;
    parts.lost.innerHTML = "";
    parts.lost.hidden = gone.length === 0;
    if (!gone.length) return;
    parts.lost.textContent = `Off the board: ${gone.map((p) => `${pieceName(store, p.id)} (${seatLabel(view, p.owner)})`).join(", ")}`;
  }

  function renderLog() {
    if (store.entries.length < loggedCount) { parts.log.innerHTML = ""; loggedCount = 0; }
    const fresh = store.entries.slice(loggedCount);
    loggedCount = store.entries.length;
    const announcements = [];
    for (const entry of fresh) {
      const item = document.createElement("li");
      item.dataset.version = entry.version;
      const lines = describeEntry(store, entry);
      for (const line of lines) {
        const p = document.createElement("div");
        p.textContent = line;
        item.appendChild(p);
      }
      parts.log.appendChild(item);
      if (entry.live) {
        // Moves and turns are announced now; dice once they stop tumbling.
        const moves = (entry.events || []).filter((e) => !["roll", "combat", "battle"].includes(e.type));
        announcements.push(...moves.map((e) => describeEvent(store, e)));
      }
    }
    if (fresh.length) parts.log.scrollTop = parts.log.scrollHeight;
    if (announcements.length) announce(announcements.join(". "));
  }

  function renderRolls() {
    const rolls = store.rolls;
    // The dice of an action the game master undid stay shown, marked as not counting.
    parts.dice.dataset.undone = String(Boolean(rolls && store.undone.includes(rolls.version)));
    if (!rolls || rolls === shownRolls) return;
    shownRolls = rolls;
    showRolls(parts.dice, store, rolls.events, () => {
      const words = rolls.events.filter((e) => ["roll", "combat", "battle"].includes(e.type)).map((e) => describeEvent(store, e));
      announce(words.join(". "));
    });
  }

  function renderInvites(view) {
    if (!parts.invites) return;
    const taken = new Set((view.seats || []).filter((s) => s.player).map((s) => String(s.seat)));
    for (const row of parts.invites.querySelectorAll("[data-invite-row]")) {
      row.hidden = view.status !== "waiting" || taken.has(row.dataset.inviteRow);
    }
  }

  function announce(message) {
    if (!message) return;
    text(parts.announce, message);
  }

  return { schedule, renderNow, get classified() { return lastClassified; } };
}
