/* A view's unsaved work, kept in the browser (localStorage) under its game and a name until it is saved or
 * discarded, so a phone that reloads a tab it put away loses nothing: a check view's corrections (named by its
 * reading), a typed round's fields (named "typed", or "typed.N" for a correction of round N). Drafts untouched for
 * two weeks are removed. The game page and the Score round page offer to go back to a new round's check view whose
 * corrections are kept (keptCheckOffer): Back from it leaves nothing behind unsaid. */
import {askConfirm, h} from "/static/ui.js";

/* The localStorage key of the draft named `rid` (a check view's reading, a typed round's name) in game `gid`. */
function draftKey(gid, rid) { return `handfoot.draft.${gid}.${rid}`; }

/* `draft` (a check view's {round, base, corrections, went, checked}, a typed round's {round, base, fields, went}) kept under
 * `rid` in game `gid`, with the time. */
export function writeDraft(gid, rid, draft) {
  try { localStorage.setItem(draftKey(gid, rid), JSON.stringify({...draft, at: Date.now()})); }
  catch (e) { /* storage full or refused: the corrections stay on the page */ }
}

/* Nothing kept for the check view of reading `rid` in game `gid`. */
export function removeDraft(gid, rid) {
  try { localStorage.removeItem(draftKey(gid, rid)); } catch (e) { /* nothing kept */ }
}

/* How long unsaved corrections are kept for a check view never opened again (ms): two weeks. */
const DRAFT_DAYS_MS = 14 * 24 * 3600 * 1000;

/* Removes from localStorage the drafts of every check view last changed more than DRAFT_DAYS_MS before `now` (ms),
 * and any draft without its time or unreadable: a photo checked and left is not kept forever. */
function pruneDrafts(now) {
  try {
    const keys = [];
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      if (k && k.startsWith("handfoot.draft.")) keys.push(k);
    }
    for (const k of keys) {
      let at = null;
      try { at = JSON.parse(localStorage.getItem(k)).at; } catch (e) { /* unreadable: removed */ }
      if (typeof at !== "number" || now - at > DRAFT_DAYS_MS) localStorage.removeItem(k);
    }
  } catch (e) { /* storage refused: nothing to prune */ }
}

/* The draft kept under `rid` in game `gid` when `fits(d)` says it is one (d: the object kept), else null: none
 * kept, or what is kept does not fit (removed, unsaid). */
function readKept(gid, rid, fits) {
  pruneDrafts(Date.now());
  try {
    const text = localStorage.getItem(draftKey(gid, rid));
    if (text === null) return null;
    const d = JSON.parse(text);
    if (d && typeof d === "object" && typeof d.went === "string" && fits(d)) return d;
    localStorage.removeItem(draftKey(gid, rid));
  } catch (e) { /* unreadable: as if none were kept */ }
  return null;
}

/* The unsaved corrections kept for reading `rid` in game `gid` ({corrections, went, checked (Every card is right as
 * shown ticked)}), or null: when none are kept,
 * when they were made on another round (`round`: the saved round corrected, null for a new photo) or on other saved
 * corrections than `base`, or when what is kept is not a draft (a stale or corrupt one is removed, unsaid). */
export function readDraft(gid, rid, round, base) {
  const d = readKept(gid, rid, (d) => d.round === round && JSON.stringify(d.base) === JSON.stringify(base) &&
    Array.isArray(d.corrections) && d.corrections.every(op => op && typeof op === "object" && typeof op.op === "string"));
  return d && {corrections: d.corrections, went: d.went, checked: d.checked === true};
}

/* The unsaved fields of a typed round kept under `rid` in game `gid`: {round (the round it was typed as), base (the
 * saved round's layout it was typed over, null for a new round), fields ({team: {melds, squared_books, red_threes,
 * left}: the text of each box}), went}, or null when none is kept or what is kept is not one (removed, unsaid). */
export function readTypedDraft(gid, rid) {
  const text = (v) => v && typeof v === "object" && Object.values(v).every(f => typeof f === "string");
  return readKept(gid, rid, (d) => Number.isInteger(d.round) && (d.base === null || typeof d.base === "object") &&
    d.fields && typeof d.fields === "object" && Object.values(d.fields).every(text));
}

/* The unsaved corrections kept on this phone for readings of new photos of game `gid` (check views of its next
 * round, not of a saved round), newest first: [{reading, corrections (the list kept), at (ms)}]. */
export function keptChecks(gid) {
  pruneDrafts(Date.now());
  const prefix = draftKey(gid, ""), out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      if (!k || !k.startsWith(prefix)) continue;
      let d = null;
      try { d = JSON.parse(localStorage.getItem(k)); } catch (e) { continue; }
      if (d && d.round === null && Array.isArray(d.corrections) && typeof d.went === "string") {
        out.push({reading: k.slice(prefix.length), corrections: d.corrections, at: d.at});
      }
    }
  } catch (e) { /* storage refused: nothing kept */ }
  return out.sort((a, b) => b.at - a.at);
}

/* For the game `g` (GET /v1/games/{id}) while it is not over: a notice offering "Continue checking round N" (its
 * next round) when this phone keeps unsaved corrections of a new photo's reading of it (keptChecks: the newest;
 * one whose reading the game has saved since is not offered), and "Discard them" (asked first); null when none. */
export function keptCheckOffer(g) {
  const kept = g.over ? null : keptChecks(g.id).find(k => !g.rounds.some(r => r.photo_reading === k.reading));
  if (!kept) return null;
  const n = kept.corrections.length;
  const what = n ? `your ${n} correction${n === 1 ? "" : "s"} to it ${n === 1 ? "is" : "are"}` : "your changes to it are";
  const box = h("section", {class: "panel notice", id: "kept-check", role: "status"},
    h("p", {}, `Round ${g.next_round} was read but not saved: ${what} kept on this phone.`),
    h("div", {class: "row"},
      h("a", {class: "button primary", id: "continue-check", href: `#/game/${g.id}/check/${kept.reading}`},
        `Continue checking round ${g.next_round}`),
      h("button", {type: "button", id: "discard-kept-check", onclick: async () => {
        if (!(await askConfirm("Discard them?", [`The reading of round ${g.next_round} and your corrections to it are ` +
          "thrown away: to score the round, send its photos again from Score round."], "Discard them"))) return;
        removeDraft(g.id, kept.reading);
        box.remove();
      }}, "Discard them")));
  return box;
}
