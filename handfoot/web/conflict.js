/* A check view's save-conflict notice: what it says and offers when another phone saved or changed the game
 * meanwhile (this photo saved as a round there, a round added, undone or corrected): its offers (add my changes to
 * theirs, add my teams to their round when it holds none of their cards (sides.js), save mine as round N+1, correct
 * round N, drop mine and show theirs), its offer redrawn after each change
 * made under it, and Save held, with its reason, until the notice is answered. */
import {api} from "/static/api.js";
import {changesAbsent, changesText, scoresOf} from "/static/changes.js";
import {isChecked, unchecked} from "/static/piles.js";
import {madeText, otherSides, pilesAdded, sideOps, teamsRead, teamsText, teamsWithCards} from "/static/sides.js";
import {askConfirm, closeSaveQuestion, fmt, h, toast, total} from "/static/ui.js";

/* A photo of a reading's `images` ({image, teams}) in words: "table.jpg, Us" (`inside`: "table.jpg (Us)"). */
const teamsOf = (im) => im.teams && im.teams.length ? im.teams.join(" and ") : "";
const photoName = (im, inside) => teamsOf(im) ? (inside ? `${im.image} (${teamsOf(im)})` : `${im.image}, ${teamsOf(im)}`) : im.image;

/* Which of `images` (the photos of the reading a check view opened: its images, each {image, teams}) another
 * phone's round `saved` (GET /v1/games/{id}/saved/{reading}: its `photos` the names of this reading's photos the
 * round holds, `same_cards` whether it holds all their cards) was made from: all of them when it is this reading
 * (no `photo`) or holds the same cards. */
export function heldPhotos(images, saved) {
  if (!saved.photo || saved.same_cards) return images;
  const names = saved.photos && saved.photos.length ? saved.photos : [saved.photo];
  return images.filter(im => names.includes(im.image));
}

/* Which of `images` another phone's round `saved` was made from (as for heldPhotos), in words: "from this same
 * photo (table.jpg, Us)", "from these same photos (…)", or, when some of several are, "from the same file as your
 * photo table.jpg (Us)". */
export function samePhotoText(images, saved) {
  const held = heldPhotos(images, saved);
  if (held.length < images.length) {
    const some = held.length ? held.map(im => photoName(im, true)) : [saved.photo];  /* none: one of its hand photos */
    return `from the same file${some.length === 1 ? "" : "s"} as your photo${some.length === 1 ? "" : "s"} ${some.join(" and ")}`;
  }
  if (images.length > 1) return `from these same photos (${images.map(im => photoName(im)).join("; ")})`;
  return `from this same photo (${photoName(images[0])})`;
}

/* What the saved round `saved` (as for heldPhotos; its number `n`) holds of `images`, in a line: when it holds
 * them all (several), that nothing of them is left to add; when it holds some, the others named, which
 * correcting round n does not add, and how their cards go in. Null for one photo, held. */
export function leftOutText(images, saved, n) {
  const held = heldPhotos(images, saved);
  const out = images.filter(im => !held.includes(im));
  if (!out.length) return images.length > 1 ? `${images.length === 2 ? "Both" : `All ${images.length}`} of your photos' ` +
                                              `cards are in round ${n} already: there is nothing to add to it.` : null;
  const teams = [...new Set(out.flatMap(im => im.teams || []))];
  const [one, it] = out.length === 1 ? ["is", "it"] : ["are", "them"];
  return `Your other photo${out.length === 1 ? "" : "s"} ${out.map(im => photoName(im, true)).join(" and ")} ${one} not ` +
         `in round ${n}, and correcting round ${n} does not add ${it}: if ${out.length === 1 ? "its" : "their"} cards ` +
         `belong to round ${n}, add them there` + (teams.length ? ` with ${teams.map(t => `"+ a pile of ${t}"`).join(" or ")}` : "") + ".";
}

/* A save-conflict notice's frame, for the view whose Save button is `save`: {box (the notice's element), why (the
 * line saying why Save is off), holdSave(why, label) (Save off until the notice is answered, saying `label` in place
 * of what it would save where that cannot be: "Saved as round 1"; its words kept otherwise), freeSave(), show(latest,
 * heading, lines, actions, redo, quiet) (the notice: its heading, lines (strings), buttons, the game `latest`'s
 * totals and "See the game"; scrolled into view unless `quiet`; `redo`: redraws it after a change made under it, or
 * null; a "Save the round anyway?" question open is closed, unanswered: it was about the game before), redraw()
 * (that, when a notice with an offer is shown), clear() (no notice)}. */
export function noticeFrame(gid, save) {
  const box = h("div", {id: "sync-notice"});
  let reoffer = null;  /* redraws the notice shown with an offer after each change here; null when none is */
  const why = h("p", {class: "status muted", id: "save-why", role: "status"});
  function show(latest, heading, lines, actions, redo, quiet) {
    const totals = latest.teams.map(t => `${t} ${total(latest.totals[t])}`).join(" · ");
    box.replaceChildren(h("section", {class: "panel notice", role: "alert"},
      h("h2", {}, heading), lines.map(t => h("p", {}, t)), h("p", {class: "muted"}, `The game now: ${totals}.`),
      h("div", {class: "row"}, actions, h("a", {class: "button", href: `#/game/${gid}`}, "See the game"))));
    reoffer = redo;
    closeSaveQuestion();
    if (!quiet) box.scrollIntoView({block: "center"});
  }
  return {
    box, why, show,
    holdSave: (text, label) => { save.disabled = true; why.textContent = text; if (label) save.textContent = label; },
    freeSave: () => { save.disabled = false; why.textContent = ""; },
    redraw: async () => { if (reoffer) await reoffer(); },
    clear: () => { box.replaceChildren(); reoffer = null; },
  };
}

/* The offer of a notice about the saved round `theirs` (another phone's version of what this view saves), pushed
 * onto its `lines` and `actions`: `mine()` says this phone's unsaved changes that theirs lacks, in words ("" when
 * none); with some, a line and two buttons: add them to theirs (`addMine()`: the view then holds theirs with mine
 * over it, to be checked and saved) or drop them (`takeTheirs()`: the view shows theirs); with none, one button
 * showing theirs (`showLabel`), which asks first when a change was made here since it was drawn. `moved`: theirs is
 * the round this view corrects, moved up by an undo. */
export function changeOffer({theirs, mine, addMine, takeTheirs, moved, showLabel}, lines, actions) {
  const said = mine();
  if (said) {
    lines.push(moved ? `Your changes here are not saved yet (${said}): go on correcting it as round ${theirs.n} ` +
                       "with them, or drop them."
                     : `Your changes here are not saved yet (${said}): add them to theirs as a correction of round ` +
                       `${theirs.n} (you check it, then Save correction), or drop them.`);
    actions.push(h("button", {type: "button", class: "primary", id: "add-mine", onclick: addMine},
                   moved ? `Go on as round ${theirs.n}` : "Add my changes to theirs"),
                 h("button", {type: "button", id: "take-theirs", onclick: takeTheirs},
                   moved ? `Drop mine, show round ${theirs.n}` : "Drop mine, show theirs"));
  } else actions.push(h("button", {type: "button", class: "primary", id: "take-theirs", onclick: async () => {
    /* a change made here since this button was drawn (its offer not redrawn yet) is not dropped unasked */
    const late = mine();
    if (late && !(await askConfirm(`Drop your changes here?`, [`Your changes here (${late}) are not ` +
        `saved yet: showing round ${theirs.n} drops them.`], "Drop them"))) return;
    takeTheirs();
  }}, showLabel));
}

/* The save-conflict notice of the check view `view`: {gid, rid, game (the game as the view opened it), original
 * (the reading of the photo it opened), st (its state: corrections, wentOut, reading, round), roundNo, stored,
 * readingId (getters: the round it corrects, null for a new photo; that round as saved; the reading it is made
 * from), heading and save (its heading and Save button), render(), rescore(), saveRound(), and
 * becomeCorrection(theirs, corrections, went, reading) (from now on it corrects the saved round `theirs`, made of the
 * reading `reading`, theirs by default), becomeNewRound(n)
 * (from now on it checks its photo as the new round n)}.
 * Returns {box, why (the notice's element and the line saying why Save is off), otherPhone(latest, saved, quiet)
 * (shows the notice for the game `latest`: below), redraw() (the notice's offer redrawn after a change made under
 * it; nothing when none is shown), clear() (no notice), holdSave(why, label), freeSave()}. */
export function conflictNotice(view) {
  const {gid, rid, game: g, original, st, save} = view;
  const frame = noticeFrame(gid, save);
  const {holdSave, freeSave} = frame;
  function setRound(n) {  /* the round a new photo will be saved as: the heading and the button say it */
    st.round = n; view.heading.textContent = `Check round ${n}`; save.textContent = `Save round ${n}`;
  }
  function unsureRound(n) {  /* the photo's round n (it was read for it), saved meanwhile on another phone: the heading
                               keeps its number, Save names none until the notice's choice */
    st.round = n; view.heading.textContent = `Check round ${n}`; save.textContent = "Save round";
  }
  const overSaid = (latest) => `the game is over${latest.winner ? `: ${latest.winner} won` : ""}`;

  /* This phone's teams added to another phone's round `theirs` that holds none of their cards (each phone
   * photographed its own side): one round of both, as a correction of round theirs.n to check and save (Save
   * correction: one PUT with If-Match). On their reading when theirs is from a photo (this phone's piles added as
   * cards typed in), else on this phone's reading with their typed sides added. */
  async function addSides(theirs, latest) {
    const mine = st.adding ? st.adding.teams : teamsRead(st.reading);
    const own = st.adding ? st.adding.own : st.corrections.slice();  /* this phone's corrections of its reading */
    const onTheirs = Boolean(theirs.photo_reading);
    const base = onTheirs ? theirs.corrections : own;
    const ops = base.concat(onTheirs ? sideOps(st.reading.layout, mine, pilesAdded(base))
                                     : sideOps(theirs.layout, teamsWithCards(theirs.layout), pilesAdded(base)));
    const reading = onTheirs ? theirs.photo_reading : rid;
    const went = theirs.layout.went_out || st.wentOut || "";
    let read;
    try {
      read = await api("POST", `/v1/photos/${reading}/corrections`, {corrections: ops, round: theirs.n, went_out: went || null});
    } catch (e) {
      toast(`${teamsText(mine)} cannot be added to round ${theirs.n} (${e.message})`, true);
      return;
    }
    hfSync.note(latest);
    st.reading = read;
    view.becomeCorrection(theirs, ops, went, reading);
    st.adding = {n: theirs.n, created: theirs.created, teams: mine, own};
    view.render();
    toast(`${teamsText(mine)} added to round ${theirs.n}: check it, then Save correction`);
  }
  /* The offer of adding this phone's teams to round `added` (saved on another phone with none of their cards). */
  function sidesButton(added, latest, primary) {
    const mine = st.adding ? st.adding.teams : teamsRead(st.reading);
    return h("button", {type: "button", class: primary ? "primary" : "", id: "add-sides", onclick: () => addSides(added, latest)},
             `Add ${teamsText(mine)} to round ${added.n}`);
  }

  /* The changes made on this phone since the view opened that the saved round `theirs` lacks (changes.js). */
  function myChanges(theirs) {
    return changesAbsent(theirs, st.corrections.slice(view.stored ? unchecked(view.stored.corrections).length : 0), st.wentOut,
                         view.stored ? view.stored.layout.went_out || "" : "");
  }
  /* Theirs, then mine (nothing either phone did is lost): tried on their reading first; this view then corrects
   * their round with both, to be checked and saved (Save correction). */
  async function addMine(theirs, latest, c) {
    const merged = theirs.corrections.concat(c.ops);
    try {
      st.reading = await api("POST", `/v1/photos/${theirs.photo_reading}/corrections`,
                             {corrections: merged, round: theirs.n, went_out: c.went || null});
    } catch (e) {
      toast(`Your changes do not fit theirs (${e.message}): here is their version; make your change again`, true);
      takeTheirs(theirs, latest);
      return;
    }
    hfSync.note(latest);
    const moved = view.roundNo !== null && view.roundNo !== theirs.n && theirs.photo_reading === view.readingId;
    view.becomeCorrection(theirs, merged, c.went);
    view.render();
    toast(moved ? `Correcting it as round ${theirs.n}: Save correction when it is right`
                : `Your changes are added to round ${theirs.n}: check it, then Save correction`);
  }
  function takeTheirs(theirs, latest) {
    hfSync.note(latest);
    view.becomeCorrection(theirs, theirs.corrections.slice(), theirs.layout.went_out || "", theirs.photo_reading,
                          isChecked(theirs.corrections));
    view.rescore();
  }
  /* Buttons that offer adding this phone's changes to the saved round `theirs` (of this same photo), or taking theirs;
   * `fits`: corrections made on this reading apply to theirs (the same reading, or one with the same piles and cards);
   * `moved`: theirs is the round this view corrects, moved up by an undo. */
  function offer(theirs, latest, lines, actions, fits, moved) {
    const c = myChanges(theirs);
    if (c.count && !fits && c.ops.length) {
      lines.push(`Your changes here (${changesText(c)}) were made on another reading of this photo, with other piles, so ` +
                 `they cannot be added to round ${theirs.n} as they are: show it, then make them again.`);
      actions.push(h("button", {type: "button", class: "primary", id: "take-theirs", onclick: () => takeTheirs(theirs, latest)}, `Show round ${theirs.n}`));
    } else changeOffer({theirs, moved, mine: () => { const now = myChanges(theirs); return now.count ? changesText(now) : ""; },
                        addMine: () => addMine(theirs, latest, myChanges(theirs)), takeTheirs: () => takeTheirs(theirs, latest),
                        showLabel: view.roundNo === theirs.n ? "Show their version" : `Correct round ${theirs.n}`}, lines, actions);
  }

  /* The game changed (on another phone, or this photo was saved already): say so, show it as it is now, and keep
   * what was done here until the player chooses: add it to the other phone's round, drop it, or save this photo
   * as the next round. `saved`: GET /v1/games/{id}/saved/{reading} for a new photo (asked here when not given).
   * Returns the notice's heading (null when nothing needs saying). */
  async function otherPhone(latest, saved, quiet) {
    const lines = [], actions = [];
    const again = () => otherPhone(latest, saved, true);  /* this notice redrawn, unscrolled, after a change here */
    let redo = null;
    let heading = "Changed on another phone";
    if (!view.roundNo) {
      if (saved === undefined) saved = await api("GET", `/v1/games/${gid}/saved/${rid}`).catch(() => null);
      const theirs = saved && saved.round && saved.game === gid ? latest.rounds.find(r => r.n === saved.round) : null;
      if (saved && saved.round && saved.game !== gid) {
        heading = "Already saved in another game";
        lines.push(`${saved.message}.`);
        holdSave("Saved in another game already: see the notice above.", "Saved in another game");
      } else if (theirs) {
        const before = g.rounds.some(r => r.n === theirs.n && r.photo_reading === theirs.photo_reading);
        heading = before ? `Already saved as round ${theirs.n}` : `Another phone saved round ${theirs.n}`;
        lines.push(before ? `This photo${saved.photo ? ` (${saved.photo})` : ""} is round ${theirs.n} of the game already ` +
                            `(${scoresOf(latest, theirs)}): saving it again would count it twice.`
                          : `Another phone saved round ${theirs.n} ${samePhotoText(original.images, saved)} meanwhile (${scoresOf(latest, theirs)}): ` +
                            "saving it here too would count it twice.");
        const left = leftOutText(original.images, saved, theirs.n);
        if (left) lines.push(left);
        const done = theirs.n !== st.round && latest.rounds.find(r => r.n === st.round);  /* the round it was checked as */
        if (done) lines.push(`Another phone saved round ${st.round} ${madeText(done)} meanwhile (${scoresOf(latest, done)})` +
                             (latest.over ? `: ${overSaid(latest)}.` : "."));
        if (latest.over) view.heading.textContent = "The game is over";
        /* the button says the round is saved (not "Save round N+1", held); the line under the notice says what
           of this phone's is not */
        const mine = myChanges(theirs).count ? ", without your changes here: add them to it or drop them in" : ": choose in";
        holdSave(`Saved already as round ${theirs.n}${mine} the notice above.`, `Saved as round ${theirs.n}`);
        offer(theirs, latest, lines, actions, saved.same_cards); redo = again;
      } else {
        const was = st.round;
        const added = latest.rounds.find(r => r.n === was);
        if (latest.over && !added) {
          lines.push("The game is over: no round can be added."); holdSave("The game is over.", "Game over");
        } else if (added) {  /* the round this photo was read for, saved on another phone (or before this view opened) */
          const next = latest.over ? null : latest.next_round;
          const sides = otherSides(st.reading, added);  /* of the other teams only: this phone's side of that round */
          unsureRound(was);
          heading = `Another phone saved round ${was}`;
          lines.push(`Another phone saved round ${was} ${madeText(added)} (${scoresOf(latest, added)})` +
                     (latest.over ? `, the game's last round: ${overSaid(latest)}.` : "."));
          const whose = teamsText(teamsRead(st.reading));
          const their = whose.endsWith("s") ? `${whose}'` : `${whose}'s`;
          if (sides) lines.push(`It holds no card of ${whose}, whose cards you read: if yours is ${their} side of that ` +
                                `same round, add ${whose} to round ${was}` + (added.photo_reading ? " (their photo stays the " +
                                "round's; your cards go in as cards typed in)" : "") + (next ? `; if yours is the next round, ` +
                                `save it as round ${next}.` : "."));
          else lines.push(`If yours is a photo of that same round, do not save it again: open round ${was} and make your ` +
                          `changes there.` + (next ? ` If yours is the next round, save it as round ${next}.` : ""));
          /* the sticky Save stays off until one of these is chosen: one hasty tap there would count round ${was} twice */
          if (next) holdSave(`Round ${was} or ${next}? Choose in the notice above first.`);
          else holdSave("The game is over.", "Game over");
          if (!next && !sides) view.heading.textContent = "The game is over";
          if (sides) actions.push(sidesButton(added, latest, true));
          if (next) actions.push(h("button", {type: "button", class: sides ? "" : "primary", id: "save-next", onclick: async () => {
            frame.clear(); setRound(next); freeSave();
            sessionStorage.setItem(`handfoot.round.${rid}`, String(next));  /* chosen: not asked again on Back */
            await view.rescore(0);  /* scored under round ${next}'s opening minimum */
            view.saveRound();
          }}, `Save mine as round ${next}`));
          actions.push(h("a", {class: "button", id: "open-theirs", href: added.photo_reading ? `#/game/${gid}/check/${added.photo_reading}/${was}`
                                                                                        : `#/game/${gid}/type/${was}`}, `Open round ${was}`));
          redo = again;
        } else if (latest.next_round < was) {
          setRound(latest.next_round);
          freeSave();  /* no round of another photo to mistake it for any more */
          lines.push(`A round was undone there: this photo will be saved as round ${st.round}.`);
        } else { hfSync.note(latest); return null; }  /* another round corrected: nothing changes here */
        hfSync.note(latest);
      }
    } else if (st.adding && latest.rounds.some(r => r.created === st.adding.created)) {
      /* adding this phone's teams to round n: the other phone changed that round meanwhile */
      const now = latest.rounds.find(r => r.created === st.adding.created);
      const same = (r) => JSON.stringify([r.n, r.layout, r.corrections, r.photo_reading]);
      if (same(now) === same(view.stored)) { hfSync.note(latest); return null; }  /* another round changed */
      lines.push(`Round ${now.n} was changed there (${scoresOf(latest, now)}): add ${teamsText(st.adding.teams)} to it as ` +
                 "it is now, then check it and Save correction.");
      holdSave(`Round ${now.n} was changed on another phone: see the notice above.`);
      actions.push(sidesButton(now, latest, true));
    } else {
      const theirs = latest.rounds.find(r => r.n === view.roundNo);
      const moved = latest.rounds.find(r => r.photo_reading === view.readingId && r.n !== view.roundNo);
      if (moved) {  /* a round before it was undone there: this round moved up */
        heading = `Round ${view.roundNo} is round ${moved.n} now`;
        lines.push(`A round before it was undone on another phone, and the rounds after that moved up one: this photo is ` +
                   `round ${moved.n} now, scored under round ${moved.n}'s opening minimum (${fmt(moved.minimum)}).`);
        holdSave(`This is round ${moved.n} now: choose in the notice above.`);
        offer(moved, latest, lines, actions, true, true); redo = again;
      } else if (!theirs || theirs.photo_reading !== view.readingId) {
        const n = latest.next_round;
        lines.push(`Round ${view.roundNo} was undone there.`);
        holdSave(`Round ${view.roundNo} was undone on another phone.`, `Round ${view.roundNo} undone`);
        if (!latest.over) {  /* what this phone corrected is not lost: it can count as the game's next round */
          lines.push(`Your corrections are still here. If this photo's round should count, save it as round ${n}` +
                     (n === view.roundNo ? "" : ` (scored under round ${n}'s opening minimum)`) + "; if not, leave without saving.");
          actions.push(h("button", {type: "button", class: "primary", id: "save-as-new",
                                    onclick: () => {
                                      hfSync.note(latest);  /* saved over the game as the notice showed it */
                                      view.becomeNewRound(n); view.rescore(0, null, {}); view.saveRound();
                                    }},
                         `Save mine as round ${n}`));
        }
      } else {
        const same = (r) => JSON.stringify(r.corrections) + JSON.stringify(r.layout.went_out || null);
        if (view.stored && same(theirs) === same(view.stored)) { hfSync.note(latest); return null; }  /* another round changed */
        lines.push(`Round ${view.roundNo} was corrected there: it now scores ${scoresOf(latest, theirs)}.`);
        offer(theirs, latest, lines, actions, true); redo = again;
      }
    }
    frame.show(latest, heading, lines, actions, redo, quiet);
    return heading;
  }
  return {box: frame.box, why: frame.why, otherPhone, holdSave, freeSave, redraw: frame.redraw, clear: frame.clear};
}
