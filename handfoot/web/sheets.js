/* The check view's sheets that correct its piles: the card editor (a card tapped on the photo or in its pile), "+ card",
 * Split, Join, Book… (a squared book's kind and count) and a pile the camera missed. Nothing changes until a sheet's
 * Save (or a one-tap button): then the view's `change` makes the corrections. */
import {CODE, KINDS, cardName, cardParts, cardShort, cardText, cardsInWords, isRed, likelyMissing} from "/static/cards.js";
import {cardPicker, closeSheet, h, openSheet, pileText, retitleSheet} from "/static/ui.js";

/* The sheets of a check view `view`: {allPiles() (the reading's piles), change(...ops) (corrections made, the sheet
 * closed), moveCard(pile, card, code, to) (a card moved, as the card editor's "Save and move")}.
 * Returns {editCard(pile, card), addCard(pile), splitPile(pile), joinPile(pile), bookPile(pile), addPile(team)}, each
 * opening its sheet. */
export function pileSheets({allPiles, change, moveCard}) {
  /* The card editor: the rank and suit buttons, Delete, and "Move it to…" (its team's other piles, the other teams',
     a new pile of loose cards or of cards left in hand, and for a red three a new pile of red threes when its team
     has none); nothing changes until Save, which makes the card as the buttons show it, in the pile chosen. Its
     title names the card ("10 of hearts (meld)"), and once another is picked what Save makes of it ("10♥ → J♥
     (meld)"; "→ ?" while its suit is still to pick). */
  function editCard(pile, card) {
    const newThrees = ["3H", "3D"].includes(card.code) && !allPiles().some(p => p.team === pile.team && p.kind === "red_threes");
    const move = h("select", {id: "move-to", "aria-label": "move the card to (on Save)"},
      h("option", {value: ""}, "Move it to…"),
      /* its own team's piles first, then the other teams' (a card the photos put on the wrong side of the table) */
      [...allPiles().filter(p => p.id !== pile.id && p.team === pile.team),
       ...allPiles().filter(p => p.team !== pile.team)].map(p => h("option", {value: p.id, "aria-label": cardsInWords(pileText(p))}, pileText(p))),
      newThrees ? h("option", {value: "new:red_threes"}, `${pile.team}: a new pile of red threes`) : null,
      h("option", {value: "new:loose"}, `${pile.team}: a new pile of loose cards (not scored)`),
      h("option", {value: "new:left"}, `${pile.team}: a new pile of cards left in hand`));
    const del = h("button", {type: "button", class: "danger", onclick: () => change({op: "remove_card", card: card.id})}, "Delete");
    const picker = cardPicker(card.code, (code) => move.value ? moveCard(pile, card, code, move.value)
                                                             : change({op: "set_card", card: card.id, code}), del,
                              h("div", {class: "move-to"}, move));
    const ok = picker.querySelector("button.primary");  /* Save, said "Save and move" once a pile is chosen */
    move.addEventListener("change", () => { ok.textContent = move.value ? "Save and move" : "Save"; });
    const title = (code) => code === card.code ? `${cardName(card.code)} (${pile.label})`
                                               : `${cardShort(card.code)} → ${code ? cardShort(code) : "?"} (${pile.label})`;
    picker.addEventListener("click", () => retitleSheet(title(picker.picked())));  /* after the button's own click */
    openSheet(title(card.code), picker);
  }

  /* "+ card": the full picker; for a meld, above it, the cards a fan read one card short most likely lacks
     (likelyMissing), each added with one tap. Other piles have no one rank to guess (cards left in hand, loose
     cards), or are counted otherwise (a squared book's Book…, red threes). */
  function addCard(pile) {
    const add = (code) => change({op: "add_card", pile: pile.id, code});
    const quick = pile.kind === "meld" ? likelyMissing(pile.cards.map(c => c.code)) : [];
    const words = (code) => {
      const rank = cardParts(code).rank;
      return rank === "JK" ? ["a joker", null, "add a joker"]
           : rank === "2" ? ["a two", code, `add a two: the ${cardName(code)}`]
           : ["another", code, `add another ${cardName(code)}`];
    };
    openSheet(`Add a card to ${pile.label} ${pile.cards.map(c => cardShort(c.code)).join(" ")}`, h("div", {},
      quick.length ? h("div", {class: "row quick-add", role: "group", "aria-label": "add in one tap"}, quick.map(code => {
        const [text, card, label] = words(code);
        return h("button", {type: "button", "data-quick": code, "aria-label": label, onclick: () => add(code)}, text,
          card ? h("span", {class: "card" + (isRed(card) ? " red" : "")}, cardShort(card)) : null);
      })) : null,
      cardPicker("", add)));
  }
  function splitPile(pile) {
    const chips = h("div", {class: "chips"}, pile.cards.slice(1).map(c => h("button", {type: "button", class: "chip" + (isRed(c.code) ? " red" : ""),
      "aria-label": cardName(c.code), onclick: () => change({op: "split_pile", pile: pile.id, at: c.id})}, cardShort(c.code))));
    openSheet("Split: the new pile starts at", h("div", {}, chips, h("button", {type: "button", onclick: closeSheet}, "Cancel")));
  }
  function joinPile(pile) {
    const others = allPiles().filter(p => p.id !== pile.id && p.team === pile.team && p.kind === pile.kind);
    openSheet(`Join ${pile.label} to`, h("div", {},
      others.length ? others.map(p => h("p", {}, h("button", {type: "button", onclick: () => change({op: "join_piles", pile: pile.id, into: p.id}),
                                                             "aria-label": cardsInWords(pileText(p))}, pileText(p))))
                    : h("p", {}, "No other pile of this kind in this team."),
      h("button", {type: "button", onclick: closeSheet}, "Cancel")));
  }
  function bookPile(pile) {
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
  function addPile(team) {
    const kind = h("select", {id: "new-kind"}, KINDS.map(([v, l]) => h("option", {value: v}, l)));
    const cards = h("input", {type: "text", id: "new-cards", placeholder: "KH KS KD", autocomplete: "off", autocapitalize: "characters"});
    const problem = h("div", {id: "new-cards-problem"});
    openSheet(`A pile of ${team} the camera missed`, h("div", {},
      h("label", {for: "new-kind"}, "Kind"), kind, h("label", {for: "new-cards"}, "Its cards (e.g. KH KS JK)"), cards,
      problem,
      h("div", {class: "row"}, h("button", {type: "button", class: "primary", onclick: () => {
        /* checked here: a typo keeps the sheet open with what was typed, the wrong code named */
        const codes = cards.value.toUpperCase().split(/[\s,]+/).filter(Boolean);
        const wrong = codes.find(c => !CODE.test(c));
        if (!codes.length || wrong) {
          problem.replaceChildren(h("p", {class: "error-box", role: "alert"}, !codes.length ? "Type the pile's cards, e.g. KH KS JK." :
            `${wrong} is not a card: a rank (A, 2-10, J, Q, K) and a suit (S, H, D, C), or JK for a joker.`));
          cards.setAttribute("aria-invalid", "true");
          cards.focus();
          return;
        }
        change({op: "add_pile", team, kind: kind.value, cards: codes});
      }}, "Add"), h("button", {type: "button", onclick: closeSheet}, "Cancel"))));
  }
  return {editCard, addCard, splitPile, joinPile, bookPile, addPile};
}
