// The home page: your matches kept current (the list appears above the choices once
// you have one), the time left on each, and the tab's title counting the matches
// waiting for you while the page is in the background. The notification settings
// are on the settings page (notifications.js).

import { tickDeadlines } from "./clock.js";

const POLL_MS = 5000;
const baseTitle = document.title;

function list() {
  return document.getElementById("my-matches");
}

function yourTurnCount() {
  const yours = list()?.querySelector("[data-group='yours']");
  return yours ? Number(yours.dataset.count) : 0;
}

function showTitle() {
  const count = yourTurnCount();
  document.title = document.hidden && count ? `(${count}) Your turn` : baseTitle;
}

async function refresh() {
  try {
    const response = await fetch("/home/matches", { credentials: "same-origin" });
    if (!response.ok) return;
    const html = await response.text();
    const fresh = new DOMParser().parseFromString(html, "text/html").getElementById("my-matches");
    const current = list();
    if (fresh && current && fresh.innerHTML !== current.innerHTML) current.replaceWith(fresh);
    else if (fresh && !current && fresh.querySelector("[data-match-link]")) document.querySelector(".start")?.before(fresh);
  } catch {
    return;  // offline for a moment: the next poll catches up
  }
  tick();
  showTitle();
}

function tick() {
  const matches = list();  // none until you have a match
  if (matches) tickDeadlines(matches);
}

document.addEventListener("visibilitychange", () => { showTitle(); if (!document.hidden) refresh(); });
setInterval(refresh, POLL_MS);
setInterval(tick, 1000);
tick();
showTitle();
