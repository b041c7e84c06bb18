// Drawing the page from the store, once per animation frame. The board comes from
// the renderer registered for the view's kind; the panels around it (turn, dice,
// buttons, legend, log) are the same for every ruleset. Each render is measured
// with performance.mark/measure under the name "dejarik-render".

import { createSpeaker } from "./announce.js";
import { figureIcon, hasArt } from "./art.js";
import { showRolls } from "./dice.js";
import { gmButtonLabel, waitingWords } from "./gm-words.js";
import { createMotion } from "./motion.js";
import { bestSpot } from "./placement.js";
import { ratingChangeWords } from "./ratings.js";
import { describeEntry } from "./log.js";
import { choiceWhy } from "./narrative.js";
import { rendererFor } from "./renderers.js";
import { emblemOf, monograms } from "./renderers/board-draw.js";
import {
  actionLabel, asWritten, chanceWords, classifyActions, countsActions, humanise, oddsOutcomes, ownedName, pieceName, seatLabel, targetsOf,
} from "./state.js";

export const RENDER_MEASURE = "dejarik-render";
const DICE_POPUP_MS = 6000;  // how long settled dice stay popped up over a phone's page

// Legend headings short enough for the side column.
const SHORT_WORDS = { attack: "Att", defense: "Def", defence: "Def", movement: "Move", actions: "Acts" };

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
    banner: $("#banner"), buttons: $("#buttons"), menu: $("#choice-menu"), odds: $("#odds"), attack: $("#attack-confirm"),
    dice: $("#dice-tray"), legend: $("#legend"), legendTitle: $("#legend-title"), lost: $("#lost"), log: $("#log"), announce: $("#announce"),
    error: $("#error"), role: $("#role"), invites: $("#invites"), after: $("#after-match"),
    ratings: $("#rating-changes"),
  };
  let renderer = null, rendererKind = null;
  const motion = createMotion(parts.board);
  const speaker = createSpeaker(parts.announce);
  let frame = 0, renderCount = 0;
  let logAtEnd = true;  // the log is scrolled to its newest line (or has no scroll)
  let shownRolls = null, loggedCount = 0, logToScroll = false, legendKey = "", lostKey = "", buttonsKey = "", menuKey = "";
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
    motion.play(store);
    root.dataset.kind = kind;
    renderStatus(view);
    renderConnection();
    renderButtons(classified);
    renderMenu();
    renderOdds(targets);
    renderAttack();
    renderLegend(view);
    renderLost(view);
    renderLog();
    renderRolls();
    renderInvites(view);
    text(parts.error, store.error || "");
    parts.error.hidden = !store.error;
    fitBoard();  // last: everything above the board is drawn; the one read of the layout
    performance.mark(`${RENDER_MEASURE}-end-${id}`);
    performance.measure(RENDER_MEASURE, `${RENDER_MEASURE}-start-${id}`, `${RENDER_MEASURE}-end-${id}`);
    performance.clearMarks(`${RENDER_MEASURE}-start-${id}`);
    performance.clearMarks(`${RENDER_MEASURE}-end-${id}`);
    root.dataset.version = String(view.version);
  }

  // The board is as large as the room left under it in the window, so the whole of it
  // shows without scrolling whatever the window's shape (CSS reads --board-room); and the
  // log scrolls to its newest line. Every read of the layout comes before every write,
  // so the browser lays the page out once per render, not once per panel.
  function fitBoard() {
    const svg = parts.board.querySelector("svg.board");
    const box = svg ? svg.getBoundingClientRect() : null;
    const top = box ? box.top + window.scrollY : 0;
    // The last move in words and the tray (pieces to place, captured pieces) under the
    // board stay in view too; beside the board (setting up on a wide screen) they take no height.
    const under = (selector) => {
      const part = svg && parts.board.querySelector(`${selector}:not([hidden])`);
      const rect = part ? part.getBoundingClientRect() : null;
      return rect && rect.right > box.left + 1 ? rect.height + 8 : 0;
    };
    const below = under(".board-latest") + under(".reserve-tray");
    const logEnd = logToScroll ? parts.log.scrollHeight : null;
    if (logEnd !== null) parts.log.scrollTop = logEnd;
    logToScroll = false;
    if (!svg) return;
    const room = `${Math.max(240, Math.floor(window.innerHeight - top - below - 8))}px`;
    if (root.style.getPropertyValue("--board-room") !== room) root.style.setProperty("--board-room", room);
  }

  function renderStatus(view) {
    const state = view.state || {};
    const you = view.you || {};
    const mySeat = you.seat;
    let turn, left = "";
    if (view.status === "waiting") {
      turn = waitingWords(view);
    } else if (view.status === "finished") {
      turn = "The match is over.";
    } else if (view.paused) {
      turn = "The host has paused the match.";
    } else {
      const acting = view.to_act || [];
      const yours = mySeat !== null && mySeat !== undefined && acting.includes(mySeat);
      const names = acting.map((s) => seatLabel(view, s)).join(" and ");
      const pushing = state.push && acting.includes(state.push.chooser);
      if (pushing) {
        const who = yours ? "You choose" : `${names} chooses`;
        turn = `${who} where ${ownedName(store, state.push.piece)} is pushed.`;
      } else if (!acting.length && state.gm_decision) {
        // Nobody plays while the game master decides (the server's words).
        turn = you.gm ? `${state.gm_decision}. It is your decision as game master.` : `${state.gm_decision}.`;
      } else {
        turn = yours ? `Your turn (${view.seats[mySeat].name}).` : `${names} to act.`;  // your own name goes without saying
      }
      // Only the mover counts their actions, and not while a push is being chosen.
      if (yours && !pushing && countsActions(state)) {
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
    parts.after.hidden = view.status !== "finished";
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
      showRatingChanges(view);
    } else if (view.paused && view.status === "active") {
      text(parts.banner, "Paused by the game master");
      parts.banner.dataset.outcome = "paused";
      parts.banner.hidden = false;
    } else {
      parts.banner.hidden = true;
    }
  }

  // A rated match's end: each player's rating change under the banner.
  function showRatingChanges(view) {
    if (!parts.ratings) return;
    const words = ratingChangeWords(view);
    text(parts.ratings, words.length ? `Ratings: ${words.join("; ")}` : "");
    parts.ratings.hidden = !words.length;
  }

  function renderConnection() {
    const states = {
      connecting: "Connecting…", live: "Live", offline: `Connection lost: retrying in ${Math.ceil(store.retryIn / 1000)} s…`,
      reconnecting: "Reconnecting…", closed: "Disconnected",
    };
    // The browser knows the network is gone: say that rather than count the retries down.
    const offline = !navigator.onLine && store.connection !== "live" && store.connection !== "closed";
    text(parts.connection, offline ? "You are offline — reconnecting…" : states[store.connection] || store.connection);
    parts.connection.dataset.connection = store.connection;
  }

  function renderButtons(classified) {
    const key = JSON.stringify(classified.buttons) + store.busy + (store.confirm || "") + store.entries.length
      + JSON.stringify((store.view.state || {}).characters || null);
    if (key === buttonsKey) return;
    buttonsKey = key;
    parts.buttons.innerHTML = "";
    // The host's game-master controls ("gm_…") go in a group of their own, after the rest.
    let gm = null;
    classified.buttons.forEach((action, index) => {
      const confirming = store.confirm === index;
      const words = gmButtonLabel(store, action) || actionLabel(store, action);
      const label = confirming ? `Really: ${words.toLowerCase()}?` : words;
      const node = button(label, { "data-action-index": String(index), "data-action-type": action.type });
      const why = choiceWhy(store.view, action);  // eote: what the choice does, and when it is the better one
      if (why) node.append(Object.assign(document.createElement("small"), { className: "action-why", textContent: why }));
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
    parts.buttons.closest("section").hidden = parts.buttons.hidden;  // no empty card
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

  // The outcomes of one action with odds: a heading, then each outcome's words, bar and chance.
  function oddsBlock(action) {
    const block = document.createElement("div");
    const title = document.createElement("p");
    title.textContent = `Odds if ${pieceName(store, action.piece)} attacks ${pieceName(store, action.target)}:`;
    const list = document.createElement("ul");
    for (const outcome of oddsOutcomes(action)) {
      const item = document.createElement("li");
      item.dataset.oddsOutcome = outcome.key;
      const percent = Math.round(outcome.probability * 1000) / 10;
      item.innerHTML = `<span class="odds-name"></span><span class="bar" style="--p:${percent}%"></span><span class="odds-value"></span>`;
      item.children[0].textContent = outcome.text;
      item.children[2].textContent = chanceWords(outcome);
      if (outcome.exact) item.title = `exactly ${outcome.exact}`;
      list.appendChild(item);
    }
    block.append(title, list);
    return block;
  }

  // A panel over the board beside the space `destination` and the selected piece, never
  // over either, and over as little else as the room allows (`bestSpot`).
  function placeBeside(panel, destination) {
    const space = parts.board.querySelector(`[data-space="${destination}"]`);
    const area = panel.offsetParent;
    if (!space || !area) return;
    const frame = area.getBoundingClientRect();
    const board = (parts.board.querySelector("svg.board") || parts.board).getBoundingClientRect();
    // The pieces themselves, not their spaces' wedges: a wedge of ring A is far wider
    // than the piece on it, and a panel beside the wedge covers its neighbours.
    const target = parts.board.querySelector(`[data-piece][data-at="${destination}"]`) || space;
    const piece = store.selected && parts.board.querySelector(`[data-piece="${CSS.escape(String(store.selected))}"]`);
    const fight = [target, piece].filter(Boolean).map((node) => node.getBoundingClientRect()).reduce((a, b) => ({
      left: Math.min(a.left, b.left), right: Math.max(a.right, b.right),
      top: Math.min(a.top, b.top), bottom: Math.max(a.bottom, b.bottom),
    }));
    const others = [...parts.board.querySelectorAll("[data-piece][data-at]")]
      .filter((node) => node !== target && node !== piece)
      .map((node) => node.getBoundingClientRect());
    const words = parts.board.querySelector(".piece-info");
    const spot = bestSpot({
      board, fight, others, words: words && words.getBoundingClientRect(),
      size: { width: panel.offsetWidth, height: panel.offsetHeight }, windowHeight: window.innerHeight,
    });
    panel.style.left = `${Math.round(spot.left - frame.left)}px`;
    panel.style.top = `${Math.round(spot.top - frame.top)}px`;
  }

  // Hover preview (pointer devices): the odds of the target under the pointer.
  function renderOdds(targets) {
    const actions = store.hovered && !store.attack ? targets.get(store.hovered) || [] : [];
    const withOdds = actions.filter((a) => a.odds);
    parts.odds.hidden = withOdds.length === 0;
    if (!withOdds.length) { parts.odds.innerHTML = ""; parts.odds.dataset.key = ""; return; }
    const key = store.hovered + JSON.stringify(withOdds);
    if (parts.odds.dataset.key === key) return;
    parts.odds.dataset.key = key;
    parts.odds.innerHTML = "";
    for (const action of withOdds) parts.odds.appendChild(oddsBlock(action));
    placeBeside(parts.odds, store.hovered);
  }

  // The confirm step of an attack: its odds, then Attack or Cancel. Nothing is sent before Attack.
  let attackKey = "";
  function renderAttack() {
    const pending = store.attack;
    const key = pending ? JSON.stringify(pending) + store.busy : "";
    if (key === attackKey) return;
    attackKey = key;
    parts.attack.innerHTML = "";
    parts.attack.hidden = !pending;
    if (!pending) return;
    parts.attack.appendChild(oddsBlock(pending.action));
    const row = document.createElement("div");
    row.className = "confirm-buttons";
    const attack = button(`Attack ${pieceName(store, pending.action.target)}`, { "data-confirm": "" });
    attack.classList.add("primary");
    if (store.busy) attack.disabled = true;
    row.append(attack, button("Cancel", { "data-confirm-cancel": "" }));
    parts.attack.appendChild(row);
    placeBeside(parts.attack, pending.destination);
    attack.focus({ preventScroll: true });
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
    // Chess figures and courtiers are pieces, not creatures.
    const creatures = kinds.some((k) => emblemOf(k, glyphs).family === "creature");
    text(parts.legendTitle, creatures ? "Creatures" : "Pieces");
    const head = document.createElement("tr");
    head.innerHTML = `<th scope=col>${creatures ? "Creature" : "Piece"}</th>`;
    for (const column of columns) {
      const th = document.createElement("th");
      th.scope = "col";
      const words = humanise(column);
      const short = words.split(" ").map((w) => SHORT_WORDS[w.toLowerCase()] || w).join(" ");
      if (short !== words) {
        const abbr = document.createElement("abbr");
        abbr.title = words;
        abbr.textContent = short;
        th.appendChild(abbr);
      } else {
        th.textContent = words;
      }
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
      if (hasArt(kind)) name.firstChild.appendChild(figureIcon(kind));
      else name.firstChild.textContent = glyphs[kind];
      name.append(legend[kind].name || humanise(kind));
      row.appendChild(name);
      for (const column of columns) {
        const td = document.createElement("td");
        td.textContent = asWritten(column, legend[kind][column] ?? "");
        if (typeof legend[kind][column] === "string" && legend[kind][column].length > 12) td.className = "words";
        row.appendChild(td);
      }
      tbody.appendChild(row);
    }
    parts.legend.append(thead, tbody);
  }

  function renderLost(view) {
    const state = view.state || {};
    const gone = ((state.board && state.board.off_board) || []).filter((p) => p.status !== "to place");
    const key = gone.map((p) => p.id).join(",");
    if (key === lostKey) return;
    lostKey = key;
    parts.lost.innerHTML = "";
    parts.lost.hidden = gone.length === 0;
    if (!gone.length) return;
    parts.lost.textContent = `Off the board: ${gone.map((p) => `${ownedName(store, p.id)} (${p.status})`).join(", ")}`;
  }

  function renderLog() {
    // Until the log so far arrives, say so: an empty "What happened" reads as "nothing has".
    const waiting = store.history !== "loaded" && !store.entries.length;
    parts.log.setAttribute("aria-busy", String(store.history === "loading"));
    let note = parts.log.querySelector("[data-log-note]");
    if (waiting && !note) {
      note = document.createElement("li");
      note.dataset.logNote = "";
      note.className = "log-note";
      parts.log.prepend(note);
    }
    if (note) {
      if (waiting) note.textContent = store.history === "failed"
        ? "The moves so far could not be loaded; they will be fetched again when the page reconnects."
        : "Loading the moves so far…";
      else note.remove();
    }
    if (store.entries.length < loggedCount) { parts.log.innerHTML = ""; loggedCount = 0; }
    const fresh = store.entries.slice(loggedCount);
    loggedCount = store.entries.length;
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
    }
    // The newest lines come into view (fitBoard, with the other reads of the layout), unless
    // the reader has scrolled up the log to read older ones.
    if (fresh.length && logAtEnd) logToScroll = true;
    // Live entries are spoken; those with dice once the dice stop tumbling (renderRolls).
    const live = fresh.filter((entry) => entry.live);
    speaker.hear(store, live, live.some((entry) => (entry.events || []).some((e) => e.type === "roll")));
  }

  function renderRolls() {
    const rolls = store.rolls;
    // No dice card until a die is rolled (two rulesets never roll any).
    parts.dice.closest("section").hidden = !rolls;
    // The dice of an action the game master undid stay shown, marked as not counting.
    parts.dice.dataset.undone = String(Boolean(rolls && store.undone.includes(rolls.version)));
    if (!rolls || rolls === shownRolls) return;
    shownRolls = rolls;
    // Dice just rolled also pop up over the page where their card is out of sight (the
    // one column of a phone: style.css), until tapped or a few seconds after they settle.
    const card = parts.dice.closest("section");
    clearTimeout(card.popupTimer);
    card.toggleAttribute("data-popup", Boolean(rolls.live));
    showRolls(parts.dice, store, rolls.events, () => {
      speaker.diceSettled();
      card.popupTimer = setTimeout(() => card.removeAttribute("data-popup"), DICE_POPUP_MS);
    });
  }

  function renderInvites(view) {
    if (!parts.invites) return;
    const taken = new Set((view.seats || []).filter((s) => s.player).map((s) => String(s.seat)));
    for (const row of parts.invites.querySelectorAll("[data-invite-row]")) {
      row.hidden = view.status !== "waiting" || taken.has(row.dataset.inviteRow);
    }
  }

  window.addEventListener("resize", schedule);
  parts.log.addEventListener("scroll", () => {
    logAtEnd = parts.log.scrollTop + parts.log.clientHeight >= parts.log.scrollHeight - 8;
  }, { passive: true });
  // A tap on the popped-up dice puts them back in their place.
  parts.dice.closest("section").addEventListener("click", (event) => event.currentTarget.removeAttribute("data-popup"));

  return { schedule, renderNow, get classified() { return lastClassified; } };
}
