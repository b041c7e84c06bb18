// The identity controls on the settings and home pages: copy the device link, add a
// passkey, sign in with one, and sign out after saying what would be lost.

import { attachCopyButtons } from "./copy.js";
import { passkeysSupported, registerPasskey, signInWithPasskey, signOut } from "./webauthn.js";

attachCopyButtons(document.body);

function say(element, text, failed = false) {
  if (!element) return;
  element.textContent = text;
  element.classList.toggle("error", failed);
}

// A passkey ceremony cancelled by the person is no failure worth shouting about.
function problem(error) {
  return error && error.name === "NotAllowedError" ? "Cancelled: no passkey was used." : `That did not work: ${error.message}`;
}

const register = document.querySelector("[data-passkey-register]");
if (register) {
  const message = document.querySelector("[data-passkey-message]");
  if (!passkeysSupported()) {
    register.disabled = true;
    say(message, "This browser cannot make passkeys.");
  }
  register.addEventListener("click", async () => {
    register.disabled = true;
    try {
      await registerPasskey();
      say(message, "Passkey added: you can now sign in with it on any device.");
      location.reload();  // the page then says so, and signing out no longer warns
    } catch (error) {
      say(message, problem(error), true);
    } finally {
      register.disabled = false;
    }
  });
}

const login = document.querySelector("[data-passkey-login]");
if (login) {
  const message = document.querySelector("[data-passkey-login-message]");
  login.hidden = !passkeysSupported();
  login.addEventListener("click", async () => {
    login.disabled = true;
    try {
      const player = await signInWithPasskey();
      say(message, `Signed in as ${player.name}.`);
      location.assign(login.dataset.next || "/");
    } catch (error) {
      say(message, problem(error), true);
      login.disabled = false;
    }
  });
}

const signOutButton = document.querySelector("[data-sign-out]");
if (signOutButton) {
  const dialog = document.querySelector("[data-sign-out-dialog]");
  signOutButton.addEventListener("click", () => dialog.showModal());
  dialog.querySelector("[data-sign-out-cancel]").addEventListener("click", () => dialog.close());
  dialog.querySelector("[data-sign-out-confirm]").addEventListener("click", async () => {
    try {
      await signOut();
      location.assign("/");
    } catch (error) {
      dialog.close();
      alert(`Not signed out: ${error.message}`);
    }
  });
}
