// The readable fallback for a view kind with no renderer of its own: the state as
// a plain list. Every action still appears as a button (render.js), so any ruleset
// stays playable.

import { humanise } from "../state.js";

function describe(value) {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value)) return value.map(describe).join("; ") || "none";
  if (typeof value === "object") {
    return Object.entries(value).map(([k, v]) => `${humanise(k)}: ${describe(v)}`).join(", ");
  }
  return String(value);
}

export function createFallbackRenderer(container) {
  container.innerHTML = "";
  const box = document.createElement("dl");
  box.className = "fallback-state";
  container.appendChild(box);
  let last = "";

  function update(store) {
    const state = store.view.state || {};
    const key = JSON.stringify(state);
    if (key === last) return;
    last = key;
    box.innerHTML = "";
    for (const [name, value] of Object.entries(state)) {
      if (name === "kind" || name === "legend") continue;
      const dt = document.createElement("dt");
      dt.textContent = humanise(name);
      const dd = document.createElement("dd");
      dd.textContent = describe(value);
      box.append(dt, dd);
    }
  }

  return { update };
}
