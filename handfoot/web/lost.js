/* A round's save whose answer never came back (the Wi-Fi dropped on its way back): the server may have stored it,
 * or not. What was sent is kept, so that what happened is known again from the game as the server has it: a round
 * holding what this phone sent is this phone's save arrived (or the very same save made on another phone: either way
 * nothing is lost), never "another phone saved it"; and a Save pressed again after more changes sends the first
 * request again as it was (the same Idempotency-Key and body get the server's first answer, or store it now), then
 * the changes since as that round's correction, never the first key with another body. */
import {api} from "/static/api.js";

const canon = (ops) => JSON.stringify(ops.map(op => Object.keys(op).sort().map(k => [k, op[k]])));

/* Whether round `r` (a round of GET /v1/games/{id}) holds a check view's save `body` ({photo_reading, corrections,
 * went_out}): made from that reading, with those corrections in that order and that team gone out (null: nobody). */
export function roundHolds(r, body) {
  return r.photo_reading === body.photo_reading && canon(r.corrections) === canon(body.corrections) &&
         (r.layout.went_out || null) === (body.went_out || null);
}

/* A view's lost save: {sent (the write whose answer was lost: {method, path, body, key}; null: none), keep(method,
 * path, body, key), clear(), same(body) (whether `body` is what was sent), savedIn(latest) (the round of the game
 * `latest` holding what a check view sent, or null), resend() (the lost write sent again as it was → the game the
 * server answers; throws api's ApiError)}. */
export function lostSave() {
  let sent = null;
  return {
    get sent() { return sent; },
    keep(method, path, body, key) { sent = {method, path, body, key}; },
    clear() { sent = null; },
    same(body) { return sent !== null && JSON.stringify(sent.body) === JSON.stringify(body); },
    savedIn(latest) {
      return sent && sent.body.photo_reading ? latest.rounds.find(r => roundHolds(r, sent.body)) || null : null;
    },
    resend() { return api(sent.method, sent.path, sent.body, sent.key); },
  };
}
