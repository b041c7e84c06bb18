// Time left on a match's clock: formatting, and the countdowns a page shows.
// No state of its own beyond the elements it is given.

// "3 d 4 h", "5 h 02 min", "4:05"; "0:00" once the time has run out.
export function formatLeft(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const days = Math.floor(s / 86400);
  const hours = Math.floor((s % 86400) / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = s % 60;
  if (days) return `${days} d ${hours} h`;
  if (hours) return `${hours} h ${String(minutes).padStart(2, "0")} min`;
  return `${minutes}:${String(seconds).padStart(2, "0")}`;
}

export function msLeft(deadline, now = Date.now()) {
  return Date.parse(deadline) - now;
}

// "5 min ago", "3 h ago", "2 d ago"; "just now" under a minute.
export function formatAgo(iso, now = Date.now()) {
  const s = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

// Every <time data-deadline> under `root` shows the time left, each second.
export function tickDeadlines(root) {
  for (const el of root.querySelectorAll("time[data-deadline]")) {
    const left = msLeft(el.dataset.deadline);
    el.textContent = left > 0 ? `${formatLeft(left)} left` : "out of time";
    el.dataset.expired = String(left <= 0);
  }
}

// The match page's countdown for the seat to act (`#deadline`). When the time runs
// out, `onExpired` runs once per version: the page asks for a fresh view, in which
// the other seats find their claim of the win.
export function attachDeadline(root, store, { seatLabel, onExpired }) {
  const el = root.querySelector("#deadline");
  if (!el) return;
  let expiredAt = null;
  function show() {
    const view = store.view;
    const deadline = view && view.status === "active" ? view.deadline : null;
    el.hidden = !deadline;
    if (!deadline) return;
    const left = msLeft(deadline);
    const names = (view.to_act || []).map((s) => seatLabel(view, s)).join(" and ");
    el.dataset.expired = String(left <= 0);
    el.textContent = left > 0 ? `${names}: ${formatLeft(left)} left to move` : `${names} ran out of time`;
    if (left <= 0 && expiredAt !== view.version) {
      expiredAt = view.version;
      onExpired();
    }
  }
  store.subscribe(show);
  setInterval(show, 1000);
  show();
}
