/* A round typed in, with no photo (#/game/ID/type, and #/game/ID/type/N to correct round N): each team's melds,
 * squared books, red threes and cards still held as card codes, scored as they are typed (POST /v1/score) and
 * saved as a layout (docs/layout.md) with the game's version (If-Match) and one key per Save (Idempotency-Key).
 * What is typed and not saved is kept over a reload (drafts.js); a correction saved or made meanwhile on another
 * phone is told with its choices (conflict.js's notice: add my changes to theirs, or drop mine). */
import {api} from "/static/api.js";
import {scoresOf} from "/static/changes.js";
import {changeOffer, noticeFrame} from "/static/conflict.js";
import {readTypedDraft, removeDraft, writeDraft} from "/static/drafts.js";
import {breakdownTable} from "/static/games.js";
import {lostSave} from "/static/lost.js";
import {FIELDS, boxesChanged, cardsOf, codesIn, fieldsOf, placesOf} from "/static/typed_text.js";
import {askConfirm, clearError, errorBox, fmt, h, lastRoundDoubt, pointsNode, problemText, problemsLine, roundSaid, saveAnyway, say,
        sayTotal, setBusy, show, teamTotal, toast} from "/static/ui.js";

/* How a squared book typed by its top card has its wilds counted, as the score's hint and Save's question say it. */
const COUNT_WILDS = "type the book's seven cards as a line of Melds and fanned books instead of its top card in Squared books";

export async function typedView(gid, roundNo) {
  const g = await api("GET", `/v1/games/${gid}`);
  let stored = roundNo ? g.rounds.find(r => r.n === roundNo) : null;
  if (roundNo && !stored) { show(h("h1", {}, `No round ${roundNo}`), h("p", {}, h("a", {href: `#/game/${gid}`}, "Back to the game"))); return; }
  if (!roundNo && g.over) { location.hash = `#/game/${gid}`; return; }
  let round = roundNo || g.next_round;
  let saveKey = hfSync.newKey();  /* pressing Save again after a dropped answer stores one round, not two */
  const lost = lostSave();  /* a save whose answer never came back (lost.js) */
  let before = stored ? stored.layout : {teams: {}};  /* the saved layout the form is typed over (a new round: none) */
  let onCreated = stored ? stored.created : null;  /* when that round was made: another round there now is not it */
  let draftName = roundNo ? `typed.${roundNo}` : "typed";
  const kept = readTypedDraft(gid, draftName);  /* what was typed here and not saved, kept over a reload */

  const shown = fieldsOf(before, g.teams);
  const sections = g.teams.map((t, k) => {
    const field = (name, label, hint, rows) => [
      h("label", {for: `${name}-${k}`}, label),
      rows ? h("textarea", {id: `${name}-${k}`, name, rows: String(rows), placeholder: hint, autocomplete: "off",
                            autocapitalize: "characters", spellcheck: "false", maxlength: "2000"}, shown[t][name])
           : h("input", {type: "text", id: `${name}-${k}`, name, placeholder: hint, autocomplete: "off",
                         autocapitalize: "characters", spellcheck: "false", maxlength: "400", value: shown[t][name]})];
    return h("fieldset", {class: "panel", "data-team": t}, h("legend", {}, h("strong", {}, t)),
      field("melds", "Melds and fanned books, one a line", "e.g. KH KS KD KC 2H\n8H 8S 8D", 3),
      field("squared_books", "Squared books: the card on top of each", "e.g. QH 9S"),
      field("red_threes", "Red threes laid down", "e.g. 3H 3D"),
      field("left", "Cards still held (hand and foot)", "e.g. KH 7C 4S"));
  });
  const wentOut = h("select", {id: "typed-went-out"}, h("option", {value: ""}, "nobody"), g.teams.map(t => h("option", {value: t}, t)));
  wentOut.value = before.went_out || "";
  const draftBox = h("div", {id: "draft-notice"});
  const scoreBox = h("div", {id: "typed-score"});  /* said to a screen reader by sayScore, not at every key */
  const status = h("div", {class: "status", "aria-live": "polite"});
  const save = h("button", {type: "submit", class: "primary", id: "save-typed"}, roundNo ? "Save correction" : `Save round ${round}`);
  const heading = h("h1", {id: "typed-heading"}, roundNo ? `Correct round ${round}` : `Type round ${round}`);
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

  /* The line of team t's melds box that its layout's meld k (its k-th line holding a card) was typed on. */
  function meldLine(t, k) {
    const sec = [...form.querySelectorAll("fieldset[data-team]")].find(s => s.dataset.team === t);
    const lines = sec ? sec.querySelector("[name=melds]").value.split("\n") : [];
    const at = lines.map((l, n) => codesIn(l).length ? n : -1).filter(n => n >= 0)[k];
    return (at ?? k) + 1;
  }
  /* The boxes an error names (placesOf): each marked, what is wrong in it said beside it, in a family's words;
   * returns {text: the whole error so said, input: the first box marked (null: none), all: each part is said beside
   * its box}. */
  function mark(error) {
    for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
    for (const el of form.querySelectorAll(".field-error")) el.remove();
    const {text, places} = placesOf(error, g.teams, meldLine);
    const boxes = new Map();  /* each box named, with what is said of it */
    let all = Boolean(error);
    for (const p of places) {
      const sec = p.field && [...form.querySelectorAll("fieldset[data-team]")].find(s => s.dataset.team === p.team);
      const input = sec && sec.querySelector(`[name=${p.field}]`);
      if (input) boxes.set(input, [...(boxes.get(input) || []), p.text]);
      else all = false;
    }
    for (const [input, said] of boxes) {
      input.setAttribute("aria-invalid", "true");
      input.after(h("p", {class: "error-box field-error", role: "alert"}, said.join("; ")));
    }
    return {text, input: boxes.size ? boxes.keys().next().value : null, all};
  }

  /* The text of each box now: {team: {melds, squared_books, red_threes, left}}, as fieldsOf. */
  function fieldsHere() {
    const out = {};
    for (const sec of form.querySelectorAll("fieldset[data-team]")) {
      out[sec.dataset.team] = Object.fromEntries(Object.keys(FIELDS).map(name => [name, sec.querySelector(`[name=${name}]`).value]));
    }
    return out;
  }
  function fill(fields, went) {  /* the boxes hold `fields` (fieldsOf's shape; a team it lacks: empty), `went` went out */
    for (const sec of form.querySelectorAll("fieldset[data-team]")) {
      for (const name of Object.keys(FIELDS)) sec.querySelector(`[name=${name}]`).value = (fields[sec.dataset.team] || {})[name] || "";
    }
    wentOut.value = g.teams.includes(went) ? went : "";
  }
  /* What is typed here that differs from the layout it is typed over (`before`) and that the saved layout `theirs`
   * lacks too (none: every change), in words ("Them: red threes, who went out: Us (theirs: nobody)"); "" when none. */
  function changesText(theirs) {
    const here = fieldsHere(), key = (b) => `${b.team} ${b.name}`;
    const lacking = theirs ? new Set(boxesChanged(here, fieldsOf(theirs, g.teams)).map(key)) : null;
    const boxes = boxesChanged(here, fieldsOf(before, g.teams)).filter(b => !lacking || lacking.has(key(b)))
      .map(b => `${b.team}: ${FIELDS[b.name].toLowerCase()}`);
    const was = before.went_out || "", theirWent = theirs ? theirs.went_out || "" : was;
    if (wentOut.value !== was && (!theirs || wentOut.value !== theirWent)) {
      boxes.push(`who went out: ${wentOut.value || "nobody"}` + (theirs ? ` (theirs: ${theirWent || "nobody"})` : ""));
    }
    return boxes.join(", ");
  }
  const unsaved = () => changesText(null);
  /* what is typed here, kept over a reload until saved or dropped; nothing kept while it is the round as saved */
  function keepDraft() {
    if (!unsaved()) removeDraft(gid, draftName);
    else writeDraft(gid, draftName, {round, base: roundNo ? before : null, created: onCreated, fields: fieldsHere(), went: wentOut.value});
  }

  let timer = null, asked = 0, retry = null, cutOff = false;  /* cutOff: Save said the server cannot be reached */
  let breakdownOpen = false;  /* the score's Breakdown as the player left it: it stays open while they type */
  function rescoreSoon() { clearTimeout(timer); timer = setTimeout(rescore, 350); }
  /* The score as typed, said to a screen reader (roundSaid) once typing pauses for a second or leaves a box; not
     the score shown when the view opens, nor the same score again. */
  let sayTimer = null, toSay = "", lastSaid = "", opened = false;
  function sayScore() {
    clearTimeout(sayTimer);
    if (toSay && toSay !== lastSaid && form.isConnected) { say(toSay, true); lastSaid = toSay; }
  }
  /* What is typed, scored (POST /v1/score) and shown under it; returns this request's answer: {score}, {error,
   * status}, or null when nothing is typed. While the server cannot be
   * reached it is asked again every few seconds, by itself, until it answers. */
  async function rescore() {
    clearTimeout(timer); clearTimeout(retry);
    const doc = layout(), n = ++asked;
    toSay = "";  /* a score to say once this one answers, if it gives one */
    if (!typedAnything(doc)) { sayTotal(null); lastSaid = ""; scoreBox.replaceChildren(h("p", {class: "muted"}, "Type the cards: the score shows here.")); return null; }
    let out;
    try {
      out = {score: await api("POST", "/v1/score?lenient=true",
        {...doc, rules: g.rules, round, ...(Object.keys(g.house_rules).length ? {house_rules: g.house_rules} : {})})};
    } catch (e) { out = {error: e.message, status: e.status}; }
    if (n !== asked) return out;  /* a later request draws its own answer */
    if (out.score) {
      mark("");
      const score = out.score;
      toSay = roundSaid(round, g.teams, score);
      if (!opened) lastSaid = toSay; else { clearTimeout(sayTimer); sayTimer = setTimeout(sayScore, 1000); }
      scoreBox.replaceChildren(...[h("div", {class: "totals"}, g.teams.map(t => {
        const ts = score.teams[t];
        return h("div", {class: "total", "data-team": t}, h("div", {class: "name"}, t),
                 h("div", {class: "points", "data-points": t}, ts ? pointsNode(ts) : "0"));
      })), problemsLine(score.problems),
        /* a range: how to make it exact, said as soon as it shows (not only by Save's question) */
        g.teams.some(t => score.teams[t] && !score.teams[t].exact)
          ? h("p", {id: "count-wilds"}, `To count a squared book's wilds, ${COUNT_WILDS}: the score is then exact.`) : null,
        h("details", {class: "panel", id: "typed-breakdown", open: breakdownOpen, ontoggle: (ev) => { breakdownOpen = ev.target.open; }},
          h("summary", {}, "Breakdown"), breakdownTable(score, g.teams))].filter(Boolean));
      if (cutOff) { cutOff = false; status.replaceChildren(h("p", {class: "muted", id: "server-back"}, `The handfoot server answers again: press ${save.textContent} to save.`)); }
    } else if (out.status === 0) {
      mark("");
      scoreBox.replaceChildren(errorBox(new Error("No score yet (the line at the top says why): what is typed here is " +
        "kept, and the score shows once the server answers again (asked every few seconds).")));
      retry = setTimeout(() => { if (form.isConnected) rescore(); }, 3000);
    } else {
      const {text, all} = mark(out.error);  /* told beside its fields; here only what it stops */
      scoreBox.replaceChildren(all ? h("p", {class: "muted"}, out.status === 413 ? "The score shows once the box marked in red holds fewer cards."
                                                                                    : "The score shows once every card marked in red is a card code.")
                                     : errorBox(new Error(text)));
    }
    return out;
  }
  /* Save could not reach the server (`sent`: it was sent, its answer never came): said, with what is kept and what to do. */
  function cannotReach(sent) {
    cutOff = true;
    clearTimeout(retry); retry = setTimeout(() => { if (form.isConnected) rescore(); }, 3000);
    hfSync.unreachable(true);
    status.replaceChildren(errorBox(new Error((sent ? "No answer from the server (the line at the top says why): it may not be saved. "
      : "Not saved (the line at the top says why). ") + `What is typed here is kept on this phone: press ${save.textContent} ` +
      "again when the server is back" + (sent ? "; it is never saved twice." : "."))));
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
        text: `${t} scores ${teamTotal(score.teams[t])} until the wilds under its squared book are counted: ` +
              `${COUNT_WILDS} to count them.`})),
      ...lastRoundDoubt(g, round, score)];
  }
  const answered = new Set();  /* the doubts "Save anyway" was said to in this view */

  let saving = false;  /* a save on its way: the game's change it makes is not told as another phone's */
  async function submit() {
    status.replaceChildren();
    cutOff = false;
    const doc = layout();
    if (!typedAnything(doc)) { status.replaceChildren(errorBox(new Error("Type at least one card."))); return; }
    const scored = await rescore();  /* the score of exactly what is saved, however fast Save follows a key */
    if (scored.status === 0) { cannotReach(); return; }
    if (scored.error) {  /* the error is under the totals already: the field it names, in view */
      const {text, input, all} = mark(scored.error);
      status.replaceChildren(errorBox(new Error(all && scored.status !== 413 ? "Not saved: a card above is not a card code (marked in red)."
                                                                               : `Not saved: ${text}.`)));
      if (input) { input.scrollIntoView({block: "center"}); input.focus({preventScroll: true}); }
      return;
    }
    /* a correction is asked about what its round was not saved with; what "Save anyway" answered when the round was
       saved is not asked again (as the check view does: ui.js's saveAnyway says how many were answered before) */
    const settled = stored ? doubts(stored.score, stored.layout).map(d => d.key) : [];
    if (!(await saveAnyway(doubts(scored.score, doc), answered, settled, "typed"))) return;
    if (save.disabled) { notice.box.scrollIntoView({block: "center"}); return; }  /* told meanwhile: the notice first */
    setBusy(save, true);
    saving = true;
    try {
      /* the first Save's answer was lost, the form changed since: that Save first (its first answer), then this on it */
      if (!roundNo && lost.sent && lost.sent.method === "POST" && !lost.same(doc)) {
        const first = await lost.resend();
        await api("PUT", `/v1/games/${gid}/rounds/${first.rounds[first.rounds.length - 1].n}?lenient=true`, doc);
      } else if (roundNo) await api("PUT", `/v1/games/${gid}/rounds/${roundNo}?lenient=true`, doc);
      else await api("POST", `/v1/games/${gid}/rounds?lenient=true`, doc, saveKey);
      lost.clear();
      removeDraft(gid, draftName);
      toast(roundNo ? `Round ${round} corrected` : `Round ${round} saved`);
      location.hash = `#/game/${gid}`;
    } catch (e) {
      saving = false;
      setBusy(save, false);
      if (e.status === 0) {  /* the same key again on the next Save: stored once; what was sent kept (lost.js) */
        if (roundNo || !lost.sent) lost.keep(roundNo ? "PUT" : "POST", `/v1/games/${gid}/rounds${roundNo ? "/" + roundNo : ""}?lenient=true`, doc, saveKey);
        cannotReach(true);
      }
      else if (e.status === 412 && e.body.game && roundNo) {  /* another phone changed the game: what, and the choices */
        const told = await otherPhone(e.body.game);
        if (told) toast(`Not saved: ${told[0].toLowerCase() + told.slice(1)}`, true);
        else if (told === null) status.replaceChildren(errorBox(new Error(`Not saved: the game was changed on another phone meanwhile (round ${roundNo} ` +
                                                       `is as it was here). Press ${save.textContent} again to save it.`)));
      } else if (e.status === 412 && e.body.game) {  /* another phone saved first: this form is kept, to be saved on top */
        const now = hfSync.note(e.body.game);  /* the next Save is made from the game as it is now */
        const theirs = now.rounds[now.rounds.length - 1];
        const said = theirs ? `round ${theirs.n} (` + now.teams.map(t => `${t} ${theirs.score.teams[t] ? teamTotal(theirs.score.teams[t]) : "0"}`).join(", ") + ")" : "a round";
        if (!now.over) {
          round = now.next_round; heading.textContent = `Type round ${round}`; save.textContent = `Save round ${round}`;
          intro.textContent = introText(round, now.next_minimum);
          keepDraft();
          rescore();
        }
        saveKey = hfSync.newKey();
        /* perhaps the same round typed on both phones: theirs shown, and mine may take its place */
        status.replaceChildren(errorBox(new Error(`Not saved: another phone saved ${said} meanwhile` +
          (now.over ? ", and the game ended with it." : `. If it was another round, press Save again to save this as round ${round}.`))),
          theirs ? h("div", {class: "row"}, h("button", {type: "button", id: "put-mine", onclick: () => putMine(theirs.n)},
            `Put mine in place of round ${theirs.n}`)) : null);
      } else status.replaceChildren(errorBox(new Error(mark(e.message).text)));
    }
  }

  /* The same round saved on the other phone first: what is typed here replaces it (PUT, from the game as it is now). */
  async function putMine(n) {
    const doc = layout();
    try {
      await api("PUT", `/v1/games/${gid}/rounds/${n}?lenient=true`, doc);
      removeDraft(gid, draftName);
      toast(`Round ${n} saved: this phone's in place of the other's`);
      location.hash = `#/game/${gid}`;
    } catch (e) { status.replaceChildren(errorBox(e)); }
  }

  /* The notice when the round this view corrects was changed on another phone (conflict.js's frame and offer). */
  const notice = noticeFrame(gid, save);
  /* From now on the form is typed over the saved round `theirs` (the game `latest`'s), its boxes `fields`. */
  function overTheirs(theirs, latest, fields, went) {
    hfSync.note(latest);
    stored = theirs; before = theirs.layout; onCreated = theirs.created;
    fill(fields, went);
    notice.clear(); notice.freeSave(); status.replaceChildren();
    keepDraft();
    rescore();
  }
  /* Theirs, with each box changed here (and who went out, when changed here) as typed here: nothing either phone
   * did is lost; checked, then saved with Save correction. */
  function addMine(theirs, latest) {
    const here = fieldsHere(), mine = new Set(boxesChanged(here, fieldsOf(before, g.teams)).map(b => `${b.team} ${b.name}`));
    const fields = fieldsOf(theirs.layout, g.teams);
    for (const t of g.teams) for (const name of Object.keys(FIELDS)) if (mine.has(`${t} ${name}`)) fields[t][name] = here[t][name];
    const went = wentOut.value !== (before.went_out || "") ? wentOut.value : theirs.layout.went_out || "";
    overTheirs(theirs, latest, fields, went);
    toast(`Your changes are added to round ${theirs.n}: check it, then Save correction`);
  }
  /* The round corrected here was changed in the game `latest` (another phone, or a reload over an older copy): said,
   * with the choices, and Save held until one is made. Returns the notice's heading; null when round N is as this form
   * was typed over (the game noted, nothing said); "" when it is this phone's correction whose answer was lost. */
  async function otherPhone(latest, quiet) {
    const theirs = latest.rounds.find(r => r.n === roundNo);
    const lines = [], actions = [];
    let heading = "Changed on another phone", redo = null;
    const moved = theirs && theirs.created === onCreated ? [] : latest.rounds.filter(r => r.created === onCreated && r.n < roundNo);
    if (moved.length === 1) {  /* a round before it was undone there: this round moved up, what is typed still fits it */
      const now = moved[0];
      heading = `Round ${roundNo} is round ${now.n} now`;
      lines.push(`A round before it was undone on another phone, and the rounds after that moved up one: this round is ` +
                 `round ${now.n} now, scored under round ${now.n}'s opening minimum (${fmt(now.minimum)}).`);
      notice.holdSave(`This is round ${now.n} now: choose in the notice above.`);
      actions.push(h("button", {type: "button", class: "primary", id: "typed-moved", onclick: () => asMoved(now, latest)},
                     `Correct round ${now.n}`));
    } else if (!theirs || theirs.created !== onCreated) {
      heading = `Round ${roundNo} was undone`;
      lines.push(`Round ${roundNo} was undone on another phone` + (theirs ? ", and the rounds after it moved up one." : "."),
                 `What is typed here is not saved: it stays on this phone until you leave (${unsaved() || "no change"}).`);
      notice.holdSave(`Round ${roundNo} was undone on another phone.`);
      if (!latest.over) actions.push(h("button", {type: "button", class: "primary", id: "save-typed-new",
                                             onclick: () => asNewRound(latest)}, `Save mine as round ${latest.next_round}`));
    } else {
      const same = !boxesChanged(fieldsOf(theirs.layout, g.teams), fieldsOf(before, g.teams)).length &&
                   (theirs.layout.went_out || "") === (before.went_out || "");
      if (same) { hfSync.note(latest); return null; }  /* another round changed: nothing changes here */
      const holds = (fields, went) => !boxesChanged(fieldsOf(theirs.layout, g.teams), fields).length && (theirs.layout.went_out || "") === went;
      if (lost.sent && lost.sent.method === "PUT" && holds(fieldsOf(lost.sent.body, g.teams), lost.sent.body.went_out || "")) {
        lost.clear();  /* this phone's correction whose answer was lost: it arrived (said so, not "corrected there") */
        if (!holds(fieldsHere(), wentOut.value)) {
          overTheirs(theirs, latest, fieldsHere(), wentOut.value);
          toast(`Round ${roundNo} is saved as it was when you pressed Save; your changes since are not: press Save correction.`);
        } else { removeDraft(gid, draftName); toast(`Round ${roundNo} corrected`); location.hash = `#/game/${gid}`; }
        return "";
      }
      lines.push(`Round ${roundNo} was corrected there: it now scores ${scoresOf(latest, theirs)}.`);
      /* a box changed on both phones, each otherwise: adding mine puts mine there, so theirs is said */
      const their = fieldsOf(theirs.layout, g.teams), here = fieldsHere(), base = fieldsOf(before, g.teams), key = (b) => `${b.team} ${b.name}`;
      const changedThere = new Set(boxesChanged(their, base).map(key));
      const both = boxesChanged(here, base).filter(b => changedThere.has(key(b)) &&
                                                        cardsOf(b.name, here[b.team][b.name]) !== cardsOf(b.name, their[b.team][b.name]));
      if (both.length) lines.push("Both phones changed " + both.map(b => `${b.team}: ${FIELDS[b.name].toLowerCase()} (theirs: ` +
        `${their[b.team][b.name].replace(/\n/g, " / ") || "nothing"})`).join(", ") + ": adding yours puts yours in place of theirs there.");
      notice.holdSave(`Round ${roundNo} was corrected on another phone: choose in the notice above.`);
      changeOffer({theirs, mine: () => changesText(theirs.layout),
                   addMine: () => addMine(theirs, latest), showLabel: "Show their version",
                   takeTheirs: () => overTheirs(theirs, latest, fieldsOf(theirs.layout, g.teams), theirs.layout.went_out || "")},
                  lines, actions);
      redo = () => otherPhone(latest, true);
    }
    notice.show(latest, heading, lines, actions, redo, quiet);
    return heading;
  }

  /* From now on the form is the game `latest`'s next round (the round it corrected was undone on another phone),
   * what is typed kept, and saved as that round at once (Save's questions asked as ever). */
  function asNewRound(latest) {
    hfSync.note(latest);
    removeDraft(gid, draftName);
    roundNo = null; stored = null; onCreated = null; round = latest.next_round; draftName = "typed";
    heading.textContent = `Type round ${round}`; save.textContent = `Save round ${round}`;
    intro.textContent = introText(round, latest.next_minimum);
    here = `#/game/${gid}/type`;
    history.replaceState(null, "", here);
    saveKey = hfSync.newKey();
    notice.clear(); notice.freeSave();
    keepDraft();
    submit();
  }

  /* From now on the form corrects round `now` of the game `latest` (the round it corrected, moved up by an undo on
   * another phone), what is typed kept, to be checked and saved with Save correction. */
  function asMoved(now, latest) {
    hfSync.note(latest);
    removeDraft(gid, draftName);
    roundNo = round = now.n; stored = now; draftName = `typed.${round}`;
    heading.textContent = `Correct round ${round}`;
    intro.textContent = introText(round, now.minimum);
    here = `#/game/${gid}/type/${round}`;
    history.replaceState(null, "", here);
    notice.clear(); notice.freeSave();
    keepDraft();
    rescore();
  }

  /* Cancel: what is typed and not saved is thrown away, asked first. */
  async function leave(ev) {
    ev.preventDefault();
    const mine = unsaved();
    if (mine && !(await askConfirm("Leave without saving?", [`What is typed here (${mine}) is thrown away.`], "Leave without saving",
                                   null, true, roundNo ? "Keep correcting" : "Keep typing"))) return;
    removeDraft(gid, draftName);
    location.hash = `#/game/${gid}`;
  }

  const form = h("form", {oninput: () => { clearError(); status.replaceChildren(); cutOff = false; keepDraft(); rescoreSoon(); notice.redraw(); },
                          onfocusout: sayScore,
                          onchange: () => { keepDraft(); rescoreSoon(); },
                          onsubmit: (ev) => { ev.preventDefault(); submit(); }},
    intro, draftBox, notice.box,
    sections, h("label", {for: "typed-went-out"}, "Who went out?"), wentOut, scoreBox,
    h("div", {class: "sticky-actions"}, status, notice.why, save, h("a", {class: "button", href: `#/game/${gid}`, onclick: leave}, "Cancel")));
  show(heading, form);
  let here = location.hash;
  hfSync.follow(gid, async () => {  /* a change told as it happens, not only on Save */
    if (!roundNo || location.hash !== here || saving) return;
    try { await otherPhone(await fetch(`/v1/games/${gid}`).then(r => r.json())); } catch (e) { /* the next change says it again */ }
  });
  if (kept) restore(kept);
  await rescore();
  opened = true;
  if (kept && roundNo && JSON.stringify(kept.base) !== JSON.stringify(stored.layout)) await otherPhone(g);

  /* What was typed here before a reload, back in its boxes, and said (with Discard); typed over an older copy of the
   * round it corrects, the notice then says what changed meanwhile. */
  function restore(d) {
    if (roundNo && d.base) { before = d.base; onCreated = d.created ?? onCreated; }
    fill(d.fields, d.went);
    const lines = !roundNo && d.round !== round
      ? [`What you typed as round ${d.round} was kept, not saved; round ${d.round} has been saved since. If this is that ` +
         `same round, discard it; if it is the next one, save it as round ${round}.`]
      : ["What you typed here was kept, not saved: check it, then save it, or discard it."];
    draftBox.replaceChildren(h("section", {class: "panel notice", role: "status"}, lines.map(t => h("p", {}, t)),
      h("div", {class: "row"}, h("button", {type: "button", id: "discard-draft", onclick: () => {
        removeDraft(gid, draftName); draftBox.replaceChildren();
        if (stored) { before = stored.layout; onCreated = stored.created; }
        fill(fieldsOf(before, g.teams), before.went_out || "");
        notice.clear(); notice.freeSave();
        rescore();
      }}, "Discard it"))));
  }
}
