/* Check and correct a reading (#/game/ID/check/READING[/N]) before saving it as a round: the view's flow (the
 * reading and game loaded, corrections made, kept as a draft and undone, the reading scored again, the round
 * saved); its pile list is piles.js, the sheets that correct the piles sheets.js, its save-conflict notice
 * conflict.js. */
import {api} from "/static/api.js";
import {cardName, cardShort, cardsSaid, isRed} from "/static/cards.js";
import {conflictNotice} from "/static/conflict.js";
import {readDraft, removeDraft, writeDraft} from "/static/drafts.js";
import {breakdownTable} from "/static/games.js";
import {lostSave, roundHolds} from "/static/lost.js";
import {notesPanel, numberedNotes} from "/static/notes.js";
import {addButtons, flash, isChecked, pileList, unchecked} from "/static/piles.js";
import {pileSheets} from "/static/sheets.js";
import {askConfirm, clearError, closeSheet, h, lastRoundDoubt, openSheet, pointsNode, problemNamed, problemText, focusOn, roundSaid,
        saveAnyway, sayTotal, setBusy, show, teamTotal, toast, uncountedBooks} from "/static/ui.js";

/* -- check and correct ------------------------------------------------------------------------------------- */
export async function checkView(gid, rid, roundNo) {
  const [g, original] = await Promise.all([api("GET", `/v1/games/${gid}`), api("GET", `/v1/photos/${rid}`)]);
  let stored = roundNo ? g.rounds.find(r => r.n === roundNo) : null;
  let readingId = rid;  /* the reading the round is made from: the other phone's, of the same photo, once this view corrects its round */
  const saveKey = hfSync.newKey();  /* pressing Save again after a dropped answer stores nothing twice */
  const lost = lostSave();  /* a save whose answer never came back (lost.js) */
  /* a reading of the live view's End of round: no photo can be added to it, here or from Score round */
  const fromLive = original.images.every(im => im.image === "live table");
  const uploadWent = sessionStorage.getItem(`handfoot.went_out.${rid}`) ?? (original.layout.went_out || "");
  const savedOps = () => stored ? stored.corrections : [];  /* the corrections as saved (none on a new photo) */
  const baseOps = () => unchecked(savedOps());  /* those the pile list shows: "checked" is the box over Save */
  const baseChecked = () => isChecked(savedOps());  /* saved with Every card is right as shown ticked */
  const baseWent = () => stored ? (stored.layout.went_out || "") : uploadWent;
  const draft = readDraft(gid, rid, roundNo || null, savedOps());  /* unsaved corrections kept over a reload */
  const readFor = roundNo ? null : Number(sessionStorage.getItem(`handfoot.round.${rid}`)) || null;
  const st = {
    corrections: draft ? unchecked(draft.corrections) : baseOps(),
    wentOut: draft ? draft.went : baseWent(),
    /* Every card is right as shown ticked (a game teaching a deck): as saved, or as kept */
    checked: draft ? draft.checked || isChecked(draft.corrections) : baseChecked(),
    reading: original,
    /* the round this phone read the photo for (round.js), kept when the game moved on since: the notice says how */
    round: roundNo || (readFor && readFor < (g.over ? g.rounds.length + 1 : g.next_round) ? readFor : g.next_round),
    views: [], breakdownOpen: false,
    open: new Set(), allOpen: false,  /* the piles opened whole though they need no look; every pile opened whole */
    steps: [],  /* the edits made here, each {n: its corrections, after: how many corrections there were after it} */
    adding: null,  /* while this phone's teams are added to another phone's round (conflict.js): {n, created, teams, own} */
  };
  /* This view's unsaved corrections, kept in localStorage under its game and reading until saved or discarded (a
   * phone reloads a tab it put away); none kept while they equal the saved round's. */
  const unchanged = () => JSON.stringify(st.corrections) === JSON.stringify(baseOps()) && st.wentOut === baseWent() &&
    st.checked === baseChecked();
  function keepDraft() {
    if (unchanged()) removeDraft(gid, readingId);
    else writeDraft(gid, readingId, {round: roundNo || null, base: savedOps(), corrections: st.corrections, went: st.wentOut,
                                          checked: st.checked});
    draftSays();
  }
  function dropDraft() { removeDraft(gid, readingId); }
  const draftBox = h("div", {id: "draft-notice"});
  /* the notice of corrections kept over a reload says how many unsaved changes there are now: it follows the
   * corrections made and undone since, and goes when none is left */
  function draftSays() {
    const line = draftBox.querySelector("#draft-count");
    if (!line) return;
    if (unchanged()) { draftBox.replaceChildren(); return; }
    const n = st.corrections.length - baseOps().length + (st.wentOut !== baseWent() ? 1 : 0) +
              (st.checked !== baseChecked() ? 1 : 0);
    line.textContent = "Your unsaved corrections were kept" + (n > 0 ? ` (${n} change${n === 1 ? "" : "s"})` : "") +
                       ": check them, then save, or discard them.";
  }
  function forgetDraft() {  /* back to the corrections as saved, nothing kept */
    st.corrections = baseOps(); st.wentOut = baseWent(); wentOut.value = st.wentOut; piles.tick(baseChecked());
    dropDraft(); draftBox.replaceChildren();
  }
  function discardDraft() { forgetDraft(); rescore(1, null, {}); focusOn(heading); }
  const glance = await import("/static/glance.js");
  const scoreBox = h("div", {class: "totals compact", id: "round-totals"});
  const notesBox = h("div", {});
  const photosBox = h("div", {class: "photos"});
  const wentOut = h("select", {id: "check-went-out", onchange: () => { st.wentOut = wentOut.value; rescore(0, null, {}); }},
    h("option", {value: ""}, "nobody"), g.teams.map(t => h("option", {value: t}, t)));
  wentOut.value = st.wentOut;
  const undo = h("button", {type: "button", id: "undo-change", onclick: undoLast}, "Undo");
  /* the pile list and the note over Save saying what the last move moved (piles.js) */
  const {editCard, ...sheets} = pileSheets({allPiles, change, moveCard});  /* the sheets that correct them (sheets.js) */
  const piles = pileList({game: g, st, undo, allPiles, render, change, moveCard, editCard, keepDraft, ...sheets});
  const save = h("button", {type: "button", class: "primary", id: "save-round", onclick: saveRound},
    roundNo ? "Save correction" : `Save round ${st.round}`);
  const heading = h("h1", {id: "check-heading", tabindex: "-1"}, roundNo ? `Correct round ${roundNo}` : `Check round ${st.round}`);
  /* the notice when another phone saved or changed the game meanwhile (conflict.js); it reads roundNo, stored and
   * readingId as they are when asked (becomeCorrection changes them) */
  const notice = conflictNotice({gid, rid, game: g, original, st, heading, save, render, rescore, saveRound, becomeCorrection,
    becomeNewRound,
    get roundNo() { return roundNo; }, get stored() { return stored; }, get readingId() { return readingId; }});
  /* From now on this view corrects the saved round `theirs` (a round of this same photo: saved meanwhile on another
   * phone, or moved up by an undo there; or another phone's side of this photo's round, this phone's teams added)
   * with `corrections` on the reading `reading` and `went`, Every card is right as shown ticked when `checked` (by
   * default: when `corrections` hold it, or it is ticked here); its address says so (a reload opens it). */
  function becomeCorrection(theirs, corrections, went, reading = theirs.photo_reading,
                            checked = isChecked(corrections) || st.checked) {
    dropDraft();
    roundNo = theirs.n; stored = theirs; readingId = reading; st.round = theirs.n; st.adding = null;
    st.corrections = unchecked(corrections); st.wentOut = went; wentOut.value = went; piles.tick(checked);
    heading.textContent = `Correct round ${theirs.n}`; save.textContent = "Save correction"; notice.freeSave();
    here = `#/game/${gid}/check/${reading}/${theirs.n}`;
    history.replaceState(null, "", here);
    notice.clear(); draftBox.replaceChildren();
    keepDraft();
  }

  /* From now on this view checks its photo as the new round `n`, with the corrections made so far (the round it
   * corrected was undone on another phone): the heading, Save and the address say so. */
  function becomeNewRound(n) {
    dropDraft();
    roundNo = null; stored = null; st.round = n; st.adding = null;
    heading.textContent = `Check round ${n}`; save.textContent = `Save round ${n}`; notice.freeSave();
    here = `#/game/${gid}/check/${readingId}`;
    history.replaceState(null, "", here);
    notice.clear();
    keepDraft();
  }

  function photoFor(k, notes) {  /* the photo at a glance (glance.js): labelled boxes, outlined piles, note pins */
    st.views[k] = st.views[k] || {};
    const image = st.reading.images[k];
    /* whose photo it is: its teams ("Mom & Dad", "Mom & Dad and Kids"), a photo of hands and feet said so */
    const teams = [...new Set(image.teams || [])].join(" and ");
    const caption = teams && (image.kind === "hand" ? `${teams}: hands and feet` : teams);
    return glance.photoView({image, src: original.photos[k], alt: `photo ${k + 1}: ${image.image}`, caption,
                             notes, view: st.views[k], onCard: editCard, onNote: openNote,
                             reserve: () => (document.querySelector("#view > .sticky-actions") || {}).offsetHeight || 0});
  }
  function openNote(nt) {  /* its piles flashed, and their cards to tap (each pile named when it has several) */
    for (const p of nt.piles) flash(p.id, true);
    openSheet(`Note ${nt.n}`, h("div", {}, h("p", {}, cardsSaid(nt.text)), h("p", {class: "muted"}, "Tap a card to correct it:"),
      nt.piles.map(p => h("div", {"data-note-pile": p.id}, nt.piles.length > 1 ? h("p", {class: "muted"}, `${p.team}: ${p.label}`) : null,
        h("div", {class: "chips"}, p.cards.map(c => h("button", {type: "button", class: "chip" + (isRed(c.code) ? " red" : ""),
          "aria-label": `${cardName(c.code)}: correct it`, onclick: () => editCard(p, c)}, cardShort(c.code)))),
        addButtons(p, p.label, (code) => { closeSheet(); change({op: "add_card", pile: p.id, code}); }))),
      h("div", {class: "row"}, h("button", {type: "button", onclick: closeSheet}, "Close"))));
  }

  function allPiles() { return st.reading.images.flatMap(im => im.piles); }
  function pileOf(cardId) { const p = allPiles().find(p => p.cards.some(c => c.id === cardId)); return p ? p.id : null; }

  /* The corrections made while the server cannot be reached: kept (the draft), said waiting over Save, and scored
     once it answers again (sync.js's "handfoot-reachable"); the photo and the piles show the reading last scored. */
  const waitingNote = h("p", {class: "status", id: "waiting-note", role: "status"});
  let scored = st.corrections.length, scoring = 0;  /* how many corrections the reading shown has; rescores on their way */
  let inFlight = Promise.resolve();  /* the latest rescore, settled */
  function waiting(on) {
    const n = st.corrections.length - scored;
    waitingNote.textContent = !on ? "" : (n > 0 ? `${n} change${n === 1 ? "" : "s"}` : "Your changes") +
      " waiting for the server: kept on this phone, and shown here once it answers again.";
  }
  function onReachable() {
    if (location.hash !== here) document.removeEventListener("handfoot-reachable", onReachable);
    else if (waitingNote.textContent && !scoring) rescore(0);
  }
  document.addEventListener("handfoot-reachable", onReachable);
  /* `added`: how many corrections at the end to drop when the server refuses them; `done()`: run once the server
     took them, before the page is drawn again; `then`, for a change made here: once drawn, the focus put back at
     its `place` (piles.placeOf's), if any, and the round's new total said (say) once the server took it */
  function rescore(added = 1, done = null, then = null) {
    const run = scoreAgain(added, done, then);
    inFlight = run.catch(() => {});
    return run;
  }
  async function scoreAgain(added, done, then) {
    let took = false;
    keepDraft();
    piles.showMoved(null);
    undo.disabled = st.corrections.length === (stored ? stored.corrections.length : 0);
    scoring++;
    try {
      st.reading = await api("POST", `/v1/photos/${readingId}/corrections`,
        {corrections: st.corrections, round: st.round, went_out: st.wentOut || null});
      scored = st.corrections.length;
      waiting(false);
      clearError();
      took = true;
      if (done) done();
    } catch (e) {
      if (e.status === 0) {  /* the server away: nothing dropped */
        waiting(true);
        return;
      }
      const step = st.steps[st.steps.length - 1];
      if (added && step && step.after === st.corrections.length) st.steps.pop();
      st.corrections.splice(st.corrections.length - added, added);
      keepDraft();
      toast(e.message, true);
    } finally { scoring--; }
    render();
    if (then && then.place) piles.focusPlace(then.place);
    if (took) sayTotal(roundSaid(st.round, g.teams, st.reading.score), Boolean(then));
    await notice.redraw();  /* the notice's offer says the changes made since it was shown */
  }
  /* An edit: `ops` added to the corrections as one step (Undo takes it back whole) and the reading scored again;
     the piles it touches that show whole stay whole, and the piles it makes show whole. `done(before)`: run once
     the server took it, `before` the ids of the piles there were. Nothing is stored until Save. */
  function edit(ops, done = null) {
    const before = new Set(allPiles().map(p => p.id));
    for (const id of ops.flatMap(op => [op.pile, op.to, op.into, op.card && pileOf(op.card)])) {
      if (id && piles.showsWhole(id)) st.open.add(id);
    }
    st.corrections.push(...ops);
    st.steps.push({n: ops.length, after: st.corrections.length});
    closeSheet();  /* the focus back on what opened the sheet, while it is there: where the focus goes back to */
    const place = piles.placeOf(ops, document.activeElement);
    return rescore(ops.length, () => {
      for (const p of allPiles()) if (!before.has(p.id)) st.open.add(p.id);
      if (done) done(before);
    }, {place});
  }
  function change(...ops) { return edit(ops); }
  /* Undo: the last edit made here taken back whole (a move with a new code, or to a new pile, is two corrections);
     corrections kept over a reload, or carried over to another phone's round, one at a time */
  function undoLast() {
    const base = stored ? stored.corrections.length : 0;
    const step = st.steps.pop();
    const n = step && step.after === st.corrections.length ? step.n : 1;
    if (!step || step.after !== st.corrections.length) st.steps = [];
    const undone = st.corrections.splice(st.corrections.length - Math.min(n, st.corrections.length - base));
    rescore(0, null, {place: piles.placeOf(undone, null)});  /* the focus on what it undid */
  }
  /* the card `code` of `pile` (the card `card`) moved to the pile `to` (an id, or "new:loose" / "new:left" /
     "new:red_threes"); the page stays where it was: the pile the card left (else the page's scroll) keeps its place
     on screen, however the piles above it changed */
  function moveCard(pile, card, code, to) {
    const ops = to.startsWith("new:") ? [{op: "remove_card", card: card.id}, {op: "add_pile", team: pile.team, kind: to.slice(4), cards: [code]}]
      : code !== card.code ? [{op: "set_card", card: card.id, code}, {op: "move_card", card: card.id, to}]
      : [{op: "move_card", card: card.id, to}];
    const left = document.getElementById(`pile-${pile.id}`);
    const [top, y] = [left ? left.getBoundingClientRect().top : null, scrollY];
    return edit(ops, (before) => {
      const dest = to.startsWith("new:") ? allPiles().find(p => !before.has(p.id) && p.team === pile.team)
                                         : allPiles().find(p => p.id === to);
      if (!dest) return;
      st.open.add(dest.id);
      piles.showMoved({card: code, from: allPiles().find(p => p.id === pile.id) || null, to: dest, team: pile.team});
      requestAnimationFrame(() => {  /* drawn again by now */
        const now = document.getElementById(`pile-${pile.id}`);
        if (now && top !== null) scrollBy(0, now.getBoundingClientRect().top - top);
        else scrollTo(0, y);
        flash(dest.id, true);
      });
    });
  }

  function render() {
    const r = st.reading;
    scoreBox.replaceChildren(...g.teams.map(t => h("div", {class: "total", "data-team": t},
      h("div", {class: "name"}, t), h("div", {class: "points", "data-round-total": t}, r.score.teams[t] ? pointsNode(r.score.teams[t]) : "0"),
      h("div", {class: "muted"}, r.score.teams[t] ? "this round" : "nothing read"))),
      h("details", {class: "breakdown-box", open: st.breakdownOpen, ontoggle: (ev) => { st.breakdownOpen = ev.target.open; }},
        h("summary", {}, "Breakdown"), breakdownTable(r.score, g.teams)));
    const pileNoteText = new Set(allPiles().flatMap(p => p.notes));
    /* the photos' own notes ("team Kids: no photo of its table …"), each led by its team's name as the piles' are */
    const other = r.notes.filter(n => ![...pileNoteText].some(t => n.endsWith(t))).map(n => n.replace(/^team /, ""));
    const notes = numberedNotes(r, allPiles());  /* numbered as their pins on the photo */
    notesBox.replaceChildren(notesPanel(notes, other, openNote));
    photosBox.replaceChildren(...r.images.map((_, k) => photoFor(k, notes)));
    piles.draw(notes);
    undo.disabled = st.corrections.length === (stored ? stored.corrections.length : 0);
  }

  let here = location.hash, saving = false;
  hfSync.follow(gid, async () => {
    if (location.hash !== here || saving) return;  /* a save on its way is answered with what changed, if anything */
    try {
      const latest = await fetch(`/v1/games/${gid}`).then(r => r.json());
      if (!arrived(latest)) await notice.otherPhone(latest);
    } catch (e) { /* the next change says it again */ }
  });
  /* what Save sends: the reading, its corrections (ending "checked" when Every card is right is ticked) and who went out */
  const saveBody = () => ({photo_reading: readingId, corrections: piles.withChecked(st.corrections), went_out: st.wentOut || null});
  /* Whether the game `latest` holds this phone's save whose answer was lost (lost.js): then it is said saved (and the
   * view goes to the game), or, with changes made here since, this view corrects that round from now on. */
  function arrived(latest) {
    const r = lost.savedIn(latest);
    if (!r) return false;
    lost.clear();
    hfSync.note(latest);
    if (roundHolds(r, saveBody())) {
      dropDraft(); toast(`Round ${r.n} ${roundNo ? "corrected" : "saved"}`); location.hash = `#/game/${gid}`;
    } else {
      becomeCorrection(r, st.corrections.slice(), st.wentOut); render();
      toast(`Round ${r.n} is saved as it was when you pressed Save. Your changes since are not saved yet: press Save correction.`);
    }
    return true;
  }

  /* What Save asks about in a round's score: the rules' illegal problems (each with the piles it is about, named as
   * Check these names them), a team with nothing read, a squared book's wilds uncounted (in the game's last round,
   * also what they mean for who wins); each {kind, key, text},
   * the key the same for the same doubt on a later correction (the problem's own words: not its piles'). */
  function doubts(score) {
    return [...score.problems.filter(p => p.severity === "illegal").map(p => ({kind: "illegal", key: `illegal ${problemText(p)}`,
                                                                            text: problemNamed(p, allPiles()).text})),
      ...g.teams.filter(t => !score.teams[t]).map(t => ({kind: "unread", key: `unread ${t}`, team: t,  /* no photo of its side, nothing typed */
        text: `${t}: nothing was read for this team, so it scores 0 this round (add its piles with "+ a pile of ${t} ` +
              `the camera missed", at the end of its piles` + (fromLive ? ")." : "; or leave without saving and score the " +
              "round again with a photo of its side too).")})),
      /* a squared dirty or wild book whose wilds are uncounted leaves the round (and the game) a range */
      ...g.teams.filter(t => score.teams[t] && !score.teams[t].exact).map(t => ({kind: "ranged", key: `ranged ${t}`,
        text: `${t} scores ${teamTotal(score.teams[t])} until the wilds under its squared book are ` +
              `counted (the book's "Book…" button, below the photo): ${uncountedBooks(score.teams[t]).join("; ")}.`})),
      ...lastRoundDoubt(g, st.round, score)];
  }
  const answered = new Set();  /* the doubts "Save anyway" was said to in this view */
  async function saveRound() {
    while (scoring) await inFlight;  /* a change still being scored (Who went out? just chosen): asked about its score */
    const asked = st.round;  /* the round the player saw when tapping Save */
    /* asked only about doubts not answered already: here, or when the round as saved had them (its save said
       "Save anyway" to them) */
    if (!(await saveAnyway(doubts(st.reading.score), answered, stored ? doubts(stored.score).map(d => d.key) : [], "read"))) return;
    if (st.round !== asked || save.disabled) {  /* the game changed while the question was open: the notice says how */
      toast(`Not saved: the game changed on another phone meanwhile`, true);
      notice.box.scrollIntoView({block: "center"});
      return;
    }
    setBusy(save, true);
    const body = saveBody();
    const path = roundNo ? `/v1/games/${gid}/rounds/${roundNo}?lenient=true` : `/v1/games/${gid}/rounds?lenient=true`;
    saving = true;
    try {
      if (!roundNo && lost.sent && lost.sent.method === "POST" && !lost.same(body)) {  /* the first Save's answer was
                                                                 lost, changes made since: that Save first, then these */
        const first = lost.savedIn(await lost.resend());
        lost.keep("PUT", `/v1/games/${gid}/rounds/${first.n}?lenient=true`, body);
        await api("PUT", lost.sent.path, body);
      } else if (roundNo) await api("PUT", path, body);
      else await api("POST", path, body, saveKey);
      lost.clear();
      dropDraft();
      toast(roundNo ? `Round ${roundNo} corrected` : `Round ${st.round} saved`);
      location.hash = `#/game/${gid}`;
    } catch (e) {
      saving = false;
      setBusy(save, false);
      if ((e.status === 412 && e.body.game) || (e.status === 409 && e.body.round)) {  /* the other phone was first */
        const latest = e.status === 412 ? e.body.game : await api("GET", `/v1/games/${gid}`).catch(() => g);
        if (arrived(latest)) return;  /* or this phone's save whose answer was lost */
        const told = await notice.otherPhone(latest);
        toast(`Not saved: ${told ? told[0].toLowerCase() + told.slice(1) : "the game changed on another phone"}`, true);
      } else if (e.status === 0) {  /* the server away (the line at the top says so): the corrections kept */
        if (roundNo || !lost.sent) lost.keep(roundNo ? "PUT" : "POST", path, body, saveKey);  /* a POST's key: its first body */
        keepDraft();
        toast("No answer from the server: it may not be saved. Your corrections are kept on this phone: press Save again once " +
              "the line at the top has gone; it is never saved twice.", true);
      } else toast(e.message, true);
    }
  }

  show(
    heading,
    h("p", {class: "muted", id: "check-intro"}, "Tap a card on the photo or below to change it, move it or delete it." +
      (original.deck ? ` Read with deck ${original.deck}.` : "")),
    draftBox, notice.box, scoreBox,
    h("div", {class: "check-layout"}, h("div", {class: "photos-col"}, photosBox, notesBox), h("div", {}, piles.box)),
    h("label", {for: "check-went-out"}, "Who went out?"), wentOut, piles.checked,
    h("p", {}, h("a", {class: "button", href: `#/game/${gid}`, onclick: async (ev) => {
      ev.preventDefault();
      const changed = st.corrections.length !== (stored ? stored.corrections.length : 0);
      if (changed && !(await askConfirm("Leave without saving?", ["Your corrections to this round are thrown away."], "Leave without saving",
                                        null, true, roundNo ? "Keep correcting" : "Keep checking"))) return;
      dropDraft();
      location.hash = `#/game/${gid}`;
    }}, "Leave without saving")),
    h("div", {class: "sticky-actions"}, notice.why, waitingNote, piles.movedBox, save, undo));
  /* a new photo is checked against the game at once (the same photo saved before, Back after saving it): told
     before anyone corrects it */
  const already = roundNo ? null : await api("GET", `/v1/games/${gid}/saved/${rid}`).catch(() => null);
  if (draft) {  /* kept from before a reload: told, unless the reading no longer takes it (then dropped, unsaid); kept
                   when the server cannot be reached to ask (rescore says it waits) */
    const fits = await api("POST", `/v1/photos/${readingId}/corrections`,
      {corrections: st.corrections, round: st.round, went_out: st.wentOut || null}).then(() => true, (e) => e.status === 0);
    if (fits) {
      draftBox.replaceChildren(h("section", {class: "panel notice", role: "status"},
        h("p", {id: "draft-count"}, "Your unsaved corrections were kept: check them, then save, or discard them."),
        h("div", {class: "row"}, h("button", {type: "button", id: "discard-draft", onclick: discardDraft}, "Discard them"))));
      draftSays();
    } else forgetDraft();
  }
  await rescore();
  if (already && already.round) await notice.otherPhone(g, already);
  else if (!roundNo && st.round !== g.next_round) await notice.otherPhone(g, already);  /* its round saved meanwhile */
}
