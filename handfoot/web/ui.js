/* The page's building blocks: elements (h, s), numbers, the toast, error boxes, the view's content (show), the
 * sheet (a dialog for pickers and confirmations) and the card picker. */
import {RANKS, SUITS, SUIT_NAMES, cardParts, cardShort, cardsInText, cardsSaid, rankName} from "/static/cards.js";

export const view = document.getElementById("view");
/* -- small helpers ------------------------------------------------------------------------------------------ */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}
export const svgNS = "http://www.w3.org/2000/svg";
export function s(tag, attrs) {
  const el = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  return el;
}
export function fmt(n) { return n === null || n === undefined ? "?" : Number(n).toLocaleString("en-US"); }
export function total(t) { return Array.isArray(t) ? `${fmt(t[0])} to ${fmt(t[1])}` : fmt(t); }
export function teamTotal(ts) { return ts.exact ? fmt(ts.total) : `${fmt(ts.total_min)} to ${fmt(ts.total_max)}`; }
/* A team's points as the big type of its box shows them (a game's total: `total`'s number or [lo, hi]; a round's
 * team score: teamTotal's {exact, total, total_min, total_max}): a number, or a range (a squared book's wilds
 * uncounted) as "2,610 to 2,680" in smaller type (class "range"), each number kept whole, on one line at 390 px. */
export function pointsNode(t) {
  const [lo, hi] = Array.isArray(t) ? t : t && typeof t === "object" ? (t.exact ? [t.total, t.total] : [t.total_min, t.total_max]) : [t, t];
  if (lo === hi) return fmt(lo);
  return h("span", {class: "range"}, h("span", {}, fmt(lo)), " to ", h("span", {}, fmt(hi)));
}
/* The squared books of a team's round score `ts` whose wilds are still to count, in words, one a book:
 * "squared dirty book of fives under 5♥ (300 to 370 points)" (the score's needs_counting, its place left out). */
export function uncountedBooks(ts) {
  return ts.needs_counting.map(n => {
    const m = /^count the wilds in the (.*?) \([^)]*\): (.*)$/.exec(n);
    return cardsInText(m ? `${m[1]} (${m[2]})` : n);
  });
}
/* What uncounted wilds in round `n` of game `g` (scored `score` there) mean for who wins, when it is the game's
 * last round: a doubt for Save's question (ui.js's saveAnyway: {kind: "ranged", key, text}) saying that a team
 * wins whatever they come to, or that the winner waits on them; none for another round or an exact score. */
export function lastRoundDoubt(g, n, score) {
  if (n !== g.rounds_in_game || Object.values(score.teams).every(ts => ts.exact)) return [];
  const range = Object.fromEntries(g.teams.map(t => [t, [0, 0]]));
  for (const s of [...g.rounds.filter(r => r.n !== n).map(r => r.score), score]) {
    for (const [t, ts] of Object.entries(s.teams)) if (range[t]) { range[t][0] += ts.total_min; range[t][1] += ts.total_max; }
  }
  const sure = g.teams.find(t => g.teams.every(o => o === t || range[t][0] > range[o][1]));
  return [{kind: "ranged", key: "ranged last round", text: sure
    ? `This is the last round: ${sure} wins whatever those wilds come to, but the final totals stay a range until they are counted.`
    : "This is the last round: who wins depends on those wilds. Count them before saving, or the game ends with no winner until this round is corrected."}];
}

export let toastTimer = null;
export function toast(message, error) {
  /* a row of the sticky header (style.css): the page moves down by its height, so it covers nothing; a server that
     cannot be reached is said once, by sync.js's line in the header (hfSync.unreachable), not again here. An error
     is an alert (the toast's role while it shows one); anything else is said through the status region (say). It is
     about the view shown, or about the one opened in the same step ("Game deleted", then location.hash set to the
     games): another view opened later takes it away (leaving) */
  if (error && message === hfSync.UNREACHABLE) return;
  const t = document.getElementById("toast");
  t.dataset.at = location.hash;
  queueMicrotask(() => { t.dataset.at = location.hash; });
  const resize = (change) => {
    const bar = t.parentElement, before = bar.offsetHeight;
    change();
    if (scrollY > 0) scrollBy(0, before - bar.offsetHeight);
  };
  resize(() => {
    t.textContent = message; t.className = error ? "error" : ""; t.hidden = false;
    if (error) t.setAttribute("role", "alert"); else t.removeAttribute("role");
  });
  if (!error) say(message);
  clearTimeout(toastTimer); toastTimer = setTimeout(() => resize(() => { t.hidden = true; }), error ? 7000 : 3000);
}
/** Hide an error toast still showing (a later change went through: the error is no longer news). */
export function clearError() {
  const t = document.getElementById("toast");
  if (t && !t.hidden && t.className === "error") { clearTimeout(toastTimer); t.hidden = true; }
}
/* An error in words, in a box of the page; a server that cannot be reached (an ApiError of status 0, said by the line
 * in the header) as what it means for what was asked: not done, and, once the server answers again (sync.js's
 * "handfoot-reachable"; the line gone), that it can be done now. */
export function errorBox(e) {
  const box = h("div", {class: "error-box", role: "alert"},
                e.status === 0 ? "Not done: the line at the top says why. Try again once it has gone." : e.message || String(e));
  const back = () => {
    document.removeEventListener("handfoot-reachable", back);
    if (box.isConnected) box.textContent = "Not done yet. The handfoot server answers again: try again now.";
  };
  if (e.status === 0) document.addEventListener("handfoot-reachable", back);
  return box;
}
export function setBusy(button, busy) { if (button) button.disabled = busy; }
/* `el`'s children replaced by `nodes` (nested arrays flattened), skipping null, undefined and false as h() does (the
 * DOM's own replaceChildren writes them as the text "null"). */
export function fill(el, ...nodes) { el.replaceChildren(...nodes.flat(Infinity).filter(n => n !== null && n !== undefined && n !== false)); }
export function show(...nodes) { fill(view, ...nodes); }
/* A round's score in one short sentence for a screen reader: "Round 3 now: Us 2,255, Them 0." (`score`: a round's
 * score, its teams' totals as teamTotal says them, a team not in it 0). */
export function roundSaid(n, teams, score) {
  return `Round ${n} now: ${teams.map(t => `${t} ${score.teams[t] ? teamTotal(score.teams[t]) : "0"}`).join(", ")}.`;
}
/* `text` said to a screen reader, not shown: it replaces what the page's status region (#said, polite) held, so the
 * region says only the latest; the same text again is said again. `total`: it is a round's total (roundSaid's). */
export function say(text, total = false) {
  const region = document.getElementById("said");
  region.textContent = region.textContent === text ? `${text}\u00a0` : text;
  region.dataset.total = total ? "1" : "";
}
/* The round's total shown now (roundSaid's `text`; null: none shown) kept in the status region: said when `asked`
 * (a change made here was taken), and put in place of a total it still holds that is no longer the one shown (the
 * total changed without a word: a change scored once the server answered again, another phone's), never left stale. */
export function sayTotal(text, asked) {
  const region = document.getElementById("said");
  const held = region.dataset.total === "1" ? region.textContent.replace(/\u00a0$/, "") : null;
  if (text && (asked || (held !== null && held !== text))) say(text, true);
  else if (!text && held !== null) { region.textContent = ""; region.dataset.total = ""; }
}
/* Another view opened (app.js's route): what the status region said and the toast about the view left go (a toast
 * about the view opened, as "Game deleted" on the games, stays). */
export function leaving() {
  const t = document.getElementById("toast");
  if (!t.hidden && t.dataset.at === location.hash) return;
  clearTimeout(toastTimer);
  t.hidden = true; t.textContent = ""; t.removeAttribute("role");
  const region = document.getElementById("said");
  region.textContent = ""; region.dataset.total = "";
}

/* -- the sheet (a dialog for pickers and confirmations) -------------------------------------------------------- */
export const sheet = document.getElementById("sheet");
export function openSheet(title, body) {
  retitleSheet(title);
  const holder = document.getElementById("sheet-body");
  holder.replaceChildren(body);
  delete sheet.dataset.asks;  /* what the sheet asks, when closeSaveQuestion is to know it (saveAnyway's: "save") */
  if (!sheet.open) sheet.showModal();
  /* it opens at its top (its title shown), though the control focused (the one marked data-autofocus, else the
     first) is on its bottom edge (a question's answers held there in landscape) */
  sheet.scrollTop = 0;
  const first = holder.querySelector("[data-autofocus]") || holder.querySelector("button, input, select");
  if (first) first.focus({preventScroll: true});
}
/* The open sheet's title made `title` (what it will save, as its buttons change it), its cards said in words. */
export function retitleSheet(title) { fill(document.getElementById("sheet-title"), cardsSaid(title)); }
export function closeSheet() { if (sheet.open) sheet.close(); }
/* Closes the sheet when it is saveAnyway's question (it then resolves false, nothing saved); any other sheet stays. */
export function closeSaveQuestion() { if (sheet.open && sheet.dataset.asks === "save") closeSheet(); }
export function askConfirm(title, text, okLabel, other, danger = false, noLabel = "Cancel") {
  /* a question in the sheet (not the browser's pop-up); resolves true for okLabel, false otherwise (noLabel, the
     sheet closed); `other`: another way out shown between them (a link, say). `danger`: okLabel cannot be taken
     back, so it is the red secondary button after `other` (then the main choice), and the focus starts on the
     safe choice (`other`, else noLabel). noLabel: what not answering okLabel does, when "Cancel" would say
     otherwise (cancelling a Cancel: "Keep correcting") */
  return new Promise((resolve) => {
    const done = (answer) => { sheet.removeEventListener("close", onClose); closeSheet(); resolve(answer); };
    const onClose = () => done(false);
    sheet.addEventListener("close", onClose);
    const yes = h("button", {type: "button", class: danger ? "danger" : "primary", id: "confirm-yes", onclick: () => done(true)}, okLabel);
    const no = h("button", {type: "button", onclick: () => done(false)}, noLabel);
    openSheet(title, h("div", {}, [].concat(text).map(t => t instanceof Node ? t : h("p", {}, cardsSaid(t))),
      h("div", {class: "row"}, danger ? [other || null, yes] : [yes, other || null], no)));
    if (danger) (other || no).focus({preventScroll: true});
  });
}

/* "Save the round anyway?" asked about the doubts `all` of a round ({kind: "illegal" | "unread" | "ranged", key,
 * text, team}: a rule problem, a team with nothing, a squared book's wilds uncounted; `key` the same for the same
 * doubt on a later correction), only about those not answered before: in `answered` (this view's: a Set, each key
 * added once "Save anyway" is said to it) or in `saved` (the keys of the round as saved: its save said "Save
 * anyway" to them). `nothing`: how a team with nothing is said in the title ("read", "typed"). Resolves true to
 * save: nothing new to ask, or "Save anyway". */
export async function saveAnyway(all, answered, saved, nothing) {
  const known = new Set([...answered, ...saved]);
  const fresh = all.filter(d => !known.has(d.key));
  const illegal = fresh.filter(d => d.kind === "illegal"), unread = fresh.filter(d => d.kind === "unread").map(d => d.team);
  const before = all.length - fresh.length, rulesBefore = all.filter(d => d.kind === "illegal").length - illegal.length;
  if (fresh.length) {
    const question = askConfirm(illegal.length ? `The rules see ${illegal.length}${rulesBefore ? " new" : ""} problem${illegal.length === 1 ? "" : "s"}`
                                : unread.length ? `Nothing ${nothing} for ${unread.join(" and ")}`
                                : "A squared book to count",
      [...fresh.map(d => d.text),
       ...(before ? [h("p", {class: "muted"}, `${before} more ${before === 1 ? "was" : "were"} saved anyway before: not asked again.`)] : []),
       "Save the round anyway? You can correct it later."], "Save anyway");
    sheet.dataset.asks = "save";  /* closed unanswered by a save-conflict notice (closeSaveQuestion) */
    if (!(await question)) return false;
  }
  for (const d of all) answered.add(d.key);
  return true;
}

/* A choice of a few long texts that fits a phone's width whatever they are (a radio button a line, its label
 * wrapping; a select cuts a long text off): `items` [[value, text, key]] (key: the end of its radio's id,
 * `${id}-${key}`; the value when left out), `chosen` the value checked first. The element's `value` is the
 * choice's, read and set as a select's, and it fires "change" as one does; it is a fieldset with the id `id`, its
 * legend `legend`. */
export function radioChoice(items, chosen, id, legend) {
  const box = h("fieldset", {class: "choice", id}, h("legend", {}, legend));
  box.append(...items.map(([value, text, key]) => h("label", {class: "check", for: `${id}-${key ?? value}`},
    h("input", {type: "radio", name: id, id: `${id}-${key ?? value}`, value, checked: value === (chosen ?? "") ? "" : null}),
    h("span", {}, text))));
  Object.defineProperty(box, "value", {
    get: () => (box.querySelector("input:checked") || {value: ""}).value,
    set: (v) => { for (const r of box.querySelectorAll("input")) r.checked = r.value === (v ?? ""); }});
  return box;
}

/* The deck profiles a game's photos may be read with, as a radioChoice: "the stock card reader" (value "", its
 * radio `${id}-stock`) or each deck of `decks` (GET /v1/decks). */
export function deckChoice(decks, chosen, id, legend) {
  return radioChoice([["", "the stock card reader", "stock"], ...decks.map(d => [d.name, `deck ${d.name}`])], chosen || "", id, legend);
}

/* The rules' problems of a round (a score's `problems`), each with the piles of `piles` it is about named as
 * Check these names them (problemNamed): the illegal ones, those Save asks about, as "1 rule problem: …" or
 * "2 rule problems:" and a list; the others (a score that waits on uncounted wilds, a doubt) each as a note
 * under them ("Note: …"). null when there are none. */
export function problemsLine(problems, piles = []) {
  if (!problems.length) return null;
  const texts = (illegal) => problems.filter(p => (p.severity === "illegal") === illegal).map(p => problemNamed(p, piles).text);
  const rules = texts(true), notes = texts(false);
  const head = `${rules.length} rule problem${rules.length === 1 ? "" : "s"}:`;
  return h("div", {class: "rule-problems"},
    rules.length === 1 ? h("p", {class: "problem"}, cardsSaid(`${head} ${rules[0]}`))
      : rules.length ? h("div", {class: "problem"}, h("p", {}, head), h("ul", {}, rules.map(t => h("li", {}, cardsSaid(t))))) : null,
    notes.map(t => h("p", {class: "muted rule-note"}, cardsSaid(`Note: ${t}`))));
}

export function problemText(p) {
  /* a rule problem with the team it concerns ("teams.A.melds[0]" -> "A: ...") */
  const m = /^teams\.([^.\[]+)/.exec(p.where || "");
  return cardsInText((m && !p.message.startsWith(`team ${m[1]}`) ? `${m[1]}: ` : "") + p.message);
}

/* A pile as the page names it everywhere (Check these, "Save anyway?", a saved round's problems, the card
 * editor's "Move it to…"): "Us: meld 4♣ 4♠ 4♥"; `p`: {team, label, cards: [{code}]}. */
export function pileText(p) { return `${p.team}: ${p.label} ${p.cards.map(c => cardShort(c.code)).join(" ")}`; }

/* A rule problem `pr` (one of a score's `problems`) and the piles of `piles` ({team, label, where, cards: [{code}]})
 * it is about, in words: {piles, text}. A problem about cards wherever they lie (its `cards`: more 4♠ than the
 * decks hold) is about every pile holding them, each named in its text with how many it holds ("… — 2 in Us:
 * meld 4♠ 4♠ 4♥; 4 in Them: meld …"); another is about the pile at its place (`where`), if any, its text
 * problemText's. */
export function problemNamed(pr, piles) {
  const codes = pr.cards || [];
  const held = codes.length ? piles.filter(p => p.cards.some(c => codes.includes(c.code))) : [];
  const at = held.length ? held : piles.filter(p => pr.where === p.where || pr.where.startsWith(p.where + "[") ||
                                                    pr.where.startsWith(p.where + ".")).slice(0, 1);
  const where = held.map(p => `${p.cards.filter(c => codes.includes(c.code)).length} in ${pileText(p)}`).join("; ");
  return {piles: at, text: cardsInText(problemText(pr) + (where ? ` — ${where}` : ""))};
}

export function cardPicker(initial, onPick, extra, above) {
  /* rank and suit buttons (no keyboard needed); onPick(code); `extra`: a button beside Save, `above`: a control
     between the picker and its buttons (the card editor's "Move it to…") */
  const start = initial ? cardParts(initial) : {rank: "", suit: ""};
  let rank = start.rank, suit = start.suit;
  const ranks = h("div", {class: "picker", role: "group", "aria-label": "rank"});
  const suits = h("div", {class: "picker suits", role: "group", "aria-label": "suit"});
  const ok = h("button", {type: "button", class: "primary", onclick: () => {
    const code = box.picked();
    closeSheet(); onPick(code);
  }}, "Save");
  function refresh() {
    for (const b of ranks.children) b.setAttribute("aria-pressed", String(b.dataset.rank === rank));
    for (const b of suits.children) {
      b.setAttribute("aria-pressed", String(b.dataset.suit === suit && rank !== "JK"));
      b.disabled = rank === "JK";
    }
    ok.disabled = !(rank === "JK" || (rank && suit));
  }
  for (const r of RANKS) {
    ranks.append(h("button", {type: "button", "data-rank": r, "aria-label": r === "JK" ? "joker" : `rank ${rankName(r)}`,
                              "data-autofocus": r === start.rank,  /* the sheet opens on the card's own rank */
                              onclick: () => { rank = r; refresh(); }}, r === "JK" ? "Jkr" : r));
  }
  for (const [code, sym] of SUITS) {
    suits.append(h("button", {type: "button", "data-suit": code, class: code === "H" || code === "D" ? "red" : "",
                              "aria-label": SUIT_NAMES[code],
                              onclick: () => { suit = code; refresh(); }}, sym));
  }
  refresh();
  /* only a card's colour counts (red threes, seed 000): said where a family would otherwise fix suits for nothing */
  const suitHead = h("p", {class: "muted", id: "picker-suit"},
                     "Suit (the score needs only its colour: a club read as a spade changes nothing)");
  const box = h("div", {}, h("p", {class: "muted"}, "Rank"), ranks, suitHead, suits, above || null,
                h("div", {class: "row"}, ok, extra || null,
                  h("button", {type: "button", onclick: closeSheet}, "Cancel")));
  box.picked = () => rank === "JK" ? "JK" : (rank && suit ? rank + suit : null);  /* the code the buttons show now, null while half chosen */
  return box;
}

/* `el` focused (none: nothing), scrolled into view only when it is out of the window. */
export function focusOn(el) {
  if (!el) return;
  el.focus({preventScroll: true});
  const r = el.getBoundingClientRect();
  if (r.bottom < 0 || r.top > innerHeight) el.scrollIntoView({block: "center"});
}
