// Rematch at the end of a match: offer it (the same ruleset and options, seats
// swapped), or accept or decline the opponent's offer. The answer reaches both
// pages live over the match's websocket ({"type": "rematch"}); once accepted,
// both players go to the new match.

function post(url, body) {
  return fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body || {}),
  });
}

function ownSeed() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function attachRematch(section, matchId, store) {
  const base = `/api/v1/matches/${encodeURIComponent(matchId)}/rematch`;
  let rematch = null, error = "";
  const status = section.querySelector("[data-rematch-status]");
  const buttons = {
    offer: section.querySelector("[data-rematch='offer']"),
    accept: section.querySelector("[data-rematch='accept']"),
    decline: section.querySelector("[data-rematch='decline']"),
    go: section.querySelector("[data-rematch='go']"),
  };

  function render() {
    const view = store.view;
    const seat = view && view.you ? view.you.seat : null;
    const playing = seat !== null && seat !== undefined;
    section.hidden = !view || view.status !== "finished" || (!playing && !rematch);
    if (section.hidden) return;
    const state = rematch ? rematch.status : null;
    const mine = rematch && rematch.by === seat;
    const other = rematch ? view.seats[rematch.by] : null;
    const who = other && other.player ? other.player.name : "Your opponent";
    buttons.offer.hidden = !(playing && !state);
    buttons.accept.hidden = buttons.decline.hidden = !(playing && state === "offered" && !mine);
    buttons.go.hidden = !(state === "accepted" && rematch.match);
    if (rematch && rematch.match) buttons.go.href = `/matches/${rematch.match}`;
    section.dataset.rematch = state || "none";
    status.textContent = error || (
      state === "offered" ? (mine ? "Rematch offered: waiting for an answer…" : `${who} offers a rematch, seats swapped.`)
        : state === "accepting" || state === "accepted" ? "Rematch accepted."
          : state === "declined" ? (mine ? "Your rematch was declined." : "Rematch declined.")
            : "Play again, seats swapped?");
  }

  function receive(next) {
    rematch = next;
    error = "";
    const seat = store.view && store.view.you ? store.view.you.seat : null;
    // Both players go to the new match once it is made.
    if (rematch && rematch.status === "accepted" && rematch.match && seat !== null && seat !== undefined) {
      window.location.assign(`/matches/${rematch.match}`);
    }
    render();
  }

  async function send(path, body) {
    const response = await post(base + path, body);
    const answer = await response.json();
    if (!response.ok) { error = answer.detail || "that did not work"; render(); return; }
    receive(answer.rematch);
  }

  buttons.offer.addEventListener("click", () => send(""));
  buttons.accept.addEventListener("click", () => send("/accept", { seed: ownSeed() }));
  buttons.decline.addEventListener("click", () => send("/decline"));

  // The socket's snapshot may predate the offer (the offer is not a new version): ask REST.
  async function resync() {
    const response = await fetch(`/api/v1/matches/${encodeURIComponent(matchId)}`);
    if (response.ok) { rematch = (await response.json()).rematch; render(); }
  }

  store.subscribe(render);
  return { receive: (message) => receive(message.rematch), resync };
}
