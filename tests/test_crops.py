"""datasets.crops: the index reader's crops, and hard negatives (found boxes on no index)."""

import json

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from datasets.crops import NEGATIVE, STORE, _near_card_corner, hard_negatives  # noqa: E402
from vision.types import Detections  # noqa: E402

# a card 100 px wide and 140 px tall, upright at (100, 100), and the same card turned a quarter turn
UPRIGHT = {"code": "KH", "corners_px": [[100, 100], [200, 100], [200, 240], [100, 240]], "index_boxes_px": []}
TURNED = {"code": "KH", "corners_px": [[500, 100], [500, 200], [360, 200], [360, 100]], "index_boxes_px": []}


def test_corner_zones_are_the_four_corners_of_each_card():
    points = np.array([[110, 110],   # upright card, top-left corner
                       [190, 230],   # its bottom-right corner
                       [190, 110],   # its top-right corner (four-index decks print one there)
                       [150, 170],   # its middle: a figure or pips
                       [150, 110],   # top edge, middle: pips
                       [300, 300],   # the table
                       [490, 110],   # turned card: its top-left corner (now at the top right)
                       [430, 150]], np.float64)  # turned card's middle
    assert _near_card_corner(points, [UPRIGHT, TURNED]).tolist() == [True, True, True, False, False, False, True,
                                                                     False]


class _FixedDetector:
    """A detector with a fixed input size (one pass) that always finds the same boxes."""

    conf, iou, fixed_size = 0.5, 0.5, (640, 640)

    def __init__(self, boxes):
        self.boxes = np.asarray(boxes, np.float32)

    def __call__(self, image, imgsz, conf):
        return Detections(self.boxes, np.full(len(self.boxes), 0.3, np.float32), np.zeros(len(self.boxes), np.int64))


def test_hard_negatives_are_found_boxes_on_no_index_and_no_card_corner(tmp_path):
    scenes = tmp_path / "scenes"
    (scenes / "images").mkdir(parents=True)
    (scenes / "layouts").mkdir()
    image = np.full((400, 640, 3), 90, np.uint8)
    image[140:180, 130:170] = 255  # something white in the card's middle: the negative to be cut
    cv2.imwrite(str(scenes / "images" / "s.png"), image)
    card = dict(UPRIGHT, index_boxes_px=[[102, 102, 118, 130]])
    (scenes / "layouts" / "s.json").write_text(json.dumps({"image": "s.png", "cards": [card]}))
    found = [[102, 102, 118, 130],   # the true index
             [104, 106, 120, 134],   # another box on it (IoU with the truth over 0.05)
             [182, 212, 198, 238],   # the card's bottom-right corner (no label there: covered, say)
             [140, 150, 160, 170]]   # the card's middle
    crops, labels = hard_negatives([scenes], _FixedDetector(found))
    assert crops.shape == (1, STORE, STORE, 3) and labels.tolist() == [NEGATIVE]
    assert crops[0, STORE // 2, STORE // 2].min() == 255  # cut where the middle box is
    table = [[300 + 30 * k, 300, 320 + 30 * k, 320] for k in range(3)]  # three more on the table
    assert len(hard_negatives([scenes], _FixedDetector(found + table))[0]) == 4
    assert len(hard_negatives([scenes], _FixedDetector(found + table), per_scene=2)[0]) == 2
