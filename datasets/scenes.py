"""Synthetic Hand and Foot round-end tables: the entry point that generates a scene and writes it.

One scene = one side's cards at the end of a round, photographed from above or at an angle:

* fanned melds of one rank (3–7 cards, twos and jokers among them, repeated identical cards since five or six
  decks are mixed), cascaded down or to the side so every card's top-left index shows;
* squared books: seven cards stacked with small offsets and visible thickness, a marker card on top
  (red natural = clean, black natural = dirty, joker or two = wild);
* a row of red threes, a player's leftover cards fanned in an arc, loose cards, face-down cards;
* clutter: hands, cups, score pads; table textures (felt, wood, cloth, plastic); perspective, rotation at all
  angles, lighting gradients, shadows, glare, blur, noise, white balance, JPEG quality.

:func:`make_scene` runs the steps, each in its own module: the piles on the table
(:mod:`datasets.scene_piles`), where each card lies on a flat canvas (:mod:`datasets.scene_layout`), the canvas
drawn with its instance mask (:mod:`datasets.scene_render`), the camera's homography (:mod:`datasets.scene_camera`),
the photo (:mod:`datasets.scene_photo`) and the corner-index boxes that are visible in it
(:mod:`datasets.scene_labels`). :func:`write_scene` writes the photo, its YOLO labels and its ground truth as a
table layout (the JSON ``scorer`` scores) plus per-card metadata, so the whole pipeline can be evaluated end to
end. Deterministic for a given seed.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import cv2
import numpy as np

from .scene_camera import camera_homography
from .scene_labels import label_cards, yolo_lines
from .scene_layout import place_piles
from .scene_photo import photograph
from .scene_piles import Pile, layout_of, sample_piles
from .scene_render import draw_canvas

if TYPE_CHECKING:  # pragma: no cover
    from .cardart import Deck

SIZES = ((1280, 960), (960, 1280), (1024, 768), (1600, 1200), (1280, 720), (720, 1280))  #: photo (width, height) px


@dataclass
class Scene:
    """One generated scene.

    Attributes:
        image: (H, W, 3) uint8 BGR photo.
        boxes: (n, 4) float32 corner-index boxes, xyxy pixels.
        classes: (n,) int class ids (``vision.classes``).
        cards: per drawn card: code, pile, pile_kind, corners (4x2 image px, top-left first, clockwise),
            visible_frac and its index boxes (:func:`datasets.scene_labels.label_cards`).
        layout: ground-truth layout (``scorer`` JSON).
        design: the deck design(s) used.
        meta: seed, size ([W, H] px), number of piles, full_view and in_frame (every card's corners in the photo).
    """

    image: np.ndarray
    boxes: np.ndarray
    classes: np.ndarray
    cards: list[dict[str, Any]]
    layout: dict[str, Any]
    design: str
    meta: dict[str, Any] = field(default_factory=dict)


def make_scene(seed: int, decks: Sequence[Deck], size: tuple[int, int] | None = None,
               max_piles: int | None = None, full_view: bool | None = None,
               piles: Sequence[Pile] | None = None, clutter: bool = True, joker_marks: float = 0.0,
               joker_boost: float = 1.0, tight_fans: float = 0.0, shown: Sequence[int] | None = None,
               zoom: float = 1.0) -> Scene:
    """Generate one scene, deterministic for ``seed`` and ``decks``.

    Args:
        seed: random seed.
        decks: one or more loaded decks (cards of a scene come from these designs).
        size: output (width, height) in pixels; random from :data:`SIZES` when None.
        max_piles: cap on the number of piles (fewer piles -> larger cards).
        full_view: True frames the whole table (for end-to-end evaluation); False zooms to card widths of
            about 50-300 px, cutting off part of the table (for training); None picks at random (60 % full).
        piles: lay out exactly these piles instead of sampling a table (tests, controlled evaluation).
        clutter: add cups, hands and score pads.
        joker_marks: share of jokers given procedural corner marks (training variety, :mod:`datasets.jokers`);
            at 0 every joker is its deck's art.
        joker_boost: multiplies the chance that a sampled card is a joker
            (:func:`datasets.scene_piles.sample_piles`); at 1 jokers are as common as its shares say.
        tight_fans: share of fanned melds stepped so tightly that suit pips are partly covered
            (:func:`datasets.scene_layout.place_piles`); at 0 every fan steps as players fan.
        shown: with ``piles``, how many of each pile's first cards are drawn (the rest are laid out but not
            drawn, and have no boxes): the same table earlier in a round, every card where it will be
            (``datasets.round_video``). None draws them all. The scene's ``layout`` is of all the piles.
        zoom: the photo's pixels per side times this (after ``size`` is drawn): the same table framed the same way,
            photographed by a sensor with more pixels (a phone's full-resolution photo against a webcam's frame);
            at 1 the photo is ``size``.
    """
    rng = np.random.default_rng(seed)
    W, H = size or SIZES[int(rng.integers(len(SIZES)))]
    W, H = int(round(W * zoom)), int(round(H * zoom))
    if max_piles is None:
        max_piles = int(rng.choice([3, 5, 8, 12, 14], p=[0.15, 0.2, 0.25, 0.25, 0.15]))
    if piles is None:
        piles = sample_piles(rng, max_piles, jokers=all("JK" in d.cards for d in decks), joker_boost=joker_boost)
    scale = 1.0
    placed, (cvw, cvh) = place_piles(piles, decks, rng, scale, joker_marks, tight_fans)
    cvw, cvh = int(math.ceil(cvw)), int(math.ceil(cvh))
    drawn = [True] * len(placed)
    if shown is not None:
        seen: dict[int, int] = {}
        for i, p in enumerate(placed):
            seen[p.pile] = seen.get(p.pile, 0) + 1
            drawn[i] = seen[p.pile] <= shown[p.pile]
    cw = decks[0].back.shape[1] * scale
    canvas, ids = draw_canvas(placed, drawn, (cvw, cvh), rng, cw if clutter else None)

    if full_view is None:
        full_view = bool(rng.random() < 0.6)
    fill = rng.uniform(0.6, 0.98)
    target = None if full_view else float(np.exp(rng.uniform(np.log(50), np.log(300))))
    fp = placed[int(rng.integers(len(placed)))]
    focus = tuple(fp.matrix @ np.array([fp.image.shape[1] / 2, fp.image.shape[0] / 2, 1.0]))
    Hm = camera_homography((cvw, cvh), (W, H), rng, fill, target, card_px=float(decks[0].back.shape[1]),
                           focus=focus)
    image = photograph(canvas, Hm, (W, H), rng)
    boxes, classes, cards = label_cards(placed, drawn, ids, Hm, (W, H))
    design = "+".join(sorted({d.design for d in decks}))
    return Scene(image=image, boxes=boxes, classes=classes, cards=cards, layout=layout_of(piles), design=design,
                 meta={"seed": seed, "size": [W, H], "piles": len(piles), "full_view": full_view,
                       "in_frame": all(all(0 <= x <= W and 0 <= y <= H for x, y in c["corners_px"]) for c in cards)})


def write_scene(scene: Scene, out_dir: Path, name: str, jpeg_quality: int | None = None) -> None:
    """Write ``images/NAME.jpg``, ``labels/NAME.txt`` and ``layouts/NAME.json`` under ``out_dir``."""
    out_dir = Path(out_dir)
    for sub in ("images", "labels", "layouts"):
        (out_dir / sub).mkdir(parents=True, exist_ok=True)
    q = jpeg_quality or int(np.random.default_rng(scene.meta.get("seed", 0) + 7).integers(40, 96))
    cv2.imwrite(str(out_dir / "images" / f"{name}.jpg"), scene.image, [cv2.IMWRITE_JPEG_QUALITY, q])
    H, W = scene.image.shape[:2]
    (out_dir / "labels" / f"{name}.txt").write_text("\n".join(yolo_lines(scene.boxes, scene.classes, W, H)) + "\n")
    doc = {"image": f"{name}.jpg", "design": scene.design, **scene.layout, "cards": scene.cards,
           "image_size": [W, H], "meta": scene.meta}
    (out_dir / "layouts" / f"{name}.json").write_text(json.dumps(doc))
