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
/* A card in words, as a screen reader is to say it (the page's one wording: a symbol such as ♥ is read "black heart
 * suit"): "jack of hearts", "10 of clubs", "joker", "red joker". */
export function cardName(code) {
  const p = cardParts(code);
  return p.rank === "JK" ? cardText(code) : `${rankName(p.rank)} of ${SUIT_NAMES[p.suit]}`;
}
/* A rank (RANKS) in words, as cardName says it: "ace", "10", "jack", "joker". */
export function rankName(rank) { return {A: "ace", J: "jack", Q: "queen", K: "king", JK: "joker"}[rank] || rank; }
export const SUIT_NAMES = {S: "spades", H: "hearts", D: "diamonds", C: "clubs"};
/* a card as the page writes it (cardShort: 10♥, Jkr); `[rank, suit symbol]` captured, a joker neither */
const WRITTEN = /\b(10|[2-9AJQK])([♠♥♦♣])|\bJkr\b/g;
const writtenCode = (m) => m[0] === "Jkr" ? "JK" : m[1] + SUITS.find(x => x[1] === m[2])[0];
/* The page's words `text` with each card written in them as the page writes cards (10♥, Jkr: cardShort's, as
 * cardsInText makes a server's codes) in words instead (cardName's): for an attribute a screen reader reads
 * (aria-label). */
export function cardsInWords(text) { return String(text).replace(WRITTEN, (...m) => cardName(writtenCode(m))); }
/* The page's words `text` (its cards written as the page writes them, as for cardsInWords) as nodes to show:
 * strings, and each card a span that shows it as written and that a screen reader reads as cardName's words
 * (style.css .said-card: the symbols hidden from it, the words its ::after, so the text shown, and the element's
 * textContent, stay "10♥"). Not for a button's text (a flex box: each span would be an item of its own, not wrapping
 * as words do): there, the text as written and cardsInWords as its aria-label. */
export function cardsSaid(text) {
  const s = String(text), out = [];
  let at = 0;
  for (const m of s.matchAll(WRITTEN)) {
    if (m.index > at) out.push(s.slice(at, m.index));
    const card = document.createElement("span"), shown = document.createElement("span");
    card.className = "said-card";
    card.dataset.said = cardName(writtenCode(m));
    shown.setAttribute("aria-hidden", "true");
    shown.textContent = m[0];
    card.append(shown);
    out.push(card);
    at = m.index + m[0].length;
  }
  if (at < s.length) out.push(s.slice(at));
  return out;
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
