"""The index reader: crop geometry, code mapping, and the shipped model reading true boxes of a rendered table."""

from pathlib import Path

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from vision.classes import RANKS, code_of, p_rank_colour  # noqa: E402
from vision.models.crops import INPUT, WINDOW, square_crop  # noqa: E402
from vision.models.reader import DEFAULT_READER  # noqa: E402


def test_code_of():
    assert code_of(RANKS.index("K"), 1) == "KH" and code_of(RANKS.index("10"), 3) == "10C"
    assert code_of(RANKS.index("JK"), 2) == "JK" and code_of(RANKS.index("none"), 0) is None


def test_a_reading_is_as_sure_as_its_rank_and_colour():
    """A hidden suit pip costs nothing between two suits of one colour, and everything between colours."""
    rank_p = np.zeros((4, len(RANKS)), np.float32)
    rank_p[:, RANKS.index("J")] = 0.9
    rank_p[3] = 0
    rank_p[3, RANKS.index("JK")] = 0.8
    suit_p = np.array([[0.5, 0.0, 0.0, 0.5],    # spade or club: black for sure
                       [0.4, 0.3, 0.3, 0.0],    # spade read, but red is likelier
                       [0.0, 0.5, 0.5, 0.0],    # heart or diamond
                       [0.25, 0.25, 0.25, 0.25]], np.float32)  # a joker has no suit
    rank = rank_p.argmax(1)
    p = p_rank_colour(rank_p, suit_p, rank, suit_p.argmax(1))
    assert np.allclose(p, [0.9, 0.9 * 0.4, 0.9, 0.8])


def test_square_crop_is_centred_and_sized():
    img = np.zeros((100, 200, 3), np.uint8)
    img[40:60, 90:110] = 255  # a white 20 x 20 square
    crop = square_crop(img, (90, 40, 110, 60), WINDOW, INPUT)
    assert crop.shape == (INPUT, INPUT, 3)
    white = np.argwhere(crop[:, :, 0] > 127)
    assert abs(white.mean(0) - (INPUT - 1) / 2).max() < 1.5  # the box sits in the middle
    side = white[:, 0].max() - white[:, 0].min() + 1
    assert abs(side - INPUT / WINDOW) <= 2  # the box fills 1 / WINDOW of the crop
    edge = square_crop(img, (-10, -10, 10, 10), WINDOW, INPUT)  # outside the image: border replicated
    assert edge.shape == (INPUT, INPUT, 3)


def test_square_crop_turns_about_the_box_centre():
    img = np.zeros((100, 200, 3), np.uint8)
    img[48:52, 100:120] = 255  # a thin bar from the box centre (100, 50) to the right
    box = (80, 30, 120, 70)
    flat = np.argwhere(square_crop(img, box, 1.0, INPUT)[:, :, 0] > 127)
    turned = np.argwhere(square_crop(img, box, 1.0, INPUT, np.pi / 2)[:, :, 0] > 127)
    assert np.ptp(flat[:, 1]) > 3 * np.ptp(flat[:, 0])  # lying along x
    assert np.ptp(turned[:, 0]) > 3 * np.ptp(turned[:, 1])  # a quarter turn: along y
    assert abs(turned[:, 1].mean() - (INPUT - 1) / 2) < 1.5  # still through the centre


def test_missing_reader_model(tmp_path):
    pytest.importorskip("onnxruntime")
    from vision.models.reader import IndexReader

    with pytest.raises(FileNotFoundError):
        IndexReader(tmp_path / "nope.onnx")


@pytest.mark.skipif(not Path(DEFAULT_READER).is_file(), reason="no shipped reader model")
def test_shipped_reader_reads_true_boxes_of_a_rendered_table(anglo_deck):
    """Wrapper test (colour order, crop geometry, output mapping): on a training design the reader must name
    most true corner boxes; accuracy proper is measured by scripts/evaluate.py (models/README.md)."""
    pytest.importorskip("onnxruntime")
    from datasets.scene_piles import Pile
    from datasets.scenes import make_scene
    from vision.classes import CLASS_NAMES
    from vision.models.reader import IndexReader

    deck = anglo_deck
    scene = make_scene(3, [deck], size=(1280, 960), full_view=True, clutter=False,
                       piles=[Pile("meld", ["KH", "KS", "KD", "KC", "KH"]), Pile("meld", ["9H", "9S", "2D"]),
                              Pile("red_threes", ["3H", "3D"]), Pile("meld", ["AS", "AC", "JK"])])
    codes, p, p_none = IndexReader().read(scene.image, scene.boxes)
    truth = [CLASS_NAMES[c] for c in scene.classes]
    right = np.mean([a == b for a, b in zip(codes, truth)])
    assert len(codes) == len(truth) and ((p >= 0) & (p <= 1)).all()
    assert right >= 0.6, f"reader named {right:.0%} of {len(truth)} true boxes"


def test_export_reader_names_what_is_wrong_with_a_member(tmp_path):
    """scripts/export_reader.py: each member is WEIGHTS:WIDTH; a bad one is refused with its reason."""
    import argparse
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    from export_reader import parse_member

    weights = tmp_path / "reader.pt"
    weights.write_bytes(b"")
    assert parse_member(f"{weights}:1.5") == (weights, 1.5)
    for bad, reason in ((str(weights), "WEIGHTS:WIDTH"), (f"{weights}:wide", "positive number"),
                        (f"{weights}:0", "positive number"), (f"{tmp_path / 'none.pt'}:1.5", "no such")):
        with pytest.raises(argparse.ArgumentTypeError, match=reason):
            parse_member(bad)


def test_multi_label_scoring_adds_each_boxs_next_likeliest_codes():
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    from evaluate import with_next_codes

    from vision.classes import class_id
    from vision.types import Detections

    class Reader:  # rank 8 (P 0.6) or 9 (0.3) or 6 (0.1); suit hearts (0.7) or diamonds (0.3)
        def probabilities(self, image, boxes):
            rank_p = np.zeros((len(boxes), len(RANKS)))
            rank_p[:, RANKS.index("8")], rank_p[:, RANKS.index("9")], rank_p[:, RANKS.index("6")] = 0.6, 0.3, 0.1
            return rank_p, np.tile([0.0, 0.7, 0.3, 0.0], (len(boxes), 1))

    det = Detections(np.array([[0, 0, 10, 10]], np.float32), np.array([0.8], np.float32),
                     np.array([class_id("8H")], np.int64))
    out = with_next_codes(det, np.zeros((20, 20, 3), np.uint8), Reader(), 3)
    assert out.codes == ["8H", "9H", "8D"]  # P 0.42, then 0.21 and 0.18
    assert np.allclose(out.confidence, [0.8, 0.4, 0.8 * 0.18 / 0.42], atol=1e-5)
    assert with_next_codes(det, np.zeros((20, 20, 3), np.uint8), Reader(), 1).codes == ["8H"]
