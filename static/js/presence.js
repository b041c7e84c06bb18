// Who is at the table: each seat's player, connected now or last seen when.
// Read from the server (which records it for every process) every PRESENCE_MS.

import { formatAgo } from "./clock.js";

const PRESENCE_MS = 15000;

export function attachPresence(root, matchId, store, { seatLabel }) {
  const list = root.querySelector("#presence");
  if (!list) return;
  let seats = [];
  function show() {
    const view = store.view;
    if (!view) return;
    list.replaceChildren(...seats.filter((s) => s.player_id).map((s) => {
      const item = document.createElement("li");
      item.dataset.seat = s.seat;
      item.dataset.connected = String(s.connected);
      const when = s.connected ? "here now" : s.last_seen ? `last seen ${formatAgo(s.last_seen)}` : "not seen yet";
      item.textContent = `${seatLabel(view, s.seat)}: ${when}`;
      return item;
    }));
  }
  async function load() {
    try {
      const response = await fetch(`/api/v1/matches/${encodeURIComponent(matchId)}/presence`);
      if (response.ok) seats = (await response.json()).seats;
    } catch {
      return;
    }
    show();
  }
  store.subscribe(show);
  setInterval(load, PRESENCE_MS);
  load();
}
