// Which of the tutorial's lessons are done (static/js/tutorial.js), read from the match
// log as the server sends it: run by `node --test tests/js/` without a browser.
// tests/browser/test_tutorial.py follows the planned path on a real page; these are the
// other paths a learner may take, each lesson taught when its idea comes up.

import assert from "node:assert/strict";
import { test } from "node:test";

import { lessonsDone } from "../../static/js/tutorial.js";

const LEARNER = 0, TUTOR = 1;
const entry = (seat, type, events = []) => ({ seat, action: { type }, events });
const view = (lost = []) => ({ state: { lost } });
const done = (entries, lost, diceRead = false) => [...lessonsDone(entries, view(lost), diceRead)].sort();

test("nothing is done before the learner acts, whatever the Tutor does", () => {
  assert.deepEqual(done([entry(null, "start"), entry(TUTOR, "move"), entry(TUTOR, "attack")], []), []);
});

test("the dice are read with Next, or by acting on after the attack", () => {
  const attacked = [entry(LEARNER, "move"), entry(LEARNER, "attack")];
  assert.deepEqual(done(attacked, []), ["attack", "move"]);
  assert.deepEqual(done(attacked, [], true), ["attack", "dice", "move"]);
  assert.deepEqual(done([...attacked, entry(LEARNER, "move")], []), ["attack", "dice", "move"]);
  assert.deepEqual(done([entry(LEARNER, "move")], [], true), ["move"], "no dice before an attack");
});

test("a push either way counts, chosen by either side; a kill of a red creature is the win lesson", () => {
  const counterPush = entry(TUTOR, "push", [{ type: "push", result: "counter-push" }]);
  assert.deepEqual(done([entry(LEARNER, "attack"), counterPush], []), ["attack", "push"]);
  assert.deepEqual(done([entry(LEARNER, "attack", [{ type: "push_blocked" }])], []), ["attack", "push"]);
  // A first attack that kills teaches winning before any push: the push lesson waits.
  const killed = done([entry(LEARNER, "attack", [{ type: "kill" }])], [{ id: "ngok", owner: TUTOR }]);
  assert.deepEqual(killed, ["attack", "win"]);
  assert.deepEqual(done([entry(LEARNER, "attack")], [{ id: "ngok", owner: LEARNER }]), ["attack"], "losing one is not winning");
});
