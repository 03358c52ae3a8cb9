/* A new game (#/new), or one like a finished game (#/new/ID): its teams (names checked as typed), players, rules,
 * house rules and deck, then Start. */
import {api} from "/static/api.js";
import {fmtDate} from "/static/games.js";
import {negativeOf} from "/static/round.js";
import {errorBox, fmt, h, setBusy, show, toast} from "/static/ui.js";

/* The longest team name, in characters (handfoot.limits.TEAM_NAME_MAX: the server refuses a longer one). */
export const TEAM_NAME_MAX = 40;
/* The most teams a game has (handfoot.games.TEAMS_MAX: the server refuses more); a game has two at least. */
export const TEAMS_MAX = 8;

/* What is wrong with the team name typed in `input` (the field of team k, id `team-k`), in a family's words, as the
 * server checks it (handfoot.limits.team_name_problem; the name is sent trimmed): too long, a comma or colon (they
 * separate teams in the photo form), or empty unless `typing` (a field cleared to type a new name is not told off).
 * null: nothing wrong. */
function teamNameProblem(input, typing) {
  const k = input.id.replace("team-", ""), name = input.value.trim();
  const n = [...name].length;  /* characters, as the server counts them */
  if (!n) return typing ? null : `Team ${k} needs a name (spaces alone are not one).`;
  if (n > TEAM_NAME_MAX) return `Team ${k}'s name has ${n} characters: a team name has at most ${TEAM_NAME_MAX}. Shorten it.`;
  if (/[,:]/.test(name)) return `Team ${k}'s name can't contain a comma or colon (use '${name.replace(/ *[,:] */g, " & ").replace(/^[ &]+|[ &]+$/g, "")}').`;
  return null;
}

/* A team-name field checked (teamNameProblem) as it is typed or pasted (never cut) and on Start: a problem marks the
 * field and says itself on a line under it (id `<field id>-bad`), taken off once the name is fixed; returns
 * whether the name is fine. `said`: the words to show instead (the server's, when it refused the name). */
function teamNameFits(input, typing, said) {
  const problem = said || teamNameProblem(input, typing);
  document.getElementById(`${input.id}-bad`)?.remove();
  if (!problem) { if (!input.dataset.twice) input.removeAttribute("aria-invalid"); return true; }
  input.setAttribute("aria-invalid", "true");
  input.after(h("p", {class: "error-box", role: "alert", id: `${input.id}-bad`}, problem));
  return false;
}

/* The team-name fields of `inputs` named as an earlier one, case aside (as the server compares them, "Kids" and
 * "kids" one team): each marked with the one it repeats, and a line under it (id `<field id>-twice`) naming that
 * one; the marks of an earlier check are taken off first. Returns the first field that repeats a name, or null. */
function sameNames(inputs) {
  for (const i of inputs) {
    document.getElementById(`${i.id}-twice`)?.remove();
    if (i.dataset.twice) { delete i.dataset.twice; if (!document.getElementById(`${i.id}-bad`)) i.removeAttribute("aria-invalid"); }
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
  /* A team's name field (`name` in it) and its players' (`players`); `stock`: `name` is the form's own ("Us"), not
   * the family's, so it is selected while the field holds it untouched, as it is tapped: typing a name replaces it
   * (left as it is, the game starts with it). */
  function addTeam(name, players, stock) {
    const k = teams.children.length + 1;
    let fresh = false;  /* the stock name was selected as the field was entered, not tapped inside since */
    /* the players' field says whose players they are to a screen reader ("Players of Us (optional)"), as typed */
    const whose = () => `Players of ${input.value.trim() || `team ${k}`} (optional)`;
    const input = h("input", {type: "text", id: `team-${k}`, name: "team", value: name, required: true, autocomplete: "off",
                              "aria-describedby": `team-${k}-bad team-${k}-twice`,
                              onfocus: () => { if (stock && input.value === name) { input.select(); fresh = true; } },
                              /* the tap that focused it would put the caret in the stock name, unselecting it */
                              onclick: () => { if (fresh && input.value === name) input.select(); fresh = false; },
                              onblur: () => { fresh = false; },
                              oninput: (ev) => {
                                teamNameFits(ev.target, true); if (ev.target.dataset.twice) sameNames(teamInputs());
                                playersInput.setAttribute("aria-label", whose());
                              }});
    const playersInput = h("input", {type: "text", id: `players-${k}`, name: "players", placeholder: "Ann, Bob", maxlength: "200",
                                     autocomplete: "off", value: (players || []).join(", "), "aria-label": whose()});
    const box = h("div", {class: "panel team"},
      h("label", {for: `team-${k}`}, `Team ${k} name `, h("span", {class: "muted limit"}, `(at most ${TEAM_NAME_MAX} characters, no comma or colon)`)),
      input,
      h("label", {for: `players-${k}`}, "Players (optional)"), playersInput);
    teams.append(box);
  }
  if (from) for (const t of from.teams) addTeam(t, from.names[t]);
  else { addTeam("Us", [], true); addTeam("Them", [], true); }
  const select = h("select", {id: "rules", name: "rules", "aria-describedby": "rules-title"},
    Object.values(rules).map(r => h("option", {value: r.name, selected: from && from.rules === r.name ? "" : null}, r.name)));
  const titled = (r) => `${r.title}; ${r.going_out}`;  /* a family picks its preset by what going out needs */
  const title = h("p", {class: "muted", id: "rules-title"}, titled(rules[select.value || "pagat"]));
  select.addEventListener("change", () => { title.textContent = titled(rules[select.value]); });
  /* the house rules: a group named by its summary, each of its parts (Rounds, Points…) a group named by its heading */
  const house = h("div", {role: "group", id: "house-rules", "aria-labelledby": "house-rules-summary"});
  const part = (title, items) => {
    const id = `house-part-${title.toLowerCase().replace(/\W+/g, "-")}`;
    return h("div", {role: "group", "aria-labelledby": id}, h("h3", {id}, title), items);
  };
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
    if (lists.length) house.append(part("Rounds", lists.map(f => {
      const id = `house-${f.field}`, value = f.value.join(", ");
      const [label, short] = LIST_LABELS[f.field] || [`${ruleLabel(f)} (numbers, a comma between)`, ruleLabel(f)];
      return h("div", {class: "house-number list"}, h("label", {for: id}, label),
        h("input", {type: "text", id, inputmode: "numeric", autocomplete: "off", "data-field": f.field, "data-list": "1",
                    "data-label": short, "data-default": value, value, "data-min": f.minimum ?? null, "data-max": f.maximum ?? null,
                    placeholder: f.value.length ? null : "none"}));
    })));
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
      house.append(part(title, these.map(f => {
        const id = `house-${f.field}`;
        let label = f.field.endsWith("_value") ? `Points for each ${ruleLabel(f).replace(/^./, c => c.toLowerCase())}` : ruleLabel(f);
        if (f.optional) label = label.replace(/,? or None$/, " (empty: no limit)").replace(/\bNone\b/g, "empty");
        const value = f.value === null ? "" : String(f.value);
        return h("div", {class: "house-number"}, h("label", {for: id}, label),
          h("input", {type: "number", id, step: "1", inputmode: "numeric", "data-field": f.field, "data-label": label,
                      "data-default": value, "data-optional": f.optional ? "1" : null, value,
                      "data-min": f.minimum ?? null, "data-max": f.maximum ?? null, placeholder: f.optional ? "empty" : null}));
      })));
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
                                 onclick: () => { addTeam(`Team ${teams.children.length + 1}`, [], true); teamButtons(); }}, "Add a team");
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
  let lostStart = null;  /* a Start whose answer was lost ({body, key}): the server may have made that game */
  const form = h("form", {onsubmit: async (ev) => {
    ev.preventDefault(); error.replaceChildren();
    for (const i of house.querySelectorAll("[aria-invalid]")) i.removeAttribute("aria-invalid");
    document.getElementById("house-error")?.remove();
    const bad = teamInputs().filter(i => !teamNameFits(i, false))[0];
    if (bad) { bad.focus(); bad.scrollIntoView({block: "center"}); return; }
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
    const body = {rules: select.value, teams: names, names: {}, house_rules, teach: from ? from.teach : null,
                  negative: from ? negativeOf(from) : false};  /* the same family's cards */
    if (from) body.follows = from.id;  /* its next game: the finished game's page links it, a team renamed or not */
    names.forEach((n, k) => { if (players[k].length) body.names[n] = players[k]; });
    setBusy(create, true);
    try {
      if (lostStart && JSON.stringify(lostStart.body) !== JSON.stringify(body)) {  /* the form changed since: that Start
                                                                                      first (its first answer) */
        const first = await api("POST", "/v1/games", lostStart.body, lostStart.key);
        lostStart = null;
        /* the next game (perhaps opened on the other phone too) or one in play, also one played in on another phone
           since its first answer (the delete's If-Match is that answer's version: 412): kept; else made from the form
           as it was, and deleted: this Start makes it as it is */
        const played = first.rounds.length || await (from ? false : api("DELETE", `/v1/games/${first.id}`, undefined,
          undefined, first.version).then(() => false, (e) => { if (e.status === 412) return true; throw e; }));
        if (from || played) {
          toast("This game was started when you first pressed Start (its answer was lost on the way), as the form was " +
                `then${played ? ", and another phone has saved a round in it since" : ""}: your changes since are not in it.`, true);
          location.hash = `#/game/${first.id}`;
          return;
        }
        createKey = hfSync.newKey();
      }
      const game = await api("POST", "/v1/games", body, createKey);
      if (from && from.deck) await api("PUT", `/v1/games/${game.id}/deck`, {deck: from.deck, teach: !!from.teach}).catch(() => {});
      location.hash = `#/game/${game.id}`;
    } catch (e) {
      if (e.status) createKey = hfSync.newKey();
      else if (!lostStart) lostStart = {body, key: createKey};
      if (from && /Idempotency-Key was sent before/.test(e.message)) {  /* the other phone started it, set otherwise */
        const theirs = e.body && e.body.game;  /* the game that phone started (the server names it) */
        error.replaceChildren(errorBox(new Error("Another phone has already started the next game of these teams" +
          (theirs ? "" : " (All games lists it)") + ". Open it to play on with them, or press Start the game again to " +
          "make another one as well.")),
          h("div", {class: "row"}, theirs ? h("a", {class: "button primary", id: "open-started", href: `#/game/${theirs}`}, "Open their game")
                                          : null, h("a", {class: "button", id: "all-games", href: "#/"}, "All games")));
        error.scrollIntoView({block: "center"});
        setBusy(create, false);
        return;
      }
      /* a team name the server refused ("teams: Team 2's name …"): said under its field, marked and focused */
      const team = /^teams: Team (\d+)'s name /.exec(e.message || "");
      const field = team && document.getElementById(`team-${team[1]}`);
      if (field) {
        teamNameFits(field, false, e.message.replace(/^teams: /, ""));
        field.focus(); field.scrollIntoView({block: "center"}); setBusy(create, false);
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
    h("details", {class: "panel"}, h("summary", {id: "house-rules-summary"}, "House rules (optional)"), house), error, h("div", {class: "sticky-actions"}, create));
  show(h("h1", {}, "New game"), from ? h("p", {class: "muted"}, `As the game of ${fmtDate(from.created)}: change anything, then Start.`) : null, form);
}

/* The lists of numbers of the house rules in a family's words (a rule's own description is the rules engine's):
 * [the field's label, its name in a message about it ("Opening minimums: whole numbers from 0 to 5,000")]. */
const LIST_LABELS = {
  opening_minimums: ["One opening minimum per round, separated by commas: three numbers make a three-round game",
                     "Opening minimums"],
  opening_book_rounds: ["The rounds whose opening must hold a complete book from the hand, separated by commas",
                        "Rounds whose opening holds a book"]};

export function ruleLabel(f) {
  /* a rule field's description as a switch label: its first sentence, without the sources in brackets */
  const text = f.description.replace(/\s*\([^)]*\)/g, "").split(/\.\s/)[0].replace(/\.$/, "");
  return text || f.field;
}
