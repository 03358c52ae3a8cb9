"""scripts/fan_edges.py's records on a tiny generated table, from true boxes: each meld's three counts."""

import sys
from pathlib import Path

import pytest

pytest.importorskip("cv2")
pytest.importorskip("resvg_py")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from fan_edges import meld_records, summarise  # noqa: E402
from sides import read_side  # noqa: E402

from datasets.scene_labels import true_detections  # noqa: E402
from datasets.scene_piles import Pile  # noqa: E402
from datasets.scenes import make_scene  # noqa: E402
from vision.config import DEFAULT  # noqa: E402


def _scene(deck):
    piles = [Pile("meld", ["7H", "7C", "7S", "7D", "7H"]), Pile("meld", ["KH", "KS", "KD", "KC"])]
    scene = make_scene(4, [deck], size=(1280, 960), full_view=True, piles=piles, clutter=False)
    return {"image": "t.jpg", "design": scene.design, **scene.layout, "cards": scene.cards}, scene.image


def test_every_meld_read_right_has_its_true_count(anglo_deck):
    doc, image = _scene(anglo_deck)
    dets, owners = true_detections(doc)
    records = meld_records(doc, read_side(dets, image=image), owners, image, DEFAULT)
    assert sorted((r["true"], r["indices"], r["why"]) for r in records) == [(4, 4, "right"), (5, 5, "right")]
    assert all(r["edges"] in (None, r["indices"]) or r["edges"] > r["indices"] for r in records)
    assert "| right | 2 |" in summarise(records)


def test_a_bottom_card_with_no_index_is_hidden_below(anglo_deck):
    doc, image = _scene(anglo_deck)
    bottom = next(i for i, c in enumerate(doc["cards"]) if c["code"] == "7H")  # the sevens' first card laid
    doc["cards"][bottom] = {**doc["cards"][bottom], "index_boxes_px": []}
    dets, owners = true_detections(doc)
    sevens = next(r for r in meld_records(doc, read_side(dets, image=image), owners, image, DEFAULT)
                  if r["true"] == 5)
    assert (sevens["indices"], sevens["why"], sevens["missing_where"], sevens["n_below"]) == (4, "hidden", ["below"], 1)
