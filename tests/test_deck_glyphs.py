"""A deck's own glyph reader (``vision.deck_glyphs``): learned from a rendered deck's photos, blended into the index
reader's readings, stored with a deck profile."""

import numpy as np
import pytest

pytest.importorskip("cv2")
pytest.importorskip("resvg_py")

import cv2  # noqa: E402

from datasets.scene_piles import Pile  # noqa: E402
from datasets.scenes import make_scene  # noqa: E402
from vision import deck_glyphs, deck_profiles, decks  # noqa: E402
from vision.classes import RANKS  # noqa: E402
from vision.deck_boxes import NONE  # noqa: E402
from vision.models.crops import crops_of  # noqa: E402
from vision.models.reader import DEFAULT_READER, IndexReader  # noqa: E402
from vision.types import Detections  # noqa: E402

pytestmark = pytest.mark.skipif(not DEFAULT_READER.is_file(), reason="no shipped reader")

RANKS_SHOWN = ("7", "K", "9", "Q", "5")


@pytest.fixture(scope="module")
def photos(anglo_deck, tmp_path_factory):
    """Four rendered tables of one deck, each showing the same five ranks in other suits and places: (path, true
    detections)."""
    folder = tmp_path_factory.mktemp("glyphs")
    out = []
    for k in range(4):
        suits = "HSDC"[k:] + "HSDC"[:k]
        piles = [Pile("meld", [f"{r}{s}" for s in suits[:3]]) for r in RANKS_SHOWN[k % 2:] + RANKS_SHOWN[:k % 2]]
        scene = make_scene(80 + k, [anglo_deck], size=(1024, 768), full_view=True, piles=piles, clutter=False)
        path = folder / f"g{k}.jpg"
        cv2.imwrite(str(path), scene.image)
        out.append((path, Detections(scene.boxes, np.ones(len(scene.boxes), np.float32),
                                     np.asarray(scene.classes, np.int64))))
    return out


def _examples(photos):
    return [decks.Example(p, d.xyxy, tuple(d.codes)) for p, d in photos]


def _rank(code: str) -> int:
    return RANKS.index("JK") if code == "JK" else RANKS.index(code[:-1])


def test_the_glyph_reader_learns_a_decks_ranks_from_three_photos_and_reads_a_fourth(photos):
    examples = _examples(photos)
    glyphs = deck_glyphs.fit(examples[:3], copies=4)
    image = cv2.imread(str(photos[3][0]))
    own_rank, own_suit = glyphs.own(image, examples[3].boxes)
    assert own_rank.shape == (len(examples[3].codes), deck_glyphs.REAL) and own_suit.shape[1] == 4
    assert np.allclose(own_rank.sum(1), 1, atol=1e-4) and np.allclose(own_suit.sum(1), 1, atol=1e-4)
    right = own_rank.argmax(1) == np.array([_rank(c) for c in examples[3].codes])
    assert right.mean() >= 0.6  # five ranks shown, fourteen possible: chance is far lower
    shown = [RANKS.index(r) for r in RANKS_SHOWN]
    unseen = np.setdiff1d(np.arange(deck_glyphs.REAL), shown)
    assert own_rank[:, unseen].max() < own_rank[:, shown].max(1).min()  # ranks it never saw keep only the floor


def test_the_blend_keeps_the_readers_no_index_and_follows_a_sure_glyph_reader():
    rank_p = np.full((2, 15), 0.5 / 14, np.float32)
    rank_p[:, -1] = 0.5  # half sure there is no index
    rank_p[1, 3] += 0.1
    rank_p[1, :-1] *= 0.5 / rank_p[1, :-1].sum()
    suit_p = np.full((2, 4), 0.25, np.float32)
    own_rank = np.full((2, 14), 0.01, np.float32)
    own_rank[:, 6] = 1 - 0.13
    own_suit = np.array([[0.7, 0.1, 0.1, 0.1]] * 2, np.float32)
    same = deck_glyphs.mix(rank_p, suit_p, own_rank, own_suit, 0.0)
    assert same[0] is rank_p and same[1] is suit_p
    rank, suit = deck_glyphs.mix(rank_p, suit_p, own_rank, own_suit, 1.0)
    assert np.allclose(rank[:, -1], 0.5) and np.allclose(rank.sum(1), 1) and np.allclose(suit.sum(1), 1)
    assert (rank[:, :-1].argmax(1) == 6).all() and (suit.argmax(1) == 0).all()


def test_a_profile_with_glyphs_is_saved_read_and_reads_with_them(photos, tmp_path, monkeypatch):
    monkeypatch.setattr(decks, "MIN_CHECK", 1)  # four small photos: the check photo holds a few indices
    monkeypatch.setattr(deck_glyphs, "WEIGHTS", (1.0,))  # the weight the check would choose, fixed to test storage
    monkeypatch.setattr(deck_glyphs, "MIN_WEIGH", 1)  # the last photo weighs it
    monkeypatch.setattr(deck_glyphs, "COPIES", 3)
    reader = IndexReader()
    profile = decks.learn(_examples(photos), reader, "glyphs", steps=30, glyphs=True)
    assert profile.glyphs is not None and profile.check["glyphs"]["weight"] == 1.0
    profile.save(tmp_path)
    again = deck_profiles.DeckProfile.load("glyphs", tmp_path)
    assert again.glyphs.weight == 1.0
    for name, array in profile.glyphs.arrays().items():
        assert np.array_equal(array, again.glyphs.arrays()[name]), name
    _, read = again.models(None, reader)
    image, boxes = cv2.imread(str(photos[2][0])), photos[2][1].xyxy
    rank_p, suit_p = read.probabilities(image, boxes)
    plain_rank, _ = reader.with_heads(again.heads, jitter=again.jitter).probabilities(image, boxes)
    assert read.glyphs is again.glyphs and np.allclose(rank_p.sum(1), 1, atol=1e-4)
    assert not np.allclose(rank_p, plain_rank)  # the glyphs changed the reading
    assert np.allclose(rank_p[:, -1], plain_rank[:, -1], atol=1e-6)  # but not whether a box holds an index
    decks.learn(_examples(photos), reader, "plain", steps=5).save(tmp_path)  # without glyphs, as older profiles
    assert deck_profiles.DeckProfile.load("plain", tmp_path).glyphs is None


def test_the_stock_reader_reads_as_before_without_a_profile(photos):
    reader = IndexReader()
    image, boxes = cv2.imread(str(photos[0][0])), photos[0][1].xyxy
    assert reader.glyphs is None
    rank_p, _ = reader.probabilities(image, boxes)
    ort = pytest.importorskip("onnxruntime")  # the shipped model run directly, as exported
    model = ort.InferenceSession(str(DEFAULT_READER))
    model_rank, _ = model.run(["rank", "suit"], {"crops": crops_of(image, boxes)})
    assert np.allclose(rank_p, model_rank.reshape(3, len(boxes), -1).mean(0))



def test_boxes_on_no_index_teach_the_glyph_reader_no_index(photos):
    def with_background(p, d):
        """The photo's indices and four boxes of index size on the table's empty corners, coded NONE."""
        h, w = cv2.imread(str(p)).shape[:2]
        side = np.median(d.xyxy[:, 2:] - d.xyxy[:, :2], 0)
        corners = np.array([[5, 5], [w - 5 - side[0], 5], [5, h - 5 - side[1]], [w - 5 - side[0], h - 5 - side[1]]])
        boxes = np.vstack([d.xyxy, np.hstack([corners, corners + side])]).astype(np.float32)
        return decks.Example(p, boxes, tuple(d.codes) + (NONE,) * 4)

    examples = [with_background(p, d) for p, d in photos]
    plain = deck_glyphs.fit(examples[:3], copies=3)
    taught = deck_glyphs.fit(examples[:3], copies=3, none=True)
    assert not plain.knows_none and taught.knows_none
    image = cv2.imread(str(photos[3][0]))
    own_rank, _ = taught.own(image, examples[3].boxes)
    assert own_rank.shape[1] == len(RANKS)
    is_none = np.array([c == NONE for c in examples[3].codes])
    assert own_rank[is_none, -1].min() > own_rank[~is_none, -1].max()  # the empty corners read as no index
    rank_p = np.full((len(own_rank), 15), 1 / 15, np.float32)
    blended, _ = deck_glyphs.mix(rank_p, np.full((len(own_rank), 4), 0.25, np.float32), own_rank,
                                 np.full((len(own_rank), 4), 0.25, np.float32), 1.0)
    assert np.allclose(blended.sum(1), 1, atol=1e-5) and (blended[is_none].argmax(1) == len(RANKS) - 1).all()
