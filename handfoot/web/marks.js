/* Where the check view's photo (glance.js) puts its marks beside the cards: a card's label, a note's pin. All in
 * the photo's pixels (image px). */

export const overlaps = (a, b) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
/* the area the boxes a and b share */
export const shared = (a, b) => Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0])) * Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));

/** Where the pin of a pile (`pile` and its `box`, an entry of `outlined`: the piles outlined, each {pile, box})
 *  goes, [x, y] of its centre, whole (ring and all: `edge` from the centre) in the part of the photo shown (`view`,
 *  [x1, y1, x2, y2]), `r` its radius: inside the pile's outline as drawn (`m` its margin, the spots of a grid over
 *  it, its top right first), else beside it, its ring touching the outline from outside (spots along each side),
 *  where that covers less. Of those spots the one that covers least: another pile's outline (above all its inside:
 *  a pin there would seem to be about that pile), a card's box (`cards`: their boxes; a tap meant for the card would
 *  open the note), another pin (`taken`: their centres), the labels (`labelled`: rectangles); inside the outline
 *  before beside it when both cover nothing. A pile showing too little of itself in the frame to hold a pin inside
 *  has it as near as the frame allows. */
export function pinSpot({pile, box}, r, edge, m, taken, labelled, view, outlined, cards) {
  const [vx1, vy1, vx2, vy2] = view;
  const [x1, y1, x2, y2] = [box[0] - m, box[1] - m, box[2] + m, box[3] + m];  /* the outline as drawn */
  /* the centre's range along one side: inside [lo, hi], r in from its ends where it is wide enough, the pin
     whole in [vlo, vhi] */
  const range = (lo, hi, vlo, vhi) => {
    const inset = Math.min(r, (hi - lo) / 2);
    const a = Math.max(lo + inset, vlo + edge), b = Math.min(hi - inset, vhi - edge);
    if (a <= b) return [a, b];
    const mid = Math.min(Math.max((Math.max(lo, vlo) + Math.min(hi, vhi)) / 2, vlo + edge), vhi - edge);
    return [mid, mid];
  };
  const [ax, bx] = range(x1, x2, vx1, vx2), [ay, by] = range(y1, y2, vy1, vy2);
  const STEPS = 6, along = (a, b, k) => a + (b - a) * k / STEPS;
  const spots = [];  /* [x, y, beside]: the grid inside, top right first, then beside each side */
  for (let j = 0; j <= STEPS; j++) for (let i = 0; i <= STEPS; i++) spots.push([along(bx, ax, i), along(ay, by, j), 0]);
  const out = edge + (edge - r) / 2;  /* from the outline to a pin's centre beside it: its ring past the stroke */
  for (let k = 0; k <= STEPS; k++) {
    const [cx, cy] = [along(x2 - r, x1 + r, k), along(y1 + r, y2 - r, k)];
    spots.push([cx, y1 - out, 1], [x2 + out, cy, 1], [cx, y2 + out, 1], [x1 - out, cy, 1]);
  }
  const whole = ([cx, cy, beside]) => !beside || (cx - edge >= vx1 && cx + edge <= vx2 && cy - edge >= vy1 && cy + edge <= vy2);
  const others = outlined.filter(o => o.pile !== pile).map(o => [o.box[0] - m, o.box[1] - m, o.box[2] + m, o.box[3] + m]);
  const area = 4 * edge * edge;
  let best = null;
  spots.filter(whole).forEach(([cx, cy, beside], k) => {
    const sq = [cx - edge, cy - edge, cx + edge, cy + edge];
    const cost = 500 * others.filter(o => cx >= o[0] && cx <= o[2] && cy >= o[1] && cy <= o[3]).length
      + 10 * others.reduce((a, o) => a + shared(o, sq), 0) / area
      + 250 * taken.filter(([px, py]) => Math.hypot(px - cx, py - cy) < 2 * edge).length
      + cards.reduce((a, c) => a + (overlaps(c, sq) ? 200 + 50 * shared(c, sq) / area : 0), 0)
      + 2 * labelled.reduce((a, l) => a + shared(l, sq), 0) / area
      + 1.5 * beside + 0.001 * k;
    if (!best || cost < best[2]) best = [cx, cy, cost];
  });
  return best.slice(0, 2);
}

/** The spots for the label (`w` by `hh`) of the card whose box is `box`, each [x, y] of its top left, the first
 *  preferred: above the box, below it, on its right, on its left (each flush with the box's top or left side),
 *  over the box, above or below moved in along the frame's edge (`inX(x, w)`: x inside the part shown); then,
 *  for a card crowded by others (cards in a fan, in large type), above or below flush with its right side or
 *  centred, on its right or left flush with its foot or centred, and at its corners. `u`: the gap (1 CSS px). */
export function labelSpots([x1, y1, x2, y2], w, hh, u, inX) {
  const [above, below, right, left, mx, my] = [y1 - hh - u, y2 + u, x2 + u, x1 - w - u, (x1 + x2 - w) / 2, (y1 + y2 - hh) / 2];
  return [[x1, above], [x1, below], [right, y1], [left, y1], [x1, y1], [inX(x1, w), above], [inX(x1, w), below],
          [x2 - w, above], [x2 - w, below], [mx, above], [mx, below], [right, y2 - hh], [left, y2 - hh], [right, my],
          [left, my], [right, above], [left, above], [right, below], [left, below]];
}
