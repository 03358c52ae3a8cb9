/* handfoot's service worker (served at /sw.js, scope /): keeps the page's shell (the page, its scripts, style,
 * icons and the offline page) so the installed app opens at once, and shows the plain "The handfoot server
 * cannot be reached" page when the server is away. The API (/v1) and everything else always go to the server:
 * scores are never served from a cache. Files are fetched from the server first (a new version shows at once)
 * and kept for when it is away. */
const SHELL = "handfoot-shell-v1";
const FILES = ["/", "/offline.html", "/manifest.webmanifest", "/static/app.js", "/static/style.css",
               "/static/sync.js", "/static/camera.js", "/static/pwa.js", "/static/glance.js", "/static/livepicture.js",
               "/static/api.js", "/static/cards.js", "/static/ui.js", "/static/games.js", "/static/newgame.js",
               "/static/round.js", "/static/live.js", "/static/check.js", "/static/typed.js", "/static/typed_text.js",
               "/static/drafts.js", "/static/changes.js", "/static/teach.js", "/static/conflict.js", "/static/piles.js",
               "/static/nearby.js", "/static/sheets.js", "/static/lost.js", "/static/notes.js", "/static/rename.js",
               "/static/sides.js", "/static/cardorder.js", "/static/marks.js", "/static/icons/icon-192.png",
               "/static/icons/icon-512.png"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(SHELL).then(cache => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then(keys => Promise.all(keys.filter(k => k.startsWith("handfoot-") && k !== SHELL).map(k => caches.delete(k))))
    .then(() => self.clients.claim()));
});

function shellPath(url) {
  if (url.origin !== self.location.origin) return null;
  const path = url.pathname;
  return FILES.includes(path) ? path : null;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (request.mode === "navigate") {
    if (url.pathname !== "/") return;  /* /docs, /live, photos: the server's own answers */
    event.respondWith(fetch(request).then(answer => {
      if (answer.ok) { const copy = answer.clone(); caches.open(SHELL).then(c => c.put("/", copy)); }
      return answer;
    }).catch(() => caches.match("/offline.html")));
    return;
  }
  const path = shellPath(url);
  if (!path) return;
  event.respondWith(fetch(request).then(answer => {
    if (answer.ok) { const copy = answer.clone(); caches.open(SHELL).then(c => c.put(path, copy)); }
    return answer;
  }).catch(() => caches.match(path).then(hit => hit || Response.error())));
});
