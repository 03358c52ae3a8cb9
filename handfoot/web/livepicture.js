/* The live picture's card labels: the codes of the stable reading (GET /v1/live "cards": each code and its box
 * as fractions of the picture) written over the server's picture as page text, 10♥, at least LABEL_PX CSS px at
 * any width (the picture itself carries boxes and outlines, no codes). A label goes above its box, else below,
 * right or left, where it hides no other label; one with no room is left out (the check view names every card).
 * "Hide card names" under the picture takes them off, to see the cards on a small screen.
 * An ES module, loaded by app.js (import()). */
import {h} from "/static/ui.js";
import {cardLabel, onTypeChange, typeScale} from "/static/glance.js";

export const LABEL_PX = 15;  /* in the page's normal type; larger with A+ (typeScale) */
const LEGEND = [["meld", "#5fe07e"], ["book", "#e19cff"], ["squared book", "#ffb03a"], ["red threes", "#ff6270"]];

/** A holder for the live picture ``img`` with its labels over it, the legend of its outlines' colours, and
 *  update(cards) that writes the labels: {node, legend, update}. */
export function labelLayer(img) {
  const layer = h("div", {class: "live-labels", "aria-hidden": "true"});
  /* the names can be hidden, to see the cards under them on a small screen (kept on this phone) */
  const hidden = () => localStorage.getItem("handfoot.live.names") === "off";
  const names = h("button", {type: "button", id: "live-names", "aria-pressed": String(!hidden()),
    onclick: () => { localStorage.setItem("handfoot.live.names", hidden() ? "on" : "off"); shown(); }});
  function shown() {
    layer.hidden = hidden();
    names.setAttribute("aria-pressed", String(!hidden()));
    names.textContent = hidden() ? "Show card names" : "Hide card names";
  }
  shown();
  const legend = h("div", {class: "legend"}, LEGEND.map(([name, colour]) =>
    h("span", {style: `border-color: ${colour}`, "aria-hidden": "true"}, name)), names);  /* the outlines' colours (vision/annotate.py) */
  const frame = h("div", {class: "live-frame"}, img, layer);
  let last = [];
  function update(cards) {
    last = cards || [];
    const W = img.clientWidth, H = img.clientHeight;
    layer.replaceChildren();
    if (!W || !H || !img.naturalWidth) { frame.dataset.labelled = `0/${last.length}`; return; }
    const px = LABEL_PX * typeScale(), hh = px * 1.35, placed = [];
    const overlaps = (a, b) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
    const order = last.slice().sort((a, b) => a.box[1] - b.box[1] || a.box[0] - b.box[0]);
    for (const c of order) {
      const text = cardLabel(c.code);
      const w = px * (0.62 * [...text].length + 0.6);
      const [x1, y1, x2, y2] = [c.box[0] * W, c.box[1] * H, c.box[2] * W, c.box[3] * H];
      const spot = [[x1, y1 - hh - 1], [x1, y2 + 1], [x2 + 1, y1], [x1 - w - 1, y1]]
        .map(([x, y]) => [x, y, x + w, y + hh])
        .find(r => r[0] >= 0 && r[1] >= 0 && r[2] <= W && r[3] <= H && !placed.some(p => overlaps(p, r)));
      if (!spot) continue;
      placed.push(spot);
      layer.append(h("span", {class: "live-label" + (/[HD]$/.test(c.code) || c.code === "RJ" ? " red" : "") + (c.sure ? "" : " unsure"),
        style: `left: ${spot[0]}px; top: ${spot[1]}px; font-size: ${px}px`}, text));
    }
    frame.dataset.labelled = `${placed.length}/${last.length}`;
  }
  img.addEventListener("load", () => update(last), {once: true});
  new ResizeObserver(() => update(last)).observe(img);
  onTypeChange(frame, () => update(last));
  return {node: frame, legend, update};
}
