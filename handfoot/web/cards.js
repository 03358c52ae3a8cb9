/* The card notation: codes (10H, JK, RJ) as the page writes them (10♥, Jkr), the ranks and suits, the pile kinds. */

/* a card code as the server takes it (scorer.cards): 10H or TH, JK / RJ / BJ for a joker */
export const CODE = /^(10|[2-9AJQKT])[SHDC]$|^(JK|RJ|BJ)$/;
export const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "JK"];
export const SUITS = [["S", "♠"], ["H", "♥"], ["D", "♦"], ["C", "♣"]];
export const KINDS = [["meld", "meld or fanned book"], ["squared_book", "squared book"], ["red_threes", "red threes"],
               ["left", "cards left in hand"], ["loose", "loose (not scored)"]];
export const KIND_ORDER = ["meld", "squared_book", "red_threes", "left", "loose"];
export function cardParts(code) {
  if (code === "JK" || code === "RJ" || code === "BJ") return {rank: "JK", suit: code === "JK" ? "" : code[0]};
  return {rank: code.slice(0, -1), suit: code.slice(-1)};
}
export function cardText(code) {
  const p = cardParts(code);
  if (p.rank === "JK") return code === "RJ" ? "red joker" : code === "BJ" ? "black joker" : "joker";
  return p.rank + (SUITS.find(x => x[0] === p.suit) || ["", "?"])[1];
}
export function cardShort(code) { return cardParts(code).rank === "JK" ? "Jkr" : cardText(code); }
/* the server's words with each card code in them (10H, JK) written as the page writes cards (10♥, Jkr) */
export function cardsInText(text) { return String(text).replace(/\b(10|[2-9AJQK])([SHDC])\b|\bJK\b/g, (code) => cardShort(code)); }
export function isRed(code) { const p = cardParts(code); return p.suit === "H" || p.suit === "D" || code === "RJ"; }
export function cardName(code) {
  const p = cardParts(code);
  if (p.rank === "JK") return cardText(code);
  const ranks = {A: "ace", J: "jack", Q: "queen", K: "king"};
  const suits = {S: "spades", H: "hearts", D: "diamonds", C: "clubs"};
  return `${ranks[p.rank] || p.rank} of ${suits[p.suit]}`;
}
/* The key of `keys` seen most often, the first seen on a tie; null for none. */
function mostCommon(keys) {
  const counts = new Map();
  for (const k of keys) counts.set(k, (counts.get(k) || 0) + 1);
  let best = null;
  for (const [k, n] of counts) if (best === null || n > counts.get(best)) best = k;
  return best;
}
/* The rank most common among the naturals of `codes` (not twos, threes or jokers): "7", "K"; null for none. */
export function naturalRank(codes) { return mostCommon(codes.map(cardParts).filter(p => !["2", "3", "JK"].includes(p.rank)).map(p => p.rank)); }
const RANK_PLURAL = {A: "aces", 4: "fours", 5: "fives", 6: "sixes", 7: "sevens", 8: "eights", 9: "nines", 10: "tens", J: "jacks",
                     Q: "queens", K: "kings"};
/* A pile as a button's accessible name says which one it is, with its team: "the meld of sevens (Us)", "the clean
 * book of kings (Us)", "the squared book under the nine of hearts (Them)", "the red threes (Us)", "the cards left in
 * hand (Us)"; `p`: {team, kind, label (the server's: "meld", "clean book", "left in hand"…), cards: [{code}]}. */
export function pileName(p) {
  const codes = p.cards.map(c => c.code), rank = naturalRank(codes);
  const name = p.kind === "squared_book" && codes.length ? `${p.label} under the ${cardName(codes[0])}`
    : p.kind === "meld" ? (rank ? `${p.label} of ${RANK_PLURAL[rank]}` : / book$/.test(p.label) ? p.label : `${p.label} of wilds`)
    : p.kind === "loose" ? "loose cards" : /^left\b/.test(p.label) ? `cards ${p.label}` : p.label;
  return `the ${name} (${p.team})`;
}
/* The cards a fan read one card short most likely lacks, as codes to add to the meld whose cards' codes are
 * `codes`, most likely first: another of its natural rank (its most common rank other than twos, threes and
 * jokers), with the suit most common among its cards of that rank; a two, with the suit most common among its
 * twos (clubs when it has none); a joker (JK). A tie goes to the rank or suit read first along the fan. A meld with
 * no natural rank (all wilds, say) gets just the two and the joker. */
export function likelyMissing(codes) {
  const parts = codes.map(cardParts);
  const rank = naturalRank(codes);
  const suitOf = (r) => mostCommon(parts.filter(p => p.rank === r).map(p => p.suit));
  return [rank ? rank + suitOf(rank) : null, "2" + (suitOf("2") || "C"), "JK"].filter(Boolean);
}
