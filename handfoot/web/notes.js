/* The notes of a reading to check: numbered as their pins on the photo (glance.js draws the pins), and their list
 * under the photo. */
import {cardsInText, cardsSaid} from "/static/cards.js";
import {h, pileText, problemNamed} from "/static/ui.js";

/** The notes of a reading numbered as their pins: the rules' illegal problems and the piles' notes, each with its
 *  piles (``piles``: none, the one at the problem's place, or, for a problem about cards wherever they lie, such
 *  as more 4♠ than the decks hold, every pile holding them, named in its text: ui.js's problemNamed; ``pile``:
 *  the first). ``r``: the reading (GET /v1/photos/{id}). */
export function numberedNotes(r, piles) {
  const out = [];
  for (const pr of r.score.problems.filter(p => p.severity === "illegal")) {
    const named = problemNamed(pr, piles);
    out.push({n: out.length + 1, pile: named.piles[0], piles: named.piles, problem: true, text: named.text});
  }
  for (const p of piles.filter(p => p.notes.length)) {
    out.push({n: out.length + 1, pile: p, piles: [p], text: cardsInText(`${pileText(p)}: ${p.notes.join("; ")}`), problem: false});
  }
  return out;
}

/** The numbered list under the photo (``notes`` of numberedNotes, ``other``: notes of no pile, in words);
 *  ``onNote(note)`` for a note's button. */
export function notesPanel(notes, other, onNote) {
  if (!notes.length && !other.length) return h("p", {class: "muted"}, "The camera is sure of every card: check the labels on the photo anyway.");
  return h("section", {class: "panel notes", "aria-label": "check these"},
    h("h2", {}, "Check these"),
    h("ol", {class: "note-list"},
      notes.map(nt => h("li", {class: nt.problem ? "problem" : "", value: String(nt.n), "data-note": String(nt.n)},
        cardsSaid(nt.text), " ", nt.pile ? h("button", {type: "button", class: "pin-button", onclick: () => onNote(nt)}, `Show ${nt.n}`) : null)),
      other.map(t => h("li", {class: "plain"}, cardsSaid(cardsInText(t))))));
}
