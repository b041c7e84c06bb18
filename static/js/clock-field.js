// The options form's clock (templates/_option_field.html): no clock, a preset, or another
// time in minutes, hours or days. The API counts it in seconds: {"per_move_s": N}.

const UNIT_SECONDS = { minutes: 60, hours: 3600, days: 86400 };

function part(field, name) {
  return field.querySelector(`[data-clock-part='${name}']`);
}

// The clock the field shows, as the API takes it (null: no clock).
export function readClock(field) {
  const preset = part(field, "preset").value;
  if (!preset) return null;
  if (preset !== "custom") return { per_move_s: Number(preset) };
  const amount = Number(part(field, "amount").value);
  return { per_move_s: Math.round(amount * UNIT_SECONDS[part(field, "unit").value]) };
}

// Show `clock` (as the API gives it) in the field: its preset, or another time in the
// largest unit that counts it whole.
export function showClock(field, clock) {
  const seconds = clock && Number.isInteger(clock.per_move_s) ? clock.per_move_s : null;
  const preset = part(field, "preset");
  if (seconds === null) { preset.value = ""; return; }
  if ([...preset.options].some((o) => o.value === String(seconds))) { preset.value = String(seconds); return; }
  preset.value = "custom";
  const unit = ["days", "hours", "minutes"].find((u) => seconds % UNIT_SECONDS[u] === 0) || "minutes";
  part(field, "unit").value = unit;
  part(field, "amount").value = String(Math.round(seconds / UNIT_SECONDS[unit]));
}
