// The websocket to the match: snapshot on connect, updates after every commit,
// actions out. Reconnects by itself with backoff and resumes from the last version
// it saw (?since=N); asks for a snapshot when it notices a gap.

const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000];

// `spectator: true` watches anonymously even when the browser is signed in (the TV).
export function connectMatch(matchId, { onMessage, onStatus, lastVersion, spectator = false }) {
  let socket = null;
  let attempt = 0;
  let retryTimer = null;
  let pingTimer = null;
  let stopped = false;
  let nextId = 1;
  let retryOverride = null;

  function url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const since = lastVersion();
    const params = new URLSearchParams();
    if (since !== null && since !== undefined) params.set("since", since);
    if (spectator) params.set("spectator", "1");
    const query = params.size ? `?${params}` : "";
    return `${scheme}//${location.host}/ws/matches/${encodeURIComponent(matchId)}${query}`;
  }

  function open() {
    clearTimeout(retryTimer);
    onStatus(attempt === 0 ? "connecting" : "reconnecting", 0);
    socket = new WebSocket(url());
    const mine = socket;
    mine.onopen = () => {
      attempt = 0;
      onStatus("live", 0);
      clearInterval(pingTimer);
      pingTimer = setInterval(() => send({ type: "ping" }), 25000);
    };
    mine.onmessage = (event) => {
      let message;
      try { message = JSON.parse(event.data); } catch { return; }
      onMessage(message);
    };
    mine.onclose = () => {
      if (mine !== socket) return;
      clearInterval(pingTimer);
      socket = null;
      if (stopped) { onStatus("closed", 0); return; }
      const delay = retryOverride ?? BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)];
      retryOverride = null;
      attempt += 1;
      onStatus("offline", delay);
      retryTimer = setTimeout(open, delay);
    };
  }

  function send(message) {
    if (!socket || socket.readyState !== WebSocket.OPEN) return false;
    socket.send(JSON.stringify(message));
    return true;
  }

  const net = {
    sendAction(action, version) {
      const id = `a${nextId++}`;
      return send({ type: "action", action, version, id }) ? id : null;
    },
    sync(since) { return send({ type: "sync", since }); },
    // Drop the connection as a network failure would; the page reconnects by itself
    // (after retryMs when given: tests use it to act while this page is away).
    drop(retryMs = null) { retryOverride = retryMs; if (socket) socket.close(); },
    reconnectNow() { attempt = 0; if (!socket) open(); },
    stop() { stopped = true; clearTimeout(retryTimer); if (socket) socket.close(); },
    get socket() { return socket; },
  };
  window.addEventListener("online", () => net.reconnectNow());
  // The network is gone: drop the socket now (it could otherwise look open until a ping
  // fails) so that the page says so at once; "online" above reconnects.
  window.addEventListener("offline", () => {
    if (stopped) return;
    if (socket) socket.close();
    else onStatus("offline", 0);
  });
  open();
  return net;
}

// Follow a match into `store`, as every page that shows one does: snapshots and
// updates applied in version order (`applyView(message, entries, live)`), a version
// gap or a 409 answered by asking for a fresh snapshot, a 404 stopping the socket,
// chat messages handed to `onChat`, rematch news to `onRematch`, and the connection
// state kept in the store.
// Updates may be paced: `holdFor(update, before)` (optional) says how long `update` waits
// after `before`, the update drawn last, was drawn (a bot's steps, each seen for a moment).
const MOST_WAITING = 6;  // more updates waiting than this are drawn at once: the page catches up

export function followMatch(matchId, store, {
  applyView, onSnapshot, onAck, onError, onChat, onRematch, holdFor = null, spectator = false,
}) {
  let net = null;
  const waiting = [];            // updates received, not yet drawn, oldest first
  let drawn = null, drawnAt = 0, timer = 0;

  function draw(update) {
    applyView(update, update.entries || [], true);
    drawn = update;
    drawnAt = performance.now();
  }

  function pump() {
    clearTimeout(timer);
    timer = 0;
    while (waiting.length) {
      const wait = holdFor ? drawnAt + holdFor(waiting[0], drawn) - performance.now() : 0;
      if (wait > 0 && waiting.length <= MOST_WAITING) { timer = setTimeout(pump, wait); return; }
      draw(waiting.shift());
    }
  }

  function drawAllWaiting() {
    while (waiting.length) draw(waiting.shift());
    clearTimeout(timer);
    timer = 0;
  }

  function onMessage(message) {
    const current = store.view;
    // The last version received, drawn or still waiting its turn.
    const received = waiting.length ? waiting[waiting.length - 1].version : current && current.version;
    switch (message.type) {
      case "snapshot":
        waiting.length = 0;  // the snapshot holds all of them
        clearTimeout(timer);
        timer = 0;
        applyView(message, message.missed || [], Boolean(current));
        drawn = null;
        if (onSnapshot) onSnapshot(message);
        break;
      case "update": {
        if (current && message.version <= received) return;
        const entries = message.entries || [];
        if (current && entries.length && entries[0].version > received + 1) {
          drawAllWaiting();
          net.sync(store.view.version);  // a gap: ask for a snapshot with what was missed
          return;
        }
        waiting.push(message);
        pump();
        break;
      }
      case "ack":
        if (onAck) onAck(message);
        break;
      case "chat":
        if (onChat) onChat(message);
        break;
      case "rematch":
        if (onRematch) onRematch(message);
        break;
      case "error":
        if (onError) onError(message);
        if (message.code === 409 && current) net.sync(current.version);
        if (message.code === 404) net.stop();
        break;
      default:
        break;
    }
  }
  net = connectMatch(matchId, {
    onMessage,
    onStatus: (connection, retryIn) => store.update({ connection, retryIn }),
    lastVersion: () => (store.view ? store.view.version : null),
    spectator,
  });
  return net;
}
