// The tutorial's panel: five lessons, one idea each (move, attack with the odds, the
// dice, a push, how to win), each ticked off from what really happened in the match
// log. The panel says what to do now and lights the advised piece and space on the
// board (the server's plan, app/tutorial.py: with the tutorial's seeds it leads
// through every lesson); a learner who does something else plays on, and each lesson
// is taught when its idea comes up. Whenever the Tutor is to act the page asks the
// server to play its scripted move. At the end: where to go next.

import { ownedName, pieceName } from "./state.js";

const STUDENT = 0, TUTOR = 1;
const TUTOR_PAUSE_MS = 700;          // time to see each of the Tutor's actions
const NARROW = "(max-width: 860px)"; // as style.css: the side column drops below the board

const LESSONS = [
  { id: "move", title: "Move" },
  { id: "attack", title: "Attack" },
  { id: "dice", title: "The dice" },
  { id: "push", title: "Push" },
  { id: "win", title: "Win" },
];

const RESULT_WORDS = {
  kill: "the defender is destroyed",
  push: "the defender is pushed",
  "counter-push": "the attacker is pushed back",
  "counter-kill": "the attacker is destroyed",
};
const RESULT_ROWS = [
  { result: "kill", range: "7 or more" },
  { result: "push", range: "1 to 6" },
  { result: "counter-push", range: "0 to −6" },
  { result: "counter-kill", range: "−7 or less" },
];
const GAME_ACTIONS = new Set(["move", "attack", "push"]);
const CLICK = globalThis.matchMedia && matchMedia("(pointer: coarse)").matches ? "Tap" : "Click";  // a phone is tapped

// --- reading the match ------------------------------------------------------------

// The lessons done, read from the log and the view (`diceRead`: the learner pressed
// Next under the dice). Done in any order; the panel teaches the first not done.
export function lessonsDone(entries, view, diceRead) {
  const done = new Set();
  let attacked = false;
  for (const entry of entries) {
    const type = entry.action && entry.action.type;
    if (entry.seat === STUDENT && GAME_ACTIONS.has(type)) {
      if (attacked) done.add("dice");  // the learner acted on after seeing the dice
      if (type === "move") done.add("move");
      if (type === "attack") { done.add("attack"); attacked = true; }
    }
    for (const event of entry.events || []) {
      if (event.type === "push" || event.type === "push_blocked") done.add("push");
    }
  }
  if (diceRead && attacked) done.add("dice");
  const lost = (view.state && view.state.lost) || [];
  if (lost.some((p) => p.owner === TUTOR)) done.add("win");
  return done;
}

function legalMatch(view, planned) {
  if (!planned) return null;
  return (view.legal_actions || []).find((a) => a.type === planned.type && a.piece === planned.piece
    && (planned.to === undefined || a.to === planned.to)
    && (planned.target === undefined || a.target === planned.target)) || null;
}

function spaceOf(view, pieceId) {
  const piece = ((view.state && view.state.pieces) || []).find((p) => p.id === pieceId);
  return piece ? piece.at : null;
}

function chance(action, key) {
  const outcome = ((action.odds && action.odds.outcomes) || []).find((o) => o.key === key);
  return outcome ? outcome.probability : 0;
}

const percent = (p) => `${Math.round(p * 1000) / 10}%`;

// The learner's latest attack: its rolls and result.
function lastAttack(entries) {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (entry.seat !== STUDENT || !entry.action || entry.action.type !== "attack") continue;
    const events = entry.events || [];
    return {
      action: entry.action,
      attack: events.find((e) => e.type === "roll" && e.purpose === "attack"),
      defense: events.find((e) => e.type === "roll" && e.purpose === "defense"),
      combat: events.find((e) => e.type === "combat"),
    };
  }
  return null;
}

// The learner's latest kill of a Tutor's creature: {victim, killer}.
function lastKill(store) {
  for (let i = store.entries.length - 1; i >= 0; i--) {
    for (const event of store.entries[i].events || []) {
      if (event.type === "kill" && store.owners[event.piece] === TUTOR) return { victim: event.piece, killer: event.by };
    }
  }
  return null;
}

// --- what to say ------------------------------------------------------------------
// Each lesson gives {lines: [{text, strong?}], hint: {piece, space}, rows?, next?}.

function moveLesson(store, plan) {
  const view = store.view;
  const planned = legalMatch(view, plan.move);
  const intro = { text: "You play Blue: the blue circles nearest you. A turn is two actions; each is a move or an attack." };
  if (!planned) {
    return { lines: [intro, { text: `${CLICK} one of your blue creatures, then a space lit in green.`, strong: true },
      { text: "A creature moves exactly as many steps as its Movement, never through another piece." }] };
  }
  const from = spaceOf(view, planned.piece);
  const steps = ((view.state.legend || {})[planned.piece] || {}).movement;
  return {
    lines: [intro,
      { text: `${CLICK} your ${pieceName(store, planned.piece)} on ${from} (it glows), then the glowing space ${planned.to}.`, strong: true },
      { text: `A creature moves exactly as many steps as its Movement (the ${pieceName(store, planned.piece)}: ${steps}), never through another piece.` }],
    hint: { piece: planned.piece, space: planned.to },
  };
}

function attackLesson(store, plan) {
  const view = store.view;
  const planned = legalMatch(view, plan.attack);
  const odds = { text: "Before any dice are rolled, a panel shows the exact odds of every result. Read them, then press Attack." };
  if (planned) {
    const [me, it] = [pieceName(store, planned.piece), ownedName(store, planned.target)];
    return {
      lines: [{ text: `Your ${me} now stands next to ${it} (Red plays the red hexagons).` },
        { text: `${CLICK} your ${me}, then the ${pieceName(store, planned.target)}.`, strong: true }, odds],
      hint: { piece: planned.piece, space: spaceOf(view, planned.target) },
    };
  }
  const attacks = (view.legal_actions || []).filter((a) => a.type === "attack");
  if (attacks.length) {
    return { lines: [{ text: `${CLICK} a creature of yours that stands next to a red one, then the red one.`, strong: true }, odds] };
  }
  return { lines: [{ text: "Move a creature next to a red hexagon (Red's creatures); then you can attack it.", strong: true }, odds] };
}

function diceLesson(store) {
  const fight = lastAttack(store.entries);
  if (!fight || !fight.combat) return { lines: [{ text: "The dice are being rolled…" }] };
  const faces = (roll) => roll.dice.map((d) => d.face).join(" + ");
  const { combat } = fight;
  const lines = [
    { text: `Your ${pieceName(store, fight.action.piece)} rolled ${fight.attack.dice.length} dice, one for each point of its Attack: ${faces(fight.attack)} = ${combat.attack}.` },
    { text: `${ownedName(store, fight.action.target)} rolled ${fight.defense.dice.length}, one for each point of its Defense: ${faces(fight.defense)} = ${combat.defense}.` },
    { text: `Attack minus defense: ${combat.attack} − ${combat.defense} = ${String(combat.difference).replace("-", "−")}. The difference decides:` },
  ];
  const pushed = combat.result === "push" || combat.result === "counter-push";
  return {
    lines,
    rows: RESULT_ROWS.map((row) => ({ ...row, words: RESULT_WORDS[row.result], applies: row.result === combat.result })),
    after: { text: `So here: ${RESULT_WORDS[combat.result]}.`, strong: true },
    next: pushed ? "Next: the push" : "Next",
  };
}

function pushLesson(store, plan) {
  const view = store.view;
  const push = view.state.push;
  if (push && push.chooser === STUDENT) {
    const free = push.options.length === 1 ? ` (here only ${push.options[0]} is free)` : "";
    const planned = plan.push && push.piece === plan.push.piece && push.options.includes(plan.push.to) ? plan.push.to : null;
    return {
      lines: [{ text: `You won the exchange, so you choose where ${ownedName(store, push.piece)} goes: one step to an empty space next to it${free}.` },
        { text: `${CLICK} a lit space.`, strong: true },
        { text: "When the defender wins (0 to −6), it is the other way round: the defender's side chooses where your attacker goes." }],
      hint: planned ? { space: planned } : null,
    };
  }
  if (push) {
    return { lines: [{ text: `Red won this exchange, so the Tutor chooses where ${ownedName(store, push.piece)} is pushed. Watch the board.` }] };
  }
  return { lines: [{ text: "A push comes when an attack's difference is 1 to 6 (the defender is pushed) or 0 to −6 (your attacker is)." },
    { text: `Attack again to see one: ${CLICK.toLowerCase()} a creature of yours next to a red one, then the red one.`, strong: true }] };
}

function winLesson(store, plan) {
  const view = store.view;
  const goal = { text: "You win when Red has no creature left: destroy them one by one. An attack destroys the defender when it beats the defense by 7 or more." };
  const planned = legalMatch(view, plan.win);
  const attacks = (view.legal_actions || []).filter((a) => a.type === "attack");
  const best = planned || attacks.sort((a, b) => chance(b, "kill") - chance(a, "kill"))[0];
  if (best) {
    const [me, it] = [pieceName(store, best.piece), pieceName(store, best.target)];
    const near = planned ? `${ownedName(store, best.target)} has come next to your ${me}. ` : "";
    return {
      lines: [goal, { text: `${near}Attack it: ${CLICK.toLowerCase()} your ${me}, then the ${it}.`, strong: true },
        { text: `The odds give a kill ${percent(chance(best, "kill"))} of the time: a big Attack against a small Defense.` }],
      hint: { piece: best.piece, space: spaceOf(view, best.target) },
    };
  }
  return { lines: [goal, { text: "Move a creature next to a red one; then attack it.", strong: true }] };
}

const LESSON_TEXT = { move: moveLesson, attack: attackLesson, dice: diceLesson, push: pushLesson, win: winLesson };

// --- the panel --------------------------------------------------------------------

function paragraph(line) {
  const p = document.createElement("p");
  p.textContent = line.text;
  if (line.strong) p.className = "tutorial-do";
  return p;
}

// Where to go next: the same forms as the home page's first choices.
function nextSteps() {
  const box = document.createElement("div");
  box.className = "tutorial-next";
  box.innerHTML = `
    <form method="post" action="/matches">
      <input type="hidden" name="ruleset" value="kelly"><input type="hidden" name="seat" value="0">
      <input type="hidden" name="level" value="beginner">
      <button type="submit" name="opponent" value="computer" class="primary" data-tutorial-next="computer">Play the computer</button>
    </form>
    <form method="post" action="/matches">
      <input type="hidden" name="ruleset" value="kelly"><input type="hidden" name="seat" value="0">
      <button type="submit" data-tutorial-next="friend">Play a friend</button>
    </form>`;
  return box;
}

function finishedLines(store) {
  const kill = lastKill(store);
  const lines = [];
  if (kill) lines.push({ text: `Your ${pieceName(store, kill.killer)} destroyed ${ownedName(store, kill.victim)}: it is off the board for good.` });
  lines.push(
    { text: "Destroy all four red creatures and you win. When each side has one creature left, the two meet in the core and fight To-The-Death until one is destroyed." },
    { text: "You have learned Dejarik: moving, attacking with the odds, the dice, pushes and how to win. What next?", strong: true },
  );
  return lines;
}

// The nodes of a lesson's words: its lines, the table of results, a Next button.
function lessonNodes(lesson) {
  const nodes = lesson.lines.map(paragraph);
  if (lesson.rows) {
    const rows = document.createElement("ul");
    rows.className = "tutorial-results";
    for (const row of lesson.rows) {
      const item = document.createElement("li");
      item.textContent = `${row.range}: ${row.words}`;
      if (row.applies) item.dataset.applies = "";
      rows.appendChild(item);
    }
    nodes.push(rows);
  }
  if (lesson.after) nodes.push(paragraph(lesson.after));
  if (lesson.next) {
    const next = document.createElement("button");
    next.type = "button";
    next.className = "primary";
    next.dataset.tutorialRead = "";
    next.textContent = lesson.next;
    nodes.push(next);
  }
  return nodes;
}

// What the panel says now: {title, nodes, hint}.
function panelContent(store, plan, current) {
  const view = store.view;
  if (!current) {
    const nodes = [...finishedLines(store).map(paragraph), nextSteps()];
    if (view.status === "active") nodes.push(paragraph({ text: "Or play this game on to the end against the Tutor." }));
    return { title: "Tutorial: well done!", nodes, hint: null };
  }
  const title = `Tutorial: lesson ${LESSONS.indexOf(current) + 1} of ${LESSONS.length}, ${current.title.toLowerCase()}`;
  if (view.status === "finished") {
    const again = document.createElement("p");
    again.innerHTML = '<a href="/tutorial">Start the tutorial again</a>';
    return { title, nodes: [paragraph({ text: "The match is over before every lesson came up." }), again], hint: null };
  }
  const tutorActs = view.status === "active" && (view.to_act || []).includes(TUTOR);
  if (tutorActs && current.id !== "dice" && !view.state.push) {
    return { title, nodes: [paragraph({ text: "Red's turn: the Tutor is moving. Watch the board." })], hint: null };
  }
  const lesson = LESSON_TEXT[current.id](store, plan);
  return { title, nodes: lessonNodes(lesson), hint: lesson.hint || null };
}

export function attachTutorial(root, store) {
  const matchId = root.dataset.tutorial;
  let plan = {};
  try { plan = JSON.parse(root.dataset.tutorialPlan || "{}"); } catch { /* the panel teaches without a plan */ }

  const panel = document.createElement("section");
  panel.className = "card tutorial-panel";
  panel.setAttribute("aria-labelledby", "tutorial-title");
  panel.innerHTML = `<h2 id="tutorial-title">Tutorial</h2><ol class="tutorial-steps" aria-label="Lessons"></ol>
    <div class="tutorial-now" aria-live="polite"></div>`;
  const list = panel.querySelector("ol");
  for (const lesson of LESSONS) {
    const item = document.createElement("li");
    item.dataset.step = lesson.id;
    item.textContent = lesson.title;
    list.appendChild(item);
  }
  const title = panel.querySelector("h2");
  const now = panel.querySelector(".tutorial-now");

  // Beside the board on a wide screen; above it when the side column drops below the board.
  const narrow = window.matchMedia(NARROW);
  function place() {
    if (narrow.matches) root.querySelector(".table").before(panel);
    else (root.querySelector(".side") || root).prepend(panel);
  }
  place();
  narrow.addEventListener("change", place);

  let diceRead = false;
  now.addEventListener("click", (event) => {
    if (!event.target.closest("[data-tutorial-read]")) return;
    diceRead = true;
    show();
  });

  let asked = null;
  function tutorTurn(view) {
    if (view.status !== "active" || !(view.to_act || []).includes(TUTOR) || asked === view.version) return;
    asked = view.version;
    setTimeout(async () => {
      try {
        await fetch(`/tutorial/${encodeURIComponent(matchId)}/opponent`, { method: "POST" });
      } catch { asked = null; }  // asked again with the next update
    }, TUTOR_PAUSE_MS);
  }

  // The advised piece and space, lit on the board once it is drawn (the renderer draws
  // in the next animation frame, before this one: it subscribed first). Once the piece
  // is selected, only the space.
  let hint = null;
  function lightHint() {
    for (const node of root.querySelectorAll("[data-tutorial-hint]")) node.removeAttribute("data-tutorial-hint");
    if (!hint) return;
    const chosen = store.selected === hint.piece;
    const piece = hint.piece && !chosen && root.querySelector(`[data-piece="${CSS.escape(hint.piece)}"]`);
    const space = hint.space && (chosen || !hint.piece) && root.querySelector(`[data-space="${CSS.escape(hint.space)}"]`);
    if (piece) piece.setAttribute("data-tutorial-hint", "piece");
    if (space) space.setAttribute("data-tutorial-hint", "space");
  }

  let shownWords = null;
  function show() {
    const done = lessonsDone(store.entries, store.view, diceRead);
    const current = LESSONS.find((l) => !done.has(l.id));
    for (const item of list.children) {
      item.dataset.done = String(done.has(item.dataset.step));
      if (current && item.dataset.step === current.id) item.setAttribute("aria-current", "step");
      else item.removeAttribute("aria-current");
    }
    panel.dataset.finished = String(!current);
    panel.dataset.lesson = current ? current.id : "done";
    const content = panelContent(store, plan, current);
    if (title.textContent !== content.title) title.textContent = content.title;
    // New words only when they change: the panel is read out (aria-live) on each change.
    const words = content.nodes.map((node) => node.textContent).join("\n");
    if (words !== shownWords) {
      now.replaceChildren(...content.nodes);
      shownWords = words;
    }
    hint = content.hint;
    requestAnimationFrame(lightHint);
  }

  store.subscribe(() => {
    if (!store.view) return;
    tutorTurn(store.view);
    show();
  });
}
