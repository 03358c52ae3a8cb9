/* What changed in a game, said in words: the rounds another phone undid (and those that moved up) or corrected, and
 * the changes this phone made that another phone's saved round lacks. */
import {teamTotal} from "/static/ui.js";

/* The rounds of `before` that are not in `after` (undone), matched in order by `key`; null when `after` is not
 * `before` less some rounds by that key. */
function undone(before, after, key) {
  let j = 0;
  const gone = [];
  for (const r of before) { if (j < after.length && key(after[j]) === key(r)) j++; else gone.push(r); }
  return j === after.length ? gone : null;
}

/* Whether the game `after` is the game `before` with its round `n` undone and nothing else changed (one version
 * on, that round gone, the rounds after it moved up): what an undo of round n sent from `before` makes, so an undo
 * whose answer was lost is known done when the game shows it. */
export function onlyUndone(before, after, n) {
  const gone = after.version === before.version + 1 &&
    undone(before.rounds, after.rounds, r => `${r.created}|${r.photo_reading || ""}|${JSON.stringify(r.layout.teams)}`);
  return !!gone && gone.length === 1 && gone[0].n === n;
}

/* "rounds 3 and 4", "rounds 3 to 5", "round 3" */
export function roundsText(ns) {
  if (ns.length === 1) return `round ${ns[0]}`;
  return ns.length === 2 ? `rounds ${ns[0]} and ${ns[1]}` : `rounds ${ns[0]} to ${ns[ns.length - 1]}`;
}

/* What another phone changed in a game, in a sentence ("Round 2 was undone there: rounds 3 and 4 moved up one, now
 * rounds 2 and 3."; "The teams were renamed there: Jonses is Joneses now."), or null when only rounds were added (they show in the table). */
export function changedText(before, after) {
  const renamed = before.teams.map((t, k) => [t, after.teams[k]]).filter(([t, now]) => now !== undefined && now !== t)
    .map(([t, now]) => `${t} is ${now} now`);
  if (renamed.length) return `The teams were renamed there: ${renamed.join(", ")}.`;
  if (after.rounds.length < before.rounds.length) {
    /* a round keeps when it was saved and its photo when the rounds before it move up (its cards tell two saved in one second apart) */
    const gone = undone(before.rounds, after.rounds, r => `${r.created}|${r.photo_reading || ""}|${JSON.stringify(r.layout.teams)}`)
      || undone(before.rounds, after.rounds, r => `${r.created}|${r.photo_reading || ""}`) || [];
    if (!gone.length) return "A round was undone there; the rounds after it moved up, each scored under its new opening minimum.";
    const first = gone[0].n;
    const was = before.rounds.filter(r => r.n > first && !gone.includes(r)).map(r => r.n);
    const now = after.rounds.filter(r => r.n >= first).map(r => r.n);
    return `${gone.length === 1 ? "Round" : "Rounds"} ${gone.map(r => r.n).join(" and ")} ${gone.length === 1 ? "was" : "were"} undone there` +
      (was.length && was.length === now.length ? `: ${roundsText(was)} moved up (now ${roundsText(now)}), ` +
        `${was.length === 1 ? "" : "each "}scored under its new opening minimum.` : ".");
  }
  const fixed = after.rounds.filter(r => {
    const b = before.rounds.find(x => x.n === r.n);
    return b && (b.updated !== r.updated || JSON.stringify([b.layout, b.corrections]) !== JSON.stringify([r.layout, r.corrections]));
  });
  if (fixed.length) return `${fixed.length === 1 ? "Round" : "Rounds"} ${fixed.map(r => r.n).join(" and ")} ${fixed.length === 1 ? "was" : "were"} corrected there: ` +
    fixed.map(r => (fixed.length > 1 ? `round ${r.n}: ` : "") + scoreMoves(after.teams, before.rounds.find(x => x.n === r.n), r)).join("; ") + ".";
  return null;
}

/* How a round's team scores moved from `b` to `r` (the same round before and after a correction), for `teams`:
 * "Kids 2,255 → 2,265"; "the same score" when none moved. */
function scoreMoves(teams, b, r) {
  const text = (round, t) => round.score.teams[t] ? teamTotal(round.score.teams[t]) : "0";
  const moved = teams.filter(t => text(b, t) !== text(r, t)).map(t => `${t} ${text(b, t)} → ${text(r, t)}`);
  return moved.length ? moved.join(", ") : "the same score";
}

/* The changes made on this phone that the saved round `theirs` lacks: `ops`, those of `mine` (the corrections made
 * here since the view opened) that it does not hold already; `went`, who went out once they are added (`wentHere`,
 * this phone's choice, when it differs from `wentBefore`, the round's as this view opened it ("" for a new photo),
 * and from theirs); `count`. */
export function changesAbsent(theirs, mine, wentHere, wentBefore) {
  const canon = (op) => JSON.stringify(Object.keys(op).sort().map(k => [k, op[k]]));
  const have = new Set(theirs.corrections.map(canon));
  const ops = mine.filter(op => !have.has(canon(op)));
  const theirWent = theirs.layout.went_out || "";
  const wentChanged = wentHere !== wentBefore && wentHere !== theirWent;
  return {ops, went: wentChanged ? wentHere : theirWent, wentChanged, theirWent, count: ops.length + (wentChanged ? 1 : 0)};
}

/* `c` (changesAbsent's) in words: "2 corrections and who went out: Us (theirs: nobody)". */
export function changesText(c) {
  const parts = [];
  if (c.ops.length) parts.push(`${c.ops.length} correction${c.ops.length === 1 ? "" : "s"}`);
  if (c.wentChanged) parts.push(`who went out: ${c.went || "nobody"} (theirs: ${c.theirWent || "nobody"})`);
  return parts.join(" and ");
}

/* Round `r`'s scores in the game `latest`: "Us 1,320 · Them 0". */
export function scoresOf(latest, r) {
  return latest.teams.map(t => `${t} ${r.score.teams[t] ? teamTotal(r.score.teams[t]) : "0"}`).join(" · ");
}
