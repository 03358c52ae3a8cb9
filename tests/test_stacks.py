"""The stack checker (vision/photo_checks.py): a single whole card is a squared book's marker or a loose card."""

from pathlib import Path

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from vision.models.crops import STACK_CONTEXT, STACK_INPUT, card_crop  # noqa: E402
from vision.models.stacks import DEFAULT_STACKS  # noqa: E402
from vision.photo_checks import FULL_BOOK, UNCLEAR_BOOK, check_one_corner_cards, check_stacks  # noqa: E402
from vision.piles import MARKER_NOTE  # noqa: E402
from vision.types import CardInstance, Pile, PileKind  # noqa: E402


def _card_on_table(angle_deg: float, height: float = 200.0, center=(320.0, 260.0)):
    """A white card (aspect 0.69) turned by angle_deg on a dark table, and its instance from the two index
    centres (9.4 % of the width and 13.2 % of the height in from the top-left and bottom-right corners)."""
    w, h = 0.69 * height, height
    a = np.radians(angle_deg)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    corners = local @ R.T + center
    img = np.full((520, 640, 3), 40, np.uint8)
    cv2.fillConvexPoly(img, corners.round().astype(np.int32), (255, 255, 255))
    idx = np.array([[-w / 2 + 0.094 * w, -h / 2 + 0.132 * h], [w / 2 - 0.094 * w, h / 2 - 0.132 * h]])
    centers = idx @ R.T + center
    size = 0.1 * h
    return img, CardInstance("KH", (0, 1), centers, size, 1.0, h)


@pytest.mark.parametrize("angle", [0.0, 33.0, 90.0, 145.0, -70.0])
def test_card_crop_turns_the_card_upright_and_centres_it(angle):
    img, card = _card_on_table(angle)
    crop = card_crop(img, card)
    assert crop.shape == (STACK_INPUT, STACK_INPUT, 3)
    ys, xs = np.nonzero(crop[:, :, 0] > 128)
    height, width = np.ptp(ys) + 1, np.ptp(xs) + 1
    expected_h = STACK_INPUT / STACK_CONTEXT
    assert abs(height - expected_h) <= 3 and abs(width - 0.69 * expected_h) <= 3  # upright, not lying
    assert abs((ys.min() + ys.max()) / 2 - STACK_INPUT / 2) <= 2
    assert abs((xs.min() + xs.max()) / 2 - STACK_INPUT / 2) <= 2


def test_card_crop_needs_both_indices():
    img, card = _card_on_table(0)
    one = CardInstance("KH", (0,), card.centers[:1], card.size, 1.0, card.card_height)
    with pytest.raises(ValueError, match="one index"):
        card_crop(img, one)


class _FixedChecker:
    """Stands in for the model: a fixed probability per card code."""

    def __init__(self, p: dict[str, float]):
        self.p = p

    def p_stack(self, image, cards):
        return np.array([self.p[c.code] for c in cards], np.float32)


def _single(code: str) -> Pile:
    _, card = _card_on_table(0)
    card = CardInstance(code, card.detections, card.centers, card.size, 1.0, card.card_height)
    return Pile(PileKind.SQUARED_BOOK, (card,), (f"{code} may be misread: correct it if it is wrong", MARKER_NOTE.format(code=code)))


def test_check_stacks_turns_unlikely_stacks_into_loose_cards_and_says_so():
    meld_card = CardInstance("9S", (2,), np.zeros((1, 2)), 10.0, 1.0, 100.0)
    meld = Pile(PileKind.MELD, (meld_card,) * 3)
    piles = [_single("QD"), meld, _single("5C"), _single("KH")]
    out = check_stacks(piles, np.zeros((10, 10, 3), np.uint8), _FixedChecker({"QD": 0.97, "5C": 0.1, "KH": 0.6}))
    assert [p.kind for p in out] == [PileKind.SQUARED_BOOK, PileKind.MELD, PileKind.LOOSE, PileKind.SQUARED_BOOK]
    assert out[1] is meld  # other piles are untouched
    assert out[0].kind is PileKind.SQUARED_BOOK and FULL_BOOK in out[0].notes[-1]
    assert "no stack seen under it" in out[2].notes[-1] and MARKER_NOTE.format(code="5C") not in out[2].notes
    assert out[2].notes[0] == "5C may be misread: correct it if it is wrong"  # other notes stay
    assert UNCLEAR_BOOK in out[3].notes[-1]


def test_check_stacks_thresholds_are_inclusive_of_the_surer_side():
    piles = [_single("QD"), _single("5C")]
    out = check_stacks(piles, np.zeros((10, 10, 3), np.uint8), _FixedChecker({"QD": 0.5, "5C": 0.8}))
    assert [p.kind for p in out] == [PileKind.SQUARED_BOOK, PileKind.SQUARED_BOOK]
    assert UNCLEAR_BOOK in out[0].notes[-1] and FULL_BOOK in out[1].notes[-1]


class _CornersChecker:
    """Stands in for the model on cards framed by two corner centres: one fixed probability, and a record."""

    def __init__(self, p: float):
        self.p, self.asked = p, []

    def p_stack_between(self, image, corners):
        self.asked += corners
        return np.full(len(corners), self.p, np.float32)


def _box(center, size=20.0):
    x, y = center
    return [x - size / 2, y - size / 2, x + size / 2, y + size / 2]


def test_a_loose_card_seen_by_one_corner_with_an_unread_box_at_its_diagonal_is_stack_checked():
    _, whole = _card_on_table(0)
    a, b = whole.centers  # the card's two index centres, a diagonal apart
    one = CardInstance("9H", (0,), a[None, :], 20.0, 0.9, whole.card_height)
    piles = [Pile(PileKind.LOOSE, (one,), ("single card 9H with one corner visible: not scored",))]
    img = np.zeros((520, 640, 3), np.uint8)
    sure = _CornersChecker(0.9)
    out = check_one_corner_cards(piles, np.array([_box(b), _box(a + [300, 0])]), img, sure)
    assert out[0].kind is PileKind.SQUARED_BOOK and out[0].cards == (one,)  # the card keeps its one index
    assert "only one corner was read" in out[0].notes[0] and FULL_BOOK in out[0].notes[0]
    assert len(sure.asked) == 1 and np.allclose(sure.asked[0][1], b)  # framed on the box at the diagonal
    # the stack checker unsure (under 0.8): it stays a loose card
    assert check_one_corner_cards(piles, np.array([_box(b)]), img, _CornersChecker(0.7)) == piles
    # no unread box at a diagonal's distance: nothing to ask
    never = _CornersChecker(1.0)
    assert check_one_corner_cards(piles, np.array([_box(a + (b - a) * 0.4)]), img, never) == piles
    assert not never.asked
    # a read index between the two corners (a fan's card): not one card
    between = CardInstance("9S", (1,), ((a + b) / 2)[None, :], 20.0, 0.9, whole.card_height)
    crowded = piles + [Pile(PileKind.LOOSE, (between,))]
    assert check_one_corner_cards(crowded, np.array([_box(b)]), img, never) == crowded and not never.asked


def _ranks(*ranks):
    """Reader probabilities (k, 15) whose likeliest rank is each of ``ranks`` (0.4, the rest spread)."""
    from vision.classes import RANKS

    out = np.full((len(ranks), len(RANKS)), 0.6 / (len(RANKS) - 1), np.float32)
    for k, r in enumerate(ranks):
        out[k, RANKS.index(r)] = 0.4
    return out


def test_a_one_corner_card_whose_other_corner_reads_its_rank_is_judged_as_a_whole_card():
    _, whole = _card_on_table(0)
    a, b = whole.centers
    one = CardInstance("JH", (0,), a[None, :], 20.0, 0.9, whole.card_height)
    piles = [Pile(PileKind.LOOSE, (one,), ("single card JH with one corner visible: not scored",))]
    img = np.zeros((520, 640, 3), np.uint8)
    unread = np.array([_box(b)])
    # the unread box reads a jack (under the floor): a whole card, a marker from 0.5 with the "unclear" note
    out = check_one_corner_cards(piles, unread, img, _CornersChecker(0.63), rank_p=_ranks("J"))
    assert out[0].kind is PileKind.SQUARED_BOOK and UNCLEAR_BOOK in out[0].notes[0]
    sure = check_one_corner_cards(piles, unread, img, _CornersChecker(0.9), rank_p=_ranks("J"))
    assert sure[0].kind is PileKind.SQUARED_BOOK and FULL_BOOK in sure[0].notes[0]
    # ... but no stack seen (under 0.5): still loose
    assert check_one_corner_cards(piles, unread, img, _CornersChecker(0.45), rank_p=_ranks("J")) == piles
    # the box reads another rank, or no probabilities are given: the one-corner floor (0.8) holds
    assert check_one_corner_cards(piles, unread, img, _CornersChecker(0.63), rank_p=_ranks("7")) == piles
    assert check_one_corner_cards(piles, unread, img, _CornersChecker(0.63)) == piles


def test_two_loose_cards_that_are_one_markers_two_corners_read_as_two_ranks_are_joined():
    from vision.photo_checks import join_one_corner_pairs

    _, whole = _card_on_table(0)
    a, b = whole.centers
    six = CardInstance("6H", (0,), a[None, :], 20.0, 0.6, whole.card_height)
    queen = CardInstance("QH", (1,), b[None, :], 20.0, 0.9, whole.card_height)
    piles = [Pile(PileKind.LOOSE, (six,), ("single card 6H with one corner visible",)),
             Pile(PileKind.LOOSE, (queen,), ("single card QH with one corner visible",))]
    img = np.zeros((520, 640, 3), np.uint8)
    out = join_one_corner_pairs(piles, img, _CornersChecker(0.9))
    assert len(out) == 1 and out[0].kind is PileKind.SQUARED_BOOK
    card = out[0].cards[0]
    assert card.code == "QH" and card.detections == (0, 1) and card.fully_visible  # the surer reading, both corners
    assert "read as 6H and QH" in out[0].notes[0]
    # two ranks and the checker not sure of a stack (under 0.8): two loose cards still
    assert join_one_corner_pairs(piles, img, _CornersChecker(0.7)) == piles
    # one rank read twice: judged as a whole card (a marker from 0.5, the stack unclear under 0.8)
    twice = [piles[0], Pile(PileKind.LOOSE, (CardInstance("6H", (1,), b[None, :], 20.0, 0.9, whole.card_height),))]
    unsure = join_one_corner_pairs(twice, img, _CornersChecker(0.6))
    assert [p.kind for p in unsure] == [PileKind.SQUARED_BOOK] and "unclear" in unsure[0].notes[0]
    # a read index between them (a fan's card): not one card; switched off: nothing
    between = CardInstance("9S", (2,), ((a + b) / 2)[None, :], 20.0, 0.9, whole.card_height)
    crowded = piles + [Pile(PileKind.MELD, (between,))]
    assert join_one_corner_pairs(crowded, img, _CornersChecker(1.0)) == crowded
    from vision.config import DEFAULT

    off = DEFAULT.replace(**{"stacks.one_corner_pairs": False})
    assert join_one_corner_pairs(piles, img, _CornersChecker(1.0), config=off) == piles


def test_check_stacks_never_asks_about_a_card_seen_by_one_index():
    class Never:
        def p_stack(self, image, cards):
            raise AssertionError("a one-index card has no frame to check")

    one = CardInstance("QD", (0,), np.zeros((1, 2)), 10.0, 1.0, 100.0)
    piles = [Pile(PileKind.SQUARED_BOOK, (one,))]
    assert check_stacks(piles, np.zeros((10, 10, 3), np.uint8), Never()) == piles


def test_check_stacks_without_singles_asks_nothing():
    class Never:
        def p_stack(self, image, cards):
            raise AssertionError("no single card to check")

    meld_card = CardInstance("9S", (2,), np.zeros((1, 2)), 10.0, 1.0, 100.0)
    piles = [Pile(PileKind.MELD, (meld_card,) * 3)]
    assert check_stacks(piles, np.zeros((10, 10, 3), np.uint8), Never()) == piles


@pytest.mark.skipif(not Path(DEFAULT_STACKS).is_file(), reason="no shipped stack checker")
def test_shipped_checker_gives_each_card_its_own_probability():
    pytest.importorskip("onnxruntime")
    from vision.models.stacks import StackChecker

    img, card = _card_on_table(20)
    img2, other = _card_on_table(-50, height=150, center=(300.0, 250.0))
    img[:, 320:] = img2[:, 320:]  # a second, different card beside the first
    checker = StackChecker()
    both = checker.p_stack(img, [card, other])
    alone = [checker.p_stack(img, [c])[0] for c in (card, other)]
    assert both.shape == (2,) and np.all((0 <= both) & (both <= 1))
    assert both == pytest.approx(alone, abs=1e-5)  # each card's own crops, upright and upside down


@pytest.mark.skipif(not Path(DEFAULT_STACKS).is_file(), reason="no shipped stack checker")
def test_p_stack_reads_each_card_upright_and_upside_down(monkeypatch):
    pytest.importorskip("onnxruntime")
    import vision.models.stacks as stacks

    turns = []
    real = stacks.corners_crop

    def recording(image, a, b, *args, turn=0.0, **kw):
        turns.append(turn)
        return real(image, a, b, *args, turn=turn, **kw)

    monkeypatch.setattr(stacks, "corners_crop", recording)
    img, card = _card_on_table(10)
    stacks.StackChecker().p_stack(img, [card])
    assert sorted(turns) == pytest.approx([0.0, np.pi])


def test_a_model_of_another_input_is_refused(tmp_path):
    pytest.importorskip("onnxruntime")
    from vision.models.reader import DEFAULT_READER
    from vision.models.stacks import StackChecker
    from vision.models.detector import ModelError

    if not Path(DEFAULT_READER).is_file():
        pytest.skip("no shipped reader model")
    with pytest.raises(ModelError, match="not a model for the stack checker"):
        StackChecker(DEFAULT_READER)


@pytest.mark.skipif(not Path(DEFAULT_STACKS).is_file(), reason="no shipped stack checker")
def test_shipped_checker_tells_a_squared_book_from_a_loose_card_on_rendered_tables(anglo_deck):
    """Rendered tables with one squared book (QD on six queens) and one loose card (7C): read from their true
    corner boxes, the squared book must stay and the loose card must not be scored, on most tables."""
    pytest.importorskip("onnxruntime")
    from sides import read_side

    from datasets.scene_piles import Pile as ScenePile
    from datasets.scenes import make_scene
    from vision.models.stacks import StackChecker
    from vision.types import Detections

    checker = StackChecker()
    piles = [ScenePile("squared", ["QH"] * 6 + ["QD"], marker="QD"), ScenePile("loose", ["7C"]),
             ScenePile("meld", ["8D", "8S", "2C"])]
    right = 0
    for seed in range(6):
        scene = make_scene(300 + seed, [anglo_deck], size=(1600, 1200), full_view=True, piles=piles, clutter=False)
        dets = Detections(scene.boxes, np.ones(len(scene.boxes), np.float32), scene.classes)
        team = read_side(dets, "A", image=scene.image, stacks=checker).team_layout()
        right += [b["top"] for b in team["squared_books"]] == ["QD"] and team["loose"] == ["7C"]
    assert right >= 4, f"only {right} of 6 rendered tables read the squared book and the loose card right"


def test_real_loose_crops_come_from_train_photos_only(shared_dir):
    pytest.importorskip("resvg_py")  # datasets needs its extra
    from datasets.realdata import phone_corners
    from datasets.stacks import real_loose

    data = real_loose(views=2, root=shared_dir / "realdata", limit=12)
    assert len(data["crops"]) and data["crops"].shape[1:] == (STACK_INPUT, STACK_INPUT, 3)
    assert (data["labels"] == 0).all() and (data["scene"] < 0).all()  # loose, always in the training part
    assert set(data["view"].tolist()) == {0, 1}
    train = phone_corners(shared_dir / "realdata", split="train")[:12]
    assert -data["scene"].min() <= len(train)  # scene -1-k is the k-th train photo


def test_training_zoom_scales_the_crops_and_keeps_them_in_range():
    """``train_stacks.augment(zoom=...)``: another deck's card fills more or less of the crop, so training shows
    the crop at other scales; without ``zoom`` the card keeps its size."""
    torch = pytest.importorskip("torch")
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    import train_stacks
    x = torch.zeros(64, 3, 96, 96)
    x[:, :, 32:64, 32:64] = 1.0  # a white square, 32 px, in the middle

    def widths(out):
        return (out[:, :, 48, :].amax(1) > 0.25).sum(1).float()

    plain = train_stacks.augment(x.clone(), np.random.default_rng(0))
    zoomed = train_stacks.augment(x.clone(), np.random.default_rng(0), zoom=0.35)
    assert plain.shape == zoomed.shape == x.shape
    assert float(zoomed.min()) >= 0 and float(zoomed.max()) <= 1
    assert float(widths(plain).min()) >= 30 and float(widths(plain).max()) <= 34
    w = widths(zoomed)
    assert float(w.min()) < 28 and float(w.max()) > 38  # 32 / 1.35 ... 32 / 0.65
