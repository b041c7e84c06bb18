import assert from "node:assert/strict";
import { test } from "node:test";

import { ratingChangeWords } from "../../static/js/ratings.js";

test("a rated match's end names each player's change, provisional ratings with a ?", () => {
  const view = {
    seats: [{ seat: 0, player: { name: "Rey" } }, { seat: 1, player: { name: "Beginner bot" }, bot: { name: "Beginner bot" } }],
    rating_changes: [
      { seat: 0, before: 1500, after: 1662.4, before_provisional: true, after_provisional: true },
      { seat: 1, before: 1000, after: 1000, before_provisional: false, after_provisional: false },
    ],
  };
  assert.deepEqual(ratingChangeWords(view), ["Rey 1500? → 1662? (+162)", "Beginner bot 1000 → 1000 (±0)"]);
});

test("a casual match has no rating words", () => {
  assert.deepEqual(ratingChangeWords({ seats: [], rating_changes: null }), []);
});
