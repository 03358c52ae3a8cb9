/* The API client: one request to /v1 (docs/api.md) with the sync headers (sync.js's hfSync: Idempotency-Key,
 * If-Match), answering its JSON or throwing an ApiError with the server's one-line message. A server it cannot reach
 * is an ApiError of status 0, said by sync.js's line (hfSync.unreachable), which goes once a request is answered. */

export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.error ? body.error : `the server answered ${status}`);
    this.status = status; this.body = body || {};
  }
}
/* A request to the API; `key` is the action's Idempotency-Key (hfSync.newKey), round writes carry If-Match (the
 * game's `version` when given: the one a question was asked about); `extra`: more headers (a deck's If-Match). */
export async function api(method, path, body, key, version, extra) {
  const opts = {method, headers: {...hfSync.headers(method, path, key, version), ...extra}};
  if (body !== undefined) { opts.headers["content-type"] = "application/json"; opts.body = JSON.stringify(body); }
  let r;
  try { r = await fetch(path, opts); }
  catch (e) { hfSync.unreachable(true); throw new ApiError(0, {error: hfSync.UNREACHABLE}); }
  hfSync.back();
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = {error: text.slice(0, 200)}; }
  if (!r.ok) throw new ApiError(r.status, data);
  return hfSync.note(data);
}
