/* The game page's "Rename teams" sheet: a name mistyped at New game ("Jonses") put right after Start, each team's
 * name and players in a field of its own, in seating order. Save sends them (PUT /v1/games/{id}/teams); a name the
 * server refuses (checked as New game's are: named twice, a comma or colon, over 40 characters) is said in the sheet,
 * what was typed kept. */
import {TEAM_NAME_MAX} from "/static/newgame.js";
import {closeSheet, errorBox, h, openSheet, setBusy} from "/static/ui.js";

/* The body of a rename from the sheet's fields: {teams (trimmed), names (team -> players typed, comma between)}. */
function typed(nameInputs, playerInputs) {
  const teams = nameInputs.map(i => i.value.trim());
  const names = {};
  teams.forEach((t, k) => {
    const players = playerInputs[k].value.split(",").map(p => p.trim()).filter(Boolean);
    if (players.length) names[t] = players;
  });
  return {teams, names};
}

/* Opens the sheet for game `g`; `save(body)` renames (resolves once done; throws the server's ApiError when it
 * refuses). Nothing is sent when nothing was changed. */
export function renameSheet(g, save) {
  const nameInputs = [], playerInputs = [];
  const fields = g.teams.map((t, k) => {
    const n = k + 1;
    const name = h("input", {type: "text", id: `rename-team-${n}`, value: t, required: true, autocomplete: "off",
                             "aria-describedby": "rename-problem"});
    const players = h("input", {type: "text", id: `rename-players-${n}`, value: (g.names[t] || []).join(", "),
                                placeholder: "Ann, Bob", maxlength: "200", autocomplete: "off"});
    nameInputs.push(name); playerInputs.push(players);
    return h("div", {class: "panel team"},
      h("label", {for: name.id}, `Team ${n} name `, h("span", {class: "muted limit"}, `(at most ${TEAM_NAME_MAX} characters, no comma or colon)`)),
      name, h("label", {for: players.id}, "Players (optional)"), players);
  });
  const problem = h("div", {id: "rename-problem"});
  const ok = h("button", {type: "button", class: "primary", id: "rename-save", onclick: async () => {
    const body = typed(nameInputs, playerInputs);
    const before = typed(g.teams.map(t => ({value: t})), g.teams.map(t => ({value: (g.names[t] || []).join(", ")})));
    if (JSON.stringify(body) === JSON.stringify(before)) { closeSheet(); return; }
    problem.replaceChildren();  /* a refusal says itself under the name refused, else above Save */
    nameInputs.forEach(i => i.removeAttribute("aria-invalid"));
    setBusy(ok, true);
    try { await save(body); }
    catch (e) {
      /* the server's words for the name it refused ("Team 2's name can't contain a comma ..."), its field marked */
      const said = e.message.replace(/^teams: /, "");
      problem.replaceChildren(errorBox(e.status === 0 ? e : {message: `Not renamed: ${said}`}));
      const k = /^Team (\d+)'s/.exec(said);
      const bad = k ? nameInputs[+k[1] - 1] : nameInputs.findLast(i => said.includes(`'${i.value.trim()}'`));
      if (bad) { bad.setAttribute("aria-invalid", "true"); bad.after(problem); bad.focus({preventScroll: true}); }
      else ok.parentElement.before(problem);
      problem.scrollIntoView({block: "nearest"});
      setBusy(ok, false);
    }
  }}, "Save");
  openSheet("Rename teams", h("div", {},
    h("p", {class: "muted"}, "Every round keeps its scores: only the names change, on every phone."),
    fields, problem,
    h("div", {class: "row"}, ok, h("button", {type: "button", onclick: closeSheet}, "Cancel"))));
}
