"""Rendering the deck designs to card images: SVG to BGRA with resvg, one design kind at a time.

A design's kind (``datasets.art_sources``) says how its art is laid out: an aisleriot sheet (one SVG, a 13 x 5
grid of cards), a KDE deck (one SVG, one element per card, found by id and rendered alone), or one SVG file per
card (Kennard's and Aguilar's npm decks). :func:`render_design` gives every card of a design at one width: a
dict of ``"AS"``, ``"10H"`` ..., the jokers (``"JK_red"`` and ``"JK_black"``, or ``"JK"``; none for a design
without) and ``"BACK"`` to (H, W, 4) uint8 BGRA images of one card size. Needs the ``resvg-py`` package.
"""
from __future__ import annotations

import gzip
import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import cv2
import numpy as np

try:  # resvg-py (PyPI) renders these decks correctly and fast; only needed for rendering
    import resvg_py
except ImportError:  # pragma: no cover - reported when a render is attempted
    resvg_py = None

from .art_sources import RANKS, SUITS, _design_path, _root, _Spec


def render_svg(svg_path=None, svg_string=None, width=None, height=None, resources_dir=None) -> np.ndarray:
    """Render SVG to (H, W, 4) uint8 BGRA with resvg."""
    if resvg_py is None:
        raise RuntimeError("rendering card art needs the 'resvg-py' package (pip install resvg-py)")
    kw = {}
    if svg_path is not None:
        kw["svg_path"] = str(svg_path)
    else:
        kw["svg_string"] = svg_string
    if width is not None:
        kw["width"] = int(width)
    if height is not None:
        kw["height"] = int(height)
    if resources_dir is not None:
        kw["resources_dir"] = str(resources_dir)
    png = resvg_py.svg_to_bytes(**kw)
    img = cv2.imdecode(np.frombuffer(bytes(png), np.uint8), cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        raise RuntimeError("resvg returned an unreadable image")
    return img


# Bugs in the art, fixed before rendering: simplistic's 3 of spades index has fill="#none" (an invalid
# colour that browsers ignore but resvg paints black, filling the glyph).
_ART_FIXES = {"simplistic": [('fill="#none"', 'fill="none"')]}


def _render_sheet(path: Path, spec: _Spec, width: int) -> dict[str, np.ndarray]:
    """Aisleriot sheet: 13 x 5 grid, rows club, diamond, heart, spade, then black joker, red joker, back."""
    fixes = _ART_FIXES.get(spec.name)
    if fixes:
        text = gzip.decompress(path.read_bytes()).decode("utf-8")
        for a, b in fixes:
            text = text.replace(a, b)
        sheet = render_svg(svg_string=text, width=13 * width, resources_dir=path.parent)
    else:
        sheet = render_svg(svg_path=path, width=13 * width)
    H, W = sheet.shape[:2]
    ch = H // 5
    cells = {}
    for r, suit in enumerate(SUITS):
        for c, rank in enumerate(RANKS):
            cells[rank + suit] = (r, c)
    cells["JK_black"], cells["JK_red"], cells["BACK"] = (4, 0), (4, 1), (4, 2)
    out = {}
    for key, (r, c) in cells.items():
        y0, x0 = round(r * H / 5), round(c * W / 13)
        out[key] = sheet[y0:y0 + ch, x0:x0 + width]
    # Some sheets (tango) draw cards a few px smaller than the cell: crop all cells to the common card.
    boxes = np.array([_alpha_bbox(im) for im in out.values()])
    x0, y0 = np.median(boxes[:, :2], 0).astype(int)
    x1, y1 = np.median(boxes[:, 2:], 0).astype(int)
    if (x0, y0, x1, y1) != (0, 0, width, ch):
        out = {k: np.ascontiguousarray(v[y0:y1, x0:x1]) for k, v in out.items()}
        out = {k: _resize_to(v, width, round(width * (y1 - y0) / (x1 - x0))) for k, v in out.items()}
    return out


def _alpha_bbox(img: np.ndarray, thr: int = 8) -> tuple[int, int, int, int]:
    ys, xs = np.nonzero(img[:, :, 3] > thr)
    if len(xs) == 0:
        return (0, 0, img.shape[1], img.shape[0])
    return (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)


def _resize_to(img: np.ndarray, w: int, h: int) -> np.ndarray:
    if img.shape[1] == w and img.shape[0] == h:
        return img
    interp = cv2.INTER_AREA if img.shape[1] > w else cv2.INTER_CUBIC
    return cv2.resize(img, (w, h), interpolation=interp)


# KDE decks: every card is one element (id "1_club", "queen_heart", "red_joker", "back") somewhere in the
# document, possibly inside <defs> or off the page. Each card is rendered from a small document holding
# just that element (and what it references), with the viewBox set to the card's bounding box; the box is
# found by rendering once coarsely and once finely, and cached per design.

_SVG_NS = "http://www.w3.org/2000/svg"
_XLINK = "{http://www.w3.org/1999/xlink}href"
_KDE_RANKS = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}
_KDE_SUITS = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}
_REF_RE = re.compile(r"url\(\s*['\"]?#([^)'\"\s]+)")


class _SvgDoc:
    def __init__(self, path: Path):
        data = path.read_bytes()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        self.root = ET.fromstring(data)
        self.parent = {c: p for p in self.root.iter() for c in p}
        self.by_id = {e.get("id"): e for e in self.root.iter() if e.get("id")}
        self.styles = [e for e in self.root.iter() if e.tag == f"{{{_SVG_NS}}}style"]
        self.dir = path.parent

    def _refs(self, el) -> set[str]:
        out = set()
        for e in el.iter():
            for k, v in e.attrib.items():
                if k in (_XLINK, "href") and v.startswith("#"):
                    out.add(v[1:])
                elif "url(" in v:
                    out.update(_REF_RE.findall(v))
        return out

    def card_svg(self, el_id: str, view: tuple[float, float, float, float], w: int, h: int) -> str:
        el = self.by_id[el_id]
        inside = {e.get("id") for e in el.iter() if e.get("id")}
        todo, seen = list(self._refs(el) - inside), set()
        defs_items = []
        while todo:
            rid = todo.pop()
            if rid in seen or rid in inside or rid not in self.by_id:
                continue
            seen.add(rid)
            ref = self.by_id[rid]
            defs_items.append(ref)
            todo.extend(self._refs(ref) - seen)
        root = ET.Element(f"{{{_SVG_NS}}}svg", {
            "viewBox": " ".join(f"{v:.4f}" for v in view), "width": str(w), "height": str(h),
            "preserveAspectRatio": "none"})
        defs = ET.SubElement(root, f"{{{_SVG_NS}}}defs")
        for s in self.styles:
            defs.append(s)
        for d in defs_items:
            defs.append(d)
        # ancestors' transforms and inherited presentation attributes, outermost first
        chain = []
        p = self.parent.get(el)
        while p is not None and p is not self.root:
            if p.tag == f"{{{_SVG_NS}}}g":
                chain.append(p)
            elif p.tag != f"{{{_SVG_NS}}}defs":
                chain.append(None)
            p = self.parent.get(p)
        host = root
        for anc in reversed(chain):
            if anc is None:
                continue
            attrs = {k: v for k, v in anc.attrib.items() if k in ("transform", "style", "fill", "stroke",
                                                                 "opacity", "font-family", "font-size")}
            host = ET.SubElement(host, f"{{{_SVG_NS}}}g", attrs)
        host.append(el)
        return ET.tostring(root, encoding="unicode")

    def page(self) -> tuple[float, float, float, float]:
        vb = self.root.get("viewBox")
        if vb:
            x, y, w, h = (float(v) for v in re.split(r"[\s,]+", vb.strip()))
            return x, y, w, h

        def num(s):
            m = re.match(r"\s*([0-9.eE+-]+)\s*([a-z%]*)", s or "")
            v = float(m.group(1)) if m else 1000.0
            return v * {"pt": 4 / 3, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96.0}.get(m.group(2) if m else "", 1.0)

        return 0.0, 0.0, num(self.root.get("width")), num(self.root.get("height"))

    def bbox(self, el_id: str) -> tuple[float, float, float, float]:
        """Visible bounding box of an element in root user units, by rendering (coarse, then fine)."""
        px, py, pw, ph = self.page()
        view = (px - pw, py - ph, 3 * pw, 3 * ph)
        for _ in range(4):
            W = 500
            H = max(1, round(W * view[3] / view[2]))
            img = render_svg(svg_string=self.card_svg(el_id, view, W, H), width=W, height=H, resources_dir=self.dir)
            x0, y0, x1, y1 = _alpha_bbox(img, 2)
            if (img[:, :, 3] > 2).sum() == 0:
                raise RuntimeError(f"element {el_id} renders empty")
            touches = x0 == 0 or y0 == 0 or x1 == W or y1 == H
            sx, sy = view[2] / W, view[3] / H
            bb = (view[0] + x0 * sx, view[1] + y0 * sy, view[0] + x1 * sx, view[1] + y1 * sy)
            if not touches:
                break
            view = (view[0] - view[2], view[1] - view[3], 3 * view[2], 3 * view[3])
        # fine pass: about 1000 px over the card height, with a margin of 2 coarse pixels
        m = 2 * max(sx, sy)
        view = (bb[0] - m, bb[1] - m, bb[2] - bb[0] + 2 * m, bb[3] - bb[1] + 2 * m)
        H = 1000
        W = max(1, round(H * view[2] / view[3]))
        img = render_svg(svg_string=self.card_svg(el_id, view, W, H), width=W, height=H, resources_dir=self.dir)
        x0, y0, x1, y1 = _alpha_bbox(img, 8)
        sx, sy = view[2] / W, view[3] / H
        return (view[0] + x0 * sx, view[1] + y0 * sy, view[0] + x1 * sx, view[1] + y1 * sy)


def _kde_ids(doc: _SvgDoc) -> dict[str, str]:
    ids = {}
    for s in SUITS:
        for r in RANKS:
            ids[r + s] = f"{_KDE_RANKS.get(r, r)}_{_KDE_SUITS[s]}"
    if "red_joker" in doc.by_id and "black_joker" in doc.by_id:
        ids["JK_red"], ids["JK_black"] = "red_joker", "black_joker"
    elif "joker" in doc.by_id:
        ids["JK"] = "joker"
    ids["BACK"] = "back"
    missing = [v for v in ids.values() if v not in doc.by_id]
    if missing:
        raise RuntimeError(f"KDE deck lacks elements {missing[:5]}")
    return ids


def _render_kde(path: Path, spec: _Spec, width: int, bbox_cache: Path) -> dict[str, np.ndarray]:
    doc = _SvgDoc(path)
    ids = _kde_ids(doc)
    boxes = {}
    if bbox_cache.exists():
        boxes = {k: tuple(v) for k, v in json.loads(bbox_cache.read_text()).items()}
    if set(boxes) != set(ids):
        boxes = {k: doc.bbox(v) for k, v in ids.items()}
        bbox_cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = bbox_cache.with_name(f".{bbox_cache.name}.{os.getpid()}")
        tmp.write_text(json.dumps(boxes))
        os.replace(tmp, bbox_cache)
    # one card size for the deck: the median face box, centred on each card's own box
    faces = np.array([b for k, b in boxes.items() if k != "BACK"])
    cw = float(np.median(faces[:, 2] - faces[:, 0]))
    chh = float(np.median(faces[:, 3] - faces[:, 1]))
    height = round(width * chh / cw)
    out = {}
    for k, el_id in ids.items():
        x0, y0, x1, y1 = boxes[k]
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        view = (cx - cw / 2, cy - chh / 2, cw, chh)
        img = render_svg(svg_string=doc.card_svg(el_id, view, width, height), width=width, height=height,
                      resources_dir=doc.dir)
        out[k] = img
    return out


def _svg_file_sized(path: Path) -> str:
    """SVG text of a file with root width/height replaced by the viewBox size (resvg rejects '2.5in')."""
    s = path.read_text(encoding="utf-8")
    m = re.search(r"<svg\b[^>]*>", s)
    tag = m.group(0)
    vb = re.search(r'viewBox="([^"]+)"', tag)
    if vb:
        _, _, w, h = (float(v) for v in re.split(r"[\s,]+", vb.group(1).strip()))
        new = re.sub(r'\s(width|height)="[^"]*"', "", tag)
        new = new[:-1].rstrip("/") + f' width="{w:g}" height="{h:g}"' + (" />" if tag.endswith("/>") else ">")
        s = s[:m.start()] + new + s[m.end():]
    return s


def _round_corners(img: np.ndarray, radius_frac: float = 0.06) -> np.ndarray:
    h, w = img.shape[:2]
    r = max(1, round(radius_frac * w))
    mask = np.zeros((h * 4, w * 4), np.uint8)
    R = 4 * r
    cv2.rectangle(mask, (R, 0), (4 * w - 1 - R, 4 * h - 1), 255, -1)
    cv2.rectangle(mask, (0, R), (4 * w - 1, 4 * h - 1 - R), 255, -1)
    for cx, cy in ((R, R), (4 * w - 1 - R, R), (R, 4 * h - 1 - R), (4 * w - 1 - R, 4 * h - 1 - R)):
        cv2.circle(mask, (cx, cy), R, 255, -1, lineType=cv2.LINE_AA)
    mask = cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA)
    out = img.copy()
    out[:, :, 3] = (out[:, :, 3].astype(np.uint16) * mask // 255).astype(np.uint8)
    return out


def _render_files(files: dict[str, Path], width: int, rounded: bool) -> dict[str, np.ndarray]:
    out = {k: render_svg(svg_string=_svg_file_sized(p), width=width, resources_dir=p.parent) for k, p in files.items()}
    faces = [v for k, v in out.items() if k not in ("BACK",) and not k.startswith("JK")]
    h = int(np.median([v.shape[0] for v in faces]))
    out = {k: _resize_to(v, width, h) for k, v in out.items()}
    if rounded:
        out = {k: _round_corners(v) for k, v in out.items()}
    return out


def _render_kennard(folder: Path, width: int) -> dict[str, np.ndarray]:
    files = {}
    for s in SUITS:
        for r in RANKS:
            files[r + s] = folder / f"{'T' if r == '10' else r}{s}.svg"
    files["JK"] = folder / "2J.svg"
    files["BACK"] = folder.parent / "back.svg"
    return _render_files(files, width, rounded=False)


def _render_aguilar(folder: Path, width: int) -> dict[str, np.ndarray]:
    num = {"A": "1", "J": "11", "Q": "12", "K": "13"}
    files = {r + s: folder / f"{num.get(r, r)}{s.lower()}.svg" for s in SUITS for r in RANKS}
    files["JK"] = folder / "joker.svg"
    files["BACK"] = folder / "back.svg"  # square in the package: stretched to the card's shape
    return _render_files(files, width, rounded=True)


def render_design(spec: _Spec, width: int, cache_dir) -> dict[str, np.ndarray]:
    """Every card of the design ``spec``, ``width`` px wide, from its art in the cache ``cache_dir`` (None: the
    default cache): {key: (H, W, 4) uint8 BGRA}, keys as in the module docstring. A KDE deck's card boxes are
    cached in ``<cache>/cardart/rendered/<design>/bboxes.json``. Raises RuntimeError for an unknown design kind
    or when resvg cannot render (or is missing)."""
    path = _design_path(spec, cache_dir)
    if spec.kind == "sheet":
        return _render_sheet(path, spec, width)
    if spec.kind == "kde":
        return _render_kde(path, spec, width, _root(cache_dir) / "rendered" / spec.name / "bboxes.json")
    if spec.kind == "kennard":
        return _render_kennard(path, width)
    if spec.kind == "aguilar":
        return _render_aguilar(path, width)
    raise RuntimeError(f"unknown design kind {spec.kind}")
