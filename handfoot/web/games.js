/* The games: the list (#/), a new game (#/new) and a game with its rounds (#/game/ID). */
import {api} from "/static/api.js";
import {changedText, roundsText} from "/static/changes.js";
import {teachPanel} from "/static/teach.js";
import {askConfirm, closeSheet, errorBox, fmt, h, openSheet, problemsLine, setBusy, show, teamTotal, toast, total} from "/static/ui.js";

/* When a game was made, in the phone's words ("Fri 4 Dec, 20:31"); "" when unknown. */
function fmtDate(iso) {
  const when = new Date(iso);
  return isNaN(when) ? "" : when.toLocaleString(undefined, {weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"});
}

/* -- games ------------------------------------------------------------------------------------------------- */
export async function homeView() {
  const games = await api("GET", "/v1/games");
  const list = h("ul", {class: "games"});
  for (const g of games) {
    const totals = Object.entries(g.totals).map(([t, v]) => `${t} ${total(v)}`).join(" · ");
    const state = g.winner ? `winner: ${g.winner}` : g.over ? "over" : `${g.rounds} round${g.rounds === 1 ? "" : "s"} played`;
    const when = fmtDate(g.created);  /* two games of the same teams told apart by their start */
    const started = when ? `${when} · ` : "";
    list.append(h("li", {class: "panel"}, h("a", {href: `#/game/${g.id}`},
      h("strong", {}, g.teams.join(" vs ")), h("br"), h("span", {class: "muted"}, `${started}${g.rules} · ${state} · ${totals}`))));
  }
  show(
    h("h1", {}, "Games"),
    h("div", {class: "row"}, h("a", {class: "button primary", href: "#/new"}, "New game"),
      h("button", {type: "button", id: "invite", onclick: () => inviteSheet(null)}, "Another phone")),
    games.length ? list : h("p", {class: "muted"}, "No games yet: start one, then score each round from a photo of the table."));
}

/* The longest team name, in characters (handfoot.games.TEAM_NAME_MAX: the server refuses a longer one). */
export const TEAM_NAME_MAX = 40;
/* The most teams a game has (handfoot.games.TEAMS_MAX: the server refuses more); a game has two at least. */
export const TEAMS_MAX = 8;

/* A team-name field checked against TEAM_NAME_MAX as it is typed or pasted (never cut): over it, the field is
 * marked and a line under it (id `<field id>-long`) says how long the name is; returns whether it fits. */
function teamNameFits(input) {
  const n = [...input.value.trim()].length;  /* characters, as the server counts them */
  const fits = n <= TEAM_NAME_MAX;
  document.getElementById(`${input.id}-long`)?.remove();
  if (fits) { input.removeAttribute("aria-invalid"); return true; }
  input.setAttribute("aria-invalid", "true");
  input.after(h("p", {class: "error-box", role: "alert", id: `${input.id}-long`},
    `This name has ${n} characters: a team name has at most ${TEAM_NAME_MAX}. Shorten it.`));
  return false;
}

/* The team-name fields of `inputs` named as an earlier one, case aside (as the server compares them, "Kids" and
 * "kids" one team): each marked with the one it repeats, and a line under it (id `<field id>-twice`) naming that
 * one; the marks of an earlier check are taken off first. Returns the first field that repeats a name, or null. */
function sameNames(inputs) {
  for (const i of inputs) {
    document.getElementById(`${i.id}-twice`)?.remove();
    if (i.dataset.twice) { delete i.dataset.twice; if (!document.getElementById(`${i.id}-long`)) i.removeAttribute("aria-invalid"); }
  }
  let first = null;
  inputs.forEach((i, k) => {
    const name = i.value.trim().toLowerCase();
    const earlier = inputs.slice(0, k).find(e => e.value.trim().toLowerCase() === name);
    if (!name || !earlier) return;
    for (const e of [earlier, i]) { e.dataset.twice = "1"; e.setAttribute("aria-invalid", "true"); }
    i.after(h("p", {class: "error-box", role: "alert", id: `${i.id}-twice`},
      `Team ${earlier.id.replace("team-", "")} is named ${earlier.value.trim()} already: give each team a name of its own.`));
    first ||= i;
  });
  return first;
}

/* A new game (#/new), or one like a finished game (#/new/ID: its teams, players, rules, house rules and deck, each
 * changeable before Start). */
export async function newGameView(fromId) {
  const [rules, from] = await Promise.all([api("GET", "/v1/rules"), fromId ? api("GET", `/v1/games/${fromId}`) : null]);
  const teams = h("div", {});
  const teamInputs = () => [...teams.querySelectorAll("input[name=team]")];
  function addTeam(name, players) {
    const k = teams.children.length + 1;
    const input = h("input", {type: "text", id: `team-${k}`, name: "team", value: name, required: true, autocomplete: "off",
                              "aria-describedby": `team-${k}-long team-${k}-twice`,
                              oninput: (ev) => { teamNameFits(ev.target); if (ev.target.dataset.twice) sameNames(teamInputs()); }});
    const box = h("div", {class: "panel team"},
      h("label", {for: `team-${k}`}, `Team ${k} name `, h("span", {class: "muted limit"}, `(at most ${TEAM_NAME_MAX} characters)`)),
      input,
      h("label", {for: `players-${k}`}, "Players (optional)"),
      h("input", {type: "text", id: `players-${k}`, name: "players", placeholder: "Ann, Bob", maxlength: "200", autocomplete: "off",
                  value: (players || []).join(", ")}));
    teams.append(box);
  }
  if (from) for (const t of from.teams) addTeam(t, from.names[t]);
  else { addTeam("Us"); addTeam("Them"); }
  const select = h("select", {id: "rules", name: "rules", "aria-describedby": "rules-title"},
    Object.values(rules).map(r => h("option", {value: r.name, selected: from && from.rules === r.name ? "" : null}, r.name)));
  const title = h("p", {class: "muted", id: "rules-title"}, rules[select.value || "pagat"].title);
  select.addEventListener("change", () => { title.textContent = rules[select.value].title; });
  const house = h("div", {});
  async function showHouse() {
    const fields = await api("GET", `/v1/rules/${encodeURIComponent(select.value)}/fields`);
    house.replaceChildren();
    for (const f of fields.filter(f => f.type === "bool")) {
      const id = `house-${f.field}`;
      house.append(h("label", {class: "check", for: id},
        h("input", {type: "checkbox", id, "data-field": f.field, "data-label": ruleLabel(f), "data-default": String(f.value), checked: f.value}),
        h("span", {}, ruleLabel(f))));
    }
    /* the rounds (the opening minimum of each: as many rounds as numbers) and other lists of numbers, as text */
    const lists = fields.filter(f => f.type === "list");
    if (lists.length) house.append(h("h3", {}, "Rounds"), ...lists.map(f => {
      const id = `house-${f.field}`, label = `${ruleLabel(f)} (numbers, a comma between)`, value = f.value.join(", ");
      return h("div", {class: "house-number list"}, h("label", {for: id}, label),
        h("input", {type: "text", id, inputmode: "numeric", autocomplete: "off", "data-field": f.field, "data-list": "1",
                    "data-label": label, "data-default": value, value, "data-min": f.minimum ?? null, "data-max": f.maximum ?? null,
                    placeholder: f.value.length ? null : "none"}));
    }));
    /* a choice (what may be added to a complete book): its values */
    for (const f of fields.filter(f => f.choices)) {
      const id = `house-${f.field}`;
      house.append(h("div", {class: "house-number"}, h("label", {for: id}, ruleLabel(f)),
        h("select", {id, "data-field": f.field, "data-default": f.value, "data-label": ruleLabel(f)},
          f.choices.map(c => h("option", {value: c, selected: c === f.value ? "" : null}, c)))));
    }
    /* the numbers (a clean book's bonus, the book size, ...): each as the rules set it, changed where typed; the
       points first, the deal last (it does not change a score) */
    const numbers = fields.filter(f => f.type === "int");
    const group = (f) => /_value$|_bonus$|^red_three_/.test(f.field) ? 0 :
      /^(players|team_size|decks|jokers_per_deck|hand_size|foot_size|draw_count|pickup_|max_exact)/.test(f.field) ? 2 : 1;
    ["Points", "Melds, books and going out", "The deal"].forEach((title, k) => {
      const these = numbers.filter(f => group(f) === k);
      if (!these.length) return;
      house.append(h("h3", {}, title), ...these.map(f => {
        const id = `house-${f.field}`;
        let label = f.field.endsWith("_value") ? `Points for each ${ruleLabel(f).replace(/^./, c => c.toLowerCase())}` : ruleLabel(f);
        if (f.optional) label = label.replace(/,? or None$/, " (empty: no limit)").replace(/\bNone\b/g, "empty");
        const value = f.value === null ? "" : String(f.value);
        return h("div", {class: "house-number"}, h("label", {for: id}, label),
          h("input", {type: "number", id, step: "1", inputmode: "numeric", "data-field": f.field, "data-label": label,
                      "data-default": value, "data-optional": f.optional ? "1" : null, value,
                      "data-min": f.minimum ?? null, "data-max": f.maximum ?? null, placeholder: f.optional ? "empty" : null}));
      }));
    });
  }
  select.addEventListener("change", showHouse);
  await showHouse();
  if (from) {  /* the finished game's house rules, set in their fields */
    for (const [field, value] of Object.entries(from.house_rules)) {
      const input = house.querySelector(`[data-field="${field}"]`);
      if (!input) continue;
      if (input.type === "checkbox") input.checked = !!value;
      else input.value = value === null ? "" : Array.isArray(value) ? value.join(", ") : String(value);
    }
  }
  /* Add a team and Remove the last team: each disabled where it cannot be done, the line under them saying why */
  const teamsNote = h("p", {class: "muted", id: "teams-note", hidden: true});
  const addButton = h("button", {type: "button", id: "add-team", "aria-describedby": "teams-note",
                                 onclick: () => { addTeam(`Team ${teams.children.length + 1}`); teamButtons(); }}, "Add a team");
  const removeButton = h("button", {type: "button", id: "remove-team", "aria-describedby": "teams-note",
                                    onclick: () => {
                                      if (teams.children.length > 2) teams.lastChild.remove();
                                      if (teams.querySelector("[data-twice]")) sameNames(teamInputs());
                                      teamButtons();
                                    }},
                         "Remove the last team");
  function teamButtons() {
    const n = teams.children.length;
    addButton.disabled = n >= TEAMS_MAX;
    removeButton.disabled = n <= 2;
    teamsNote.textContent = n <= 2 ? "A game needs two teams at least: no team to remove."
                          : n >= TEAMS_MAX ? `A game has ${TEAMS_MAX} teams at most: no team to add.` : "";
    teamsNote.hidden = !teamsNote.textContent;
  }
  teamButtons();
  const error = h("div", {});
  const create = h("button", {type: "submit", class: "primary"}, "Start the game");
  /* pressing Start again after a dropped answer makes one game, not two; and the next game of a finished one is one
     game, whichever phone starts it first (the same key: the same form gets that game, another is told) */
  let createKey = from ? `next-${from.id}` : hfSync.newKey();
  const form = h("form", {onsubmit: async (ev) => {
    ev.preventDefault(); error.replaceChildren();
    for (const i of house.querySelectorAll("[aria-invalid]")) i.removeAttribute("aria-invalid");
    document.getElementById("house-error")?.remove();
    const tooLong = [...teams.querySelectorAll("input[name=team]")].find(i => !teamNameFits(i));
    if (tooLong) { tooLong.focus(); tooLong.scrollIntoView({block: "center"}); return; }
    const twice = sameNames(teamInputs());
    if (twice) { twice.focus(); twice.scrollIntoView({block: "center"}); return; }
    const names = [...teams.querySelectorAll("input[name=team]")].map(i => i.value.trim());
    const players = [...teams.querySelectorAll("input[name=players]")].map(i => i.value.split(",").map(x => x.trim()).filter(Boolean));
    const house_rules = {};
    for (const c of house.querySelectorAll("input[type=checkbox]")) {
      if (String(c.checked) !== c.dataset.default) house_rules[c.dataset.field] = c.checked;
    }
    for (const c of house.querySelectorAll("select[data-field]")) {
      if (c.value !== c.dataset.default) house_rules[c.dataset.field] = c.value;
    }
    for (const n of house.querySelectorAll("input[data-list]")) {
      const value = n.value.trim();
      if (value.split(/[\s,]+/).filter(Boolean).join(", ") === n.dataset.default) continue;
      const items = value.split(/[\s,]+/).filter(Boolean);
      const {min, max} = n.dataset;
      if (items.some(x => !/^\d+$/.test(x) || (min !== undefined && +x < +min) || (max !== undefined && +x > +max))) {
        house.closest("details").open = true;
        n.closest(".house-number").after(h("p", {class: "error-box", role: "alert", id: "house-error"},
          `${n.dataset.label}: whole numbers` + (min !== undefined && max !== undefined ? ` from ${fmt(+min)} to ${fmt(+max)}` : "")));
        n.setAttribute("aria-invalid", "true");
        n.focus();
        return;
      }
      house_rules[n.dataset.field] = items.map(Number);
    }
    for (const n of house.querySelectorAll("input[type=number]")) {
      const value = n.value.trim();
      if (value === n.dataset.default) continue;
      if (value === "" && n.dataset.optional) { house_rules[n.dataset.field] = null; continue; }
      const {min, max} = n.dataset;  /* the rule's bounds, checked here (the browser's bubble hid under the bar) */
      const range = min !== undefined && max !== undefined ? ` from ${fmt(+min)} to ${fmt(+max)}` : "";
      if (!/^-?\d+$/.test(value) || (min !== undefined && +value < +min) || (max !== undefined && +value > +max)) {
        house.closest("details").open = true;
        n.closest(".house-number").after(h("p", {class: "error-box", role: "alert", id: "house-error"},
          `${n.dataset.label}: a whole number${range}${n.dataset.optional ? ", or empty" : ""}`));
        n.setAttribute("aria-invalid", "true");
        n.focus();
        return;
      }
      house_rules[n.dataset.field] = Number(value);
    }
    const body = {rules: select.value, teams: names, names: {}, house_rules, teach: from ? from.teach : null};
    names.forEach((n, k) => { if (players[k].length) body.names[n] = players[k]; });
    setBusy(create, true);
    try {
      const game = await api("POST", "/v1/games", body, createKey);
      if (from && from.deck) await api("PUT", `/v1/games/${game.id}/deck`, {deck: from.deck, teach: !!from.teach}).catch(() => {});
      location.hash = `#/game/${game.id}`;
    } catch (e) {
      if (e.status) createKey = hfSync.newKey();
      if (from && /Idempotency-Key was sent before/.test(e.message)) {  /* the other phone started it, set otherwise */
        error.replaceChildren(errorBox(new Error("Another phone has already started the next game of these teams " +
          "(All games lists it). Press Start the game again to make another one as well.")));
        error.scrollIntoView({block: "center"});
        setBusy(create, false);
        return;
      }
      /* a house rule the server refused: its field is marked and focused, the message shown with its label */
      const named = [...house.querySelectorAll("[data-field]")].find(i => new RegExp(`\\b${i.dataset.field}\\b`).test(e.message));
      if (named) {
        house.closest("details").open = true;
        named.setAttribute("aria-invalid", "true");
        (named.closest(".house-number") || named.closest("label")).after(h("p", {class: "error-box", role: "alert", id: "house-error"},
          `${named.dataset.label}: ${e.message.replace(/^house_rules\.\w+: /, "")}`));
        named.focus();
        named.scrollIntoView({block: "center"});
      } else { error.replaceChildren(errorBox(e)); error.scrollIntoView({block: "center"}); }
    }
    setBusy(create, false);
  }},
    teams,
    h("div", {class: "row"}, addButton, removeButton), teamsNote,
    h("label", {for: "rules"}, "Rules"), select, title,
    h("details", {class: "panel"}, h("summary", {}, "House rules (optional)"), house), error, h("div", {class: "sticky-actions"}, create));
  show(h("h1", {}, "New game"), from ? h("p", {class: "muted"}, `As the game of ${fmtDate(from.created)}: change anything, then Start.`) : null, form);
}

export function ruleLabel(f) {
  /* a rule field's description as a switch label: its first sentence, without the sources in brackets */
  const text = f.description.replace(/\s*\([^)]*\)/g, "").split(/\.\s/)[0].replace(/\.$/, "");
  return text || f.field;
}

export function breakdownTable(score, teams) {
  const table = h("table", {class: "breakdown"});
  for (const team of teams || Object.keys(score.teams)) {
    const ts = score.teams[team];
    if (!ts) continue;
    table.append(h("tr", {}, h("th", {colspan: "3"}, `${team}: ${teamTotal(ts)}`)));
    for (const ln of ts.breakdown) {
      if (!ln.count && !ln.points_min && !ln.points_max) continue;
      const pts = ln.points !== null ? (ln.points > 0 ? "+" : "") + fmt(ln.points) : `${fmt(ln.points_min)} to ${fmt(ln.points_max)}`;
      /* a detail of two words ("1,500 each", "33 cards") kept on one line */
      table.append(h("tr", {}, h("td", {}, ln.label), h("td", {class: "muted"}, ln.detail.replace(/^(\S+) (\S+)$/, "$1\u00a0$2")),
                     h("td", {}, pts)));
    }
  }
  return table;
}

/* A team name for a narrow column: a word of 10 letters or more may break in its middle, with a hyphen shown. */
function hyphenable(name) { return name.replace(/\S{10,}/g, w => w.slice(0, w.length >> 1) + "\u00AD" + w.slice(w.length >> 1)); }

/* A finished game with no winner: a tie, or the rounds whose squared books are still to count (their totals a range). */
function overText(g) {
  const open = g.rounds.filter(r => Object.values(r.score.teams).some(ts => !ts.exact));
  if (!open.length) return "The game is over: a tie.";
  return `The game is over; the winner shows once the wilds under a squared book are counted in round${open.length > 1 ? "s" : ""} ` +
    `${open.map(r => r.n).join(", ")} (tap the round, then Correct round).`;
}

/* Another phone at the table: the QR code its camera opens this game's page (gid; null: the games) from, and the
 * address to type (GET /v1/games/{id}/invite, /v1/invite: by this server's network address, with its token). */
async function inviteSheet(gid) {
  let out;
  try { out = await api("GET", gid ? `/v1/games/${gid}/invite` : "/v1/invite"); } catch (e) { toast(e.message, true); return; }
  openSheet("Another phone at the table", out.url
    ? h("div", {class: "invite"},
        h("p", {}, "On the other phone (on the same Wi-Fi), point the camera at this code and open the address it shows:"),
        h("img", {src: out.qr, id: "invite-qr", alt: `QR code of ${out.url}`, width: "240", height: "240"}),
        h("p", {class: "muted"}, "Or type this address:"), h("p", {class: "invite-url"}, h("code", {id: "invite-url"}, out.url)),
        h("p", {class: "muted"}, gid ? "Both phones then keep this game's score; what one saves shows on the other."
                                     : "Both phones then see the same games; what one saves shows on the other."),
        h("div", {class: "row"}, h("button", {type: "button", class: "primary", onclick: closeSheet}, "Done")))
    : h("div", {}, h("p", {id: "invite-reason"}, `No other phone can open handfoot now: ${out.reason}.`),
        h("div", {class: "row"}, h("button", {type: "button", onclick: closeSheet}, "Close"))));
}

export function onGame(gid, hash) { return location.hash === hash || (hash === `#/game/${gid}` && location.hash === `#/game/${gid}/`); }

/* The undo question open now ({gid, n, version}; null when none): a change of its game on another phone ends it
 * (`changed`: the game as it is now), so no round is undone from a game the player no longer sees. */
let undoAsked = null;
/* this phone's own change of the game on its way (an undo): the game's events it causes are not another phone's */
let writing = 0;

/* A notice at the top of the game view, saying what changed and why (`lines`: sentences). */
function gameNotice(heading, ...lines) {
  return h("section", {class: "panel notice", id: "game-notice", role: "alert"}, h("h2", {}, heading), lines.map(t => h("p", {}, t)));
}

/* The game view (#/game/ID; #/game/ID/teach: its panel that teaches the deck shown and in view, even before a photo
 * round): `latest`, the game as the server just answered it (else it is asked for); `notice`, a
 * section saying what just changed, shown at the top. */
export async function gameView(gid, latest, notice) {
  const g = latest ? hfSync.note(latest) : await api("GET", `/v1/games/${gid}`);
  const here = location.hash;
  const atTeach = here === `#/game/${gid}/teach`;  /* come to teach the deck: its panel shown, in view */
  /* a camera watching this game's table now (GET /v1/live): said, with the way to the live view */
  const live = await api("GET", "/v1/live").catch(() => null);
  const watched = live && live.game === gid && !["off", "stopped", "ended"].includes(live.status);
  const liveLine = watched ? h("p", {class: "muted", id: "live-line"}, h("span", {class: `dot ${live.status}`, "aria-hidden": "true"}),
    " A camera is watching this table now: ", h("a", {href: `#/live/${gid}`}, "the live view")) : null;
  hfSync.follow(gid, async () => {
                  if (!onGame(gid, here) || writing) return;
                  const asked = undoAsked;
                  if (asked && asked.gid === gid) {  /* the undo question is about a game that is no longer so */
                    try { asked.changed = await api("GET", `/v1/games/${gid}`); } catch (e) { return; }
                    closeSheet();
                    return;
                  }
                  try {  /* shown again as it is now, with what changed in words when it is more than a round added */
                    const now = await api("GET", `/v1/games/${gid}`);
                    const said = changedText(g, now);
                    if (onGame(gid, here) && !writing) await gameView(gid, now, said ? gameNotice("Changed on another phone", said) : null);
                  } catch (e) { toast(e.message, true); }
                },
                () => { if (onGame(gid, here)) { toast("This game was deleted on another phone", true); location.hash = "#/"; } },
                (newer) => { if (onGame(gid, here) && newer !== g.newer_game) gameView(gid).catch(e => toast(e.message, true)); });
  /* the next game of these teams, started after this one ended (on this phone or another): said first, with its
     link; a game of other teams is another table's and not said */
  const newerLine = g.newer_game ? h("section", {class: "panel notice", id: "newer-game", role: "status"},
    h("p", {}, `${g.teams.join(" vs ")} have started a new game since this one ended.`),
    h("div", {class: "row"}, h("a", {class: "button primary", href: `#/game/${g.newer_game}`}, "Open their new game"))) : null;
  const totals = h("div", {class: "totals", id: "totals"});
  for (const t of g.teams) {
    totals.append(h("div", {class: "total" + (g.leader === t ? " lead" : ""), "data-team": t},
      h("div", {class: "name"}, t), h("div", {class: "points", "data-total": t}, total(g.totals[t])),
      g.names[t] ? h("div", {class: "muted"}, g.names[t].join(", ")) : null));
  }
  const grid = h("table", {class: "grid", "aria-label": "rounds"},
    h("thead", {}, h("tr", {}, h("th", {}, "Round"), h("th", {}, "Min"), g.teams.map(t => h("th", {}, hyphenable(t))))));
  const body = h("tbody", {});
  const running = Object.fromEntries(g.teams.map(t => [t, [0, 0]]));  /* a range while a squared book is uncounted */
  for (const r of g.rounds) {
    const cells = g.teams.map(t => {
      const ts = r.score.teams[t];
      running[t] = [running[t][0] + (ts ? ts.total_min : 0), running[t][1] + (ts ? ts.total_max : 0)];
      const [lo, hi] = running[t];
      return h("td", {"data-team": t}, h("span", {class: "round-points", title: `${t}: points this round`}, ts ? teamTotal(ts) : "0"), h("br"),
               h("small", {class: "muted running", title: `${t}: total after round ${r.n}`}, `total ${lo === hi ? fmt(lo) : `${fmt(lo)} to ${fmt(hi)}`}`));
    });
    const details = h("tr", {class: "details", hidden: true},
      h("td", {colspan: String(2 + g.teams.length)}, breakdownTable(r.score, g.teams),
        /* each problem with the piles it is about, named as the check view names them (its piles' cards: {code}) */
        problemsLine(r.score.problems, r.piles.map(p => ({...p, cards: p.cards.map(code => ({code}))}))),
        h("div", {class: "row"},
          h("a", {class: "button", href: r.photo_reading ? `#/game/${gid}/check/${r.photo_reading}/${r.n}` : `#/game/${gid}/type/${r.n}`},
            `Correct round ${r.n}`),
          r.photos.length ? h("a", {class: "button", href: r.photos[0], target: "_blank"}, "The photo") : null,
          h("button", {type: "button", class: "danger", id: `undo-${r.n}`, onclick: (ev) => undoRound(g, r, ev.target)}, `Undo round ${r.n}`))));
    const row = h("tr", {class: "round", tabindex: "0", role: "button", "aria-expanded": "false",
                         "aria-label": `round ${r.n}: show the breakdown`}, h("td", {}, String(r.n)), h("td", {}, fmt(r.minimum)), cells);
    const toggle = () => { details.hidden = !details.hidden; row.setAttribute("aria-expanded", String(!details.hidden)); };
    row.addEventListener("click", toggle);
    row.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); toggle(); } });
    body.append(row, details);
  }
  grid.append(body);
  const next = g.over
    ? h("div", {}, h("p", {class: "winner"}, g.winner ? `The game is over: ${g.winner} won.` : overText(g)),
        h("div", {class: "row"}, h("a", {class: g.newer_game ? "button" : "button primary", id: "play-again", href: `#/new/${g.id}`}, "New game, same teams")))
    : h("p", {}, `Next: round ${g.next_round} of ${g.rounds_in_game}, opening minimum ${fmt(g.next_minimum)}` + (g.leader ? ` · ${g.leader} leads` : ""));
  show(
    h("h1", {}, g.teams.join(" vs ")), notice || null, newerLine,
    h("p", {class: "muted"}, `Rules: ${g.rules}` + (Object.keys(g.house_rules).length ? "; house rules: " +
      Object.entries(g.house_rules).map(([k, v]) => `${k.replace(/_/g, " ")} ${typeof v === "boolean" ? (v ? "on" : "off") : v === null ? "none" : Array.isArray(v) ? (v.join(", ") || "none") : v}`).join(", ") : "")),
    totals, next,
    g.over ? null : h("div", {class: "row"}, h("a", {class: "button primary", href: `#/game/${gid}/round`, id: "score-round"},
                                            `Score round ${g.next_round}`),
                      h("a", {class: "button", href: `#/live/${gid}`, id: "watch-live"}, "Watch the table live")),
    h("div", {class: "row"}, h("button", {type: "button", id: "invite", onclick: () => inviteSheet(gid)}, "Another phone")),
    g.over ? null : liveLine,
    h("h2", {}, "Rounds"),
    g.rounds.length ? h("div", {class: "table-wrap"}, grid) : h("p", {class: "muted"}, "No round yet."),
    g.rounds.length ? h("p", {class: "muted"}, "Tap a round for its breakdown, to correct it or to undo it.") : null,
    h("div", {class: "row"}, h("a", {class: "button", href: `/v1/games/${gid}/export.csv`, download: ""}, "Export CSV"),
      h("a", {class: "button", href: "#/"}, "All games"),
      h("button", {type: "button", class: "danger", id: "delete-game", onclick: async (ev) => {
        const ok = await askConfirm("Delete this game?", [`${g.teams.join(" vs ")}: its ${g.rounds.length} round` +
          `${g.rounds.length === 1 ? "" : "s"} are deleted, on every phone.`, "This cannot be taken back."], "Delete the game");
        if (!ok) return;
        setBusy(ev.target, true);
        try { await api("DELETE", `/v1/games/${gid}`); toast("Game deleted"); location.hash = "#/"; }
        catch (e) { toast(e.message, true); setBusy(ev.target, false); }
      }}, "Delete the game")),
    g.teach || g.rounds.some(r => r.photo_reading) || atTeach ? teachPanel(gid, g) : null);
  if (notice) notice.scrollIntoView({block: "center"});  /* what changed is read first, wherever the page was scrolled */
  else if (atTeach && !latest) document.getElementById("teach").scrollIntoView({block: "start"});  /* once, not on a redraw */
}

/* Undo round r of game g, asked first. A round in the middle: the question names each later round that moves up and
 * its opening minimum before and after, and offers correcting the round instead. The DELETE carries the version the
 * question was about: a change made meanwhile on another phone ends the question (or is refused 412), and the game
 * view says so and shows the game as it is now; no other round is undone. */
async function undoRound(g, r, button) {
  const gid = g.id;
  const later = g.rounds.filter(x => x.n > r.n);
  const scores = g.teams.map(t => `${t} ${r.score.teams[t] ? teamTotal(r.score.teams[t]) : "0"}`).join(" · ");
  const lines = [`Its score (${scores}) is taken off the totals.`];
  const correct = h("a", {class: "button", id: "undo-correct-instead",
                          href: r.photo_reading ? `#/game/${gid}/check/${r.photo_reading}/${r.n}` : `#/game/${gid}/type/${r.n}`},
                    `Correct round ${r.n} instead`);
  if (later.length) {
    const last = g.rounds.length;
    lines.push(later.length === 1 ? "Then the round after it moves up one, scored from then on under its new round's opening minimum:"
                                 : "Then the rounds after it move up one, each scored from then on under its new round's opening minimum:",
      h("ul", {id: "undo-moves"}, later.map(x => h("li", {}, `round ${x.n} becomes round ${x.n - 1}: opening minimum ` +
        `${fmt(x.minimum)} → ${fmt(g.rounds[x.n - 2].minimum)}`))),
      `The next round is then round ${last} (opening minimum ${fmt(g.rounds[last - 1].minimum)})` +
        (g.over ? ": the game is no longer over." : `, not round ${g.next_round}.`),
      `Undo it only if round ${r.n} was never played here (the same round saved twice, another table's photo). ` +
        "If it was played but read or typed wrong, correct it instead: the rounds after it stay as they are.");
  }
  lines.push("This cannot be taken back.");
  const question = {gid, n: r.n, version: g.version, changed: null};
  undoAsked = question;
  const ok = await askConfirm(`Undo round ${r.n}?`, lines,
    later.length ? `Undo round ${r.n}, move ${roundsText(later.map(x => x.n))} up` : `Undo round ${r.n}`, later.length ? correct : null);
  if (undoAsked === question) undoAsked = null;
  if (question.changed) {  /* another phone changed the game while the question was open: nothing undone */
    const said = changedText(g, question.changed);
    await gameView(gid, question.changed, gameNotice("Nothing was undone", `The game changed on another phone while you ` +
      `were deciding about round ${r.n}.` + (said ? ` ${said}` : ""), "Here it is as it is now: undo again if you still want to."));
    return;
  }
  if (!ok) return;
  setBusy(button, true);
  writing++;
  try {
    const after = await api("DELETE", `/v1/games/${gid}/rounds/${r.n}`, undefined, undefined, g.version);
    toast(`Round ${r.n} undone`);
    const moved = roundsText(later.map(x => x.n));
    await gameView(gid, after, later.length ? gameNotice(`Round ${r.n} undone`,
      `${moved[0].toUpperCase()}${moved.slice(1)} moved up one: ${later.length === 1 ? "it is" : "they are"} ` +
      `${roundsText(later.map(x => x.n - 1))} now, ${later.length === 1 ? "" : "each "}scored under its new opening minimum.` +
      (after.over ? "" : ` Next: round ${after.next_round}.`)) : null);
  } catch (e) {
    if (e.status === 412 && e.body.game) {  /* another phone changed the game: show it as it is now */
      toast("Not undone: the game changed on another phone", true);
      const said = changedText(g, e.body.game);
      await gameView(gid, e.body.game, gameNotice("Nothing was undone", "The game changed on another phone while you were " +
        `deciding about round ${r.n}.` + (said ? ` ${said}` : ""), "Here it is as it is now: undo again if you still want to."));
    } else { toast(e.message, true); setBusy(button, false); }
  } finally { writing--; }
}
