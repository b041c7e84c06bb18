// The settings page's "When it is your turn": a webhook and an e-mail address, saved
// through PUT /api/v1/players/me/notifications, with the server's answer in words; and
// "Send a test", which posts a test notice to the saved webhook
// (POST /api/v1/players/me/notifications/test) and says what became of it.

const form = document.getElementById("notifications-form");
const status = document.getElementById("notifications-status");
const testButton = form?.querySelector("[data-webhook-test]");
const testResult = form?.querySelector("[data-webhook-test-result]");

async function send(method, url, body) {
  const response = await fetch(url, {
    method,
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { response, answer: await response.json().catch(() => ({})) };
}

// Save both addresses; true when the server took them.
async function save() {
  const webhook = form.webhook_url.value.trim();
  const body = {
    webhook_url: webhook || null,
    email: form.email ? form.email.value.trim() || null : null,
  };
  status.textContent = "Saving…";
  let reply;
  try {
    reply = await send("PUT", "/api/v1/players/me/notifications", body);
  } catch {
    status.dataset.state = "refused";
    status.textContent = "Could not reach the server: nothing was saved.";
    return false;
  }
  const { response, answer } = reply;
  status.dataset.state = response.ok ? "saved" : "refused";
  if (!response.ok) status.textContent = answer.detail || "That did not work.";
  else if (answer.email_status === "pending") {
    status.textContent = `Check your inbox to confirm ${answer.email}: nothing else is sent there until you open the link.`;
  } else status.textContent = answer.webhook_url ? "Saved. Send a test to see a notice arrive." : "Saved.";
  if (form.email) document.querySelector("[data-email-status]")?.remove();
  if (response.ok) {
    form.webhook_url.dataset.saved = answer.webhook_url || "";
    if (testButton) testButton.hidden = !answer.webhook_url;
  }
  return response.ok;
}

// Post a test notice to the webhook (saving the address first when it was changed).
async function sendTest() {
  if (form.webhook_url.value.trim() !== form.webhook_url.dataset.saved && !(await save())) return;
  testButton.disabled = true;
  testResult.hidden = false;
  testResult.dataset.state = "sending";
  testResult.textContent = "Sending a test notice…";
  try {
    const { response, answer } = await send("POST", "/api/v1/players/me/notifications/test");
    testResult.dataset.state = response.ok ? answer.outcome : "refused";
    testResult.textContent = answer.message || answer.detail || "The test could not be sent.";
  } catch {
    testResult.dataset.state = "refused";
    testResult.textContent = "Could not reach the server: no test was sent.";
  } finally {
    testButton.disabled = false;
  }
}

form?.addEventListener("submit", (event) => { event.preventDefault(); save(); });
testButton?.addEventListener("click", sendTest);

// "Notifications on this device": subscribe this browser to Web Push with the server's key
// (GET /api/v1/push/key) and hand the subscription to the server, or undo both. The
// service worker (templates/sw.js) shows each push. The id the server gave this browser's
// subscription is kept here, to delete it when the switch goes off.
const pushLabel = form?.querySelector("[data-push]");
const pushSwitch = form?.querySelector("[data-push-switch]");
const pushStatus = form?.querySelector("[data-push-status]");
const PUSH_KEPT = "dejarik-push-subscription";  // {"endpoint", "id"}

function bytesOf(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

function sayPush(words) {
  pushStatus.hidden = false;
  pushStatus.textContent = words;
}

function kept() {
  try { return JSON.parse(localStorage.getItem(PUSH_KEPT)) || {}; } catch { return {}; }
}

async function pushManager() {
  await navigator.serviceWorker.register("/sw.js");  // install.js's: registering again is a no-op
  return (await navigator.serviceWorker.ready).pushManager;
}

async function pushOn() {
  if ((await Notification.requestPermission()) !== "granted") {
    sayPush("Notifications are blocked for this site: allow them in the browser's site settings, then try again.");
    return false;
  }
  const manager = await pushManager();
  const { public_key: key } = await (await fetch("/api/v1/push/key")).json();
  const subscription = (await manager.getSubscription())
    || (await manager.subscribe({ userVisibleOnly: true, applicationServerKey: bytesOf(key) }));
  const { response, answer } = await send("POST", "/api/v1/players/me/push-subscriptions", subscription.toJSON());
  if (!response.ok) {
    await subscription.unsubscribe();
    sayPush(answer.detail || "The server did not take this device's subscription.");
    return false;
  }
  localStorage.setItem(PUSH_KEPT, JSON.stringify({ endpoint: subscription.endpoint, id: answer.id }));
  sayPush("On: this device shows a notification when a match waits for you, and when one ends.");
  return true;
}

async function pushOff() {
  const { id } = kept();
  if (id) await send("DELETE", `/api/v1/players/me/push-subscriptions/${encodeURIComponent(id)}`);
  const subscription = await (await pushManager()).getSubscription();
  if (subscription) await subscription.unsubscribe();
  localStorage.removeItem(PUSH_KEPT);
  sayPush("Off: this device shows no more notifications.");
}

async function setUpPushSwitch() {
  if (!pushSwitch) return;
  if (!("serviceWorker" in navigator && "PushManager" in window && "Notification" in window)) {
    sayPush("This browser cannot show notifications from a site (on an iPhone, add Dejarik to the home screen first).");
    return;
  }
  pushLabel.hidden = false;
  const subscription = await (await pushManager()).getSubscription().catch(() => null);
  pushSwitch.checked = Boolean(subscription && Notification.permission === "granted"
    && kept().endpoint === subscription.endpoint);
  pushSwitch.addEventListener("change", async () => {
    pushSwitch.disabled = true;
    try {
      pushSwitch.checked = pushSwitch.checked ? await pushOn() : (await pushOff(), false);
    } catch (error) {
      pushSwitch.checked = false;
      sayPush(`Notifications could not be turned on here (${error.message || error}).`);
    } finally {
      pushSwitch.disabled = false;
    }
  });
}

setUpPushSwitch();
