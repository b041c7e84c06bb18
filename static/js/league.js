// The league page (templates/league.html): the invite link's copy button, and the rounds,
// results and standings kept current: the league's websocket (WS /ws/leagues/{id}) says
// when the league changed, and the page fetches its changing part again.

import { attachCopyButtons } from "./copy.js";

const head = document.querySelector("[data-league]");
const leagueId = head?.dataset.league;
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 10000;

async function refresh() {
  try {
    const response = await fetch(`/leagues/${encodeURIComponent(leagueId)}/live`, { credentials: "same-origin" });
    if (!response.ok) return;
    const html = await response.text();
    const fresh = new DOMParser().parseFromString(html, "text/html").getElementById("league-live");
    const current = document.getElementById("league-live");
    if (fresh && current && fresh.innerHTML !== current.innerHTML) current.replaceWith(fresh);
  } catch {
    // offline for a moment: the next message or reconnection catches up
  }
}

function listen(retryMs) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/leagues/${encodeURIComponent(leagueId)}`);
  let opened = false;
  socket.addEventListener("open", () => { opened = true; });
  socket.addEventListener("message", (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    if (message.type === "league") refresh();
    if (message.type === "hello" && retryMs > FIRST_RETRY_MS) refresh();  // back after a break
  });
  socket.addEventListener("close", () => {
    const next = opened ? FIRST_RETRY_MS * 2 : Math.min(retryMs * 2, MAX_RETRY_MS);
    setTimeout(() => listen(next), retryMs);
  });
}

if (head) {
  attachCopyButtons(head);
  listen(FIRST_RETRY_MS);
}
