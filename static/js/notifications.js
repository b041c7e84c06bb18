// The settings page's "When it is your turn": a webhook and an e-mail address, saved
// through PUT /api/v1/players/me/notifications, with the server's answer in words.

async function saveNotifications(event) {
  event.preventDefault();
  const form = event.target;
  const status = document.getElementById("notifications-status");
  const body = {
    webhook_url: form.webhook_url.value.trim() || null,
    email: form.email ? form.email.value.trim() || null : null,
  };
  status.textContent = "Saving…";
  const response = await fetch("/api/v1/players/me/notifications", {
    method: "PUT",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({}));
  status.dataset.state = response.ok ? "saved" : "refused";
  if (!response.ok) status.textContent = answer.detail || "That did not work.";
  else if (answer.email_status === "pending") {
    status.textContent = `Check your inbox to confirm ${answer.email}: nothing else is sent there until you open the link.`;
  } else status.textContent = "Saved.";
  if (form.email) document.querySelector("[data-email-status]")?.remove();
}

document.getElementById("notifications-form")?.addEventListener("submit", saveNotifications);
