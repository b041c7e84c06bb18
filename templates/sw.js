// The service worker, served at /sw.js so that its scope is the whole site
// (app/api/app_shell.py fills in the version and the lists below when the server starts).
//
// - Static files (/static/…): cache first. The cache's name carries a hash of the static
//   files, so a deploy that changes any of them installs a new worker with a new cache,
//   and the old cache is deleted when it takes over.
// - Pages: network first. The rules pages, the tutorial and the offline page are kept
//   (fetched when the worker installs, refreshed whenever one is opened) and shown from
//   the cache when the network is gone; any other page the network cannot bring is
//   answered with the offline page, which reloads itself when the network is back.
// - Everything else (/api/…, websockets, images drawn per match) is left to the network.

const CACHE_VERSION = {{ version|tojson }};
const CACHE_NAME = `dejarik-${CACHE_VERSION}`;
const STATIC_URLS = {{ static_urls|tojson }};
const OFFLINE_PAGES = {{ offline_pages|tojson }};
const OFFLINE_PAGE = {{ offline_page|tojson }};

self.addEventListener("install", (event) => {
  // "reload": fetched from the server, never from the browser's HTTP cache.
  const urls = [...STATIC_URLS, ...OFFLINE_PAGES, OFFLINE_PAGE];
  event.waitUntil(
    caches.open(CACHE_NAME)
      .then((cache) => cache.addAll(urls.map((url) => new Request(url, { cache: "reload" }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names.filter((name) => name !== CACHE_NAME).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(networkFirst(request, url));
  } else if (url.pathname.startsWith("/static/")) {
    event.respondWith(cacheFirst(request));
  }
});

async function networkFirst(request, url) {
  const cache = await caches.open(CACHE_NAME);
  try {
    const response = await fetch(request);
    const kept = url.pathname === OFFLINE_PAGE || OFFLINE_PAGES.includes(url.pathname);
    if (kept && response.ok && !url.search) await cache.put(url.pathname, response.clone());
    return response;
  } catch {
    return (await cache.match(request, { ignoreSearch: true })) || (await cache.match(OFFLINE_PAGE))
      || new Response("You are offline — reconnecting.", { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
}

async function cacheFirst(request) {
  const cache = await caches.open(CACHE_NAME);
  const cached = await cache.match(request, { ignoreSearch: true });
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}

// --- Push notifications -----------------------------------------------------------------
// The server pushes {"title", "body", "url", "event", "match"} (app/services/push.py).
// Every push shows a notification: browsers drop a subscription that pushes silently.

self.addEventListener("push", (event) => {
  let notice = {};
  try {
    notice = event.data ? event.data.json() : {};
  } catch {
    notice = { body: event.data.text() };
  }
  event.waitUntil(self.registration.showNotification(notice.title || "Dejarik", {
    body: notice.body || "",
    icon: "/static/icons/icon-192.png",
    // One notification a match: a newer notice replaces the one before.
    tag: notice.match ? `match-${notice.match.id}` : "dejarik",
    data: { url: notice.url || "/" },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  // Only a page of this site opens, whatever host name the link was written with.
  const link = new URL(event.notification.data?.url || "/", self.location.origin);
  const url = new URL(link.pathname + link.search, self.location.origin).href;
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const open = windows.find((client) => client.url === url);
    return open ? open.focus() : self.clients.openWindow(url);
  })());
});
