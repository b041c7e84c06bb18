// "Verify the dice": recompute every die of a finished match in this browser with
// WebCrypto's HMAC-SHA256, from the match view's `dice` and its log (docs/dice.md).
// Nothing here trusts the server beyond what it published.

const encoder = new TextEncoder();

function bytesOfHex(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
  return out;
}

function hexOf(buffer) {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// 1 + (the digest as one big-endian unsigned integer) mod sides, without BigInt
// precision loss: fold the bytes in base 256 modulo sides.
function faceOf(digest, sides) {
  let rest = 0;
  for (const byte of new Uint8Array(digest)) rest = (rest * 256 + byte) % sides;
  return 1 + rest;
}

function message(n, scheme, playerSeeds) {
  return scheme === "hmac-sha256-v1" ? `${n}` : `${n}:${playerSeeds.join(":")}`;
}

// {checked, rolls, problems} for a finished match `view` and its whole log `entries`.
export async function verifyDice(view, entries) {
  const dice = view.dice || { scheme: "hmac-sha256-v1", commitment: view.seed_sha256, seed: view.seed, player_seeds: [] };
  if (!dice.seed) throw new Error("the seed is revealed only once the match is over");
  const problems = [];
  const seed = bytesOfHex(dice.seed);
  if (hexOf(await crypto.subtle.digest("SHA-256", seed)) !== dice.commitment) {
    problems.push("the revealed seed does not match the commitment published at the start");
  }
  const key = await crypto.subtle.importKey("raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  let checked = 0, rolls = 0;
  const seen = new Set();
  for (const entry of entries) {
    for (const roll of (entry.events || []).filter((e) => e.type === "roll")) {
      rolls += 1;
      for (const die of roll.dice) {
        const digest = await crypto.subtle.sign("HMAC", key, encoder.encode(message(die.n, dice.scheme, dice.player_seeds)));
        const face = faceOf(digest, die.sides);
        if (face !== die.face) problems.push(`version ${entry.version}: die ${die.n} shows ${die.face}, the seed gives ${face}`);
        if (seen.has(die.n)) problems.push(`version ${entry.version}: die ${die.n} was used twice`);
        seen.add(die.n);
        checked += 1;
      }
      if ("total" in roll && roll.total !== (roll.bonus || 0) + roll.dice.reduce((sum, d) => sum + d.face, 0)) {
        problems.push(`version ${entry.version}: a roll's total is not its faces plus bonus`);
      }
    }
  }
  const highest = Math.max(-1, ...seen);
  for (let n = 0; n <= highest; n++) {
    if (!seen.has(n)) { problems.push(`die ${n} was drawn but the log does not show it`); break; }
  }
  return { checked, rolls, problems, scheme: dice.scheme };
}

async function wholeLog(matchId) {
  const entries = [];
  for (;;) {
    const response = await fetch(`/api/v1/matches/${encodeURIComponent(matchId)}/events?after=${entries.length}`);
    if (!response.ok) throw new Error(`the server answered ${response.status}`);
    const { events } = await response.json();
    if (!events.length) return entries;
    entries.push(...events);
  }
}

// The panel: a button that fetches the match and its log and says what it checked.
export function attachVerifyPanel(panel, matchId) {
  const button = panel.querySelector("[data-verify]");
  const result = panel.querySelector("[data-verify-result]");
  button.addEventListener("click", async () => {
    button.disabled = true;
    result.textContent = "Checking every roll…";
    result.dataset.verdict = "working";
    try {
      const response = await fetch(`/api/v1/matches/${encodeURIComponent(matchId)}`);
      const view = await response.json();
      const report = await verifyDice(view, await wholeLog(matchId));
      result.dataset.verdict = report.problems.length ? "mismatch" : "ok";
      result.dataset.checked = String(report.checked);
      result.textContent = report.problems.length
        ? `${report.problems.length} problem(s): ${report.problems.slice(0, 3).join("; ")}`
        : `Checked ${report.checked} dice in ${report.rolls} rolls (${report.scheme}): every one matches the seed.`;
    } catch (error) {
      result.dataset.verdict = "error";
      result.textContent = `Could not check: ${error.message}`;
    } finally {
      button.disabled = false;
    }
  });
}
