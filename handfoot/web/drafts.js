/* A check view's unsaved corrections, kept in the browser (localStorage) under its game and reading until they are
 * saved or discarded, so a phone that reloads a tab it put away loses nothing; drafts of check views untouched for
 * two weeks are removed. */

/* The localStorage key of the unsaved corrections of the check view of reading `rid` in game `gid`. */
function draftKey(gid, rid) { return `handfoot.draft.${gid}.${rid}`; }

/* `draft` ({round, base, corrections, went}) kept for the check view of reading `rid` in game `gid`, with the time. */
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

/* The unsaved corrections kept for reading `rid` in game `gid` ({corrections, went}), or null: when none are kept,
 * when they were made on another round (`round`: the saved round corrected, null for a new photo) or on other saved
 * corrections than `base`, or when what is kept is not a draft (a stale or corrupt one is removed, unsaid). */
export function readDraft(gid, rid, round, base) {
  pruneDrafts(Date.now());
  try {
    const text = localStorage.getItem(draftKey(gid, rid));
    if (text === null) return null;
    const d = JSON.parse(text);
    const ok = d && typeof d === "object" && d.round === round && JSON.stringify(d.base) === JSON.stringify(base) &&
      Array.isArray(d.corrections) && d.corrections.every(op => op && typeof op === "object" && typeof op.op === "string") &&
      typeof d.went === "string";
    if (ok) return {corrections: d.corrections, went: d.went};
    localStorage.removeItem(draftKey(gid, rid));
  } catch (e) { /* unreadable: as if none were kept */ }
  return null;
}
