/* The check view's photo, checked at a glance on a phone: the photo is the main surface, opened on its cards
 * (pinch or the + and − buttons zoom, a finger pans once zoomed); every card's box carries its code (10♥) in type
 * at least LABEL_PX CSS pixels tall wherever it fits beside its box without hiding another (the others show theirs
 * when tapped, or once zoomed in enough; a line under the photo counts them and shows each in turn), each pile is
 * outlined in its kind's colour, a fan's number of cards is tagged beside its outline, and each note is a numbered
 * pin inside its pile's outline, or beside it where inside it would cover a card's box (marks.js places them).
 * Labels and pins lie whole in the part of the photo the frame shows. Tapping a box opens the card's picker, tapping
 * a pin the note; with keys, the photo is one stop of Tab and the arrows go from card to card (cardorder.js). An ES
 * module, loaded by app.js (import()); it builds its own elements with the page's helpers (ui.js, cards.js) and
 * calls back into the check view. */
import {h} from "/static/ui.js";
import {cardName, cardShort, cardsInWords} from "/static/cards.js";
import {arrowTarget, readingRows} from "/static/cardorder.js";
import {labelSpots, overlaps, pinSpot} from "/static/marks.js";

const SVG = "http://www.w3.org/2000/svg";
export const LABEL_PX = 13;  /* the labels' type, CSS px, at any zoom, in the page's normal type (typeScale) */
const PIN_PX = 13;  /* a pin's radius, CSS px, as LABEL_PX */
const MAX_ZOOM = 8;
const KIND_CLASS = {meld: "meld", squared_book: "squared", red_threes: "threes", left: "left", loose: "loose"};
const COUNTED = new Set(["meld", "left"]);  /* the kinds of pile whose number of cards is tagged: fans */
/* the outlines' colours (style.css .outline.*, vision/annotate.py KIND_COLORS): the legend shows what is drawn */
const LEGEND = {meld: "#5fe07e", book: "#e19cff", squared: "#ffb03a", threes: "#ff6270", left: "#6cb4ff", loose: "#d0d0d0"};

/* the box [x1, y1, x2, y2] around `boxes` (each [x1, y1, x2, y2]) */
function around(boxes) {
  return [Math.min(...boxes.map(b => b[0])), Math.min(...boxes.map(b => b[1])),
          Math.max(...boxes.map(b => b[2])), Math.max(...boxes.map(b => b[3]))];
}

function s(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  return el;
}

/** The page's type scale: its root's font size over the normal 17 px (large type, A+: 22 / 17). */
export function typeScale() { return parseFloat(getComputedStyle(document.documentElement).fontSize) / 17 || 1; }
/** `draw()` called each time the page's type (A+) or theme changes while `node` is in the page. */
export function onTypeChange(node, draw) {
  const watch = new MutationObserver(() => { if (!node.isConnected) watch.disconnect(); else draw(); });
  watch.observe(document.documentElement, {attributes: true, attributeFilter: ["class"]});
}

/** A card code as the page writes it everywhere (app.js's cardShort): 10♥, Q♠, Jkr. */
export function cardLabel(code) { return cardShort(code); }

/** The photo ``k`` of a reading: ``image`` (its piles, width and height), ``src``, ``alt``; ``caption`` (whose
 *  photo it is, a line above it; none when empty); ``notes`` numbered;
 *  ``view`` (an object kept by the check view across its renders: the zoom and pan, the frame's height);
 *  ``onCard(pile, card)``, ``onNote(note)``; ``reserve()``: the CSS px a bar held at the window's foot covers (the
 *  Save bar), none if omitted. */
export function photoView({image, src, alt, caption, notes, view, onCard, onNote, reserve = () => 0}) {
  const frame = h("div", {class: "glance-frame"});
  const inner = h("div", {class: "glance-inner"});
  const img = h("img", {src, alt, draggable: "false"});
  const svg = s("svg", {viewBox: `0 0 ${image.width} ${image.height}`, role: "group",
                        "aria-label": "the cards read, each labelled: tap one to correct it (keys: the arrows move between them, left " +
                                      "and right in reading order, up and down to the nearest card above or below)"});
  const outlines = s("g", {class: "outlines"}), pads = s("g", {class: "pads"}), boxes = s("g", {class: "boxes"});
  const labels = s("g", {class: "labels", "aria-hidden": "true"}), pins = s("g", {class: "pins"});
  svg.append(outlines, pads, boxes, labels, pins);
  inner.append(img, svg);
  frame.append(inner);

  let cards = [];  /* {pile, card, box, rect, pad}: in reading order once all are made (readingRows) */
  const outlined = [];  /* {pile, box, kind}: the piles outlined, each around its boxes (image px), its outline's class */
  const all = [];
  for (const pile of image.piles) {
    const kind = pile.kind === "meld" && pile.label.includes("book") ? "book" : (KIND_CLASS[pile.kind] || "loose");
    const own = pile.cards.flatMap(c => c.boxes);
    if (own.length) {
      const o = s("rect", {class: `outline ${kind}`, "data-pile": pile.id});
      o.dataset.box = JSON.stringify(around(own));
      outlined.push({pile, box: around(own), kind});
      o.append(s("title", {}));
      o.firstChild.textContent = `${pile.team}: ${pile.label}`;
      outlines.append(o);
    }
    for (const card of pile.cards) {
      for (const b of card.boxes) {
        const [x1, y1, x2, y2] = b;
        const name = cardName(card.code);
        const rect = s("rect", {class: "hit" + (card.confidence < 0.5 ? " low" : ""), role: "button",
                                "data-card": card.id, "data-code": card.code, x: x1, y: y1, width: x2 - x1, height: y2 - y1});
        const pad = s("rect", {class: "pad", "data-pad": card.id, "aria-hidden": "true"});
        const open = () => onCard(pile, card);
        for (const el of [rect, pad]) el.addEventListener("click", (ev) => { if (!moved) open(); ev.stopPropagation(); });
        rect.addEventListener("keydown", (ev) => {  /* the photo is one stop of Tab: the arrows, Home and End move between its cards */
          if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); open(); return; }
          const to = arrowTarget(ev.key, cards.indexOf(entry), cards.map(c => c.box), rows);
          if (to === undefined) return;
          ev.preventDefault();
          cards[to].rect.focus();
        });
        rect.append(s("title", {}));
        rect.firstChild.textContent = name;
        pads.append(pad);
        const entry = {pile, card, box: b, rect, pad, name};
        cards.push(entry); all.push(b);
      }
    }
  }
  /* the cards in reading order (left to right, the rows top to bottom: cardorder.js), as Tab, the arrows and a
     screen reader go through them; each says where it is in that order */
  const rows = [], ordered = [];  /* readingRows' rows, as places in `cards` */
  for (const row of readingRows(cards.map(c => c.box))) {
    rows.push(row.map((_, j) => ordered.length + j));
    ordered.push(...row.map(k => cards[k]));
  }
  cards = ordered;
  cards.forEach((c, k) => {
    const r = rows.findIndex(row => row.includes(k));
    c.rect.setAttribute("tabindex", k ? "-1" : "0");
    c.rect.setAttribute("aria-label", `${c.name}, ${c.pile.label}: correct it (card ${k + 1} of ${cards.length}, ` +
                                      `row ${r + 1} of ${rows.length})`);
    boxes.append(c.rect);
  });
  /* a pin on each pile of a note on this photo that shows a card ({nt, pile}) */
  const pinned = notes.flatMap(nt => nt.piles.filter(p => p.cards.some(c => c.boxes.length) && image.piles.includes(p))
                                             .map(pile => ({nt, pile})));

  /* -- the view: scale z (CSS px per image px) and the image's offset (x, y) in the frame ------------------------ */
  const st = view;
  let W = 0, H = 0;
  function bounds() {  /* the cards' box with half a card around: what the view opens on */
    if (!all.length) return [0, 0, image.width, image.height];
    const ch = Math.max(...all.map(b => b[3] - b[1]));
    return [Math.max(0, Math.min(...all.map(b => b[0])) - ch), Math.max(0, Math.min(...all.map(b => b[1])) - ch),
            Math.min(image.width, Math.max(...all.map(b => b[2])) + ch), Math.min(image.height, Math.max(...all.map(b => b[3])) + ch)];
  }
  function fitZoom() { const [x1, y1, x2, y2] = bounds(); return Math.min(W / (x2 - x1), H / (y2 - y1)); }
  function minZoom() { return Math.min(W / image.width, H / image.height); }
  function fit() {
    const [x1, y1, x2, y2] = bounds();
    st.z = fitZoom();
    st.x = W / 2 - (x1 + x2) / 2 * st.z; st.y = H / 2 - (y1 + y2) / 2 * st.z;
    st.fitted = true;
  }
  function clamp() {
    st.z = Math.min(Math.max(st.z, minZoom()), Math.max(MAX_ZOOM * fitZoom(), minZoom()));
    const iw = image.width * st.z, ih = image.height * st.z;
    st.x = iw <= W ? (W - iw) / 2 : Math.min(0, Math.max(W - iw, st.x));
    st.y = ih <= H ? (H - ih) / 2 : Math.min(0, Math.max(H - ih, st.y));
  }
  function apply() {
    clamp();
    inner.style.width = `${image.width}px`; inner.style.height = `${image.height}px`;
    inner.style.transform = `translate(${st.x}px, ${st.y}px) scale(${st.z})`;
    frame.dataset.zoom = String(st.z);
    frame.classList.toggle("zoomed", st.z > fitZoom() * 1.05);
    layoutMarks();
  }
  function zoomAt(factor, cx, cy) {
    const z = st.z;
    st.z = z * factor;
    clamp();
    const k = st.z / z;
    st.x = cx - (cx - st.x) * k; st.y = cy - (cy - st.y) * k;
    st.fitted = false;
    apply();
  }

  /* -- marks that keep their size on screen: pads (44 CSS px to a finger), labels, pins, outlines' margin -------- */
  function layoutMarks() {
    const u = 1 / st.z;  /* image px per CSS px */
    const min = 44 * u;
    for (const c of cards) {
      const [x1, y1, x2, y2] = c.box;
      const w = Math.max(x2 - x1, min), hh = Math.max(y2 - y1, min);
      c.pad.setAttribute("x", (x1 + x2) / 2 - w / 2); c.pad.setAttribute("y", (y1 + y2) / 2 - hh / 2);
      c.pad.setAttribute("width", w); c.pad.setAttribute("height", hh);
    }
    for (const o of outlines.children) {
      const [x1, y1, x2, y2] = JSON.parse(o.dataset.box);
      const m = 4 * u;
      o.setAttribute("x", x1 - m); o.setAttribute("y", y1 - m); o.setAttribute("width", x2 - x1 + 2 * m); o.setAttribute("height", y2 - y1 + 2 * m);
      o.setAttribute("rx", 6 * u);
    }
    placeCounts(u, placePins(u, placeLabels(u)));
  }

  function labelNode(c, x, y, w, hh, fs, shown) {
    const g = s("g", {class: "label" + (isRedCode(c.card.code) ? " red" : "") + (shown ? "" : " tapped") + (c === focused ? " focused" : ""),
                      "data-label": c.card.id});
    c.label = g;
    g.append(s("rect", {x, y, width: w, height: hh, rx: hh * 0.25}));
    const t = s("text", {x: x + w / 2, y: y + hh * 0.78, "font-size": fs, "text-anchor": "middle"});
    t.textContent = cardLabel(c.card.code);
    g.append(t);
    return g;
  }

  let tapped = null;  /* the card whose label shows because it was tapped */
  let focused = null;  /* the card focused (by a key): its label marked, shown though it has no room */
  function markFocus(c) {
    for (const l of labels.querySelectorAll(".focused")) l.classList.remove("focused");
    const was = focused;
    focused = c;
    if (c && c.rect.classList.contains("unlabelled") && tapped !== c) { tapped = c; layoutMarks(); }
    else if (!c && was && tapped === was) { tapped = null; layoutMarks(); }  /* its label gone with the focus */
    else if (c && c.label && c.label.isConnected) c.label.classList.add("focused");
  }
  /* each card's label beside its box (above, below, right, left, else over it; at the frame's edge moved in
     along it) where it lies whole in the part of the photo shown and hides no other label or box; the label
     rectangles placed (image px) */
  function placeLabels(u) {
    labels.replaceChildren();
    const fs = LABEL_PX * typeScale() * u, hh = fs * 1.3;
    const [vx1, vy1, vx2, vy2] = shown();
    const inX = (x, w) => Math.min(Math.max(x, vx1), vx2 - w);
    const placed = [];  /* label rectangles, image px */
    const hit = cards.map(c => c.box);
    let labelled = 0;
    const order = cards.slice().sort((a, b) => a.box[1] - b.box[1] || a.box[0] - b.box[0]);
    for (const c of order) {
      const text = cardLabel(c.card.code);
      const w = fs * (0.62 * [...text].length + 0.5);
      const [x1, y1, x2, y2] = c.box;
      c.out = x2 < vx1 || x1 > vx2 || y2 < vy1 || y1 > vy2;
      if (c.out) {  /* out of the part shown: no label at its edge */
        c.rect.classList.add("unlabelled");
        continue;
      }
      let spot = null;
      for (const [x, y] of labelSpots(c.box, w, hh, u, inX)) {
        const r = [x, y, x + w, y + hh];
        if (x < vx1 || y < vy1 || x + w > vx2 || y + hh > vy2) continue;
        if (placed.some(p => overlaps(p, r))) continue;
        if (hit.some(b => b !== c.box && overlaps(b, r))) continue;
        spot = r; break;
      }
      c.rect.classList.toggle("unlabelled", !spot);
      if (spot) { placed.push(spot); labels.append(labelNode(c, spot[0], spot[1], w, hh, fs, true)); labelled += 1; }
    }
    if (tapped && !cards.find(c => c === tapped).rect.classList.contains("unlabelled")) tapped = null;
    if (tapped) {
      const [x1, y1, , y2] = tapped.box;
      const text = cardLabel(tapped.card.code), w = fs * (0.62 * [...text].length + 0.5);
      const y = y1 - hh - u >= vy1 ? y1 - hh - u : Math.min(y2 + u, vy2 - hh);
      labels.append(labelNode(tapped, inX(x1, w), y, w, hh, fs, false));
      placed.push([inX(x1, w), y, inX(x1, w) + w, y + hh]);
    }
    frame.dataset.labelled = `${labelled}/${cards.length}`;
    tellUnlabelled();
    return placed;
  }

  /* each fan's number of cards as scored (cards added by hand too) in a tag beside its outline, "3 cards", else
     where that has no room "×3", whole in the part of the photo shown and hiding no label or pin (`placed`: their
     rectangles, image px, the tags' added and returned): below the outline, above it, inside its foot, on its
     right, on its left (along each side, the tag's middle on it), the first spot hiding no card's box and no other
     pile's outline, else the first hiding no other outline, else the first free of labels; none where no spot is */
  function placeCounts(u, placed) {
    const fs = LABEL_PX * typeScale() * u, hh = fs * 1.3, m = 4 * u;
    const [vx1, vy1, vx2, vy2] = shown();
    const inView = (r) => r[0] >= vx1 && r[1] >= vy1 && r[2] <= vx2 && r[3] <= vy2;
    const boxes = cards.map(c => c.box);
    const free = (r, hides) => !hides.some(b => overlaps(b, r));
    for (const {pile, box, kind} of outlined.filter(o => COUNTED.has(o.pile.kind))) {
      const n = pile.cards.length;
      const [x1, y1, x2, y2] = [box[0] - m, box[1] - m, box[2] + m, box[3] + m];
      const others = outlined.filter(o => o.pile !== pile).map(o => o.box);
      const spotFor = (w) => {
        const xs = [(x1 + x2) / 2, x1, x2, (3 * x1 + x2) / 4, (x1 + 3 * x2) / 4].map(cx => cx - w / 2);
        const ys = [y1, (y1 + y2) / 2, y2].map(cy => cy - hh / 2);
        const spots = [...[y2 + u, y1 - hh - u, y2 - hh - u].flatMap(y => xs.map(x => [x, y])),
                       ...[x2 + u, x1 - w - u].flatMap(x => ys.map(y => [x, y]))]
          .map(([x, y]) => [x, y, x + w, y + hh]).filter(inView);
        return spots.find(r => free(r, [...placed, ...boxes, ...others])) || spots.find(r => free(r, [...placed, ...others]))
          || spots.find(r => free(r, placed));
      };
      const [text, spot] = [`${n} card${n === 1 ? "" : "s"}`, `×${n}`]
        .map(t => [t, spotFor(fs * (0.6 * [...t].length + 0.6))]).find(([, r]) => r) || [];
      if (!spot) continue;
      placed.push(spot);
      const [w, g] = [spot[2] - spot[0], s("g", {class: "count", "data-count": pile.id, "aria-hidden": "true"})];
      g.append(s("rect", {x: spot[0], y: spot[1], width: w, height: hh, rx: hh * 0.25, stroke: LEGEND[kind]}));
      const t = s("text", {x: spot[0] + w / 2, y: spot[1] + hh * 0.78, "font-size": fs, "text-anchor": "middle"});
      t.textContent = text;
      g.append(t);
      labels.append(g);
    }
    return placed;
  }

  /* the part of the photo the frame shows, image px [x1, y1, x2, y2] */
  function shown() {
    if (!W) return [0, 0, image.width, image.height];
    return [Math.max(0, -st.x / st.z), Math.max(0, -st.y / st.z),
            Math.min(image.width, (W - st.x) / st.z), Math.min(image.height, (H - st.y) / st.z)];
  }
  /* each pin inside its pile's outline or beside it (pinSpot); none for a pile out of the frame (zoomed in
     elsewhere); `labelled` (the labels' rectangles, image px) returned with the pins' squares added */
  function placePins(u, labelled) {
    pins.replaceChildren();
    const r = PIN_PX * typeScale() * u, edge = r + 2 * u;
    const [vx1, vy1, vx2, vy2] = shown();
    const taken = [];
    for (const {nt, pile} of pinned) {
      const outline = outlined.find(o => o.pile === pile);
      const [x1, y1, x2, y2] = outline.box;
      if (x2 < vx1 || x1 > vx2 || y2 < vy1 || y1 > vy2) continue;
      const [cx, cy] = pinSpot(outline, r, edge, 4 * u, taken, labelled, shown(), outlined, cards.map(c => c.box));
      taken.push([cx, cy]);
      const g = s("g", {class: "pin" + (nt.problem ? " problem" : ""), tabindex: "0", role: "button", "data-pin": String(nt.n), "data-pile": pile.id,
                        "aria-label": `note ${nt.n}: ${cardsInWords(nt.text)}`});
      g.append(s("circle", {cx, cy, r}));
      const t = s("text", {x: cx, y: cy + r * 0.38, "font-size": r * 1.1, "text-anchor": "middle"});
      t.textContent = String(nt.n);
      g.append(t);
      g.addEventListener("click", (ev) => { ev.stopPropagation(); if (!moved) onNote(nt); });
      g.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); onNote(nt); } });
      pins.append(g);
      labelled = [...labelled, [cx - edge, cy - edge, cx + edge, cy + edge]];
    }
    return labelled;
  }

  /* -- fingers: pinch zooms about its middle, one finger pans once zoomed in; a tap stays a tap -------------------- */
  const down = new Map();
  let moved = false, start = null;
  frame.addEventListener("pointerdown", (ev) => {
    down.set(ev.pointerId, [ev.clientX, ev.clientY]);
    if (down.size === 1) { moved = false; start = [ev.clientX, ev.clientY]; }
  });
  frame.addEventListener("pointermove", (ev) => {
    if (!down.has(ev.pointerId)) return;
    const before = [...down.values()];
    down.set(ev.pointerId, [ev.clientX, ev.clientY]);
    const after = [...down.values()];
    const box = frame.getBoundingClientRect();
    if (after.length >= 2) {
      const d0 = Math.hypot(before[0][0] - before[1][0], before[0][1] - before[1][1]);
      const d1 = Math.hypot(after[0][0] - after[1][0], after[0][1] - after[1][1]);
      const mx = (after[0][0] + after[1][0]) / 2 - box.left, my = (after[0][1] + after[1][1]) / 2 - box.top;
      if (d0 > 0) zoomAt(d1 / d0, mx, my);
      moved = true;
    } else if (frame.classList.contains("zoomed") || st.z > fitZoom() * 1.01) {
      const dx = ev.clientX - before[0][0], dy = ev.clientY - before[0][1];
      if (moved || Math.hypot(ev.clientX - start[0], ev.clientY - start[1]) > 8) {
        moved = true; st.x += dx; st.y += dy; st.fitted = false; apply();
      }
    }
  });
  const up = (ev) => { down.delete(ev.pointerId); };
  frame.addEventListener("pointerup", up);
  frame.addEventListener("pointercancel", up);
  frame.addEventListener("wheel", (ev) => {  /* a mouse or trackpad on a computer */
    if (!ev.ctrlKey && !ev.metaKey) return;
    ev.preventDefault();
    const box = frame.getBoundingClientRect();
    zoomAt(Math.exp(-ev.deltaY / 300), ev.clientX - box.left, ev.clientY - box.top);
  }, {passive: false});
  for (const c of cards) {  /* a box with no room for its label shows it when tapped (the picker opens too) */
    c.rect.addEventListener("pointerup", () => { if (!moved && c.rect.classList.contains("unlabelled")) { tapped = c; layoutMarks(); } });
    c.rect.addEventListener("focus", () => { for (const o of cards) o.rect.tabIndex = o === c ? 0 : -1; into(c); markFocus(c); });
    c.rect.addEventListener("blur", () => markFocus(null));
  }
  /* zoomed in, a card focused by a key out of the part shown is panned to its middle; the frame never scrolls (the
     browser scrolled it to a card focused, shifting the photo from its labels) */
  function into(c) {
    const [x1, y1, x2, y2] = c.box, [vx1, vy1, vx2, vy2] = shown();
    if (x1 >= vx1 && y1 >= vy1 && x2 <= vx2 && y2 <= vy2) return;
    st.x = W / 2 - (x1 + x2) / 2 * st.z; st.y = H / 2 - (y1 + y2) / 2 * st.z; st.fitted = false;
    apply();
  }
  frame.addEventListener("scroll", () => { frame.scrollTop = 0; frame.scrollLeft = 0; });
  onTypeChange(frame, () => { if (W) layoutMarks(); });  /* the labels and pins in the page's type (A+) */

  /* -- the cards in the part shown whose label has no room (large type, a crowded fan), told under the photo: a
     button shows each one's label in turn ------------------------------------------------------------------------ */
  const missing = () => cards.filter(c => !c.out && c.rect.classList.contains("unlabelled"));
  const unlabelledText = h("span", {}), nextUnlabelled = h("button", {type: "button", class: "show-unlabelled", onclick: () => {
    const them = missing();
    if (them.length) { tapped = them[(them.indexOf(tapped) + 1) % them.length]; layoutMarks(); }
  }});
  const unlabelled = h("p", {class: "unlabelled-note", hidden: true}, unlabelledText, " ", nextUnlabelled);
  function tellUnlabelled() {
    const them = missing(), n = them.length;
    unlabelled.hidden = !n;
    unlabelledText.textContent = `${n} of ${cards.length} card${cards.length === 1 ? "" : "s"} ${n === 1 ? "has" : "have"} ` +
      `no room for ${n === 1 ? "its label (a dashed box): tap it" : "their labels (dashed boxes): tap one"}, or zoom in.`;
    const at = them.indexOf(tapped);
    nextUnlabelled.textContent = at < 0 ? (n === 1 ? "Show it" : "Show them one by one") : `Show the next (${at + 1} of ${n} shown)`;
  }

  /* -- the buttons: zoom in, out, back to the cards -------------------------------------------------------------- */
  const centre = () => [W / 2, H / 2];
  const zin = h("button", {type: "button", class: "zoom-in", "aria-label": "zoom in", onclick: () => zoomAt(1.6, ...centre())}, "+");
  const zout = h("button", {type: "button", class: "zoom-out", "aria-label": "zoom out", onclick: () => zoomAt(1 / 1.6, ...centre())}, "−");
  const zfit = h("button", {type: "button", class: "zoom-fit", onclick: () => { fit(); apply(); }}, "All cards");
  const tools = h("div", {class: "glance-tools"}, zout, zin, zfit,
    h("span", {class: "muted"}, "Pinch to zoom; tap a card or a pin (keys: Tab to them, the arrows between cards)."), unlabelled);
  const kinds = [...new Set(image.piles.filter(p => p.box).map(p => p.kind === "meld" && p.label.includes("book") ? "book" : (KIND_CLASS[p.kind] || "loose")))];
  const legend = h("div", {class: "legend", "aria-hidden": "true"}, kinds.map(k => h("span", {class: `outline ${k}`,
    style: `border-color: ${LEGEND[k]}`}, {meld: "meld", book: "book", squared: "squared book", threes: "red threes", left: "left in hand", loose: "loose"}[k])));

  function size() {
    const w = frame.clientWidth;
    if (!w) return;
    const [x1, y1, x2, y2] = bounds();
    const tall = Math.min(window.innerHeight * 0.62, Math.max(w * 0.6, w * (y2 - y1) / (x2 - x1)));
    /* a frame on the page's first screen (the page at its top) ends above the bar at the window's foot, its whole
       height seen at once, with the legend under it where there is room; where that leaves it less than 60% of its
       width high, it keeps its height. Kept for the view's later renders while its width stays (a note over Save
       after a move makes the bar taller for a while: the page does not jump) */
    const held = frame.closest(".photos");  /* 900 px wide and more: one photo held under the header beside the piles */
    if ((!st.frame || st.frame.width !== w) && held && held.children.length === 1 && getComputedStyle(held).position === "sticky") {
      /* it takes the height the window leaves it there, its legend and buttons above the bar, up to the cards' box's
         at its width */
      const room = window.innerHeight - parseFloat(getComputedStyle(held).top) - reserve() - (node.offsetHeight - frame.offsetHeight) - 16;
      st.frame = {width: w, height: Math.round(Math.max(w * 0.6, Math.min(room, w * (y2 - y1) / (x2 - x1))))};
    } else if (!st.frame || st.frame.width !== w) {
      const room = window.innerHeight - reserve() - (frame.getBoundingClientRect().top + window.scrollY) - 8;
      const fits = [room - legend.offsetHeight - 8, room].find(r => r >= w * 0.6);
      st.frame = {width: w, height: Math.round(fits === undefined ? tall : Math.min(tall, fits))};
    }
    frame.style.height = `${st.frame.height}px`;
    const first = !W;
    W = w; H = frame.clientHeight;
    if (first && st.z === undefined || st.fitted) fit();
    apply();
  }
  new ResizeObserver(size).observe(frame);
  requestAnimationFrame(size);
  const node = h("div", {class: "glance"}, caption ? h("p", {class: "photo-caption"}, caption) : null, frame, legend, tools);
  return node;
}

function isRedCode(code) { const su = code.slice(-1); return su === "H" || su === "D" || code === "RJ"; }
