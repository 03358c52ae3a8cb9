/* handfoot's page: games, rounds from photos, checking and correcting a reading in taps.
 * Plain JavaScript over the /v1 API (docs/api.md); no build step, nothing loaded from outside this server.
 * Views are hash routes: #/ (games), #/new, #/game/ID, #/game/ID/round, #/game/ID/check/READING[/N],
 * #/live[/GAME] (a camera watching the table). */
"use strict";

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "JK"];
const SUITS = [["S", "♠"], ["H", "♥"], ["D", "♦"], ["C", "♣"]];
const KINDS = [["meld", "meld or fanned book"], ["squared_book", "squared book"], ["red_threes", "red threes"],
               ["left", "cards left in hand"], ["loose", "loose (not scored)"]];
const KIND_ORDER = ["meld", "squared_book", "red_threes", "left", "loose"];
const view = document.getElementById("view");

/* -- small helpers ------------------------------------------------------------------------------------------ */
function h(tag, attrs, ...children) {
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
const svgNS = "http://www.w3.org/2000/svg";
function s(tag, attrs) {
  const el = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  return el;
}
function fmt(n) { return n === null || n === undefined ? "?" : Number(n).toLocaleString("en-US"); }
function total(t) { return Array.isArray(t) ? `${fmt(t[0])} to ${fmt(t[1])}` : fmt(t); }
function teamTotal(ts) { return ts.exact ? fmt(ts.total) : `${fmt(ts.total_min)} to ${fmt(ts.total_max)}`; }

class ApiError extends Error {
  constructor(status, body) {
    super(body && body.error ? body.error : `the server answered ${status}`);
    this.status = status; this.body = body || {};
  }
}
/* A request to the API; `key` is the action's Idempotency-Key (hfSync.newKey), round writes carry If-Match. */
async function api(method, path, body, key) {
  const opts = {method, headers: hfSync.headers(method, path, key)};
  if (body !== undefined) { opts.headers["content-type"] = "application/json"; opts.body = JSON.stringify(body); }
  let r;
  try { r = await fetch(path, opts); }
  catch (e) { throw new ApiError(0, {error: "the handfoot server cannot be reached: is it still running?"}); }
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = {error: text.slice(0, 200)}; }
  if (!r.ok) throw new ApiError(r.status, data);
  return hfSync.note(data);
}
let toastTimer = null;
function toast(message, error) {
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
function errorBox(e) { return h("div", {class: "error-box", role: "alert"}, e.message || String(e)); }
function cardParts(code) {
  if (code === "JK" || code === "RJ" || code === "BJ") return {rank: "JK", suit: code === "JK" ? "" : code[0]};
  return {rank: code.slice(0, -1), suit: code.slice(-1)};
}
function cardText(code) {
  const p = cardParts(code);
  if (p.rank === "JK") return code === "RJ" ? "red joker" : code === "BJ" ? "black joker" : "joker";
  return p.rank + (SUITS.find(x => x[0] === p.suit) || ["", "?"])[1];
}
function cardShort(code) { return cardParts(code).rank === "JK" ? "Jkr" : cardText(code); }
/* the server's words with each card code in them (10H, JK) written as the page writes cards (10♥, Jkr) */
function cardsInText(text) { return String(text).replace(/\b(10|[2-9AJQK])([SHDC])\b|\bJK\b/g, (code) => cardShort(code)); }
function isRed(code) { const p = cardParts(code); return p.suit === "H" || p.suit === "D" || code === "RJ"; }
function cardName(code) {
  const p = cardParts(code);
  if (p.rank === "JK") return cardText(code);
  const ranks = {A: "ace", J: "jack", Q: "queen", K: "king"};
  const suits = {S: "spades", H: "hearts", D: "diamonds", C: "clubs"};
  return `${ranks[p.rank] || p.rank} of ${suits[p.suit]}`;
}
function setBusy(button, busy) { if (button) button.disabled = busy; }
function show(...nodes) { view.replaceChildren(...nodes.flat().filter(n => n !== null && n !== undefined && n !== false)); }

/* -- settings: large type, dark mode -------------------------------------------------------------------------- */
function applySettings() {
  const large = localStorage.getItem("handfoot.large") === "1";
  const stored = localStorage.getItem("handfoot.dark");
  const dark = stored === null ? matchMedia("(prefers-color-scheme: dark)").matches : stored === "1";
  document.documentElement.classList.toggle("large", large);
  document.documentElement.classList.toggle("dark", dark);
  document.getElementById("large-type").setAttribute("aria-pressed", String(large));
  document.getElementById("dark-mode").setAttribute("aria-pressed", String(dark));
}
document.getElementById("large-type").addEventListener("click", () => {
  localStorage.setItem("handfoot.large", document.documentElement.classList.contains("large") ? "0" : "1");
  applySettings();
});
document.getElementById("dark-mode").addEventListener("click", () => {
  localStorage.setItem("handfoot.dark", document.documentElement.classList.contains("dark") ? "0" : "1");
  applySettings();
});

/* -- the sheet (a dialog for pickers and confirmations) -------------------------------------------------------- */
const sheet = document.getElementById("sheet");
function openSheet(title, body) {
  document.getElementById("sheet-title").textContent = title;
  const holder = document.getElementById("sheet-body");
  holder.replaceChildren(body);
  if (!sheet.open) sheet.showModal();
  const first = holder.querySelector("button, input, select");
  if (first) first.focus();
}
function closeSheet() { if (sheet.open) sheet.close(); }
function askConfirm(title, text, okLabel) {
  /* a question in the sheet (not the browser's pop-up); resolves true for okLabel, false otherwise */
  return new Promise((resolve) => {
    const done = (answer) => { sheet.removeEventListener("close", onClose); closeSheet(); resolve(answer); };
    const onClose = () => done(false);
    sheet.addEventListener("close", onClose);
    openSheet(title, h("div", {}, [].concat(text).map(t => h("p", {}, t)),
      h("div", {class: "row"}, h("button", {type: "button", class: "primary", id: "confirm-yes", onclick: () => done(true)}, okLabel),
        h("button", {type: "button", onclick: () => done(false)}, "Cancel"))));
  });
}

function problemText(p) {
  /* a rule problem with the team it concerns ("teams.A.melds[0]" -> "A: ...") */
  const m = /^teams\.([^.\[]+)/.exec(p.where || "");
  return cardsInText((m && !p.message.startsWith(`team ${m[1]}`) ? `${m[1]}: ` : "") + p.message);
}

function cardPicker(initial, onPick, extra) {
  /* rank and suit buttons (no keyboard needed); onPick(code) */
  const start = initial ? cardParts(initial) : {rank: "", suit: ""};
  let rank = start.rank, suit = start.suit;
  const ranks = h("div", {class: "picker", role: "group", "aria-label": "rank"});
  const suits = h("div", {class: "picker suits", role: "group", "aria-label": "suit"});
  const ok = h("button", {type: "button", class: "primary", onclick: () => {
    const code = rank === "JK" ? "JK" : rank + suit;
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
  return h("div", {}, h("p", {class: "muted"}, "Rank"), ranks, h("p", {class: "muted"}, "Suit"), suits,
           h("div", {class: "row"}, ok, extra || null,
             h("button", {type: "button", onclick: closeSheet}, "Cancel")));
}

/* -- router ------------------------------------------------------------------------------------------------ */
async function route() {
  closeSheet();
  hfSync.stop();
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  show(h("p", {class: "muted"}, h("span", {class: "spinner", "aria-hidden": "true"}), " Loading…"));
  try {
    if (parts.length === 0) await homeView();
    else if (parts[0] === "new") await newGameView();
    else if (parts[0] === "game" && parts.length === 2) await gameView(parts[1]);
    else if (parts[0] === "game" && parts[2] === "round") await roundView(parts[1]);
    else if (parts[0] === "game" && parts[2] === "check") await checkView(parts[1], parts[3], parts[4] ? +parts[4] : null);
    else if (parts[0] === "live") await liveView(parts[1] || null);
    else show(h("h1", {}, "Not found"), h("p", {}, h("a", {href: "#/"}, "All games")));
  } catch (e) {
    show(h("h1", {}, "Something went wrong"), errorBox(e), h("p", {}, h("a", {href: "#/"}, "All games")));
  }
  view.focus({preventScroll: true});
}
window.addEventListener("hashchange", route);

/* -- games ------------------------------------------------------------------------------------------------- */
async function homeView() {
  const games = await api("GET", "/v1/games");
  const list = h("ul", {class: "games"});
  for (const g of games) {
    const totals = Object.entries(g.totals).map(([t, v]) => `${t} ${total(v)}`).join(" · ");
    const state = g.winner ? `winner: ${g.winner}` : g.over ? "over" : `${g.rounds} round${g.rounds === 1 ? "" : "s"} played`;
    list.append(h("li", {class: "panel"}, h("a", {href: `#/game/${g.id}`},
      h("strong", {}, g.teams.join(" vs ")), h("br"), h("span", {class: "muted"}, `${g.rules} · ${state} · ${totals}`))));
  }
  show(
    h("h1", {}, "Games"),
    h("div", {class: "row"}, h("a", {class: "button primary", href: "#/new"}, "New game")),
    games.length ? list : h("p", {class: "muted"}, "No games yet: start one, then score each round from a photo of the table."));
}

async function newGameView() {
  const rules = await api("GET", "/v1/rules");
  const teams = h("div", {});
  function addTeam(name) {
    const k = teams.children.length + 1;
    const box = h("div", {class: "panel team"},
      h("label", {for: `team-${k}`}, `Team ${k} name`),
      h("input", {type: "text", id: `team-${k}`, name: "team", value: name, maxlength: "40", required: true, autocomplete: "off"}),
      h("label", {for: `players-${k}`}, "Players (optional)"),
      h("input", {type: "text", id: `players-${k}`, name: "players", placeholder: "Ann, Bob", maxlength: "200", autocomplete: "off"}));
    teams.append(box);
  }
  addTeam("Us"); addTeam("Them");
  const select = h("select", {id: "rules", name: "rules", "aria-describedby": "rules-title"},
    Object.values(rules).map(r => h("option", {value: r.name}, r.name)));
  const title = h("p", {class: "muted", id: "rules-title"}, rules[select.value || "pagat"].title);
  select.addEventListener("change", () => { title.textContent = rules[select.value].title; });
  const house = h("div", {});
  async function showHouse() {
    const fields = await api("GET", `/v1/rules/${encodeURIComponent(select.value)}/fields`);
    house.replaceChildren();
    for (const f of fields.filter(f => f.type === "bool")) {
      const id = `house-${f.field}`;
      house.append(h("label", {class: "check", for: id},
        h("input", {type: "checkbox", id, "data-field": f.field, "data-default": String(f.value), checked: f.value}),
        h("span", {}, ruleLabel(f))));
    }
  }
  select.addEventListener("change", showHouse);
  await showHouse();
  const error = h("div", {});
  const create = h("button", {type: "submit", class: "primary"}, "Start the game");
  let createKey = hfSync.newKey();  /* pressing Start again after a dropped answer makes one game, not two */
  const form = h("form", {onsubmit: async (ev) => {
    ev.preventDefault(); error.replaceChildren();
    const names = [...teams.querySelectorAll("input[name=team]")].map(i => i.value.trim());
    const players = [...teams.querySelectorAll("input[name=players]")].map(i => i.value.split(",").map(x => x.trim()).filter(Boolean));
    const house_rules = {};
    for (const c of house.querySelectorAll("input[type=checkbox]")) {
      if (String(c.checked) !== c.dataset.default) house_rules[c.dataset.field] = c.checked;
    }
    const body = {rules: select.value, teams: names, names: {}, house_rules};
    names.forEach((n, k) => { if (players[k].length) body.names[n] = players[k]; });
    setBusy(create, true);
    try {
      const game = await api("POST", "/v1/games", body, createKey);
      location.hash = `#/game/${game.id}`;
    } catch (e) { if (e.status) createKey = hfSync.newKey(); error.replaceChildren(errorBox(e)); }
    setBusy(create, false);
  }},
    teams,
    h("div", {class: "row"},
      h("button", {type: "button", onclick: () => addTeam(`Team ${teams.children.length + 1}`)}, "Add a team"),
      h("button", {type: "button", onclick: () => { if (teams.children.length > 2) teams.lastChild.remove(); }}, "Remove the last team")),
    h("label", {for: "rules"}, "Rules"), select, title,
    h("details", {class: "panel"}, h("summary", {}, "House rules (optional)"), house), error, h("div", {class: "sticky-actions"}, create));
  show(h("h1", {}, "New game"), form);
}

function ruleLabel(f) {
  /* a rule field's description as a switch label: its first sentence, without the sources in brackets */
  const text = f.description.replace(/\s*\([^)]*\)/g, "").split(/\.\s/)[0].replace(/\.$/, "");
  return text || f.field;
}

function breakdownTable(score, teams) {
  const table = h("table", {class: "breakdown"});
  for (const team of teams || Object.keys(score.teams)) {
    const ts = score.teams[team];
    if (!ts) continue;
    table.append(h("tr", {}, h("th", {colspan: "3"}, `${team}: ${teamTotal(ts)}`)));
    for (const ln of ts.breakdown) {
      if (!ln.count && !ln.points_min && !ln.points_max) continue;
      const pts = ln.points !== null ? (ln.points > 0 ? "+" : "") + fmt(ln.points) : `${fmt(ln.points_min)} to ${fmt(ln.points_max)}`;
      table.append(h("tr", {}, h("td", {}, ln.label), h("td", {class: "muted"}, ln.detail), h("td", {}, pts)));
    }
  }
  return table;
}

function onGame(gid, hash) { return location.hash === hash || (hash === `#/game/${gid}` && location.hash === `#/game/${gid}/`); }
async function gameView(gid, latest) {
  const g = latest ? hfSync.note(latest) : await api("GET", `/v1/games/${gid}`);
  const here = location.hash;
  hfSync.follow(gid, () => { if (onGame(gid, here)) gameView(gid).catch(e => toast(e.message, true)); },
                () => { if (onGame(gid, here)) { toast("This game was deleted on another phone", true); location.hash = "#/"; } });
  const totals = h("div", {class: "totals", id: "totals"});
  for (const t of g.teams) {
    totals.append(h("div", {class: "total" + (g.leader === t ? " lead" : ""), "data-team": t},
      h("div", {class: "name"}, t), h("div", {class: "points", "data-total": t}, total(g.totals[t])),
      g.names[t] ? h("div", {class: "muted"}, g.names[t].join(", ")) : null));
  }
  const grid = h("table", {class: "grid", "aria-label": "rounds"},
    h("thead", {}, h("tr", {}, h("th", {}, "Round"), h("th", {}, "Min"), g.teams.map(t => h("th", {}, t)))));
  const body = h("tbody", {});
  const running = Object.fromEntries(g.teams.map(t => [t, 0]));
  for (const r of g.rounds) {
    const cells = g.teams.map(t => {
      const ts = r.score.teams[t];
      const pts = ts ? ts.total_min : 0;
      running[t] += pts;
      return h("td", {}, ts ? teamTotal(ts) : "0", h("br"), h("small", {class: "muted"}, fmt(running[t])));
    });
    const details = h("tr", {class: "details", hidden: true},
      h("td", {colspan: String(2 + g.teams.length)}, breakdownTable(r.score, g.teams),
        r.score.problems.length ? h("p", {class: "problem"}, `${r.score.problems.length} rule problem(s): ` +
          r.score.problems.map(problemText).join("; ")) : null,
        h("div", {class: "row"},
          r.photo_reading ? h("a", {class: "button", href: `#/game/${gid}/check/${r.photo_reading}/${r.n}`}, `Correct round ${r.n}`) : null,
          r.photos.length ? h("a", {class: "button", href: r.photos[0], target: "_blank"}, "The photo") : null,
          h("button", {type: "button", class: "danger", onclick: async (ev) => {
            const last = r.n === g.rounds.length;
            const ok = await askConfirm(`Undo round ${r.n}?`, [`Its score is taken off the totals.` +
              (last ? "" : " The rounds after it move up one."), "This cannot be taken back."], `Undo round ${r.n}`);
            if (!ok) return;
            setBusy(ev.target, true);
            try { await api("DELETE", `/v1/games/${gid}/rounds/${r.n}`); toast(`Round ${r.n} undone`); await gameView(gid); }
            catch (e) {
              if (e.status === 412 && e.body.game) {  /* another phone changed the game: show it as it is now */
                toast("Not undone: the game changed on another phone. Here it is as it is now.", true);
                await gameView(gid, e.body.game);
              } else { toast(e.message, true); setBusy(ev.target, false); }
            }
          }}, `Undo round ${r.n}`))));
    const row = h("tr", {class: "round", tabindex: "0", role: "button", "aria-expanded": "false",
                         "aria-label": `round ${r.n}: show the breakdown`}, h("td", {}, String(r.n)), h("td", {}, fmt(r.minimum)), cells);
    const toggle = () => { details.hidden = !details.hidden; row.setAttribute("aria-expanded", String(!details.hidden)); };
    row.addEventListener("click", toggle);
    row.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); toggle(); } });
    body.append(row, details);
  }
  grid.append(body);
  const next = g.over
    ? h("p", {class: "winner"}, g.winner ? `${g.winner} wins!` : "The game is over: a tie, or a squared book still to count.")
    : h("p", {}, `Next: round ${g.next_round}, opening minimum ${fmt(g.next_minimum)}` + (g.leader ? ` · ${g.leader} leads` : ""));
  show(
    h("h1", {}, g.teams.join(" vs ")),
    h("p", {class: "muted"}, `Rules: ${g.rules}` + (Object.keys(g.house_rules).length ? "; house rules: " +
      Object.entries(g.house_rules).map(([k, v]) => `${k.replace(/_/g, " ")} ${typeof v === "boolean" ? (v ? "on" : "off") : JSON.stringify(v)}`).join(", ") : "")),
    totals, next,
    g.over ? null : h("div", {class: "row"}, h("a", {class: "button primary", href: `#/game/${gid}/round`, id: "score-round"},
                                            `Score round ${g.next_round}`),
                      h("a", {class: "button", href: `#/live/${gid}`, id: "watch-live"}, "Watch the table live")),
    h("h2", {}, "Rounds"),
    g.rounds.length ? h("div", {class: "table-wrap"}, grid) : h("p", {class: "muted"}, "No round yet."),
    g.rounds.length ? h("p", {class: "muted"}, "Tap a round for its breakdown, to correct it or to undo it.") : null,
    h("div", {class: "row"}, h("a", {class: "button", href: `/v1/games/${gid}/export.csv`, download: ""}, "Export CSV"),
      h("a", {class: "button", href: "#/"}, "All games")),
    g.teach || g.rounds.some(r => r.photo_reading) ? teachPanel(gid, g) : null);
}

/* A game's corrected photo rounds teach the card reader the family's deck (POST /v1/decks/{name}/learn), and go on
   teaching it after every round saved (the game's `teach`, its last `lesson`; PUT /v1/games/{id}/deck). */
function teachPanel(gid, g) {
  const name = h("input", {type: "text", id: "deck-name", maxlength: "40", autocomplete: "off",
                           value: g.teach || g.deck || "our-deck"});
  const status = h("div", {"aria-live": "polite", class: "status", id: "teach-status"},
    g.lesson ? h("p", {id: "lesson"}, g.lesson.message) : null);
  const keep = h("input", {type: "checkbox", id: "keep-teaching", checked: g.teach ? "" : null});
  keep.addEventListener("change", async () => {
    try {
      const out = await api("PUT", `/v1/games/${gid}/deck`, {deck: g.deck || (keep.checked ? name.value.trim() : null),
                                                           teach: keep.checked});
      g.teach = out.teach;
      toast(keep.checked ? `Each round saved now teaches deck ${out.teach}` : "Saved rounds no longer teach the deck");
    } catch (e) { keep.checked = !keep.checked; status.replaceChildren(errorBox(e)); }
  });
  const go = h("button", {type: "button", id: "learn-deck"}, "Learn this deck");
  go.addEventListener("click", async () => {
    setBusy(go, true);
    status.replaceChildren(h("p", {}, h("span", {class: "spinner", "aria-hidden": "true"}), " Learning your deck…"));
    try {
      let job = await api("POST", `/v1/decks/${encodeURIComponent(name.value.trim())}/learn`, {games: [gid]});
      while (job.state === "learning") {
        await new Promise(done => setTimeout(done, 1000));
        job = await api("GET", `/v1/decks/jobs/${job.id}`);
        status.replaceChildren(h("p", {}, h("span", {class: "spinner", "aria-hidden": "true"}),
          ` Learning your deck… ${job.stage || ""}`));
      }
      if (job.state === "failed") throw new Error(job.error);
      const c = job.deck.check;
      await api("PUT", `/v1/games/${gid}/deck`, {deck: job.deck.name});  /* the game reads with it from now on */
      status.replaceChildren(h("p", {}, `Deck ${job.deck.name} learned from ${job.deck.photos} photos` +
        (job.deck.negative ? " (light print on dark cards: handfoot reads it as a negative)" : "") + ": on the check photos " +
        `${Math.round(100 * c.stock)} % read right before, ${Math.round(100 * c.profile)} % with it. ` +
        "This game's new photos are read with it."));
      toast(`Deck ${job.deck.name} learned`);
    } catch (e) { status.replaceChildren(errorBox(e)); }
    setBusy(go, false);
  });
  return h("section", {class: "panel", id: "teach"}, h("h2", {}, "Teach handfoot your deck"),
    h("p", {class: "muted"}, "The photo rounds of this game, as you corrected them, teach the card reader your deck " +
      "(seconds to a minute). Every fourth photo checks it, and it is kept only if it reads those better: a dozen photos is a start."),
    h("label", {for: "deck-name"}, "Deck name"), name, h("div", {class: "row"}, go),
    h("label", {class: "check"}, keep, " Keep learning it from every round saved (a round saved as read teaches only " +
      "the cards read surely)"), status);
}

/* -- a round: photos in ------------------------------------------------------------------------------------ */
async function roundView(gid) {
  const g = await api("GET", `/v1/games/${gid}`);
  if (g.over) { location.hash = `#/game/${gid}`; return; }
  const sections = g.teams.map((t, k) => h("fieldset", {class: "panel", "data-team": t},
    h("legend", {}, h("strong", {}, t)),
    h("label", {for: `table-${k}`}, "Photos of the table (one or more)"),
    h("input", {type: "file", id: `table-${k}`, name: "table", accept: "image/*", capture: "environment", multiple: true}),
    h("label", {for: `hands-${k}`}, "Photos of hands and feet still held (optional)"),
    h("input", {type: "file", id: `hands-${k}`, name: "hands", accept: "image/*", capture: "environment", multiple: true}),
    h("label", {for: `left-${k}`}, "Or type the cards still held (optional)"),
    h("input", {type: "text", id: `left-${k}`, name: "left", placeholder: "KH 7C 4S", autocomplete: "off", maxlength: "400"})));
  const wentOut = h("select", {id: "went-out"}, h("option", {value: ""}, "nobody"), g.teams.map(t => h("option", {value: t}, t)));
  const decks = await api("GET", "/v1/decks").catch(() => []);
  const chosen = g.deck || "";
  const deck = decks.length ? h("select", {id: "deck"}, h("option", {value: ""}, "the stock card reader"),
    decks.map(d => h("option", {value: d.name, selected: d.name === chosen ? "" : null}, `deck ${d.name}`))) : null;
  const status = h("div", {"aria-live": "polite", class: "status"});
  const go = h("button", {type: "submit", class: "primary", id: "read-cards"}, "Read the cards");
  const form = h("form", {onsubmit: (ev) => { ev.preventDefault(); upload(); }},
    h("p", {class: "muted"}, `Round ${g.next_round} · opening minimum ${fmt(g.next_minimum)}. Photograph each team's melds and books from above, close enough that the corner indices are clear.`),
    sections, h("label", {for: "went-out"}, "Who went out?"), wentOut,
    deck ? h("label", {for: "deck"}, "Read with") : null, deck,
    h("div", {class: "sticky-actions"}, status, go, h("a", {class: "button", href: `#/game/${gid}`}, "Cancel")));
  show(h("h1", {}, `Round ${g.next_round}`), form);
  let key = hfSync.newKey();  /* one reading per press of "Read the cards"; the same key again after a dropped answer */

  function upload() {
    const data = new FormData();
    const photoTeams = [], handTeams = [];
    for (const sec of form.querySelectorAll("fieldset[data-team]")) {
      const team = sec.dataset.team;
      for (const f of sec.querySelector("input[name=table]").files) { data.append("photos", f, f.name); photoTeams.push(team); }
      for (const f of sec.querySelector("input[name=hands]").files) { data.append("hands", f, f.name); handTeams.push(team); }
      const typed = sec.querySelector("input[name=left]").value.trim();
      if (typed) data.append("left", `${team}:${typed}`);
    }
    if (!photoTeams.length) { status.replaceChildren(errorBox(new Error("Add at least one photo of the table."))); return; }
    data.append("teams", photoTeams.join(","));
    if (handTeams.length) data.append("hand_teams", handTeams.join(","));
    data.append("rules", g.rules);
    if (Object.keys(g.house_rules).length) data.append("house_rules", JSON.stringify(g.house_rules));
    data.append("round", String(g.next_round));
    if (wentOut.value) data.append("went_out", wentOut.value);
    if (deck && deck.value) data.append("deck", deck.value);
    if (deck && deck.value !== (g.deck || "")) api("PUT", `/v1/games/${gid}/deck`, {deck: deck.value || null}).catch(() => {});
    const bar = h("div", {}); const label = h("p", {}, "Sending the photos…");
    status.replaceChildren(label, h("div", {class: "progress", role: "progressbar", "aria-label": "upload"}, bar));
    setBusy(go, true);
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/v1/photos");
    xhr.setRequestHeader("Idempotency-Key", key);
    xhr.upload.onprogress = (ev) => { if (ev.lengthComputable) bar.style.width = `${Math.round(100 * ev.loaded / ev.total)}%`; };
    xhr.upload.onload = () => {
      bar.style.width = "100%";
      label.replaceChildren(h("span", {class: "spinner", "aria-hidden": "true"}), " Reading the cards… (a few seconds a photo)");
    };
    xhr.onerror = () => { setBusy(go, false); status.replaceChildren(errorBox(new Error("The server cannot be reached."))); };
    xhr.onload = () => {
      setBusy(go, false);
      key = hfSync.newKey();
      let body = null;
      try { body = JSON.parse(xhr.responseText); } catch (e) { body = {error: `the server answered ${xhr.status}`}; }
      if (xhr.status === 201) {
        sessionStorage.setItem(`handfoot.went_out.${body.id}`, wentOut.value);
        location.hash = `#/game/${gid}/check/${body.id}`;
      } else if (xhr.status === 503) {
        const wait = xhr.getResponseHeader("Retry-After") || "a few";
        status.replaceChildren(errorBox(new Error(`${body.error} (try again in ${wait} seconds)`)));
      } else {
        status.replaceChildren(errorBox(new Error(body.error || `the server answered ${xhr.status}`)));
      }
    };
    xhr.send(data);
  }
}

/* -- live: a camera above the table ------------------------------------------------------------------------ */
let liveToken = 0;  /* each live view's refresh loop runs while it is the newest */
async function liveView(gid) {
  const token = ++liveToken;
  const state = await api("GET", "/v1/live");
  if (state.status === "off" || state.status === "stopped") return liveStartView(gid, state);
  const here = location.hash;
  const picture = h("img", {id: "live-picture", alt: "The table as the camera sees it, each card read marked"});
  const status = h("p", {id: "live-status", class: "status", "aria-live": "polite"});
  const totals = h("div", {class: "totals", id: "live-totals"});
  const events = h("ol", {id: "live-events", class: "events", reversed: true});
  const end = h("button", {type: "button", class: "primary", id: "end-round", onclick: endRound}, "End of round");
  const again = h("button", {type: "button", id: "replay-live", hidden: true, onclick: async () => {
    try { await api("POST", "/v1/live/replay"); route(); } catch (e) { toast(e.message, true); }
  }}, "Play the video again");
  const stop = h("button", {type: "button", id: "stop-live", onclick: async () => {
    const ok = await askConfirm("Stop watching?", ["The camera stops; what it read is not kept unless you end the round first."], "Stop watching");
    if (!ok) return;
    try { await api("DELETE", "/v1/live"); } catch (e) { toast(e.message, true); }
    route();
  }}, "Stop watching");
  const game = state.game ? await api("GET", `/v1/games/${state.game}`).catch(() => null) : null;
  const teams = game ? game.teams : state.teams;
  const phone = state.source === "browser" ? (await import("/static/camera.js")).cameraNote(state) : null;
  const labels = (await import("/static/livepicture.js")).labelLayer(picture);  /* card codes over the picture */
  show(h("h1", {}, game ? `Live: ${game.teams.join(" vs ")}, round ${game.next_round}` : "Live table"), phone,
       !game && gid ? h("p", {class: "muted"}, "This table is watched without a game: End of round asks which game the round is for.") : null,
       h("div", {class: "live-layout"},
         h("div", {class: "live-picture"},
           h("a", {href: "/v1/live/frame.jpg", target: "_blank", title: "Open the picture larger"}, labels.node), labels.legend,
           status),
         h("div", {}, totals,
           h("div", {class: "row live-actions"}, end, again, stop,
             game ? h("a", {class: "button", href: `#/game/${game.id}`}, "The game") : h("a", {class: "button", href: "#/"}, "All games")),
           h("h2", {}, "What happened"), events,
           h("p", {class: "muted"}, "Cards are read when the table has been still for a moment; nothing is read while a hand is over it. " +
             "Tap the picture to open it larger. At the end of the round press End of round: you check the reading, correct any card in a tap, and save it to the game."))));
  picture.src = `/v1/live/stream.mjpg?view=${token}.${Date.now()}`;  /* a new address: never the last stream's picture */
  let shown = -1;
  function render(st) {
    status.replaceChildren(h("span", {class: `dot ${st.status}`, "aria-hidden": "true"}), ` ${st.message}`);
    status.title = `${st.fps} pictures a second · ${st.reads} reading${st.reads === 1 ? "" : "s"}`;
    totals.replaceChildren(...teams.map(t => st.teams.includes(t)
      ? h("div", {class: "total", "data-team": t}, h("div", {class: "name"}, t),
          h("div", {class: "points", "data-total": t}, t in st.totals ? fmt(st.totals[t]) : "0"))
      : h("div", {class: "total off", "data-team": t}, h("div", {class: "name"}, t),
          h("div", {class: "muted"}, "not in the camera's view"))));
    if (st.events.length !== shown) {
      shown = st.events.length;
      events.replaceChildren(...st.events.slice().reverse().map(e => h("li", {class: `event ${e.kind}`},
        h("span", {class: "muted"}, `${fmtTime(e.t)} `), e.event)));
      if (!shown) events.replaceChildren(h("li", {class: "muted"}, "Nothing yet."));
    }
    labels.update(st.cards);
    end.disabled = !Object.keys((st.layout || {}).teams || {}).length;
    again.hidden = !(st.video && st.status === "ended");
  }
  render(state);
  while (location.hash === here && token === liveToken) {
    await new Promise(r => setTimeout(r, 700));
    if (location.hash !== here || token !== liveToken) break;
    try { render(await api("GET", "/v1/live")); }
    catch (e) { status.replaceChildren(errorBox(e)); }
  }
  picture.removeAttribute("src");  // closes the picture's stream

  async function endRound() {
    const st = await api("GET", "/v1/live");
    let target = st.game;
    if (!target) {
      const open = (await api("GET", "/v1/games")).filter(g => !g.over);
      if (!open.length) { toast("Start a game first (All games, New game): the round goes to a game.", true); return; }
      target = await pickGame(open, st.teams);
      if (!target) return;
    }
    setBusy(end, true);
    try {
      const done = await api("POST", "/v1/live/end-round", {game: target});
      location.hash = done.check.replace(/^\//, "");
    } catch (e) { toast(e.message, true); setBusy(end, false); }
  }
}

/* Which game a round watched without one goes to: a sheet with the open games. Resolves to its id, or null. */
function pickGame(open, seen) {
  return new Promise(resolve => {
    const choice = h("select", {id: "end-game"}, open.map(g => h("option", {value: g.id},
      `${g.teams.join(" vs ")} (round ${g.rounds + 1})`)));
    const done = (value) => { closeSheet(); resolve(value); };
    const mapping = h("p", {id: "end-game-teams"});
    const explain = () => {
      const g = open.find(x => x.id === choice.value) || open[0];
      mapping.textContent = seen.map((t, k) => `the camera's team ${t} is scored as ${g.teams[k] || t}`).join("; ") + ".";
    };
    choice.addEventListener("change", explain);
    explain();
    openSheet("Which game is this round for?", h("div", {},
      h("label", {for: "end-game"}, "The game"), choice, mapping,
      h("div", {class: "row"}, h("button", {type: "button", class: "primary", id: "end-game-ok", onclick: () => done(choice.value)}, "Check the round"),
        h("button", {type: "button", onclick: () => done(null)}, "Cancel"))));
  });
}

function fmtTime(t) { const m = Math.floor(t / 60); return `${m}:${String(Math.floor(t % 60)).padStart(2, "0")}`; }

async function liveStartView(gid, state) {
  const games = (await api("GET", "/v1/games")).filter(g => !g.over);
  if (!games.length) {
    show(h("h1", {}, "Watch the table"), h("p", {}, "The live view scores a round from a camera above the table. Start a game first."),
         h("div", {class: "row"}, h("a", {class: "button primary", href: "#/new"}, "New game"), h("a", {class: "button", href: "#/"}, "All games")));
    return;
  }
  const game = h("select", {id: "live-game", onchange: () => labelSplit()}, games.map(g => h("option", {value: g.id, selected: g.id === gid ? "" : null},
    `${g.teams.join(" vs ")} (round ${g.rounds + 1})`)));
  const camera = h("input", {type: "number", id: "live-camera", min: "0", max: "63", value: "0", inputmode: "numeric"});
  const phone = await import("/static/camera.js");  /* this phone's camera (camera.js) or the computer's */
  const source = h("select", {id: "live-source", onchange: () => { cameraBox.hidden = source.value !== "camera"; }},
    h("option", {value: "browser"}, "This phone's camera (the back one)"), h("option", {value: "camera"}, "A camera plugged into the computer"));
  source.value = phone.cameraPossible() ? "browser" : "camera";
  const cameraBox = h("div", {hidden: source.value !== "camera"}, h("label", {for: "live-camera"}, "Camera (0 is the first)"), camera);
  const split = h("select", {id: "live-split"}, h("option", {value: "horizontal"}), h("option", {value: "vertical"}), h("option", {value: ""}));
  function labelSplit() {
    const t = (games.find(g => g.id === game.value) || games[0]).teams;
    const [a, b] = [t[0], t[1] || "the other team"];
    split.options[0].textContent = `${a} at the bottom, ${b} at the top`;
    split.options[1].textContent = `${a} on the left, ${b} on the right`;
    split.options[2].textContent = `only the side of ${a}`;
  }
  labelSplit();
  const decks = await api("GET", "/v1/decks").catch(() => []);
  const deck = decks.length ? h("select", {id: "live-deck"}, h("option", {value: ""}, "the stock card reader"),
    decks.map(d => h("option", {value: d.name}, `deck ${d.name}`))) : null;
  const gameDeck = () => (games.find(g => g.id === game.value) || {}).deck || "";
  if (deck) { deck.value = gameDeck(); game.addEventListener("change", () => { deck.value = gameDeck(); }); }
  const status = h("div", {"aria-live": "polite", class: "status"});
  const go = h("button", {type: "submit", class: "primary", id: "start-live"}, "Start watching");
  show(h("h1", {}, "Watch the table"),
    h("p", {class: "muted"}, "A phone (or a camera plugged into the computer running handfoot) looks down on the table through a round; " +
      "the score keeps itself, and other phones follow it."),
    state.status === "stopped" ? h("p", {}, "The last camera stopped.") : null,
    h("form", {onsubmit: async (ev) => {
      ev.preventDefault();
      setBusy(go, true);
      status.replaceChildren(h("span", {class: "spinner", "aria-hidden": "true"}), " Opening the camera…");
      try {
        if (deck && deck.value !== gameDeck()) await api("PUT", `/v1/games/${game.value}/deck`, {deck: deck.value || null});
        if (source.value === "browser") await phone.startPhoneCamera({game: game.value, split: split.value, deck: deck && deck.value});
        else await api("POST", "/v1/live", {game: game.value, camera: Number(camera.value || 0), split: split.value || null,
                                            deck: deck && deck.value ? deck.value : null});
        route();
      } catch (e) { status.replaceChildren(errorBox(e)); setBusy(go, false); }
    }},
      h("label", {for: "live-game"}, "The game"), game,
      h("label", {for: "live-source"}, "The camera"), source, phone.cameraProblem() ? h("p", {class: "muted"}, phone.cameraProblem()) : null, cameraBox,
      h("label", {for: "live-split"}, "What the camera sees"), split,
      deck ? h("label", {for: "live-deck"}, "Read with") : null, deck,
      h("div", {class: "sticky-actions"}, status, go, h("a", {class: "button", href: "#/"}, "Cancel"))));
}

/* -- check and correct ------------------------------------------------------------------------------------- */
async function checkView(gid, rid, roundNo) {
  const [g, original] = await Promise.all([api("GET", `/v1/games/${gid}`), api("GET", `/v1/photos/${rid}`)]);
  let stored = roundNo ? g.rounds.find(r => r.n === roundNo) : null;
  const saveKey = hfSync.newKey();  /* pressing Save again after a dropped answer stores nothing twice */
  const key = `handfoot.corrections.${rid}.${roundNo || "new"}`;
  const saved = roundNo ? null : sessionStorage.getItem(key);  /* a saved round opens as it was saved */
  const st = {
    corrections: saved ? JSON.parse(saved) : (stored ? stored.corrections.slice() : []),
    wentOut: stored ? (stored.layout.went_out || "") : (sessionStorage.getItem(`handfoot.went_out.${rid}`) ?? (original.layout.went_out || "")),
    reading: original,
    round: roundNo || g.next_round,
    views: [], breakdownOpen: false,
  };
  const glance = await import("/static/glance.js");
  const scoreBox = h("div", {class: "totals", id: "round-totals"});
  const noticeBox = h("div", {id: "sync-notice"});
  const notesBox = h("div", {});
  const pilesBox = h("div", {id: "piles"});
  const photosBox = h("div", {class: "photos"});
  const wentOut = h("select", {id: "check-went-out", onchange: () => { st.wentOut = wentOut.value; rescore(); }},
    h("option", {value: ""}, "nobody"), g.teams.map(t => h("option", {value: t}, t)));
  wentOut.value = st.wentOut;
  const undo = h("button", {type: "button", id: "undo-change", onclick: () => { st.corrections.pop(); rescore(); }}, "Undo");
  const save = h("button", {type: "button", class: "primary", id: "save-round", onclick: saveRound},
    roundNo ? `Save round ${roundNo}` : `Save round ${st.round}`);

  function photoFor(k, notes) {  /* the photo at a glance (glance.js): labelled boxes, outlined piles, note pins */
    st.views[k] = st.views[k] || {};
    return glance.photoView({image: st.reading.images[k], src: original.photos[k], alt: `photo ${k + 1}: ${st.reading.images[k].image}`,
                             notes, view: st.views[k], onCard: editCard, onNote: openNote});
  }
  function openNote(nt) {
    flash(nt.pile.id, true);
    openSheet(`Note ${nt.n}`, h("div", {}, h("p", {}, nt.text), h("p", {class: "muted"}, "Tap a card to correct it:"),
      h("div", {class: "chips"}, nt.pile.cards.map(c => h("button", {type: "button", class: "chip" + (isRed(c.code) ? " red" : ""),
        onclick: () => editCard(nt.pile, c)}, cardShort(c.code)))),
      h("div", {class: "row"}, h("button", {type: "button", onclick: closeSheet}, "Close"))));
  }

  function allPiles() { return st.reading.images.flatMap(im => im.piles); }
  function pileName(p) { return `${p.team}: ${p.label} ${p.cards.map(c => cardShort(c.code)).join(" ")}`; }

  async function rescore() {
    if (!roundNo) sessionStorage.setItem(key, JSON.stringify(st.corrections));
    undo.disabled = st.corrections.length === (stored ? stored.corrections.length : 0);
    try {
      st.reading = await api("POST", `/v1/photos/${rid}/corrections`,
        {corrections: st.corrections, round: st.round, went_out: st.wentOut || null});
    } catch (e) {
      st.corrections.pop();
      if (!roundNo) sessionStorage.setItem(key, JSON.stringify(st.corrections));
      toast(e.message, true);
    }
    render();
  }
  function change(op) { st.corrections.push(op); closeSheet(); rescore(); }

  function editCard(pile, card) {
    const move = h("select", {id: "move-to", "aria-label": "move the card to"},
      h("option", {value: ""}, "Move it to…"),
      allPiles().filter(p => p.id !== pile.id && p.team === pile.team).map(p => h("option", {value: p.id}, pileName(p))),
      h("option", {value: "new:loose"}, "loose (not scored)"), h("option", {value: "new:left"}, "cards left in hand"));
    move.addEventListener("change", () => {
      if (!move.value) return;
      if (move.value.startsWith("new:")) {
        st.corrections.push({op: "remove_card", card: card.id});
        change({op: "add_pile", team: pile.team, kind: move.value.slice(4), cards: [card.code]});
      } else change({op: "move_card", card: card.id, to: move.value});
    });
    const del = h("button", {type: "button", class: "danger", onclick: () => change({op: "remove_card", card: card.id})}, "Delete");
    openSheet(`${cardName(card.code)} (${pile.label})`,
      h("div", {}, cardPicker(card.code, (code) => change({op: "set_card", card: card.id, code}), del), move));
  }

  function addCard(pile) {
    openSheet(`Add a card to ${pile.label} ${pile.cards.map(c => cardShort(c.code)).join(" ")}`, cardPicker("", (code) => change({op: "add_card", pile: pile.id, code})));
  }
  function splitPile(pile) {
    const chips = h("div", {class: "chips"}, pile.cards.slice(1).map(c => h("button", {type: "button", class: "chip" + (isRed(c.code) ? " red" : ""),
      onclick: () => change({op: "split_pile", pile: pile.id, at: c.id})}, cardShort(c.code))));
    openSheet("Split: the new pile starts at", h("div", {}, chips, h("button", {type: "button", onclick: closeSheet}, "Cancel")));
  }
  function joinPile(pile) {
    const others = allPiles().filter(p => p.id !== pile.id && p.team === pile.team && p.kind === pile.kind);
    openSheet(`Join ${pile.label} to`, h("div", {},
      others.length ? others.map(p => h("p", {}, h("button", {type: "button", onclick: () => change({op: "join_piles", pile: pile.id, into: p.id})}, pileName(p))))
                    : h("p", {}, "No other pile of this kind in this team."),
      h("button", {type: "button", onclick: closeSheet}, "Cancel")));
  }
  function bookPile(pile) {
    const kind = h("select", {id: "book-kind"}, h("option", {value: ""}, "as its marker card says"),
      ["clean", "dirty", "wild"].map(k => h("option", {value: k}, k)));
    kind.value = pile.book.kind || "";
    const counted = pile.book.cards || null;  /* the book's cards once its wilds were counted */
    const count = h("input", {type: "number", id: "book-count", min: "1", max: "60",
                              value: pile.book.count || (counted ? counted.length : 7)});
    const twos = h("input", {type: "number", id: "book-twos", min: "0", max: "60", placeholder: "not counted",
                             value: counted ? counted.filter(c => cardParts(c).rank === "2").length : null});
    const jokers = h("input", {type: "number", id: "book-jokers", min: "0", max: "60", placeholder: "not counted",
                               value: counted ? counted.filter(c => cardParts(c).rank === "JK").length : null});
    openSheet(`Squared book under ${cardText(pile.cards[0].code)}`, h("div", {},
      h("label", {for: "book-kind"}, "Kind"), kind, h("label", {for: "book-count"}, "Cards in the stack"), count,
      h("p", {class: "muted"}, "Counted its wilds? Their number makes its value exact."),
      h("label", {for: "book-twos"}, "Twos"), twos, h("label", {for: "book-jokers"}, "Jokers"), jokers,
      h("div", {class: "row"}, h("button", {type: "button", class: "primary", onclick: () => {
        const op = {op: "set_book", pile: pile.id, count: +count.value || 7};
        if (kind.value) op.kind = kind.value;
        if (twos.value !== "" || jokers.value !== "") { op.twos = +twos.value || 0; op.jokers = +jokers.value || 0; }
        change(op);
      }}, "Save"), h("button", {type: "button", onclick: closeSheet}, "Cancel"))));
  }
  function addPile(team) {
    const kind = h("select", {id: "new-kind"}, KINDS.map(([v, l]) => h("option", {value: v}, l)));
    const cards = h("input", {type: "text", id: "new-cards", placeholder: "KH KS KD", autocomplete: "off"});
    openSheet(`A pile of ${team} the camera missed`, h("div", {},
      h("label", {for: "new-kind"}, "Kind"), kind, h("label", {for: "new-cards"}, "Its cards (e.g. KH KS JK)"), cards,
      h("div", {class: "row"}, h("button", {type: "button", class: "primary", onclick: () => {
        const codes = cards.value.split(/[\s,]+/).filter(Boolean);
        if (codes.length) change({op: "add_pile", team, kind: kind.value, cards: codes});
      }}, "Add"), h("button", {type: "button", onclick: closeSheet}, "Cancel"))));
  }

  function flash(pileId, stay) {
    const el = document.getElementById(`pile-${pileId}`);
    if (el) { el.classList.remove("flash"); void el.offsetWidth; el.classList.add("flash"); if (!stay) el.scrollIntoView({block: "center"}); }
    for (const r of document.querySelectorAll(`rect[data-card^="${pileId}."]`)) {
      r.classList.add("flash"); setTimeout(() => r.classList.remove("flash"), 1600);
    }
  }

  function pilePanel(p) {
    const bookClass = p.kind === "meld" && p.label.includes("book") ? "book" : p.kind;
    const kindSel = h("select", {"aria-label": `kind of ${p.label}`, onchange: (ev) => change({op: "set_kind", pile: p.id, kind: ev.target.value})},
      KINDS.map(([v, l]) => h("option", {value: v}, l)));
    kindSel.value = p.kind;
    return h("section", {class: `panel pile ${bookClass}`, id: `pile-${p.id}`, "aria-label": `${p.team}: ${p.label}`},
      h("h3", {}, h("span", {}, p.label), h("span", {class: "muted"}, p.kind === "squared_book" ? "top card seen" :
        `${p.cards.length} card${p.cards.length === 1 ? "" : "s"}`)),
      h("p", {class: "verdict"}, cardsInText(p.verdict)),
      p.problems.map(pr => h("p", {class: "problem"}, cardsInText(pr))),
      p.notes.map(n => h("p", {class: "muted"}, "? " + cardsInText(n))),
      h("div", {class: "chips"}, p.cards.map(c => h("button", {type: "button",
        class: "chip" + (isRed(c.code) ? " red" : "") + (c.confidence < 0.5 ? " low" : "") + (c.boxes.length ? "" : " typed"),
        "data-card": c.id, "aria-label": `${cardName(c.code)}: correct it`, onclick: () => editCard(p, c)}, cardShort(c.code)))),
      h("div", {class: "row"}, kindSel,
        h("button", {type: "button", onclick: () => addCard(p)}, "+ card"),
        p.cards.length > 1 ? h("button", {type: "button", onclick: () => splitPile(p)}, "Split") : null,
        h("button", {type: "button", onclick: () => joinPile(p)}, "Join"),
        p.kind === "squared_book" ? h("button", {type: "button", onclick: () => bookPile(p)}, "Book…") : null,
        h("button", {type: "button", class: "danger", onclick: () => change({op: "remove_pile", pile: p.id})}, "Remove")));
  }

  function render() {
    const r = st.reading;
    scoreBox.replaceChildren(...g.teams.map(t => h("div", {class: "total", "data-team": t},
      h("div", {class: "name"}, t), h("div", {class: "points", "data-round-total": t}, r.score.teams[t] ? teamTotal(r.score.teams[t]) : "0"),
      h("div", {class: "muted"}, r.score.teams[t] ? "this round" : "nothing read"))),
      h("details", {class: "breakdown-box", open: st.breakdownOpen, ontoggle: (ev) => { st.breakdownOpen = ev.target.open; }},
        h("summary", {}, "Breakdown"), breakdownTable(r.score, g.teams)));
    const pileNoteText = new Set(allPiles().flatMap(p => p.notes));
    const other = r.notes.filter(n => ![...pileNoteText].some(t => n.endsWith(t)));
    const notes = glance.numberedNotes(r, allPiles(), problemText);  /* numbered as their pins on the photo */
    notesBox.replaceChildren(glance.notesPanel(notes, other, openNote));
    photosBox.replaceChildren(...r.images.map((_, k) => photoFor(k, notes)));
    const byTeam = {};
    for (const p of allPiles()) (byTeam[p.team] = byTeam[p.team] || []).push(p);
    pilesBox.replaceChildren(...g.teams.filter(t => byTeam[t] || true).map(t => h("div", {},
      h("h2", {class: "team-head"}, t),
      (byTeam[t] || []).slice().sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind)).map(pilePanel),
      h("button", {type: "button", onclick: () => addPile(t)}, `+ a pile of ${t} the camera missed`))));
    undo.disabled = st.corrections.length === (stored ? stored.corrections.length : 0);
  }

  /* The game changed on another phone: say so, show it as it is now, and keep what was typed here unless the
   * player chooses to take the other phone's version. */
  function otherPhone(latest) {
    const totals = latest.teams.map(t => `${t} ${total(latest.totals[t])}`).join(" · ");
    const savedAs = latest.rounds.find(r => r.photo_reading === rid && r.n !== roundNo);
    const theirs = roundNo ? latest.rounds.find(r => r.n === roundNo) : null;
    const lines = [], actions = [];
    const dismiss = h("button", {type: "button", onclick: () => { hfSync.note(latest); noticeBox.replaceChildren(); }}, "Keep my corrections");
    if (savedAs) {
      lines.push(`This photo was saved there as round ${savedAs.n}; saving it here again would count it twice.`);
      actions.push(h("a", {class: "button primary", href: `#/game/${gid}/check/${rid}/${savedAs.n}`}, `Correct round ${savedAs.n}`));
      save.disabled = true;
    } else if (roundNo && !theirs) {
      lines.push(`Round ${roundNo} was undone there.`);
      save.disabled = true;
    } else if (roundNo) {
      const mine = (r) => JSON.stringify(r.corrections) + JSON.stringify(r.layout.went_out || null);
      if (stored && mine(theirs) === mine(stored)) { hfSync.note(latest); return; }  /* another round changed */
      lines.push(`Round ${roundNo} was corrected there: it now scores ` +
        latest.teams.map(t => `${t} ${theirs.score.teams[t] ? teamTotal(theirs.score.teams[t]) : "0"}`).join(" · ") + ".");
      actions.push(h("button", {type: "button", class: "primary", id: "take-theirs", onclick: () => {
        stored = theirs; st.corrections = theirs.corrections.slice(); st.wentOut = theirs.layout.went_out || "";
        wentOut.value = st.wentOut; hfSync.note(latest); noticeBox.replaceChildren(); rescore();
      }}, "Show their version"), dismiss);
    } else {
      st.round = latest.next_round;
      if (latest.over) { lines.push("The game is over: no round can be added."); save.disabled = true; }
      else { lines.push(`This photo will be saved as round ${st.round}.`); save.textContent = `Save round ${st.round}`; hfSync.note(latest); }
    }
    noticeBox.replaceChildren(h("section", {class: "panel notice", role: "alert"},
      h("h2", {}, "Changed on another phone"), h("p", {}, ...lines), h("p", {class: "muted"}, `The game now: ${totals}.`),
      h("div", {class: "row"}, actions, h("a", {class: "button", href: `#/game/${gid}`}, "See the game"))));
    noticeBox.scrollIntoView({block: "center"});
  }
  const here = location.hash;
  hfSync.follow(gid, async () => {
    if (location.hash !== here) return;
    try { otherPhone(await fetch(`/v1/games/${gid}`).then(r => r.json())); } catch (e) { /* the next change says it again */ }
  });

  async function saveRound() {
    const illegal = st.reading.score.problems.filter(p => p.severity === "illegal");
    if (illegal.length && !(await askConfirm(`The rules see ${illegal.length} problem${illegal.length === 1 ? "" : "s"}`,
        [...illegal.map(problemText), "Save the round anyway? You can correct it later."], "Save anyway"))) return;
    setBusy(save, true);
    const body = {photo_reading: rid, corrections: st.corrections, went_out: st.wentOut || null};
    try {
      if (roundNo) await api("PUT", `/v1/games/${gid}/rounds/${roundNo}?lenient=true`, body);
      else await api("POST", `/v1/games/${gid}/rounds?lenient=true`, body, saveKey);
      sessionStorage.removeItem(key);
      toast(`Round ${st.round} saved`);
      location.hash = `#/game/${gid}`;
    } catch (e) {
      setBusy(save, false);
      if (e.status === 412 && e.body.game) { toast("Not saved: the game changed on another phone", true); otherPhone(e.body.game); }
      else if (e.status === 409 && e.body.round) {
        toast(e.message, true);
        otherPhone(await api("GET", `/v1/games/${gid}`).catch(() => g));
      } else toast(e.message, true);
    }
  }

  show(
    h("h1", {}, `Check round ${st.round}`),
    h("p", {class: "muted"}, "Tap a card on the photo or below to change it, move it or delete it."),
    noticeBox, scoreBox,
    h("div", {class: "check-layout"}, h("div", {class: "photos-col"}, photosBox, notesBox), h("div", {}, pilesBox)),
    h("label", {for: "check-went-out"}, "Who went out?"), wentOut,
    h("p", {}, h("a", {class: "button", href: `#/game/${gid}`, onclick: async (ev) => {
      ev.preventDefault();
      const changed = st.corrections.length !== (stored ? stored.corrections.length : 0);
      if (changed && !(await askConfirm("Leave without saving?", ["Your corrections to this round are thrown away."], "Leave"))) return;
      sessionStorage.removeItem(key);
      location.hash = `#/game/${gid}`;
    }}, "Leave without saving")),
    h("div", {class: "sticky-actions"}, save, undo));
  await rescore();
}

applySettings();
route();
