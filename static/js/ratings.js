// A rated match's end, in words: "Rey 1500? → 1662? (+162)" for each seat
// (the view's rating_changes; "?" while a rating is provisional). Pure: no DOM.

function shown(rating, provisional) {
  return `${Math.round(rating)}${provisional ? "?" : ""}`;
}

export function ratingChangeWords(view) {
  const changes = (view && view.rating_changes) || [];
  return changes.map((change) => {
    const row = (view.seats || []).find((s) => s.seat === change.seat) || {};
    const name = (row.player && row.player.name) || (row.bot && row.bot.name) || `Seat ${change.seat + 1}`;
    const delta = Math.round(change.after) - Math.round(change.before);
    const sign = delta > 0 ? "+" : delta < 0 ? "−" : "±";
    return `${name} ${shown(change.before, change.before_provisional)} → `
      + `${shown(change.after, change.after_provisional)} (${sign}${Math.abs(delta)})`;
  });
}
