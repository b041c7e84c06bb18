// Rematch at the end of a match, beside the end banner: offer it (the same ruleset
// and options, seats swapped), or accept or decline the opponent's offer. A bot
// accepts at once; an offer nobody answers expires, and either player may offer
// again. The answer reaches both pages live over the match's websocket
// ({"type": "rematch"}); once accepted, both players go to the new match.

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

function clockTime(iso) {
  return new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

export function attachRematch(section, matchId, store) {
  const base = `/api/v1/matches/${encodeURIComponent(matchId)}/rematch`;
  let rematch = null, error = "", sending = false, expiryTimer = 0, leaving = false;
  let news = 0;  // counts the rematch news received, so that an older REST answer cannot undo it
  const status = section.querySelector("[data-rematch-status]");
  const buttons = {
    offer: section.querySelector("[data-rematch='offer']"),
    accept: section.querySelector("[data-rematch='accept']"),
    decline: section.querySelector("[data-rematch='decline']"),
    go: section.querySelector("[data-rematch='go']"),
  };

  // The player (or bot) across the table from `seat`.
  function opponent(view, seat) {
    return (view.seats || []).find((s) => s.seat !== seat) || null;
  }

  function words(view, seat, state) {
    const mine = rematch && rematch.by === seat;
    const other = opponent(view, seat);
    const otherName = other && other.player ? other.player.name : "your opponent";
    const offerer = rematch ? view.seats[rematch.by] : null;
    const offererName = offerer && offerer.player ? offerer.player.name : "Your opponent";
    const until = rematch && rematch.expires_at ? ` The offer stands until ${clockTime(rematch.expires_at)}.` : "";
    if (state === "offered") {
      return mine ? `Rematch offered: waiting for an answer from ${otherName}.${until}`
        : `${offererName} offers a rematch, seats swapped.${until}`;
    }
    if (state === "accepting" || state === "accepted") return "Rematch accepted: the new match is ready.";
    if (state === "declined") return mine ? `${otherName} declined the rematch.` : "You declined the rematch.";
    if (state === "expired") return "The rematch offer expired unanswered. Offer one again?";
    if (other && other.bot) return `Play ${other.bot.name} again, seats swapped?`;
    return `Offer ${otherName} a rematch, seats swapped?`;
  }

  function render() {
    const view = store.view;
    const seat = view && view.you ? view.you.seat : null;
    const playing = seat !== null && seat !== undefined;
    section.hidden = !view || view.status !== "finished" || (!playing && !rematch);
    if (section.hidden) return;
    const state = rematch ? rematch.status : null;
    const mine = rematch && rematch.by === seat;
    buttons.offer.hidden = !(playing && (!state || state === "expired"));
    buttons.offer.disabled = sending;
    buttons.accept.hidden = buttons.decline.hidden = !(playing && state === "offered" && !mine);
    buttons.go.hidden = !(state === "accepted" && rematch.match);
    if (rematch && rematch.match) buttons.go.href = `/matches/${rematch.match}`;
    section.dataset.rematch = state || "none";
    status.textContent = error || (playing || state ? words(view, seat, state) : "");
  }

  // An offer left standing ends by itself: ask the server once its time is up.
  function watchExpiry() {
    clearTimeout(expiryTimer);
    if (!rematch || rematch.status !== "offered" || !rematch.expires_at) return;
    const left = Date.parse(rematch.expires_at) - Date.now();
    expiryTimer = setTimeout(resync, Math.max(1000, left + 1000));
  }

  function receive(next) {
    news += 1;
    rematch = next;
    error = "";
    const seat = store.view && store.view.you ? store.view.you.seat : null;
    // Both players go to the new match once it is made: once, though the news comes twice
    // to the one who asked (the answer, then the socket), and a second navigation would
    // abort the first.
    if (rematch && rematch.status === "accepted" && rematch.match && seat !== null && seat !== undefined
        && !leaving) {
      leaving = true;
      window.location.assign(`/matches/${rematch.match}`);
    }
    watchExpiry();
    render();
  }

  async function send(path, body) {
    sending = true;
    render();
    try {
      const response = await post(base + path, body);
      const answer = await response.json();
      if (!response.ok) { error = answer.detail || "that did not work"; return; }
      receive(answer.rematch);
    } catch {
      error = "Could not reach the server: try again.";
    } finally {
      sending = false;
      render();
    }
  }

  buttons.offer.addEventListener("click", () => send(""));
  buttons.accept.addEventListener("click", () => send("/accept", { seed: ownSeed() }));
  buttons.decline.addEventListener("click", () => send("/decline"));

  // The socket's snapshot may predate the offer (the offer is not a new version): ask REST.
  // News that comes while the answer is on its way is newer than the answer (the socket
  // brings every later change): the answer is then dropped, or it would undo the news.
  async function resync() {
    const asked = news;
    const response = await fetch(`/api/v1/matches/${encodeURIComponent(matchId)}`);
    if (!response.ok) return;
    const answer = await response.json();
    if (news !== asked) return;
    rematch = answer.rematch;  // an old match's accepted rematch: shown, not followed
    watchExpiry();
    render();
  }

  store.subscribe(render);
  return { receive: (message) => receive(message.rematch), resync };
}
