// The game master's panel on the match page (templates/_gm_options.html): every
// seat's state (player, NPC, open) with the invite link of an open seat, and the
// match options form, which is the gm_set_options control filled in. The form is
// sent over REST (the cookie is the GM's credential); a refusal (422) is shown next
// to the form and beside the field it names ("options.sheets.0.intellect: …").
// The other GM controls stay buttons (render.js).

import { readClock, showClock } from "./clock-field.js";
import { seatLabel } from "./state.js";

// A validation message of the server in plain words.
export function plainReason(why) {
  const bound = (re, words) => { const m = why.match(re); return m ? `${words} ${m[1]}` : null; };
  return bound(/less than or equal to (-?[\d.]+)/, "must be at most")
    || bound(/greater than or equal to (-?[\d.]+)/, "must be at least")
    || bound(/less than (-?[\d.]+)/, "must be less than")
    || bound(/greater than (-?[\d.]+)/, "must be more than")
    || bound(/at most (\d+) characters?/, "may have at most this many characters:")
    || (/valid integer/.test(why) ? "must be a whole number" : null)
    || (/valid number/.test(why) ? "must be a number" : null)
    || (why ? `: ${why.charAt(0).toLowerCase()}${why.slice(1)}` : "is not valid");
}

function pathOf(name) {
  return name.split(".").slice(1);  // "options.sheets.0.intellect" -> ["sheets", "0", "intellect"]
}

function valueAt(object, path) {
  let value = object;
  for (const key of path) {
    if (value === null || typeof value !== "object" || !(key in value)) return undefined;
    value = value[key];
  }
  return value;
}

function setAt(object, path, value) {
  let holder = object;
  path.slice(0, -1).forEach((key, i) => {
    if (holder[key] === null || typeof holder[key] !== "object") holder[key] = /^\d+$/.test(path[i + 1]) ? [] : {};
    holder = holder[key];
  });
  holder[path[path.length - 1]] = value;
}

function fields(form) {
  return [...form.elements].filter((el) => el.name && el.name.startsWith("options."));
}

// Show `options` in the form.
export function fillForm(form, options) {
  for (const clock of form.querySelectorAll("[data-clock]")) showClock(clock, valueAt(options, pathOf(clock.dataset.clock)));
  for (const el of fields(form)) {
    if (el.dataset.clockPart) continue;  // the clock's, shown above
    const value = valueAt(options, pathOf(el.name));
    if (value === undefined) continue;
    if (el.type === "checkbox") el.checked = Boolean(value);
    else el.value = value === null ? "" : String(value);
  }
}

// The options the form shows: the current ones with every field's value put in,
// typed like the current value (a number field left empty or not a number goes as
// typed, and the server says what is wrong with it).
export function readForm(form, current) {
  const options = structuredClone(current || {});
  for (const clock of form.querySelectorAll("[data-clock]")) setAt(options, pathOf(clock.dataset.clock), readClock(clock));
  for (const el of fields(form)) {
    if (el.dataset.clockPart) continue;  // the clock's, read above
    const path = pathOf(el.name);
    const before = valueAt(current, path);
    let value;
    if (el.type === "checkbox") value = el.checked;
    else if (el.type === "number" || typeof before === "number") {
      const raw = el.value.trim();
      value = raw === "" ? null : Number.isFinite(Number(raw)) ? Number(raw) : raw;
    } else value = el.value;
    // An optional group left empty (a match's clock: none) stays null.
    if ((value === null || value === "") && path.length > 1 && valueAt(current, path.slice(0, -1)) === null) continue;
    setAt(options, path, value);
  }
  return options;
}

export function attachGm(root, store) {
  const panel = root.querySelector("#gm-panel");
  if (!panel) return;
  const form = root.querySelector("#gm-options");
  const status = form && form.querySelector("[data-gm-options-status]");
  const errorBox = form && form.querySelector("[data-gm-options-error]");
  let dirty = false, sending = false, shownOptions = "", seatsKey = "";

  function control() {
    const view = store.view;
    return view && (view.legal_actions || []).find((a) => a.type === "gm_set_options");
  }

  function clearErrors() {
    errorBox.hidden = true;
    errorBox.textContent = "";
    for (const node of form.querySelectorAll(".gm-field-error")) node.remove();
    for (const node of form.querySelectorAll(".option.invalid")) node.classList.remove("invalid");
    for (const node of form.querySelectorAll("[aria-invalid]")) node.removeAttribute("aria-invalid");
  }

  // The field a message names, in the form's words ("Light's sheet: Intellect").
  function fieldWords(el) {
    const label = el.closest("label");
    const own = label ? label.firstChild.textContent.trim() : el.name;
    const group = el.closest("fieldset");
    const legend = group && group.querySelector("legend");
    return legend ? `${legend.textContent.trim()}: ${own}` : own;
  }

  function showError(message) {
    clearErrors();
    // Mark every field the message names ("options.x.y: why; options.z: why") and say
    // each refusal as a person would ("Light's sheet: Intellect must be at most 6").
    let first = null;
    const sentences = [];
    for (const part of message.split("; ")) {
      const [name, ...why] = part.split(": ");
      const el = fields(form).find((f) => f.name === name);
      if (!el) { sentences.push(part); continue; }
      const reason = plainReason(why.join(": "));
      sentences.push(`${fieldWords(el)} ${reason}`);
      el.setAttribute("aria-invalid", "true");
      const holder = el.closest(".option");
      holder.classList.add("invalid");
      const note = document.createElement("small");
      note.className = "gm-field-error";
      note.textContent = `${fieldWords(el).split(": ").pop()} ${reason}`;
      holder.appendChild(note);
      first = first || el;
    }
    errorBox.textContent = `${sentences.join(". ")}.`;
    errorBox.hidden = false;
    if (first) first.focus();
  }

  function setStatus(words) {
    if (status.textContent !== words) status.textContent = words;
  }

  async function submit(event) {
    event.preventDefault();
    const listed = control();
    if (!listed || sending) return;
    const view = store.view;
    const action = { ...listed, options: readForm(form, view.options) };
    sending = true;
    setStatus("Saving…");
    try {
      const response = await fetch(`/api/v1/matches/${encodeURIComponent(view.id)}/actions`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        credentials: "same-origin",
        body: JSON.stringify({ action, version: view.version }),
      });
      const body = await response.json().catch(() => ({}));
      if (response.ok) {
        const saved = (body.events || []).find((e) => e.type === "options_changed");
        dirty = false;
        clearErrors();
        if (saved) { fillForm(form, saved.options); shownOptions = JSON.stringify(saved.options); }
        setStatus("Saved.");
      } else if (response.status === 409) {
        setStatus("");
        showError("The match changed meanwhile (someone sat down?): check the values and save again.");
      } else {
        setStatus("Not saved.");
        showError(body.message || body.detail || `The server refused the options (${response.status}).`);
      }
    } catch {
      setStatus("Not saved.");
      showError("Could not reach the server: the options were not saved.");
    } finally {
      sending = false;
    }
  }

  function renderForm() {
    const listed = control();
    form.closest("section").hidden = !listed;
    if (!listed || dirty) return;
    const key = JSON.stringify(store.view.options);
    if (key !== shownOptions) {
      fillForm(form, store.view.options);
      shownOptions = key;
    }
  }

  function renderSeats() {
    const view = store.view;
    const key = JSON.stringify(view.seats);
    if (key === seatsKey) return;
    seatsKey = key;
    for (const row of panel.querySelectorAll("[data-gm-seat]")) {
      const seat = (view.seats || []).find((s) => String(s.seat) === row.dataset.gmSeat);
      if (!seat) continue;
      const state = seat.npc ? "npc" : seat.player ? "taken" : "open";
      row.dataset.state = state;
      const words = seat.npc
        ? `NPC: you play it${seat.player ? ` (${seat.player.name} watches)` : ""}`
        : seat.player ? `played by ${seat.player.name}` : "open: send the invite link";
      row.querySelector("[data-gm-seat-state]").textContent = words;
      row.querySelector("[data-gm-invite]").hidden = state !== "open";
      row.setAttribute("aria-label", `${seatLabel(view, seat.seat)}: ${words}`);
    }
  }

  if (form) {
    form.addEventListener("submit", submit);
    form.addEventListener("input", () => { dirty = true; setStatus("Not saved yet."); });
  }
  // The listed "Edit the match options" button leads to the form rather than
  // sending the options unchanged.
  root.addEventListener("click", (event) => {
    const edit = event.target.closest("[data-action-type='gm_set_options']");
    if (!edit || !form) return;
    event.stopPropagation();
    form.scrollIntoView({ block: "start", behavior: "smooth" });
    const first = fields(form)[0];
    if (first) first.focus({ preventScroll: true });
  }, true);

  // eote's "Sheets 1", "Sheets 2": say whose sheet each is.
  let named = false;
  function nameSheets() {
    if (named || !form) return;
    named = true;
    for (const legend of form.querySelectorAll("fieldset > legend")) {
      const match = /^Sheets (\d+)$/.exec(legend.textContent.trim());
      const seat = match && (store.view.seats || []).find((s) => s.seat === Number(match[1]) - 1);
      if (seat) legend.textContent = `${seat.name}'s sheet`;
    }
  }

  store.subscribe(() => {
    if (!store.view) return;
    nameSheets();
    renderSeats();
    if (form) renderForm();
  });
}
