// The match's chat panel: the channels this viewer may read, live messages from the
// match's websocket (`receive`), history fetched on every (re)connect (`resync`),
// muting the other side, and quick phrases for phones. Text is only ever set as
// text, never as HTML.

const MUTE_KEY = "dejarik-chat-muted:";

// The badge beside each name: what its author was in the match (a seat, the GM, a
// spectator), so that a name alone cannot pass for a player's.
export function roleLabel(role) {
  if (role === "gm") return "GM";
  if (!role) return "";
  return role.charAt(0).toUpperCase() + role.slice(1);
}

export function attachChat(panel) {
  if (!panel) return { receive() {}, resync() {} };
  const matchId = panel.dataset.matchId;
  const me = panel.dataset.playerId;
  const reads = panel.dataset.reads.split(" ").filter(Boolean);
  const log = panel.querySelector("[data-chat-log]");
  const hiddenNote = panel.querySelector("[data-chat-hidden]");
  const muteButton = panel.querySelector("[data-chat-mute]");
  const form = panel.querySelector("[data-chat-form]");
  const errorLine = panel.querySelector("[data-chat-error]");

  // --- state ---
  const state = {
    shown: log.dataset.channel,
    messages: Object.fromEntries(reads.map((c) => [c, new Map()])),  // channel -> id -> message
    muted: localStorage.getItem(MUTE_KEY + matchId) === "true",
    sending: false,
    unseen: 0,       // others' messages that arrived while the chat was out of sight
    inView: false,   // the chat's messages are on screen
  };

  function keep(message) {
    const channel = state.messages[message.channel];
    if (!channel || channel.has(message.id)) return false;
    channel.set(message.id, message);
    return true;
  }

  const lastId = (channel) => Math.max(0, ...state.messages[channel].keys());

  // --- rendering ---
  function line(message) {
    const item = document.createElement("li");
    item.dataset.chatId = message.id;
    if (message.player.id === me) item.dataset.mine = "true";
    const name = document.createElement("strong");
    name.textContent = message.author_name ?? message.player.name;  // the name when posted
    const role = document.createElement("span");
    role.className = "chat-role";
    role.dataset.role = message.author_role ?? "";
    role.textContent = roleLabel(message.author_role);
    const text = document.createElement("span");
    text.className = "chat-text";
    text.textContent = message.text;
    const time = document.createElement("time");
    time.dateTime = message.at;
    time.textContent = new Date(message.at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    item.append(name, " ", role, " ", text, " ", time);
    return item;
  }

  function render() {
    const all = [...state.messages[state.shown].values()].sort((a, b) => a.id - b.id);
    const shown = state.muted ? all.filter((m) => m.player.id === me) : all;
    const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    log.replaceChildren(...shown.map(line));
    log.dataset.channel = state.shown;
    if (atBottom) log.scrollTop = log.scrollHeight;
    const hidden = all.length - shown.length;
    hiddenNote.hidden = !state.muted;
    hiddenNote.textContent = `Muted: ${hidden} message${hidden === 1 ? "" : "s"} from others hidden.`;
    muteButton.setAttribute("aria-pressed", String(state.muted));
    for (const button of panel.querySelectorAll("[data-chat-channel]")) {
      button.setAttribute("aria-pressed", String(button.dataset.chatChannel === state.shown));
    }
    if (form) form.querySelector("button[type=submit]").disabled = state.sending;
  }

  // --- others' messages out of sight: a badge that brings them into view; the count in the tab's title ---
  const badge = document.createElement("button");
  badge.type = "button";
  badge.className = "chat-badge";
  badge.dataset.chatBadge = "";
  badge.hidden = true;
  panel.appendChild(badge);
  const title = document.title;

  function seen() { return state.inView && document.visibilityState === "visible"; }

  function showUnseen() {
    if (seen()) state.unseen = 0;
    const n = state.unseen;
    badge.hidden = n === 0;
    badge.textContent = `Chat: ${n} new message${n === 1 ? "" : "s"}`;
    document.title = n ? `(${n}) ${title}` : title;
  }

  badge.addEventListener("click", () => {
    log.scrollIntoView({ block: "center" });
    log.scrollTop = log.scrollHeight;
    state.unseen = 0;
    showUnseen();
  });
  new IntersectionObserver(([entry]) => { state.inView = entry.isIntersecting; showUnseen(); }).observe(log);
  document.addEventListener("visibilitychange", showUnseen);

  function showError(text) {
    if (!errorLine) return;
    errorLine.textContent = text || "";
    errorLine.hidden = !text;
  }

  // --- network ---
  async function fetchChannel(channel) {
    const query = new URLSearchParams({ channel, after: lastId(channel) });
    const response = await fetch(`/api/v1/matches/${encodeURIComponent(matchId)}/chat?${query}`);
    if (!response.ok) return;
    const { messages } = await response.json();
    messages.forEach(keep);
  }

  async function send(text) {
    if (state.sending || !text.trim()) return false;
    state.sending = true;
    showError(null);
    render();
    try {
      const response = await fetch(`/api/v1/matches/${encodeURIComponent(matchId)}/chat`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ text, channel: panel.dataset.writes }),
      });
      const body = await response.json().catch(() => ({}));
      if (!response.ok) {
        showError(body.detail || "The message was not sent.");
        return false;
      }
      keep(body);
      state.shown = body.channel;
      return true;
    } catch {
      showError("Not connected: the message was not sent.");
      return false;
    } finally {
      state.sending = false;
      render();
    }
  }

  // --- input ---
  muteButton.addEventListener("click", () => {
    state.muted = !state.muted;
    localStorage.setItem(MUTE_KEY + matchId, String(state.muted));
    render();
  });
  panel.addEventListener("click", (event) => {
    const channel = event.target.closest("[data-chat-channel]");
    if (channel) { state.shown = channel.dataset.chatChannel; render(); }
    const phrase = event.target.closest("[data-chat-phrase]");
    if (phrase) send(phrase.dataset.chatPhrase);
  });
  if (form) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const input = form.elements.text;
      if (await send(input.value)) input.value = "";
    });
  }

  render();
  return {
    // A `{"type": "chat", ...}` frame from the match's websocket.
    receive(message) {
      const { type, ...chat } = message;
      if (!keep(chat)) return;
      const fromOthers = chat.player.id !== me && !state.muted;
      if (chat.channel === state.shown) render();
      if (fromOthers) { state.unseen += 1; showUnseen(); }
    },
    // After every (re)connect: whatever was posted while away.
    async resync() {
      await Promise.all(reads.map((channel) => fetchChannel(channel).catch(() => {})));
      render();
    },
  };
}
