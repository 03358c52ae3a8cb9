/* A check view's sheet for a squared book (its "Book…" button): what was counted of the stack under its marker card
 * (its kind, how many cards, and its twos and jokers once counted), checked here, then made a set_book correction. */
import {cardParts, cardText} from "/static/cards.js";
import {closeSheet, h, openSheet} from "/static/ui.js";

/* The sheet for the squared book `pile` (a reading's pile with its `book`: kind, count, cards once counted);
 * `change(op)` makes its correction on Save; a number out of range, or wilds that do not fit in the stack, are said
 * in the sheet, what was typed kept. */
export function bookSheet(pile, change) {
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
  const problem = h("p", {class: "error-box", role: "alert", hidden: true});
  openSheet(`Squared book under ${cardText(pile.cards[0].code)}`, h("div", {},
    h("label", {for: "book-kind"}, "Kind"), kind, h("label", {for: "book-count"}, "Cards in the stack"), count,
    h("p", {class: "muted"}, "Counted its wilds? Their number makes its value exact."),
    h("label", {for: "book-twos"}, "Twos"), twos, h("label", {for: "book-jokers"}, "Jokers"), jokers,
    problem,
    h("div", {class: "row"}, h("button", {type: "button", class: "primary", onclick: () => {
      const wrong = [[count, "Cards in the stack"], [twos, "Twos"], [jokers, "Jokers"]].find(([input]) =>
        input.value !== "" && !(Number.isInteger(+input.value) && +input.value >= +input.min && +input.value <= +input.max));
      if (wrong) {
        problem.textContent = `${wrong[1]}: a whole number from ${wrong[0].min} to ${wrong[0].max}, not ${wrong[0].value}`;
        problem.hidden = false; wrong[0].focus(); return;
      }
      /* the wilds and the marker (a natural on top) must fit in the stack: told here, what was typed kept */
      const stack = +count.value || 7, wilds = (+twos.value || 0) + (+jokers.value || 0);
      const natTop = !["2", "JK"].includes(cardParts(pile.cards[0].code).rank);
      if (wilds + (natTop ? 1 : 0) > stack) {
        problem.textContent = `${wilds} wilds${natTop ? " and the marker card" : ""} do not fit in a stack of ${stack} cards`;
        problem.hidden = false; twos.focus(); return;
      }
      const op = {op: "set_book", pile: pile.id, count: +count.value || 7};
      if (kind.value) op.kind = kind.value;
      if (twos.value !== "" || jokers.value !== "") { op.twos = +twos.value || 0; op.jokers = +jokers.value || 0; }
      change(op);
    }}, "Save"), h("button", {type: "button", onclick: closeSheet}, "Cancel"))));
}
