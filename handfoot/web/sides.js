/* Two phones, each photographing its own team's side of one round: which teams a reading or a saved round holds
 * cards of, and a round's sides as corrections (add_pile, set_book: docs/api.md) that add them to another reading,
 * so that one round holds both phones' teams. */

/* The cards of a layout's side (docs/layout.md: melds, squared_books, red_threes, left, loose), as codes. */
function sideCards(side) {
  if (!side) return [];
  return [...(side.melds || []).flat(), ...(side.squared_books || []).map(b => b.top), ...(side.red_threes || []),
          ...(side.left || []).flat(), ...(side.loose || [])];
}

/* The teams of the layout `layout` with a card on the table or in hand, in its order. */
export function teamsWithCards(layout) {
  return Object.entries((layout && layout.teams) || {}).filter(([, side]) => sideCards(side).length).map(([t]) => t);
}

/* The teams whose piles the reading `reading` (a photo reading, corrections applied) holds, in its order. */
export function teamsRead(reading) {
  return [...new Set(reading.images.flatMap(im => im.piles.filter(p => p.cards.length).map(p => p.team)))];
}

/* Whether this phone's reading `reading` and the saved round `theirs` are two sides of one round: the reading holds
 * cards of some team and the round none of those teams' cards. */
export function otherSides(reading, theirs) {
  const mine = teamsRead(reading), held = teamsWithCards(theirs.layout);
  return mine.length > 0 && !mine.some(t => held.includes(t));
}

/* How many piles the corrections `ops` add (each add_pile makes pile x<k>, k counting them in order). */
export const pilesAdded = (ops) => ops.filter(op => op.op === "add_pile").length;

/* The sides of `teams` of the layout `layout` as corrections adding them to a reading whose corrections add
 * `added` piles already: each meld, squared book (its top card, then what was counted of it), red threes, hand
 * and loose cards an add_pile of its team. */
export function sideOps(layout, teams, added) {
  const ops = [];
  const pile = (team, kind, cards) => { ops.push({op: "add_pile", team, kind, cards}); return `x${added++}`; };
  for (const team of teams) {
    const side = layout.teams[team] || {};
    for (const meld of side.melds || []) pile(team, "meld", meld);
    for (const book of side.squared_books || []) {
      const id = pile(team, "squared_book", [book.top]);
      const counted = Object.fromEntries(["count", "kind", "rank", "cards"].filter(k => book[k] != null).map(k => [k, book[k]]));
      if (Object.keys(counted).length) ops.push({op: "set_book", pile: id, ...counted});
    }
    if ((side.red_threes || []).length) pile(team, "red_threes", side.red_threes);
    for (const hand of side.left || []) if (hand.length) pile(team, "left", hand);
    if ((side.loose || []).length) pile(team, "loose", side.loose);
  }
  return ops;
}

/* "Jonses", "Us and Them" */
export const teamsText = (teams) => teams.length > 1 ? `${teams.slice(0, -1).join(", ")} and ${teams[teams.length - 1]}` : teams[0];

/* How the saved round `r` was made, in words: "typed in" or "from another photo" (not the one this phone read). */
export const madeText = (r) => r.photo_reading ? "from another photo" : "typed in";
