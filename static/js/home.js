// The home page: your matches kept current, the time left on each, the tab's title
// counting the matches waiting for you while the page is in the background, and
// the notification settings form.

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
  } catch {
    return;  // offline for a moment: the next poll catches up
  }
  tickDeadlines(list());
  showTitle();
}

function tick() {
  tickDeadlines(list());
}

async function saveNotifications(event) {
  event.preventDefault();
  const form = event.target;
  const status = document.getElementById("notifications-status");
  const body = {
    webhook_url: form.webhook_url.value.trim() || null,
    email: form.email ? form.email.value.trim() || null : null,
  };
  status.textContent = "Saving…";
  const response = await fetch("/api/v1/players/me/notifications", {
    method: "PUT",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({}));
  status.dataset.state = response.ok ? "saved" : "refused";
  if (!response.ok) status.textContent = answer.detail || "That did not work.";
  else if (answer.email_status === "pending") {
    status.textContent = `Check your inbox to confirm ${answer.email}: nothing else is sent there until you open the link.`;
  } else status.textContent = "Saved.";
  if (form.email) document.querySelector("[data-email-status]")?.remove();
}

document.getElementById("notifications-form")?.addEventListener("submit", saveNotifications);
document.addEventListener("visibilitychange", () => { showTitle(); if (!document.hidden) refresh(); });
setInterval(refresh, POLL_MS);
setInterval(tick, 1000);
tick();
showTitle();
