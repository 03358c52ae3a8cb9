"""Procedural deck designs drawn from fonts: many more index styles than the 17 training designs hold.

The index reader and the detector learn what a corner index looks like from the training designs alone, and
read the held-out designs' indices worse (the reader names 84 % of them from their true boxes): 17 designs are
few styles of rank letter and suit pip. A *font deck* is a made-up design, deterministic from its number: the
rank in one of the machine's fonts (family, weight, slant, width and size drawn at random), the suit pip (the
DejaVu suit glyph) below or beside it, both at a random distance from the corner, in random red and black
inks, on a random paper tint with or without a border; pips and a plain court panel in the middle. Its jokers
get the procedural corner marks of :mod:`datasets.jokers`. Measured once (models/HISTORY.md, reader f1): a
fine-tune with 60 of them did not change the reader's run-time accuracy.

Index boxes follow ``datasets.art_indices``'s convention: the box around the rank and its pip, padded by
``art_indices.INDEX_MARGIN`` x the ink height, and the same box turned 180 degrees in the opposite corner. They are
measured on the rendered ink of the index alone, so they are exact for every font.

Designs are named ``font_0``, ``font_1`` ...; ``datasets.generate --font-decks N`` adds the first N to the
training designs.

*Any decks* (``any_0``, ``any_1`` ...; ``datasets.generate --any-decks N``) draw from the wider range of decks a
family may own, on top of a font deck's style: dark paper (near black, navy, bottle green, burgundy) with light
or metallic print (a gold, silver, copper or rose-gold gradient), four-colour suits (black spades, red hearts,
blue diamonds, green clubs) on light or dark paper, tinted paper, and big "jumbo" indices (a rank 15-21 % of the
card's height). :func:`any_style` says which a design got. Rendering needs resvg-py and a font with the four suit glyphs (Debian ``fonts-dejavu-core``).
"""

from __future__ import annotations

from xml.sax.saxutils import escape

import numpy as np

from vision.classes import RANK_CODES

from .art_indices import INDEX_MARGIN
from .art_render import render_svg
from .cardart import CardImage, Deck

PREFIX = "font_"
ANY_PREFIX = "any_"
WIDTH, HEIGHT = 240, 336  #: card face in pixels (aspect 0.71, as a poker card)
SUITS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
#: font families of Debian's fonts-dejavu-core (each also condensed, bold and oblique, but the mono one not
#: condensed); resvg draws no text at all for a family it cannot find, which :func:`font_deck` refuses
FAMILIES = ("DejaVu Sans", "DejaVu Serif", "DejaVu Sans Mono")
#: pip positions of the number cards, (x, y) in [0, 1] of the middle panel
_PIPS = {1: [(0.5, 0.5)], 2: [(0.5, 0), (0.5, 1)], 3: [(0.5, 0), (0.5, 0.5), (0.5, 1)],
         4: [(0, 0), (1, 0), (0, 1), (1, 1)], 5: [(0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)],
         6: [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
         7: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
         8: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)],
         9: [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1)],
         10: [(0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3), (0.5, 5 / 6), (0, 1),
              (1, 1)]}


#: dark papers (RGB)
DARK_PAPERS = ((16, 16, 18), (22, 26, 52), (14, 44, 30), (64, 14, 22), (38, 38, 42))
#: tinted light papers (RGB)
TINTED_PAPERS = ((246, 236, 206), (222, 232, 240), (236, 226, 238), (230, 240, 226))
#: metallic print: the gradient's stops (RGB), dark edge, highlight, body
METALS = {"gold": ((150, 108, 30), (250, 224, 140), (200, 160, 60)),
          "silver": ((130, 130, 138), (248, 248, 252), (186, 186, 196)),
          "copper": ((140, 70, 40), (240, 170, 120), (190, 110, 70)),
          "rose": ((170, 100, 100), (252, 210, 200), (214, 150, 146))}
#: four-colour suits (RGB) on light paper and on dark paper
FOUR_LIGHT = {"S": (20, 20, 24), "H": (200, 20, 30), "D": (20, 70, 190), "C": (20, 130, 50)}
FOUR_DARK = {"S": (235, 235, 240), "H": (250, 90, 90), "D": (110, 170, 255), "C": (110, 220, 120)}


def is_font_design(name: str) -> bool:
    """True for a procedural design name (``font_<n>`` or ``any_<n>``)."""
    return any(name.startswith(p) and name[len(p):].isdigit() for p in (PREFIX, ANY_PREFIX))


def font_designs(n: int) -> list[str]:
    """The first ``n`` procedural font design names."""
    return [f"{PREFIX}{i}" for i in range(n)]


def any_designs(n: int) -> list[str]:
    """The first ``n`` "any deck" design names."""
    return [f"{ANY_PREFIX}{i}" for i in range(n)]


def _gradient(gid: str, stops: tuple) -> str:
    edge, light, body = (_rgb(c) for c in stops)
    return (f'<linearGradient id="{gid}" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="{body}"/>'
            f'<stop offset="0.45" stop-color="{light}"/><stop offset="0.6" stop-color="{body}"/>'
            f'<stop offset="1" stop-color="{edge}"/></linearGradient>')


def any_style(seed: int) -> dict:
    """The style of ``any_<seed>``: a font deck's (:func:`_style`) with ``paper_kind`` (light, tinted, dark),
    ``scheme`` (two, four, metallic, light print), ``big`` (a jumbo index), and per suit its ink (``inks``: an
    SVG fill) and ``ink_bgr`` (a plain BGR colour near it, for the jokers' marks)."""
    st = _style(100_003 + seed)
    rng = np.random.default_rng(7_919 * seed + 5)
    kind = str(rng.choice(["light", "tinted", "dark"], p=[0.35, 0.15, 0.5]))
    if kind == "dark":
        st["paper"] = DARK_PAPERS[int(rng.integers(len(DARK_PAPERS)))]
        scheme = str(rng.choice(["metallic", "light", "four"], p=[0.5, 0.25, 0.25]))
    else:
        if kind == "tinted":
            st["paper"] = TINTED_PAPERS[int(rng.integers(len(TINTED_PAPERS)))]
        scheme = str(rng.choice(["two", "four"], p=[0.5, 0.5]))
    defs, inks = "", {}
    if scheme == "metallic":
        names = list(METALS)
        red, black = (names[int(i)] for i in rng.choice(len(names), 2, replace=bool(rng.random() < 0.4)))
        defs = _gradient("m_red", METALS[red]) + _gradient("m_black", METALS[black])
        inks = {s: "url(#m_red)" if s in "HD" else "url(#m_black)" for s in SUITS}
        rgb = {s: METALS[red if s in "HD" else black][2] for s in SUITS}
    elif scheme == "light":
        rgb = {s: (250, 110, 110) if s in "HD" else (240, 240, 236) for s in SUITS}
    elif scheme == "four":
        rgb = dict(FOUR_DARK if kind == "dark" else FOUR_LIGHT)
    else:
        rgb = {s: st["red"] if s in "HD" else st["black"] for s in SUITS}
    inks = inks or {s: _rgb(c) for s, c in rgb.items()}
    if kind == "dark":
        st["court"] = rgb["S"]
        st["black"] = rgb["S"]  # the border
    big = bool(rng.random() < 0.35)
    if big:
        st["rank_size"] = float(rng.uniform(0.15, 0.21)) * HEIGHT
        st["squeeze"] = float(rng.uniform(0.7, 0.9))
        st["pip_scale"] = float(rng.uniform(0.5, 0.7))
        st["pip_beside"] = False
        st["x"] = float(rng.uniform(0.02, 0.05)) * WIDTH
    st.update(paper_kind=kind, scheme=scheme, big=big, inks=inks, defs=defs,
              ink_bgr={s: tuple(reversed(c)) for s, c in rgb.items()})
    return st


def _style(seed: int) -> dict:
    rng = np.random.default_rng(10_007 * seed + 17)
    red = tuple(int(v) for v in (rng.integers(150, 230), rng.integers(0, 50), rng.integers(0, 60)))
    black = tuple(int(v) for v in rng.integers(0, 50, 3))
    paper = tuple(int(v) for v in rng.integers(228, 256, 3))
    return {
        "family": str(rng.choice(FAMILIES)), "bold": bool(rng.random() < 0.45),
        "italic": bool(rng.random() < 0.12), "condensed": bool(rng.random() < 0.35),
        "rank_size": float(rng.uniform(0.085, 0.14)) * HEIGHT,  # cap height-ish, px
        "squeeze": float(rng.uniform(0.7, 1.15)),  # horizontal scale of the glyphs
        "pip_scale": float(rng.uniform(0.55, 0.95)),  # pip size / rank size
        "pip_beside": bool(rng.random() < 0.12),  # pip right of the rank instead of under it
        "gap": float(rng.uniform(0.0, 0.25)),  # rank-to-pip gap / rank size
        "x": float(rng.uniform(0.035, 0.09)) * WIDTH, "y": float(rng.uniform(0.025, 0.07)) * HEIGHT,
        "red": red, "black": black, "paper": paper,
        "border": bool(rng.random() < 0.5), "radius": float(rng.uniform(0.03, 0.09)) * WIDTH,
        "court": tuple(int(v) for v in rng.integers(40, 220, 3)),
    }


def _rgb(c: tuple[int, int, int]) -> str:
    return "#%02x%02x%02x" % c


def _index_svg(st: dict, rank: str, suit: str, colour: str) -> tuple[str, str]:
    """The top-left index as SVG elements: (the rank, its suit pip)."""
    size = st["rank_size"] / 0.73  # font size whose capitals stand about rank_size tall
    weight = "bold" if st["bold"] else "normal"
    slant = "italic" if st["italic"] else "normal"
    sx = st["squeeze"] * (0.82 if rank == "10" else 1.0)
    x, y = st["x"], st["y"] + st["rank_size"]
    stretch = "condensed" if st["condensed"] and "Mono" not in st["family"] else "normal"
    font = f'font-family="{st["family"]}" font-weight="{weight}" font-style="{slant}" font-stretch="{stretch}"'
    rank_svg = (f'<g transform="translate({x:.1f},{y:.1f}) scale({sx:.3f},1)"><text x="0" y="0" {font} '
                f'font-size="{size:.1f}" fill="{colour}" text-anchor="start">{escape(rank)}</text></g>')
    pip = st["rank_size"] * st["pip_scale"] / 0.75
    if st["pip_beside"]:
        px, py = x + st["rank_size"] * 0.75 * sx * len(rank) + st["gap"] * st["rank_size"], y
    else:
        px, py = x + st["rank_size"] * 0.05, y + st["rank_size"] * (st["gap"] + 0.15) + pip * 0.75
    pip_svg = (f'<text x="{px:.1f}" y="{py:.1f}" font-family="DejaVu Sans" font-size="{pip:.1f}" '
               f'fill="{colour}">{SUITS[suit]}</text>')
    return rank_svg, pip_svg


def _face_svg(st: dict, rank: str, suit: str, colour: str) -> str:
    """Pips or a court panel in the middle of the card."""
    x0, x1 = 0.34 * WIDTH, 0.66 * WIDTH  # clear of the corner indices
    y0, y1 = 0.24 * HEIGHT, 0.76 * HEIGHT
    if rank in ("J", "Q", "K"):
        letter = min(st["rank_size"] * 2.2, 0.33 * HEIGHT)
        return (f'<rect x="{0.22 * WIDTH:.1f}" y="{0.18 * HEIGHT:.1f}" width="{0.56 * WIDTH:.1f}" '
                f'height="{0.64 * HEIGHT:.1f}" fill="none" stroke="{_rgb(st["court"])}" stroke-width="3"/>'
                f'<text x="{WIDTH / 2:.1f}" y="{HEIGHT / 2 + letter * 0.35:.1f}" font-family="{st["family"]}" '
                f'font-size="{letter:.1f}" fill="{_rgb(st["court"])}" text-anchor="middle">{rank}</text>')
    n = 1 if rank == "A" else int(rank)
    pip = (0.28 if n == 1 else 0.13) * WIDTH
    out = []
    for fx, fy in _PIPS[n]:
        cx, cy = x0 + fx * (x1 - x0), y0 + fy * (y1 - y0)
        out.append(f'<text x="{cx:.1f}" y="{cy + pip * 0.35:.1f}" font-family="DejaVu Sans" font-size="{pip:.1f}" '
                   f'fill="{colour}" text-anchor="middle">{SUITS[suit]}</text>')
    return "".join(out)


def _svg(st: dict, body: str) -> str:
    border = f' stroke="{_rgb(st["black"])}" stroke-width="2"' if st["border"] else ""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}"><defs>{st.get("defs", "")}</defs><rect x="1" y="1" width="{WIDTH - 2}" height="{HEIGHT - 2}" '
            f'rx="{st["radius"]:.1f}" fill="{_rgb(st["paper"])}"{border}/>{body}</svg>')


def _ink_box(layer: np.ndarray) -> tuple[float, float, float, float] | None:
    ys, xs = np.nonzero(layer[:, :, 3] > 40)
    if not len(xs):
        return None
    return float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)


def _layer(st: dict, body: str) -> str:
    """SVG of ``body`` alone on a transparent card-sized page (to measure its ink)."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}"><defs>{st.get("defs", "")}</defs>{body}</svg>')


def _card(st: dict, rank: str, suit: str) -> CardImage:
    colour = st["inks"][suit] if "inks" in st else _rgb(st["red"] if suit in "HD" else st["black"])
    rank_svg, pip_svg = _index_svg(st, rank, suit, colour)
    index = rank_svg + pip_svg
    turned = f'<g transform="rotate(180 {WIDTH / 2} {HEIGHT / 2})">{index}</g>'
    image = render_svg(svg_string=_svg(st, index + turned + _face_svg(st, rank, suit, colour)))
    ink = _ink_box(render_svg(svg_string=_layer(st, index)))
    if ink is None or _ink_box(render_svg(svg_string=_layer(st, rank_svg))) is None:
        raise RuntimeError(f"font deck: the rank of {rank}{suit} rendered no ink (is {st['family']} installed? "
                           "Debian fonts-dejavu-core)")
    m = INDEX_MARGIN * (ink[3] - ink[1])
    x1, y1, x2, y2 = max(0.0, ink[0] - m), max(0.0, ink[1] - m), min(WIDTH, ink[2] + m), min(HEIGHT, ink[3] + m)
    return CardImage(rank + suit, image, [(x1, y1, x2, y2), (WIDTH - x2, HEIGHT - y2, WIDTH - x1, HEIGHT - y1)])


def _back(st: dict) -> np.ndarray:
    c = _rgb(st["court"])
    return render_svg(svg_string=_svg(st, f'<rect x="12" y="12" width="{WIDTH - 24}" height="{HEIGHT - 24}" '
                                       f'rx="8" fill="{c}"/>'))


def font_deck(name: str) -> Deck:
    """Render the procedural design ``name`` (``font_<n>``, or ``any_<n>``: :func:`any_style`): 52 cards and a
    red and a black joker.

    Returns:
        a :class:`datasets.cardart.Deck` of (336, 240, 4) BGRA faces, index boxes in the art_indices convention;
        the jokers carry procedural corner marks (:func:`datasets.jokers.procedural_joker`).

    Raises:
        ValueError: ``name`` is not a procedural design name.
        RuntimeError: resvg-py is missing, or a font renders no ink.
    """
    from .jokers import procedural_joker

    if not is_font_design(name):
        raise ValueError(f"not a procedural font design: {name!r} (expected font_<n> or any_<n>)")
    any_deck = name.startswith(ANY_PREFIX)
    seed = int(name[len(ANY_PREFIX if any_deck else PREFIX):])
    st = any_style(seed) if any_deck else _style(seed)
    cards = {r + s: [_card(st, r, s)] for s in SUITS for r in RANK_CODES}
    rng = np.random.default_rng(seed)
    word = min(st["rank_size"] * 1.3, 62.0)
    blank = render_svg(svg_string=_svg(st, f'<text x="{WIDTH / 2:.1f}" y="{HEIGHT / 2 + word * 0.35:.1f}" '
                                        f'font-family="{st["family"]}" font-size="{word:.1f}" text-anchor="middle" '
                                        f'fill="{_rgb(st["court"])}">JOKER</text>'))
    jokers = []
    for colour in ("red", "black"):
        own = [st["ink_bgr"]["H" if colour == "red" else "S"]] if any_deck else None
        jokers.append(procedural_joker(CardImage("JK", blank.copy(), [], colour), cards["AS"][0].index_boxes[0], rng,
                                       own))
    cards["JK"] = jokers
    return Deck(name, cards, _back(st), (WIDTH, HEIGHT))
