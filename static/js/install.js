// On every page: register the service worker (templates/sw.js, served at /sw.js), and on the
// home page offer "Install the app" while the browser says it can install it.

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js").catch(() => {});  // the site works without it
}

const offer = document.querySelector("[data-install-app]");
let installPrompt = null;

window.addEventListener("beforeinstallprompt", (event) => {
  event.preventDefault();  // no mini-infobar: the page's own button asks
  installPrompt = event;
  if (offer) offer.hidden = false;
});

window.addEventListener("appinstalled", () => {
  installPrompt = null;
  if (offer) offer.hidden = true;
});

if (offer) {
  offer.querySelector("button").addEventListener("click", async () => {
    if (!installPrompt) return;
    const shown = installPrompt;
    installPrompt = null;  // a prompt can be shown once
    offer.hidden = true;
    await shown.prompt();
  });
}
