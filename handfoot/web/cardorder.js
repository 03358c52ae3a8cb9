/* The check view's photo read with the arrow keys: its cards in reading order (left to right, rows top to bottom),
 * and the card each arrow key goes to from a card (glance.js moves the focus there). */

const middle = (b) => [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2];

/** The cards of a photo, their boxes `boxes` ([x1, y1, x2, y2] image px, one a card), in rows as a reader reads
 *  them: [[index into boxes, ...], ...], the rows top to bottom, each left to right. A box joins the row above it
 *  while its middle lies within half a card's height (the boxes' median) of that row's middles' mean. */
export function readingRows(boxes) {
  if (!boxes.length) return [];
  const heights = boxes.map(b => b[3] - b[1]).sort((a, b) => a - b);
  const half = heights[Math.floor(heights.length / 2)] / 2;
  const rows = [];
  let row = null, sum = 0;
  for (const k of boxes.map((_, k) => k).sort((a, b) => middle(boxes[a])[1] - middle(boxes[b])[1])) {
    const y = middle(boxes[k])[1];
    if (row && Math.abs(y - sum / row.length) <= half) { row.push(k); sum += y; continue; }
    row = [k]; sum = y;
    rows.push(row);
  }
  return rows.map(r => r.sort((a, b) => middle(boxes[a])[0] - middle(boxes[b])[0]));
}

/** Where the key `key` goes from the card `at` (an index into the reading order `order`: the boxes `boxes` in
 *  reading order, `rows` readingRows' as positions in `order`): ArrowRight and ArrowLeft the next and the one before
 *  in reading order, ArrowDown and ArrowUp the nearest card (between middles) in a row below or above, Home and
 *  End the first and the last; `at` itself where there is none (the edge); undefined for another key. */
export function arrowTarget(key, at, boxes, rows) {
  const last = boxes.length - 1;
  if (key === "ArrowRight") return Math.min(at + 1, last);
  if (key === "ArrowLeft") return Math.max(at - 1, 0);
  if (key === "Home") return 0;
  if (key === "End") return last;
  if (key !== "ArrowDown" && key !== "ArrowUp") return undefined;
  const r = rows.findIndex(row => row.includes(at));
  const others = (key === "ArrowDown" ? rows.slice(r + 1) : rows.slice(0, r)).flat();
  const [x, y] = middle(boxes[at]);
  let best = at, near = Infinity;
  for (const k of others) {
    const [kx, ky] = middle(boxes[k]), d = Math.hypot(kx - x, ky - y);
    if (d < near) { best = k; near = d; }
  }
  return best;
}
