// The offline page (shown by the service worker, templates/sw.js, in place of a page it
// could not fetch): open that page as soon as the server answers again. The browser's
// "online" event says when the network is back; the poll covers a network that never
// went (the server itself was down) and an event that fired before this module ran.

const POLL_MS = 3000;

async function tryAgain() {
  try {
    await fetch(location.href, { cache: "no-store" });  // any answer: the server is there
  } catch {
    return;
  }
  location.reload();
}

window.addEventListener("online", tryAgain);
setInterval(tryAgain, POLL_MS);
