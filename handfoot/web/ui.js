/* The page's building blocks: elements (h, s), numbers, the toast, error boxes, the view's content (show), the
 * sheet (a dialog for pickers and confirmations) and the card picker. */
import {RANKS, SUITS, cardParts, cardsInText} from "/static/cards.js";

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

export let toastTimer = null;
export function toast(message, error) {
  /* a row of the sticky header (style.css): the page moves down by its height, so it covers nothing */
  const t = document.getElementById("toast");
  const resize = (change) => {
    const bar = t.parentElement, before = bar.offsetHeight;
    change();
    if (scrollY > 0) scrollBy(0, before - bar.offsetHeight);
  };
  resize(() => { t.textContent = message; t.className = error ? "error" : ""; t.hidden = false; });
  clearTimeout(toastTimer); toastTimer = setTimeout(() => resize(() => { t.hidden = true; }), error ? 7000 : 3000);
}
/** Hide an error toast still showing (a later change went through: the error is no longer news). */
export function clearError() {
  const t = document.getElementById("toast");
  if (t && !t.hidden && t.className === "error") { clearTimeout(toastTimer); t.hidden = true; }
}
export function errorBox(e) { return h("div", {class: "error-box", role: "alert"}, e.message || String(e)); }
export function setBusy(button, busy) { if (button) button.disabled = busy; }
export function show(...nodes) { view.replaceChildren(...nodes.flat().filter(n => n !== null && n !== undefined && n !== false)); }

/* -- the sheet (a dialog for pickers and confirmations) -------------------------------------------------------- */
export const sheet = document.getElementById("sheet");
export function openSheet(title, body) {
  document.getElementById("sheet-title").textContent = title;
  const holder = document.getElementById("sheet-body");
  holder.replaceChildren(body);
  if (!sheet.open) sheet.showModal();
  const first = holder.querySelector("button, input, select");
  if (first) first.focus();
}
export function closeSheet() { if (sheet.open) sheet.close(); }
export function askConfirm(title, text, okLabel, other) {
  /* a question in the sheet (not the browser's pop-up); resolves true for okLabel, false otherwise (Cancel, the
     sheet closed); `other`: another way out shown between them (a link, say) */
  return new Promise((resolve) => {
    const done = (answer) => { sheet.removeEventListener("close", onClose); closeSheet(); resolve(answer); };
    const onClose = () => done(false);
    sheet.addEventListener("close", onClose);
    openSheet(title, h("div", {}, [].concat(text).map(t => t instanceof Node ? t : h("p", {}, t)),
      h("div", {class: "row"}, h("button", {type: "button", class: "primary", id: "confirm-yes", onclick: () => done(true)}, okLabel),
        other || null, h("button", {type: "button", onclick: () => done(false)}, "Cancel"))));
  });
}

/* The deck profiles a game's photos may be read with, as a choice that fits a phone's width whatever the names (a
 * radio button a line, its label wrapping; a select cuts a long name off): "the stock card reader" (value "") or
 * each deck of `decks` (GET /v1/decks). The element's `value` is the choice's, read and set as a select's; it is
 * a fieldset with the id `id`, its legend `legend`. */
export function deckChoice(decks, chosen, id, legend) {
  const box = h("fieldset", {class: "choice", id}, h("legend", {}, legend));
  const item = (value, text) => h("label", {class: "check", for: `${id}-${value || "stock"}`},
    h("input", {type: "radio", name: id, id: `${id}-${value || "stock"}`, value, checked: value === (chosen || "") ? "" : null}),
    h("span", {}, text));
  box.append(item("", "the stock card reader"), ...decks.map(d => item(d.name, `deck ${d.name}`)));
  Object.defineProperty(box, "value", {
    get: () => (box.querySelector("input:checked") || {value: ""}).value,
    set: (v) => { for (const r of box.querySelectorAll("input")) r.checked = r.value === (v || ""); }});
  return box;
}

/* The rules' problems of a round as one line ("2 rule problems: Us: ..."), or null when there are none. */
export function problemsLine(problems) {
  if (!problems.length) return null;
  return h("p", {class: "problem"}, `${problems.length} rule problem${problems.length === 1 ? "" : "s"}: ` +
           problems.map(problemText).join("; "));
}

export function problemText(p) {
  /* a rule problem with the team it concerns ("teams.A.melds[0]" -> "A: ...") */
  const m = /^teams\.([^.\[]+)/.exec(p.where || "");
  return cardsInText((m && !p.message.startsWith(`team ${m[1]}`) ? `${m[1]}: ` : "") + p.message);
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
    ranks.append(h("button", {type: "button", "data-rank": r, "aria-label": r === "JK" ? "joker" : `rank ${r}`,
                              onclick: () => { rank = r; refresh(); }}, r === "JK" ? "Jkr" : r));
  }
  for (const [code, sym] of SUITS) {
    suits.append(h("button", {type: "button", "data-suit": code, class: code === "H" || code === "D" ? "red" : "",
                              "aria-label": {S: "spades", H: "hearts", D: "diamonds", C: "clubs"}[code],
                              onclick: () => { suit = code; refresh(); }}, sym));
  }
  refresh();
  const box = h("div", {}, h("p", {class: "muted"}, "Rank"), ranks, h("p", {class: "muted"}, "Suit"), suits, above || null,
                h("div", {class: "row"}, ok, extra || null,
                  h("button", {type: "button", onclick: closeSheet}, "Cancel")));
  box.picked = () => rank === "JK" ? "JK" : (rank && suit ? rank + suit : null);  /* the code the buttons show now, null while half chosen */
  return box;
}

