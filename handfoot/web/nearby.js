/* Which fan a loose card lies on in its photo: the check view's offer to move it there (piles.js). An ES module. */
import {cardParts, naturalRank} from "/static/cards.js";

const NEAR = 1.5;  /* how far from a fan's cards a loose card still lies on it: card indices' heights */

/* the box [x1, y1, x2, y2] around `boxes` (each [x1, y1, x2, y2]) */
const around = (boxes) => [Math.min(...boxes.map(b => b[0])), Math.min(...boxes.map(b => b[1])),
                           Math.max(...boxes.map(b => b[2])), Math.max(...boxes.map(b => b[3]))];
/* the distance between the boxes a and b (0 where they touch or overlap), image px */
const gap = (a, b) => Math.hypot(Math.max(0, b[0] - a[2], a[0] - b[2]), Math.max(0, b[1] - a[3], a[1] - b[3]));
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The fan the card `card` of the loose pile `loose` lies on in its photo: of the melds of its team read in the
 *  same image of `images` (a reading's images, each {piles}), the one whose cards' boxes come nearest the card's,
 *  if within NEAR card indices' heights of it (the taller of the card's and the fan's typical index). Returns
 *  {pile, code}: that meld and the card's code as one of its cards (the card's suit with the meld's natural rank,
 *  unless the card is a two, a three or a joker, or the meld has no natural rank: its own code); null when the card
 *  shows no box or no meld lies that near. */
export function fanBeside(card, loose, images) {
  const image = images.find(im => im.piles.includes(loose));
  if (!card.boxes.length || !image) return null;
  let best = null;
  for (const pile of image.piles) {
    const boxes = pile.cards.flatMap(c => c.boxes);
    if (pile.kind !== "meld" || pile.team !== loose.team || !boxes.length) continue;
    const tall = Math.max(median(boxes.map(b => b[3] - b[1])), ...card.boxes.map(b => b[3] - b[1]));
    const far = Math.min(...card.boxes.map(b => gap(b, around(boxes)))) / tall;
    if (far <= NEAR && (!best || far < best.far)) best = {pile, far};
  }
  if (!best) return null;
  const {rank, suit} = cardParts(card.code), fanRank = naturalRank(best.pile.cards.map(c => c.code));
  const keep = !fanRank || ["2", "3", "JK"].includes(rank);
  return {pile: best.pile, code: keep ? card.code : fanRank + suit};
}
