/* The API client: one request to /v1 (docs/api.md) with the sync headers (sync.js's hfSync: Idempotency-Key,
 * If-Match), answering its JSON or throwing an ApiError with the server's one-line message. A server it cannot reach
 * is an ApiError of status 0, said by sync.js's line (hfSync.unreachable), which goes once a request is answered. A
 * request whose key's first request is still being worked on (409 with Retry-After) is sent again once it is done. */

export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.error ? body.error : `the server answered ${status}`);
    this.status = status; this.body = body || {};
  }
}
/* How many times a request is sent again while the server says its Idempotency-Key's first request is still being
 * worked on (409 with Retry-After) */
const WAIT_TRIES = 10;

/* A request to the API; `key` is the action's Idempotency-Key (hfSync.newKey), round writes carry If-Match (the
 * game's `version` when given: the one a question was asked about); `extra`: more headers (a deck's If-Match). */
export async function api(method, path, body, key, version, extra) {
  const opts = {method, headers: {...hfSync.headers(method, path, key, version), ...extra}};
  if (body !== undefined) { opts.headers["content-type"] = "application/json"; opts.body = JSON.stringify(body); }
  let r;
  for (let waited = 0; ; waited++) {
    try { r = await fetch(path, opts); }
    catch (e) { hfSync.unreachable(true); throw new ApiError(0, {error: hfSync.UNREACHABLE}); }
    hfSync.back();
    /* the same action (its key) is being worked on already (sent again after a lost answer, or the same next game
       started on both phones): its answer is waited for, not said as an error */
    const wait = key && r.status === 409 && r.headers.get("Retry-After");
    if (!wait || waited >= WAIT_TRIES) break;
    await new Promise(done => setTimeout(done, Math.min(+wait || 1, 5) * 1000));
  }
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = {error: text.slice(0, 200)}; }
  if (!r.ok) throw new ApiError(r.status, data);
  return hfSync.note(data);
}
