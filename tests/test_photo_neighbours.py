"""scripts/photo_neighbours.py on a tiny generated table: its crops' similarity either way up, and its rows."""

import sys
from argparse import Namespace
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("cv2")
pytest.importorskip("resvg_py")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from photo_neighbours import descriptors, matched, photo_rows  # noqa: E402

from datasets.scene_labels import true_detections  # noqa: E402
from datasets.scene_piles import Pile  # noqa: E402
from datasets.scenes import make_scene  # noqa: E402
from vision.classes import CLASS_NAMES, RANKS, SUIT_CODES  # noqa: E402
from vision.types import Detections  # noqa: E402


def _scene(deck):
    piles = [Pile("meld", ["7H", "7C", "7S", "7D"]), Pile("meld", ["KH", "KS", "KD", "KC", "JK"])]
    scene = make_scene(4, [deck], size=(1280, 960), full_view=True, piles=piles, clutter=False)
    return {"image": "t.jpg", "design": scene.design, **scene.layout, "cards": scene.cards}, scene.image


def _read(dets: Detections, unsure: int) -> Detections:
    """The true boxes read surely as their own codes, but box ``unsure`` read with even odds."""
    rank_p, suit_p = np.zeros((len(dets), len(RANKS)), np.float32), np.zeros((len(dets), 4), np.float32)
    for k, c in enumerate(dets.class_id):
        code = CLASS_NAMES[c]
        rank_p[k, RANKS.index("JK" if code == "JK" else code[:-1])] = 1
        suit_p[k, 0 if code == "JK" else SUIT_CODES.index(code[-1])] = 1
    rank_p[unsure], suit_p[unsure] = 1 / len(RANKS), 0.25
    return Detections(dets.xyxy, dets.confidence, dets.class_id, {"rank_p": rank_p, "suit_p": suit_p})


def test_a_crop_matches_itself_turned_a_half_turn_best(anglo_deck):
    doc, image = _scene(anglo_deck)
    boxes = true_detections(doc)[0].xyxy
    h, w = image.shape[:2]
    turned = np.stack([w - 1 - boxes[:, 2], h - 1 - boxes[:, 3], w - 1 - boxes[:, 0], h - 1 - boxes[:, 1]], 1)
    a, b = descriptors(image, boxes, "hog"), descriptors(image[::-1, ::-1].copy(), turned, "hog")
    sim = np.maximum(a[0] @ b[0].T, a[1] @ b[0].T)
    assert (sim.argmax(1) == np.arange(len(boxes))).all()  # itself before any other box (not 1: the crop's
    assert np.diag(sim).min() > 0.8                         # sampling shifts half a pixel when turned)


def test_rows_name_each_box_and_its_nearest_sure_box(anglo_deck):
    doc, image = _scene(anglo_deck)
    dets = true_detections(doc)[0]
    args = Namespace(match=0.5, sure=0.9, how="hog")
    rows, jokers = photo_rows(doc, image, _read(dets, 0), args)
    assert len(rows) == len(dets)
    assert [r["sure"] for r in rows] == [False] + [True] * (len(dets) - 1)
    assert all(r["own"] == r["true"] for r in rows[1:]) and rows[0]["true"] == CLASS_NAMES[dets.class_id[0]]
    assert all(-1 <= r["sim"] <= 1 + 1e-5 and r["nn"] is not None for r in rows)
    assert {k for k, _, _ in jokers} <= {"JK", "other", "none"} and len(jokers) == len(dets) - sum(
        CLASS_NAMES[c] == "JK" for c in dets.class_id)


def test_a_crop_slid_over_its_own_grown_crop_matches_best(anglo_deck):
    doc, image = _scene(anglo_deck)
    sim = matched(image, true_detections(doc)[0].xyxy)
    assert (sim.argmax(1) == np.arange(len(sim))).all() and np.diag(sim).min() > 0.9
