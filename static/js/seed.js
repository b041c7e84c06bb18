// This browser's own dice seed for the seat it takes (docs/dice.md, hmac-sha256-v2):
// drawn here with crypto.getRandomValues and sent with the form that creates or
// joins a match, so the server alone cannot choose the dice.

for (const input of document.querySelectorAll("input[data-own-seed]")) {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  input.value = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}
