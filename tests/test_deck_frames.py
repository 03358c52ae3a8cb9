"""A deck's frame correction (``vision.deck_frames``): learned from box pairs, kept in a profile, read with."""

import numpy as np
import pytest

from vision import deck_profiles
from vision.config import DEFAULT
from vision.deck_frames import IDENTITY, Frame, learn_frame, pairs

#: a known correction of tall boxes: width x1.25, height x0.8, centre moved by 10 % of the width, -5 % of the height
TALL = (1.25, 0.8, 0.1, -0.05)


def _detected(rng, n: int, wide: bool) -> np.ndarray:
    """(n, 4) xyxy boxes of index size (about 30 x 50 px; 50 x 30 when ``wide``) spread over a photo."""
    w, h = rng.uniform(24, 36, n), rng.uniform(42, 58, n)
    if wide:
        w, h = h, w
    x, y = rng.uniform(0, 1800, n), rng.uniform(0, 1000, n)
    return np.stack([x, y, x + w, y + h], 1)


def _labelled(detected: np.ndarray, row, rng, noise: float = 0.02) -> np.ndarray:
    """The boxes ``row`` (width ratio, height ratio, dx, dy) makes of ``detected``, each measure jittered by up to
    ``noise`` (a share of the box)."""
    size = detected[:, 2:] - detected[:, :2]
    centre = (detected[:, :2] + detected[:, 2:]) / 2 + (np.array(row[2:]) + rng.uniform(-noise, noise, size.shape)) * size
    half = (np.array(row[:2]) + rng.uniform(-noise, noise, size.shape)) * size / 2
    return np.hstack([centre - half, centre + half])


def test_a_known_scale_and_offset_is_learned_back_per_orientation():
    rng = np.random.default_rng(3)
    wide_row = (0.9, 1.1, -0.08, 0.12)  # wide boxes corrected their own way
    tall, wide = _detected(rng, 40, False), _detected(rng, 30, True)
    detected = np.vstack([tall, wide])
    labelled = np.vstack([_labelled(tall, TALL, rng), _labelled(wide, wide_row, rng)])
    labelled[:3] = labelled[:3] * [1, 1, 1.6, 1.6] - [0, 0, 20, 20]  # a few outliers the medians ignore
    frame = learn_frame(labelled, detected)
    assert frame.how == "own" and frame.pairs == (40, 30)
    assert np.allclose(frame.table[0], TALL, atol=0.01) and np.allclose(frame.table[1], wide_row, atol=0.01)
    fixed = frame.apply(detected[3:])
    assert np.abs(fixed - labelled[3:]).max() < 0.05 * 58  # the detector's boxes framed as the labels frame them
    assert np.abs(detected[3:] - labelled[3:]).max() > 0.2 * 30  # (and they were not before)


def test_pairs_match_each_detected_box_to_the_labelled_box_it_overlaps():
    labelled = np.array([[0, 0, 30, 50], [100, 0, 130, 50]], np.float32)
    detected = np.array([[104, 4, 136, 52], [2, 2, 31, 49], [300, 300, 330, 350], [0, 30, 30, 80]], np.float32)
    got_l, got_d = pairs([labelled, np.zeros((0, 4))], [detected, detected])
    assert len(got_d) == 2  # the far box, the one half-off (IoU 0.25) and the photo without labels give none
    assert np.array_equal(got_d, detected[:2]) and np.array_equal(got_l, labelled[[1, 0]])
    loose = DEFAULT.replace(**{"decks.frame_iou": 0.2})
    assert len(pairs([labelled], [detected], loose)[0]) == 3


def test_under_ten_pairs_the_frame_is_the_identity():
    rng = np.random.default_rng(4)
    detected = np.vstack([_detected(rng, 6, False), _detected(rng, 3, True)])
    frame = learn_frame(_labelled(detected, TALL, rng), detected)
    assert frame.is_identity and frame.how == "identity" and frame.pairs == (6, 3)
    assert np.allclose(frame.apply(detected), detected, atol=1e-3)
    assert learn_frame(np.zeros((0, 4)), np.zeros((0, 4))).is_identity
    more = np.vstack([detected, _detected(rng, 1, False)])  # ten: learned
    assert not learn_frame(_labelled(more, TALL, rng), more).is_identity


def test_one_orientation_short_of_pairs_takes_the_pooled_medians():
    rng = np.random.default_rng(5)
    tall, wide = _detected(rng, 30, False), _detected(rng, 4, True)
    turned = (TALL[1], TALL[0], TALL[3], TALL[2])  # the same correction of a box turned a quarter
    labelled = np.vstack([_labelled(tall, TALL, rng), _labelled(wide, turned, rng)])
    frame = learn_frame(labelled, np.vstack([tall, wide]))
    assert frame.how == "pooled" and frame.pairs == (30, 4)
    assert np.allclose(frame.table[0], TALL, atol=0.01) and np.allclose(frame.table[1], turned, atol=0.01)
    few = DEFAULT.replace(**{"decks.frame_min_pairs": 4})  # with a lower threshold each its own
    assert learn_frame(labelled, np.vstack([tall, wide]), few).how == "own"


def test_a_frame_round_trips_through_its_arrays():
    frame = Frame(np.array([TALL, (0.9, 1.1, -0.08, 0.12)]), (40, 30), "own")
    again = Frame.from_arrays(frame.arrays())
    assert np.array_equal(again.table, frame.table) and again.pairs == (40, 30) and again.how == "own"
    assert Frame.from_arrays({}) is IDENTITY


# -- in a deck profile: stored, loaded, read with -------------------------------------------------------------------
@pytest.fixture(scope="module")
def reader():
    from vision.models.reader import DEFAULT_READER, IndexReader

    if not DEFAULT_READER.is_file():
        pytest.skip("no shipped reader")
    return IndexReader()


def _profile(reader, frame: Frame) -> deck_profiles.DeckProfile:
    return deck_profiles.DeckProfile("framed", reader.stock_heads(), 20, 300, {"stock": 0.8, "profile": 0.9}, "", False,
                             frame=frame)


def test_a_profile_keeps_its_frame_and_reads_the_corrected_boxes(reader, tmp_path):
    from vision.models.detector import check_photo

    frame = Frame(np.array([TALL, (0.9, 1.1, -0.08, 0.12)]), (40, 30), "own")
    _profile(reader, frame).save(tmp_path)
    again = deck_profiles.DeckProfile.load("framed", tmp_path)
    assert np.array_equal(again.frame.table, frame.table) and again.frame.pairs == (40, 30)
    _, read = again.models(None, reader)
    image, reading = check_photo()
    boxes = np.asarray(reading["indices"], np.float32)
    rank_p, suit_p = read.probabilities(image, boxes)
    plain = reader.with_heads(again.heads)
    want_rank, want_suit = plain.probabilities(image, frame.apply(boxes))  # the crops of the corrected boxes
    assert np.allclose(rank_p, want_rank, atol=1e-5) and np.allclose(suit_p, want_suit, atol=1e-5)
    assert not np.allclose(rank_p, plain.probabilities(image, boxes)[0], atol=1e-3)


def test_an_older_profile_without_a_frame_loads_as_the_identity(reader, tmp_path):
    _profile(reader, Frame(np.array([TALL, TALL]), (40, 30), "own")).save(tmp_path)
    path = tmp_path / "framed.npz"
    with np.load(path) as z:
        kept = {k: z[k] for k in z.files if not k.startswith("f_")}  # as profiles were written before frames
    assert len(kept) < len(np.load(path).files)
    np.savez(path, **kept)
    again = deck_profiles.DeckProfile.load("framed", tmp_path)
    assert again.frame.is_identity
    _, read = again.models(None, reader)
    assert read.frame is None
