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
