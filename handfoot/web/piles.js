/* A check view's pile list: each team's piles, a pile that needs a look drawn whole (its cards to tap, a meld's
 * cards to add in one tap, its kind, + card, Split, Join, Book…, Remove; a loose card lying on a fan in the photo
 * offered to that fan), any other folded to one line (its name, number of cards, cards and points) until opened;
 * the summary line over them with "Open all"; and the note over Save saying what the last move moved. */
import {KINDS, KIND_ORDER, cardName, cardShort, cardsInText, cardsSaid, isRed, likelyMissing, pileName} from "/static/cards.js";
import {fanBeside} from "/static/nearby.js";
import {fill, fmt, focusOn, h} from "/static/ui.js";

/* A pile's worth, short: for a complete book its cards' points and its bonus (the score's book at the pile, `score`
 * the reading's): "570 pts", "380 to 450 pts" while a squared book's wilds are uncounted; any other pile's points
 * as its verdict gives them: "30 pts", "-35 pts", red threes' "+100 pts" (each times their number); "not scored"
 * for loose cards; "" when the verdict gives none. */
function pilePoints(p, score) {
  const team = score.teams[p.team];
  const book = team && team.books.find(b => b.where === p.where);
  if (book && book.bonus !== null && book.bonus !== undefined) {
    const [lo, hi] = [book.points_min + book.bonus, book.points_max + book.bonus];
    return `${fmt(lo)}${hi === lo ? "" : ` to ${fmt(hi)}`} pts`;
  }
  const each = /([+-]\d[\d,]*) each/.exec(p.verdict);
  if (p.kind === "red_threes" && each) {
    const v = p.cards.length * Number(each[1].replace(/,/g, ""));
    return `${v > 0 ? "+" : ""}${v.toLocaleString("en-US")} pts`;
  }
  const m = /(-?\d[\d,]*(?: to -?\d[\d,]*)?) points/.exec(p.verdict);
  return m ? `${m[1]} pts` : p.kind === "loose" ? "not scored" : "";
}

/* A pile that needs a look: a problem the rules see in it (an illegal meld, a squared book's wilds uncounted), a
   note of the camera's, a card it is unsure of, one of the cards a numbered note is about (`noted`: those
   piles' ids), or cards the camera read as left in a hand (their points count against the team, and a fan of
   mixed ranks is read so: typed-in cards left, ids "t…", are the family's own). Any other pile shows as one line
   (folded) until opened. */
function needsLook(p, noted) {
  return p.problems.length > 0 || p.notes.length > 0 || p.cards.some(c => c.confidence < 0.5) || noted.has(p.id)
    || (p.kind === "left" && !String(p.id).startsWith("t"));
}

/* "3 cards", "1 card": what the pile `p` holds, as scored */
const cardsCount = (p) => `${p.cards.length} card${p.cards.length === 1 ? "" : "s"}`;

/* A meld's cards a fan read short most likely lacks (cards.js likelyMissing), each added with one tap: "+ J♠",
 * "+ 2♣", "+ Jkr", for the pile `p` (named `name`); `add(code)` adds one. null for a pile that is no meld. */
export function addButtons(p, name, add) {
  if (p.kind !== "meld") return null;
  return h("div", {class: "adds", role: "group", "aria-label": `add a card to ${name} in one tap`},
    h("span", {class: "muted"}, "Add"),
    likelyMissing(p.cards.map(c => c.code)).map(code => h("button", {type: "button", "data-add": code,
      class: isRed(code) ? "red" : "", "aria-label": `Add ${code === "JK" ? "a joker" : `the ${cardName(code)}`} to ${name}`,
      onclick: () => add(code)}, `+ ${cardShort(code)}`)));
}

/* The pile `pileId` flashed on the page and its cards' boxes on the photo; scrolled to unless `stay`. */
export function flash(pileId, stay) {
  const el = document.getElementById(`pile-${pileId}`);
  if (el) { el.classList.remove("flash"); void el.offsetWidth; el.classList.add("flash"); if (!stay) el.scrollIntoView({block: "center"}); }
  for (const r of document.querySelectorAll(`rect[data-card^="${pileId}."]`)) {
    r.classList.add("flash"); setTimeout(() => r.classList.remove("flash"), 1600);
  }
}

/* The pile list of the check view `view`: {game (the game: its teams), st (the view's state: reading, open (the
 * ids of the piles opened whole though they need no look), allOpen (every pile opened whole)), undo (its Undo
 * button), allPiles() (the reading's piles), render() (the view drawn again), change(...ops) (corrections made),
 * moveCard(pile, card, code, to) (a card moved, as the card editor's "Save and move"),
 * editCard(pile, card), addCard(pile), splitPile(pile), joinPile(pile), bookPile(pile), addPile(team) (the sheets
 * that correct them), keepDraft() (the view's unsaved work kept: st.checked with it)}.
 * Returns {box, movedBox (the list's element and the move note's), draw(notes) (the list drawn for st.reading,
 * `notes` its numbered notes as glance.numberedNotes gives them), showsWhole(id) (whether the last draw drew the
 * pile `id` whole), showMoved(moved) (the move note: below), checked (the box over Save that says every card is
 * right, null when the game teaches no deck), withChecked(ops) (the corrections to save: `ops`, and the `checked`
 * one when that box is ticked), tick(on) (that box ticked or not, as st.checked)}. */
export function pileList(view) {
  const {game: g, st, undo, allPiles, change, editCard} = view;
  const pilesBox = h("div", {id: "piles"});
  const movedBox = h("p", {class: "status", id: "moved-note", role: "status"});  /* what the last move moved */
  let shownWhole = new Set();  /* the ids of the piles drawn whole by the last draw */

  function openPile(id, open) {
    if (open) st.open.add(id); else st.open.delete(id);
    view.render();
    const back = document.querySelector(`#pile-${CSS.escape(id)} .pile-toggle`);
    if (back) back.focus({preventScroll: true});
  }
  /* a pile that looks right, as one line: its name, its cards, its points; tapping it opens the pile whole */
  function foldedPile(p, kindClass) {
    const points = pilePoints(p, st.reading.score);
    return h("section", {class: `panel pile ${kindClass} folded`, id: `pile-${p.id}`, "aria-label": `${p.team}: ${p.label}`,
                         tabindex: "-1"},  /* focused (focusPlace) once a correction leaves none of its cards to focus */
      h("button", {type: "button", class: "pile-toggle pile-line", "aria-expanded": "false", "data-open-pile": p.id,
                   "aria-label": `${p.label}: ${p.cards.map(c => cardName(c.code)).join(", ")}${points ? `; ${points}` : ""}. Open it to correct it`,
                   onclick: () => openPile(p.id, true)},
        h("span", {class: "pile-name"}, p.label),
        p.kind === "squared_book" ? null : h("span", {class: "pile-count"}, cardsCount(p)),
        h("span", {class: "pile-cards"}, p.cards.flatMap((c, k) => [k ? " " : null, h("span", {class: isRed(c.code) ? "red" : ""}, cardShort(c.code))])),
        h("span", {class: "pile-points"}, points)));
  }

  const quickAdds = (p, name) => addButtons(p, name, (code) => change({op: "add_card", pile: p.id, code}));
  /* each loose card of `p` lying on a fan of its team in the photo (nearby.js fanBeside): a line naming that fan,
     with a button moving the card there, as a card of the fan's rank when it was read as another natural */
  function besideFans(p) {
    if (p.kind !== "loose") return null;
    return p.cards.map(c => [c, fanBeside(c, p, st.reading.images)]).filter(([, b]) => b).map(([c, b]) =>
      h("p", {class: "beside", "data-beside": c.id}, cardsSaid(`In the photo ${cardShort(c.code)} lies on the ${b.pile.label} ` +
        `${b.pile.cards.map(x => cardShort(x.code)).join(" ")}: if it is one of that fan's cards, `),
        h("button", {type: "button", "data-move-to": b.pile.id, onclick: () => view.moveCard(p, c, b.code, b.pile.id),
                     "aria-label": b.code === c.code ? null : `move it there as the ${cardName(b.code)}`},
          b.code === c.code ? "move it there" : `move it there as ${cardShort(b.code)}`)));
  }

  function pilePanel(p, noted) {
    const bookClass = p.kind === "meld" && p.label.includes("book") ? "book" : p.kind;
    const look = needsLook(p, noted);
    if (!look && !st.allOpen && !st.open.has(p.id)) return foldedPile(p, bookClass);
    shownWhole.add(p.id);
    const name = pileName(p);  /* each button says which pile it acts on: "Split the meld of sevens (Us)" */
    const kindSel = h("select", {"aria-label": `kind of ${name}`, onchange: (ev) => change({op: "set_kind", pile: p.id, kind: ev.target.value})},
      KINDS.map(([v, l]) => h("option", {value: v}, l)));
    kindSel.value = p.kind;
    return h("section", {class: `panel pile ${bookClass}`, id: `pile-${p.id}`, "aria-label": `${p.team}: ${p.label}`,
                         tabindex: "-1"},
      h("h3", {}, look || st.allOpen ? h("span", {}, p.label)
        : h("button", {type: "button", class: "pile-toggle", "aria-expanded": "true", "aria-label": `${p.label}: fold it to one line`,
                       onclick: () => openPile(p.id, false)}, p.label),
        h("span", {class: "muted"}, p.kind === "squared_book" ? "top card seen" :
        cardsCount(p))),
      h("p", {class: "verdict"}, cardsSaid(cardsInText(p.verdict))),
      p.problems.map(pr => h("p", {class: "problem"}, cardsSaid(cardsInText(pr)))),
      p.notes.map(n => h("p", {class: "muted"}, cardsSaid("? " + cardsInText(n)))),
      besideFans(p),
      h("div", {class: "chips"}, p.cards.map(c => h("button", {type: "button",
        class: "chip" + (isRed(c.code) ? " red" : "") + (c.confidence < 0.5 ? " low" : "") + (c.boxes.length ? "" : " typed"),
        "data-card": c.id, "aria-label": `${cardName(c.code)}: correct it`, onclick: () => editCard(p, c)}, cardShort(c.code)))),
      quickAdds(p, name),
      h("div", {class: "row"}, kindSel,
        h("button", {type: "button", "aria-label": `Add a card to ${name}`, onclick: () => view.addCard(p)}, "+ card"),
        p.cards.length > 1 ? h("button", {type: "button", "aria-label": `Split ${name}`, onclick: () => view.splitPile(p)}, "Split") : null,
        h("button", {type: "button", "aria-label": `Join ${name} to another`, onclick: () => view.joinPile(p)}, "Join"),
        p.kind === "squared_book" ? h("button", {type: "button", "aria-label": `Book: the kind and count of ${name}`,
                                                 onclick: () => view.bookPile(p)}, "Book…") : null,
        h("button", {type: "button", class: "danger", "aria-label": `Remove ${name}`,
                     onclick: () => change({op: "remove_pile", pile: p.id})}, "Remove")));
  }

  function draw(notes) {
    const byTeam = {};
    for (const p of allPiles()) (byTeam[p.team] = byTeam[p.team] || []).push(p);
    const noted = new Set(notes.flatMap(nt => nt.piles.map(p => p.id)));
    const n = allPiles().length, fine = allPiles().filter(p => !needsLook(p, noted)).length;
    shownWhole = new Set();
    fill(pilesBox,
      fine ? h("div", {class: "row piles-summary", id: "piles-summary"},  /* the piles that look right, folded or not */
        h("p", {class: "muted grow"}, st.allOpen ? `All ${n} piles shown whole.`
          : `${fine} of ${n} piles look right: one line each, tap one to open it.`),
        h("button", {type: "button", id: "open-all-piles", "aria-pressed": String(st.allOpen),
                     onclick: () => {
                       st.allOpen = !st.allOpen; st.open.clear(); view.render();
                       focusOn(document.getElementById("open-all-piles"));  /* drawn again: the focus kept on it */
                     }}, st.allOpen ? "Fold them" : "Open all")) : null,
      ...g.teams.map(t => h("div", {},
        h("h2", {class: "team-head", "data-team": t, tabindex: "-1"}, t),
        (byTeam[t] || []).slice().sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind)).map(p => pilePanel(p, noted)),
        h("button", {type: "button", onclick: () => view.addPile(t)}, `+ a pile of ${t} the camera missed`))));
  }

  /* The line over Save saying what the last move did, plainly: "Us: moved 7♥ from meld Q♥ Q♠ to meld 8♦ 8♠ 2♣ 8♥
     7♥", a move to another team's pile naming both ("Moved Q♥ from Us's meld Q♠ Q♣ to Them's meld …"), a pile the
     card left empty said so ("…; its old pile is now empty"); with a button to the pile it went to. Undo names the
     move while it shows. `moved`: {card, from, to, team} (the card's code, the pile it left as it is now or null
     when that is gone, the pile it joined, the team it left), or null: nothing said. */
  function showMoved(moved) {
    undo.textContent = moved ? "Undo the move" : "Undo";
    if (!moved) { movedBox.replaceChildren(); return; }
    const across = moved.team !== moved.to.team;
    const name = (p) => `${across ? `${p.team}'s ` : ""}${p.label} ${p.cards.map(c => cardShort(c.code)).join(" ")}`;
    movedBox.replaceChildren(...cardsSaid(`${across ? "Moved" : `${moved.team}: moved`} ${cardShort(moved.card)} ` +
      `${moved.from ? `from ${name(moved.from)} ` : ""}to ${name(moved.to)}` +
      `${moved.from ? "" : "; its old pile is now empty"}. `),
      h("button", {type: "button", class: "ghost link", id: "show-moved", onclick: () => flash(moved.to.id)}, "Show it"));
  }

  /* Where the focus goes back to once the corrections `ops` are made (or undone) and the list drawn again, from the
     list as it is now, before them, and the `opener` (what was focused when they were asked for: a card on the
     photo, a pile's control): {cards, goes, was, team, control, photo, before}: the cards they are about, the piles
     a card or pile goes to (a move, a join), the piles they are about otherwise, their team, the control to come
     back to when they change a pile in place (its kind, "+ card", "Book…": {pile: its element's id, at: its place
     in its row}), whether the card was tapped on the photo, the ids of the piles there were. */
  /* the id of the pile holding the card `card` (an id) */
  const holder = (card) => (allPiles().find(p => p.cards.some(c => c.id === card)) || {}).id;
  function placeOf(ops, opener) {
    const row = opener && opener.parentElement && opener.parentElement.matches("#piles section.pile > :is(.row, .adds)")
      ? opener.parentElement : null;
    const inPlace = ops.length === 1 && ["set_kind", "add_card", "set_book"].includes(ops[0].op);
    const goes = ops.flatMap(op => [op.into, op.to]).filter(Boolean);
    const was = ops.flatMap(op => [op.pile, op.card && holder(op.card)]).filter(Boolean);
    const first = allPiles().find(p => [...was, ...goes].includes(p.id));
    return {cards: ops.map(op => op.card).filter(Boolean), goes, was,
            team: first ? first.team : (ops.find(op => op.team) || {}).team,
            control: row && inPlace ? {pile: row.parentElement.id, row: row.classList.contains("adds") ? ".adds" : ".row",
                                       at: [...row.children].indexOf(opener)} : null,
            photo: Boolean(opener && opener.matches("rect[data-card]")), before: new Set(allPiles().map(p => p.id))};
  }
  /* The focus put back at `place` (placeOf's) in the list drawn again: the pile control it came from; else the card
     (on the photo when tapped there); else the pile that holds it now, the pile it went to, a pile made, the pile
     it was about; else its team's heading. */
  function focusPlace(place) {
    const chip = (id) => document.querySelector(`#piles button[data-card="${CSS.escape(id)}"]`);
    const card = (id) => (place.photo && document.querySelector(`.glance rect[data-card="${CSS.escape(id)}"]`)) || chip(id);
    const row = place.control && document.querySelector(`#${CSS.escape(place.control.pile)} > ${place.control.row}`);
    const made = allPiles().filter(p => !place.before.has(p.id)).map(p => p.id);
    const pile = [...place.cards.map(holder), ...place.goes, ...made, ...place.was]
      .map(id => id && document.getElementById(`pile-${id}`)).find(Boolean);
    focusOn((row && row.children[place.control.at])
            || place.cards.map(card).find(Boolean)
            || (pile && (pile.querySelector(".pile-line") || pile))
            || document.querySelector(`#piles h2[data-team="${CSS.escape(place.team || "")}"]`));
  }

  const checked = checkedBox(g, st, view.keepDraft);
  return {box: pilesBox, movedBox, draw, showsWhole: (id) => shownWhole.has(id), showMoved, placeOf, focusPlace,
          checked: checked && checked.box, withChecked: (ops) => checked ? checked.withChecked(ops) : ops,
          tick: (on) => { st.checked = on && Boolean(checked); if (checked) checked.input.checked = st.checked; }};
}


/* Whether corrections `ops` (a round's, as saved) end with Every card is right as shown ticked (the `checked` one) */
export const isChecked = (ops) => ops.some(op => op.op === "checked");
/* Corrections `ops` without the `checked` one: the changes made to the reading (the box over Save is the other) */
export const unchecked = (ops) => ops.filter(op => op.op !== "checked");

/* For a game whose rounds teach a deck (`g.teach`): the box that says every card of the round is right as shown,
 * {box, withChecked(ops)}: ticked, the corrections saved end with {op: "checked"}, and the round teaches the deck
 * every card, as a corrected round does (a round saved as read teaches only its cards read surely: a close-up of a
 * dark deck, read right, taught nothing); ticked or not, it is `st.checked`, kept with the view's draft
 * (`keepDraft()`) so that a reload keeps it. {input} is the box itself. null when the game teaches none. */
function checkedBox(g, st, keepDraft) {
  if (!g.teach) return null;
  const box = h("input", {type: "checkbox", id: "all-right", checked: st.checked ? "" : null,
                          onchange: () => { st.checked = box.checked; keepDraft(); }});
  return {input: box, box: h("label", {class: "check", for: "all-right"}, box,
                 ` Every card is right as shown: teach deck ${g.teach} all of them (unticked, a round saved as read ` +
                 "teaches it only the cards read surely)"),
          withChecked: (ops) => box.checked && !isChecked(ops) ? [...ops, {op: "checked"}] : ops};
}
