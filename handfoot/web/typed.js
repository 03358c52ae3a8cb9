/* A round typed in, with no photo (#/game/ID/type, and #/game/ID/type/N to correct round N): each team's melds,
 * squared books, red threes and cards still held as card codes, scored as they are typed (POST /v1/score) and
 * saved as a layout (docs/layout.md) with the game's version (If-Match) and one key per Save (Idempotency-Key). */
import {api} from "/static/api.js";
import {breakdownTable} from "/static/games.js";
import {clearError, errorBox, fmt, h, lastRoundDoubt, pointsNode, problemText, problemsLine, saveAnyway, setBusy, show, teamTotal,
        toast} from "/static/ui.js";

/* The card codes in a line of text ("KH, ks 10d" -> ["KH", "KS", "10D"]); the server names a wrong one. */
export function codesIn(text) { return String(text).toUpperCase().split(/[\s,;]+/).filter(Boolean); }

/* Where a layout path of the server's message points ("teams.Us.melds[1][2]: ..."): the team, the field and the
 * line (melds) it names, and the message in a family's words. */
const FIELDS = {melds: "Melds and fanned books", squared_books: "Squared books", red_threes: "Red threes", left: "Cards still held"};
export function placeOf(message, teams) {
  for (const t of teams) {
    const prefix = `teams.${t}.`;
    if (!message.startsWith(prefix)) continue;
    const m = /^(\w+)(?:\[(\d+)\])?[^:]*: (.*)$/s.exec(message.slice(prefix.length));
    if (!m || !FIELDS[m[1]]) return null;
    const line = m[1] === "melds" && m[2] !== undefined ? `, line ${+m[2] + 1}` : "";
    return {team: t, field: m[1], text: `${t}, ${FIELDS[m[1]].toLowerCase()}${line}: ${m[3]}`};
  }
  return null;
}

export async function typedView(gid, roundNo) {
  const g = await api("GET", `/v1/games/${gid}`);
  const stored = roundNo ? g.rounds.find(r => r.n === roundNo) : null;
  if (roundNo && !stored) { show(h("h1", {}, `No round ${roundNo}`), h("p", {}, h("a", {href: `#/game/${gid}`}, "Back to the game"))); return; }
  if (!roundNo && g.over) { location.hash = `#/game/${gid}`; return; }
  let round = roundNo || g.next_round;
  let saveKey = hfSync.newKey();  /* pressing Save again after a dropped answer stores one round, not two */
  const before = stored ? stored.layout : {teams: {}};

  const sections = g.teams.map((t, k) => {
    const side = before.teams[t] || {};
    const field = (name, label, hint, value, rows) => [
      h("label", {for: `${name}-${k}`}, label),
      rows ? h("textarea", {id: `${name}-${k}`, name, rows: String(rows), placeholder: hint, autocomplete: "off",
                            autocapitalize: "characters", spellcheck: "false", maxlength: "2000"}, value)
           : h("input", {type: "text", id: `${name}-${k}`, name, placeholder: hint, autocomplete: "off",
                         autocapitalize: "characters", spellcheck: "false", maxlength: "400", value})];
    return h("fieldset", {class: "panel", "data-team": t}, h("legend", {}, h("strong", {}, t)),
      field("melds", "Melds and fanned books, one a line", "e.g. KH KS KD KC 2H\n8H 8S 8D",
            (side.melds || []).map(m => m.join(" ")).join("\n"), 3),
      field("squared_books", "Squared books: the card on top of each", "e.g. QH 9S",
            (side.squared_books || []).map(b => b.top).join(" ")),
      field("red_threes", "Red threes laid down", "e.g. 3H 3D", (side.red_threes || []).join(" ")),
      field("left", "Cards still held (hand and foot)", "e.g. KH 7C 4S", (side.left || []).flat().join(" ")));
  });
  const wentOut = h("select", {id: "typed-went-out"}, h("option", {value: ""}, "nobody"), g.teams.map(t => h("option", {value: t}, t)));
  wentOut.value = before.went_out || "";
  const scoreBox = h("div", {id: "typed-score", "aria-live": "polite"});
  const status = h("div", {class: "status", "aria-live": "polite"});
  const save = h("button", {type: "submit", class: "primary", id: "save-typed"}, roundNo ? "Save correction" : `Save round ${round}`);
  const heading = h("h1", {id: "typed-heading"}, roundNo ? `Correct round ${round}` : `Type round ${round}`);
  let preview = null;  /* the last score of what is typed: {score}, or {error, large} (large: too many cards, 413) */
  const introText = (n, minimum) => "Card codes: rank (A, 2-10, J, Q, K) and suit (S, H, D, C), a joker JK; spaces " +
    `between. Round ${n} · opening minimum ${fmt(minimum)}.`;
  const intro = h("p", {class: "muted", id: "typed-intro"}, introText(round, roundNo ? stored.minimum : g.next_minimum));

  /* The layout of what is typed (docs/layout.md): a squared book keeps what was counted under it (its kind,
   * count or cards) while its top card stays; what the form does not show (loose cards, exact deals) is kept. */
  function layout() {
    const teams = {};
    for (const sec of form.querySelectorAll("fieldset[data-team]")) {
      const t = sec.dataset.team, old = before.teams[t] || {};
      const get = (name) => sec.querySelector(`[name=${name}]`).value;
      const counted = (old.squared_books || []).slice();
      const side = {...old,
        melds: get("melds").split("\n").map(codesIn).filter(m => m.length),
        squared_books: codesIn(get("squared_books")).map(top => {
          const k = counted.findIndex(b => b.top === top);
          return k >= 0 ? counted.splice(k, 1)[0] : {top};
        }),
        red_threes: codesIn(get("red_threes")),
        left: codesIn(get("left")).length ? [codesIn(get("left"))] : []};
      for (const key of ["melds", "squared_books", "red_threes", "left"]) if (!side[key].length) delete side[key];
      teams[t] = side;
    }
    return {teams, went_out: wentOut.value || null};
  }
  function typedAnything(doc) { return Object.values(doc.teams).some(s => Object.keys(s).length); }

  function mark(error) {  /* the field an error names: marked, the message beside it too, in its words */
    for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
    for (const el of form.querySelectorAll(".field-error")) el.remove();
    const place = placeOf(error, g.teams);
    const sec = place && [...form.querySelectorAll("fieldset[data-team]")].find(s => s.dataset.team === place.team);
    const input = sec && sec.querySelector(`[name=${place.field}]`);
    if (input) {
      input.setAttribute("aria-invalid", "true");
      input.after(h("p", {class: "error-box field-error", role: "alert"}, place.text));
    }
    return {text: place ? place.text : error, input};
  }

  let timer = null, asked = 0;
  function rescoreSoon() { clearTimeout(timer); timer = setTimeout(rescore, 350); }
  async function rescore() {
    const doc = layout(), n = ++asked;
    if (!typedAnything(doc)) { preview = null; scoreBox.replaceChildren(h("p", {class: "muted"}, "Type the cards: the score shows here.")); return; }
    try {
      const score = await api("POST", "/v1/score?lenient=true",
        {...doc, rules: g.rules, round, ...(Object.keys(g.house_rules).length ? {house_rules: g.house_rules} : {})});
      if (n !== asked) return;
      preview = {score};
      mark("");
      scoreBox.replaceChildren(...[h("div", {class: "totals"}, g.teams.map(t => {
        const ts = score.teams[t];
        return h("div", {class: "total", "data-team": t}, h("div", {class: "name"}, t),
                 h("div", {class: "points", "data-points": t}, ts ? pointsNode(ts) : "0"));
      })), problemsLine(score.problems),
        h("details", {class: "panel"}, h("summary", {}, "Breakdown"), breakdownTable(score, g.teams))].filter(Boolean));
    } catch (e) {
      if (n !== asked) return;
      preview = {error: e.message, large: e.status === 413};
      const {text, input} = mark(e.message);  /* told beside its field; here only what it stops */
      scoreBox.replaceChildren(input ? h("p", {class: "muted"}, preview.large ? "The score shows once the box marked in red holds fewer cards."
                                                                                : "The score shows once every card marked in red is a card code.")
                                     : errorBox(new Error(text)));
    }
  }

  /* What Save asks about in the score of a typed layout `doc`: the rules' illegal problems, a team with nothing
   * typed, a squared book's wilds uncounted (in the game's last round, also what they mean for who wins); each
   * {kind, key, text, team}, the key the same for the same doubt on a later Save or correction (ui.js's
   * saveAnyway). */
  function doubts(score, doc) {
    return [...score.problems.filter(p => p.severity === "illegal").map(p => ({kind: "illegal", key: `illegal ${problemText(p)}`,
                                                                            text: problemText(p)})),
      ...g.teams.filter(t => !Object.keys(doc.teams[t] || {}).length).map(t => ({kind: "unread", key: `unread ${t}`, team: t,
        text: `Nothing typed for ${t}: it scores 0 this round.`})),
      ...g.teams.filter(t => score.teams[t] && !score.teams[t].exact).map(t => ({kind: "ranged", key: `ranged ${t}`,
        text: `${t} scores ${teamTotal(score.teams[t])} until the wilds under its squared book are counted: type the ` +
              "book's seven cards as a meld line instead of its top card to count them."})),
      ...lastRoundDoubt(g, round, score)];
  }
  const answered = new Set();  /* the doubts "Save anyway" was said to in this view */

  async function submit() {
    status.replaceChildren();
    const doc = layout();
    if (!typedAnything(doc)) { status.replaceChildren(errorBox(new Error("Type at least one card."))); return; }
    await rescore();
    if (preview && preview.error) {  /* the error is under the totals already: the field it names, in view */
      const {text, input} = mark(preview.error);
      status.replaceChildren(errorBox(new Error(preview.large ? `Not saved: ${text}.`
                                                              : "Not saved: a card above is not a card code (marked in red).")));
      if (input) { input.scrollIntoView({block: "center"}); input.focus({preventScroll: true}); }
      return;
    }
    if (preview && !(await saveAnyway(doubts(preview.score, doc), answered, stored ? doubts(stored.score, stored.layout).map(d => d.key) : [],
                                      "typed"))) return;
    setBusy(save, true);
    try {
      if (roundNo) await api("PUT", `/v1/games/${gid}/rounds/${roundNo}?lenient=true`, doc);
      else await api("POST", `/v1/games/${gid}/rounds?lenient=true`, doc, saveKey);
      toast(roundNo ? `Round ${round} corrected` : `Round ${round} saved`);
      location.hash = `#/game/${gid}`;
    } catch (e) {
      setBusy(save, false);
      if (e.status === 412 && e.body.game) {  /* another phone saved first: this form is kept, to be saved on top */
        const now = hfSync.note(e.body.game);  /* the next Save is made from the game as it is now */
        const theirs = now.rounds[now.rounds.length - 1];
        const said = theirs ? `round ${theirs.n} (` + now.teams.map(t => `${t} ${theirs.score.teams[t] ? teamTotal(theirs.score.teams[t]) : "0"}`).join(", ") + ")" : "a round";
        if (!roundNo && !now.over) {
          round = now.next_round; heading.textContent = `Type round ${round}`; save.textContent = `Save round ${round}`;
          intro.textContent = introText(round, now.next_minimum);
          rescore();
        }
        saveKey = hfSync.newKey();
        if (roundNo) {
          status.replaceChildren(errorBox(new Error(`Not saved: round ${roundNo} or the game was changed on another phone meanwhile. Press Save again to save what is typed here over it.`)));
        } else {  /* perhaps the same round typed on both phones: theirs shown, and mine may take its place */
          status.replaceChildren(errorBox(new Error(`Not saved: another phone saved ${said} meanwhile` +
            (now.over ? ", and the game ended with it." : `. If it was another round, press Save again to save this as round ${round}.`))),
            theirs ? h("div", {class: "row"}, h("button", {type: "button", id: "put-mine", onclick: () => putMine(theirs.n)},
              `Put mine in place of round ${theirs.n}`)) : null);
        }
      } else status.replaceChildren(errorBox(new Error(mark(e.message).text)));
    }
  }

  /* The same round saved on the other phone first: what is typed here replaces it (PUT, from the game as it is now). */
  async function putMine(n) {
    const doc = layout();
    try {
      await api("PUT", `/v1/games/${gid}/rounds/${n}?lenient=true`, doc);
      toast(`Round ${n} saved: this phone's in place of the other's`);
      location.hash = `#/game/${gid}`;
    } catch (e) { status.replaceChildren(errorBox(e)); }
  }

  const form = h("form", {oninput: () => { clearError(); status.replaceChildren(); rescoreSoon(); }, onchange: rescoreSoon,
                          onsubmit: (ev) => { ev.preventDefault(); submit(); }},
    intro,
    sections, h("label", {for: "typed-went-out"}, "Who went out?"), wentOut, scoreBox,
    h("div", {class: "sticky-actions"}, status, save, h("a", {class: "button", href: `#/game/${gid}`}, "Cancel")));
  show(heading, form);
  await rescore();
}
