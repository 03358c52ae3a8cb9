"""vision.stack_edges: a single card's outline off its own centre, and check_stacks keeping such a card a marker."""

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from vision.config import DEFAULT  # noqa: E402
from vision.photo_checks import check_stacks  # noqa: E402
from vision.piles import MARKER_NOTE  # noqa: E402
from vision.stack_edges import stack_offset  # noqa: E402
from vision.types import CardInstance, Pile, PileKind  # noqa: E402


def _table(angle_deg: float, stuck_out: float = 0.0, height: float = 200.0, center=(320.0, 300.0)):
    """A white card (aspect 0.69) turned by ``angle_deg`` on a dark table, over a grey card sticking out
    ``stuck_out`` card heights past its bottom edge (0: none), and the card from its two index centres."""
    w, h = 0.69 * height, height
    a = np.radians(angle_deg)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    img = np.full((600, 640, 3), 40, np.uint8)
    if stuck_out:
        under = (local + [0, stuck_out * h]) @ R.T + center
        cv2.fillConvexPoly(img, under.round().astype(np.int32), (200, 200, 200))
    cv2.fillConvexPoly(img, (local @ R.T + center).round().astype(np.int32), (255, 255, 255))
    idx = np.array([[-w / 2 + 0.094 * w, -h / 2 + 0.132 * h], [w / 2 - 0.094 * w, h / 2 - 0.132 * h]])
    return img, CardInstance("KH", (0, 1), idx @ R.T + center, 0.1 * h, 1.0, h)


@pytest.mark.parametrize("angle", [0.0, 30.0, 90.0, -120.0])
def test_a_card_alone_is_on_its_centre_and_a_stack_sticks_out(angle):
    img, card = _table(angle)
    assert stack_offset(img, *card.centers) < 0.015
    img, card = _table(angle, stuck_out=0.06)
    assert 0.045 < stack_offset(img, *card.centers) < 0.075


def test_a_neighbour_beside_the_card_is_not_taken_for_a_stack():
    img, card = _table(0.0)
    img[:, 320 + 90:] = 230  # something bright beside the card's right long side: that axis is not compared
    assert stack_offset(img, *card.centers) < 0.015
    img[300 + 110:] = 230  # and below its bottom short side: neither axis is
    assert np.isnan(stack_offset(img, *card.centers))


class _Checker:
    def __init__(self, p: float):
        self.p = p

    def p_stack(self, image, cards):
        return np.full(len(cards), self.p, np.float32)


@pytest.mark.parametrize("p, stuck_out, kind", [(0.3, 0.06, PileKind.SQUARED_BOOK), (0.3, 0.0, PileKind.LOOSE),
                                                (0.1, 0.06, PileKind.LOOSE)])
def test_check_stacks_keeps_an_unsure_loose_card_a_marker_by_its_outline(p, stuck_out, kind):
    img, card = _table(20.0, stuck_out)
    pile = Pile(PileKind.SQUARED_BOOK, (card,), (MARKER_NOTE.format(code="KH"),))
    (out,) = check_stacks([pile], img, _Checker(p), config=DEFAULT.replace(**{"stacks.edge_p_min": 0.2}))
    assert out.kind is kind
    assert ("cards seem to stick out from under it" in out.notes[-1]) == (kind is PileKind.SQUARED_BOOK)


def test_the_outline_is_not_asked_by_default():
    img, card = _table(20.0, 0.06)
    pile = Pile(PileKind.SQUARED_BOOK, (card,), (MARKER_NOTE.format(code="KH"),))
    assert check_stacks([pile], img, _Checker(0.3))[0].kind is PileKind.LOOSE


def test_a_profile_running_off_the_photo_is_not_compared():
    img, card = _table(0.0, 0.06, center=(320.0, 440.0))  # the card's bottom profile ends below the photo
    img = img[:560]
    v = stack_offset(img, *card.centers)
    assert np.isnan(v) or v < 0.015  # the long sides alone: centred
