// The page's state and how it reads the server's match view (static/js/state.js):
// pure functions over plain objects, run by `node --test tests/js/` without a browser.
// The views below have the shapes the server sends (a kelly board, a dalsiandon draft).

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  actionLabel, asWritten, chanceWords, classifyActions, countsActions, createStore, humanise, lastMarks, latestRolls,
  oddsOutcomes, ownedName, pieceName, piecesOnBoard, rememberNames, seatLabel, seatName, targetsOf,
} from "../../static/js/state.js";

const LEGEND = { klorslug: { name: "K'lor'slug" }, monnok: { name: "Monnok" } };

// A kelly match: Blue's K'lor'slug on A1 beside Red's Monnok on A2; a Houjix lost.
function kellyView(extra = {}) {
  return {
    seats: [
      { seat: 0, name: "Blue", player: { id: "p1", name: "Han" } },
      { seat: 1, name: "Red", player: null },
    ],
    state: {
      seat_names: ["Blue", "Red"],
      legend: LEGEND,
      pieces: [
        { id: "klorslug", kind: "klorslug", owner: 0, at: "A1", name: "K'lor'slug" },
        { id: "monnok", kind: "monnok", owner: 1, at: "A2" },
        { id: "houjix", kind: "houjix", owner: 0, at: null },
      ],
      spaces: [],
    },
    legal_actions: [],
    ...extra,
  };
}

test("an update changes the state and tells every listener until it unsubscribes", () => {
  const store = createStore({ connection: "live" });
  assert.equal(store.connection, "live", "the initial values win over the defaults");
  assert.equal(store.selected, null);
  const seen = [];
  const stop = store.subscribe((s) => seen.push(s.selected));
  store.subscribe((s) => seen.push(`also ${s.selected}`));
  store.update({ selected: "monnok" });
  assert.deepEqual(seen, ["monnok", "also monnok"]);
  stop();
  store.update({ selected: null, busy: true });
  assert.deepEqual(seen, ["monnok", "also monnok", "also null"]);
  assert.equal(store.busy, true);
});

test("two stores share no names, owners or log entries", () => {
  const one = createStore(), two = createStore();
  one.names.x = "X";
  one.entries.push({ version: 1 });
  assert.deepEqual(two.names, {});
  assert.deepEqual(two.entries, []);
});

test("only pieces standing on a space are on the board", () => {
  assert.deepEqual(piecesOnBoard(kellyView()).map((p) => p.id), ["klorslug", "monnok"]);
  assert.deepEqual(piecesOnBoard(null), []);
  assert.deepEqual(piecesOnBoard({ state: {} }), []);
});

test("a piece keeps its name and owner after it has left the board", () => {
  const store = createStore();
  rememberNames(store, kellyView());
  rememberNames(store, kellyView({ state: { seat_names: ["Blue", "Red"], pieces: [] } })); // all gone
  assert.equal(pieceName(store, "klorslug"), "K'lor'slug", "its own name");
  assert.equal(pieceName(store, "monnok"), "Monnok", "the legend's name for its kind");
  assert.equal(pieceName(store, "houjix"), "Houjix", "its kind in words");
  store.view = kellyView();
  assert.equal(ownedName(store, "monnok"), "Red Monnok");
  assert.equal(ownedName(store, "houjix"), "Blue Houjix");
});

test("pieces named only by kind in per-seat lists belong to the seat of their list", () => {
  const store = createStore({ view: { seats: [], state: { seat_names: ["Blue", "Red"] } } });
  rememberNames(store, { state: { teams: [["ng_ok"], ["savrip"]], unplaced: [[], ["mantellian-savrip"]] } });
  assert.equal(ownedName(store, "ng_ok"), "Blue Ng ok");
  assert.equal(ownedName(store, "savrip"), "Red Savrip");
  assert.equal(ownedName(store, "mantellian-savrip"), "Red Mantellian savrip");
});

test("lists that are not per seat do not give their index as an owner", () => {
  const store = createStore({ view: { seats: [], state: {} } });
  rememberNames(store, { state: { teams: ["ng_ok", "savrip"] } });
  assert.equal(store.owners.savrip, undefined);
});

test("a piece the page never heard of is named from its id", () => {
  const store = createStore();
  assert.equal(pieceName(store, "grimtaash_the_molator"), "Grimtaash the molator");
  assert.equal(ownedName(store, "grimtaash_the_molator"), "Grimtaash the molator", "no owner, no colour");
  assert.equal(pieceName(store, 7), "7");
});

test("words are humanised from identifiers", () => {
  assert.equal(humanise("offer_draw"), "Offer draw");
  assert.equal(humanise("kelly-d20"), "Kelly d20");
  assert.equal(humanise("__x__"), "X");
  assert.equal(humanise(""), "");
});

test("a die's sides are written as players write them", () => {
  assert.equal(asWritten("attack_die", 8), "d8");
  assert.equal(asWritten("attack_die", "2d6"), "2d6");
  assert.equal(asWritten("attack", 8), 8);
});

test("seats are named by the ruleset, else by the seat list, else by number", () => {
  const view = kellyView();
  assert.equal(seatName(view, 1), "Red");
  assert.equal(seatName(view, null), "Nobody");
  assert.equal(seatName(view, undefined), "Nobody");
  assert.equal(seatName({ seats: [{ seat: 2, name: "NPC" }], state: {} }, 2), "NPC");
  assert.equal(seatName({ state: {} }, 2), "Seat 3");
  assert.equal(seatName(view, 0), seatName({ ...view, seats: [] }, 0));
});

test("a seat's label adds its player's name when it has one", () => {
  assert.equal(seatLabel(kellyView(), 0), "Blue (Han)");
  assert.equal(seatLabel(kellyView(), 1), "Red", "an open seat");
});

test("the dice tray shows the latest entry that rolled, live or not", () => {
  const roll = { type: "roll", dice: [{ sides: 6, face: 4 }] };
  const entries = [
    { version: 3, events: [roll] },
    { version: 4, events: [{ type: "move" }, roll, { type: "kill" }] },
    { version: 5, events: [{ type: "move" }] },
    { version: 6 },
  ];
  assert.deepEqual(latestRolls(entries, true), { version: 4, events: entries[1].events, live: true });
  assert.equal(latestRolls(entries.slice(2), false), null);
  assert.equal(latestRolls([], false), null);
});

test("actions are sorted into the board, the reserve tray and buttons", () => {
  const move = { type: "move", piece: "klorslug", to: "B1" };
  const attack = { type: "attack", piece: "klorslug", target: "monnok" };
  const place = { type: "place", piece: "houjix", to: "A4" };
  const toCentre = { type: "move", piece: "monnok", to: "C" };
  const resign = { type: "resign", label: "Resign" };
  const targetGone = { type: "attack", piece: "klorslug", target: "houjix" }; // not on the board
  const nowhere = { type: "move", piece: "klorslug", to: "Z9" }; // not a space
  const view = kellyView({ legal_actions: [move, attack, place, toCentre, resign, targetGone, nowhere] });
  const { board, reserve, buttons } = classifyActions(view);
  assert.deepEqual(board.get("klorslug"), [
    { action: move, destination: "B1" },
    { action: attack, destination: "A2" },
  ]);
  assert.deepEqual(board.get("monnok"), [{ action: toCentre, destination: "C" }]);
  assert.deepEqual(reserve.get("houjix"), [{ action: place, destination: "A4" }]);
  assert.deepEqual(buttons, [resign, targetGone, nowhere]);
});

test("the spaces a ruleset lists are spaces whatever their names", () => {
  const view = kellyView({ legal_actions: [{ type: "move", piece: "klorslug", to: "ring-3" }] });
  view.state.spaces = ["ring-3"];
  assert.equal(classifyActions(view).board.get("klorslug")[0].destination, "ring-3");
  assert.equal(classifyActions({ state: {}, legal_actions: [] }).buttons.length, 0);
});

test("the selected piece's actions are grouped by where they go", () => {
  const push1 = { type: "move", piece: "klorslug", to: "B1", push_to: "B2" };
  const push2 = { type: "move", piece: "klorslug", to: "B1", push_to: "B3" };
  const attack = { type: "attack", piece: "klorslug", target: "monnok" };
  const classified = classifyActions(kellyView({ legal_actions: [push1, attack, push2] }));
  const targets = targetsOf({ selected: "klorslug" }, classified);
  assert.deepEqual([...targets.keys()], ["B1", "A2"]);
  assert.deepEqual(targets.get("B1"), [push1, push2], "one destination, two choices: a menu");
  assert.equal(targetsOf({ selected: null }, classified).size, 0);
  assert.equal(targetsOf({ selected: "houjix" }, classified).size, 0);
});

test("a button says the server's label, else the action in words", () => {
  const store = createStore({ view: kellyView() });
  rememberNames(store, store.view);
  assert.equal(actionLabel(store, { type: "resign", label: "Resign" }), "Resign");
  assert.equal(
    actionLabel(store, { type: "push", piece: "klorslug", target: "monnok", to: "A3", odds: { outcomes: [] } }),
    "Push Blue K'lor'slug Red Monnok to A3",
  );
  assert.equal(actionLabel(store, { type: "push", push: "monnok", push_to: "off" }), "Push Red Monnok off the board");
  assert.equal(actionLabel(store, { type: "spend_boost", boost_count: 2, extra: null, path: ["A1"] }), "Spend boost boost count 2");
});

test("actions left are counted only while a turn of actions is under way", () => {
  assert.equal(countsActions({ actions_left: 2 }), true);
  assert.equal(countsActions({ actions_left: 1, phase: "play" }), true);
  assert.equal(countsActions({ actions_left: 0 }), false);
  assert.equal(countsActions({ actions_left: 2, phase: "draft" }), false);
  assert.equal(countsActions({}), false);
});

test("an action's odds are its outcomes, or none", () => {
  const outcomes = [{ key: "kill", probability: 0.5, exact: "1/2", text: "Kill" }];
  assert.deepEqual(oddsOutcomes({ odds: { outcomes } }), outcomes);
  assert.deepEqual(oddsOutcomes({ type: "move" }), []);
  assert.deepEqual(oddsOutcomes(null), []);
});

test("a chance is a percentage players can read, with the exact odds when they are short", () => {
  assert.equal(chanceWords({ probability: 1 / 6, exact: "1/6" }), "16.7% · 1 in 6");
  assert.equal(chanceWords({ probability: 0.5, exact: "1/2" }), "50% · 1 in 2");
  assert.equal(chanceWords({ probability: 0.05 }), "5%");
  assert.equal(chanceWords({ probability: 0.005 }), "0.50%", "two figures under 10%");
  assert.equal(chanceWords({ probability: 1 / 1296, exact: "1/1296" }), "0.077% · 1 in 1296");
  assert.equal(chanceWords({ probability: 1 / 1297, exact: "1/1297" }), "0.077%", "no long fractions");
  assert.equal(chanceWords({ probability: 1, exact: "1/1" }), "100%");
  assert.equal(chanceWords({ probability: 0, exact: "0/1" }), "0%");
});

test("what can fail is never shown as certain", () => {
  assert.equal(chanceWords({ probability: 0.99999 }), ">99.9%");
  assert.equal(chanceWords({ probability: 0.9996, exact: "2499/2500" }), ">99.9%");
  assert.notEqual(chanceWords({ probability: 0.00001 }), "0%", "nor what can happen as impossible");
});

// --- the last move and attack, marked on the board ---------------------------------

test("the last move is marked from where it started to where it ended", () => {
  const entries = [
    { version: 3, events: [{ type: "move", seat: 0, piece: "klorslug", from: "A5", to: "A1", path: ["A3", "A1"] }] },
    { version: 4, events: [{ type: "end_turn", seat: 0 }] },
  ];
  assert.deepEqual(lastMarks(entries, kellyView().state.pieces), { from: "A5", to: "A1" });
});

test("an attack is marked on its pieces' spaces as they were, before the push that followed", () => {
  const entries = [
    { version: 3, events: [{ type: "move", seat: 1, piece: "monnok", from: "A4", to: "A3" }] },
    { version: 4, events: [{ type: "attack", seat: 0, piece: "klorslug", target: "monnok" }, { type: "roll", dice: [] }] },
    { version: 5, events: [{ type: "push", seat: 0, piece: "monnok", from: "A3", to: "A2" }] },
  ];
  // Now Monnok stands on A2, pushed there from A3, where the attack reached it.
  assert.deepEqual(lastMarks(entries, kellyView().state.pieces), { from: "A1", to: "A3" });
});

test("an attack that killed its target is marked where the target fell", () => {
  const entries = [
    { version: 4, events: [{ type: "attack", seat: 0, piece: "klorslug", target: "houjix" }, { type: "kill", piece: "houjix", by: "klorslug", at: "B1" }] },
  ];
  assert.deepEqual(lastMarks(entries, kellyView().state.pieces), { from: "A1", to: "B1" });
});

test("nothing is marked before anything has moved", () => {
  assert.equal(lastMarks([{ version: 1, events: [{ type: "first_player", seat: 0 }] }], kellyView().state.pieces), null);
  assert.equal(lastMarks([], []), null);
});

test("a replay's marks are those of the version it shows, not of the log's end", () => {
  const entries = [
    { version: 3, events: [{ type: "move", seat: 0, piece: "klorslug", from: "A5", to: "A1" }] },
    { version: 4, events: [{ type: "move", seat: 1, piece: "monnok", from: "A3", to: "A2" }] },
  ];
  assert.deepEqual(lastMarks(entries, kellyView().state.pieces, 3), { from: "A5", to: "A1" });
});
