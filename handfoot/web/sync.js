/* handfoot's page, two phones at one table: the version of each game this phone last saw (sent back as If-Match
 * when a round is written, a setting changed or the game deleted, so a change made from a stale copy is refused
 * 412), an Idempotency-Key per action (a request sent again after a dropped answer gets the first answer, nothing is
 * stored twice), and the game's live changes (GET /v1/games/{id}/events, server-sent events) for the view on
 * screen. docs/api.md describes the API. Loaded before app.js; everything is under the one global `hfSync`. */
"use strict";

const hfSync = (() => {
  const versions = new Map();  /* game id -> the version this phone last showed */
  let stream = null;
  let lostTimer = null;
  let retryTimer = null;  /* while the server cannot be reached: asks it again every RETRY_MS */
  let followed = null;  /* the game followed and its handlers (follow's arguments); null: none */
  let reopenTimer = null, reopenMs = 0;  /* a lost stream opened again: when, and after how long the next time */
  /* The page's one wording for a server it cannot reach (the line unreachable() shows; api.js's error) */
  const UNREACHABLE = "The handfoot server cannot be reached: is its computer on, handfoot serve still running, and " +
                      "this phone on its network? Trying again…";
  const RETRY_MS = 3000;
  const REOPEN_MS = 1000, REOPEN_MAX_MS = 30000;

  /* A random key for one action (crypto.getRandomValues works on plain http too, unlike randomUUID). */
  function newKey() {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, b => b.toString(16).padStart(2, "0")).join("");
  }

  /* Remember the version of a game shown on this phone; returns the game. */
  function note(game) {
    if (game && typeof game === "object" && typeof game.version === "number" && game.id && Array.isArray(game.rounds))
      versions.set(game.id, game.version);
    return game;
  }

  /* The headers of a request: If-Match on a round write, the light-print setting, the teams' names or the delete of a
   * game this phone has seen (`version`: the version the player was asked about, when a question was open: a change
   * made meanwhile on another phone is then 412, even when this phone has shown it since), the action's key. */
  function headers(method, path, key, version) {
    const out = {};
    const m = path.match(/^\/v1\/games\/([0-9a-f]+)(\/rounds|\/negative|\/teams|$)/);
    if (m && method !== "GET" && typeof version === "number") out["If-Match"] = `"${version}"`;
    else if (m && method !== "GET" && versions.has(m[1])) out["If-Match"] = `"${versions.get(m[1])}"`;
    if (key) out["Idempotency-Key"] = key;
    return out;
  }

  /* Follow game `gid`'s changes: onChange(version) when it is at another version than this phone showed;
   * onDeleted() when it is deleted; onNewer(id) when the game started after it ended is made (or is there);
   * onLive(watched) when a camera starts (true) or stops (false) watching its table (at once when one does).
   * One game is followed at a time; stop() ends it. A stream the browser gave up on (the Wi-Fi dropped, the server
   * stopped) is opened again after REOPEN_MS, twice as long each time up to REOPEN_MAX_MS; once the server answers
   * again after the line said it could not be reached ("handfoot-reachable") it is opened again at once, and the
   * version the server sends first brings the view up to date (onChange when it is not the version shown). */
  function follow(gid, onChange, onDeleted, onNewer, onLive) {
    stop();
    followed = {gid, onChange, onDeleted, onNewer, onLive};
    reopenMs = REOPEN_MS;
    open();
  }
  function open() {
    const {gid, onChange, onDeleted, onNewer, onLive} = followed;
    const source = new EventSource(`/v1/games/${gid}/events`);
    stream = source;
    /* the stream lost for 3 s (the server stopped, the Wi-Fi dropped): a line says so until it is back */
    source.onerror = () => {
      clearTimeout(lostTimer);
      lostTimer = setTimeout(() => { if (stream === source && source.readyState !== EventSource.OPEN) unreachable(true); }, 3000);
      if (stream === source && source.readyState === EventSource.CLOSED) {
        clearTimeout(reopenTimer);
        reopenTimer = setTimeout(() => { if (stream === source) open(); }, reopenMs);
        reopenMs = Math.min(2 * reopenMs, REOPEN_MAX_MS);
      }
    };
    source.onopen = () => { clearTimeout(lostTimer); reopenMs = REOPEN_MS; back(); };
    source.onmessage = (ev) => {
      let data = null;
      try { data = JSON.parse(ev.data); } catch (e) { return; }
      if (stream === source && data && data.version !== versions.get(gid)) onChange(data.version);
    };
    source.addEventListener("deleted", () => { if (stream === source && onDeleted) onDeleted(); });
    source.addEventListener("newer", (ev) => {
      let data = null;
      try { data = JSON.parse(ev.data); } catch (e) { return; }
      if (stream === source && onNewer && data && data.newer) onNewer(data.newer);
    });
    source.addEventListener("live", (ev) => {
      let data = null;
      try { data = JSON.parse(ev.data); } catch (e) { return; }
      if (stream === source && onLive && data) onLive(Boolean(data.live));
    });
  }
  /* the server answers again: the stream is opened again now, even one still open (a change it told while the
     server could not be reached was not fetched), and the version it sends first brings the view up to date */
  function reopen() {
    if (!followed) return;
    if (stream) stream.close();
    clearTimeout(reopenTimer);
    open();
  }

  function stop() {
    if (stream) { stream.close(); stream = null; }
    followed = null;
    clearTimeout(lostTimer);
    clearTimeout(reopenTimer);
    unreachable(false);
  }

  /* Show (on) or remove the one line saying the server cannot be reached (UNREACHABLE): a row of the sticky
   * header, as the toast is (style.css), so it covers none of the page's buttons. While it shows, the server is
   * asked again every RETRY_MS (GET /v1/health); once it answers the line goes and the document gets the event
   * "handfoot-reachable" (a view sends then what waited for it). */
  function unreachable(on) {
    let line = document.getElementById("server-lost");
    if (on && !line) {
      line = document.createElement("div");
      line.id = "server-lost";
      line.className = "error-box";
      line.setAttribute("role", "status");
      line.textContent = UNREACHABLE;
      document.querySelector("header.bar").append(line);
      retryTimer = setInterval(() => {
        fetch("/v1/health", {cache: "no-store"}).then(r => { if (r.status < 500) back(); }, () => { /* still away */ });
      }, RETRY_MS);
    } else if (!on && line) {
      line.remove();
      clearInterval(retryTimer);
    }
  }
  function back() {
    if (!document.getElementById("server-lost")) return;
    unreachable(false);
    reopen();
    document.dispatchEvent(new Event("handfoot-reachable"));
  }

  return {newKey, note, headers, follow, stop, unreachable, back, UNREACHABLE, version: (gid) => versions.get(gid)};
})();
