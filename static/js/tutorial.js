// The tutorial's panel beside the board: the steps (move, attack, push) ticked off from
// what the student really did in the match log, what to do now, and the Tutor's turn:
// whenever the Tutor is to act the page asks the server to play its scripted move.

const STUDENT = 0, TUTOR = 1;
const TUTOR_PAUSE_MS = 700;   // time to see each of the Tutor's actions

const STEPS = [
  { id: "move", title: "Move",
    text: "Click one of your blue circles, then a space lit in green. A creature moves exactly as many steps as its Movement." },
  { id: "attack", title: "Attack",
    text: "Bring a creature next to a red hexagon. Click your creature, then the red one next to it (point at it first to see the odds). The server rolls the dice." },
  { id: "push", title: "Push",
    text: "When an attack ends in a push, the winner chooses where the loser goes: click a lit space (the Tutor chooses when it wins)." },
];

function doneSteps(store) {
  const done = new Set();
  for (const entry of store.entries) {
    for (const event of entry.events || []) {
      const mine = entry.seat === STUDENT;
      if (event.type === "move" && mine) done.add("move");
      if (event.type === "attack" && mine) done.add("attack");
      if (event.type === "push" || event.type === "push_blocked") done.add("push");
    }
  }
  return done;
}

export function attachTutorial(root, store) {
  const matchId = root.dataset.tutorial;
  const panel = document.createElement("section");
  panel.className = "card tutorial-panel";
  panel.setAttribute("aria-labelledby", "tutorial-title");
  panel.innerHTML = `<h2 id="tutorial-title">Tutorial</h2><ol class="tutorial-steps"></ol>
    <p class="tutorial-now" aria-live="polite"></p>`;
  const list = panel.querySelector("ol");
  for (const step of STEPS) {
    const item = document.createElement("li");
    item.dataset.step = step.id;
    item.innerHTML = "<strong></strong> <span></span>";
    item.firstChild.textContent = step.title;
    item.lastChild.textContent = step.text;
    list.appendChild(item);
  }
  const now = panel.querySelector(".tutorial-now");
  (root.querySelector(".side") || root).prepend(panel);

  let asked = null, key = "";
  function tutorTurn(view) {
    if (view.status !== "active" || !(view.to_act || []).includes(TUTOR) || asked === view.version) return;
    asked = view.version;
    setTimeout(async () => {
      try {
        await fetch(`/tutorial/${encodeURIComponent(matchId)}/opponent`, { method: "POST" });
      } catch { asked = null; }  // asked again with the next update
    }, TUTOR_PAUSE_MS);
  }

  store.subscribe(() => {
    const view = store.view;
    if (!view) return;
    tutorTurn(view);
    const done = doneSteps(store);
    const next = STEPS.find((s) => !done.has(s.id));
    const finished = !next;
    const state = `${[...done].join()}|${view.status}|${(view.to_act || []).join()}`;
    if (state === key) return;
    key = state;
    for (const item of list.children) item.dataset.done = String(done.has(item.dataset.step));
    panel.dataset.finished = String(finished);
    let words;
    if (finished) {
      words = "Well done: you have moved, attacked and seen a push. That is Dejarik! Play on, or start a real match from the home page.";
    } else if (view.status === "finished") {
      words = "The match is over before every step came up: start the tutorial again for another try.";
    } else if ((view.to_act || []).includes(TUTOR)) {
      words = "The Tutor is moving…";
    } else {
      words = `Now: ${next.title}. ${next.text}`;
    }
    now.textContent = words;
  });
}
