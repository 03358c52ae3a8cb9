"""A deck profile's test-time copies of each box (``vision.models.reader.Jitter``, ``vision.models.reader.Jitter.of``)."""

import numpy as np
import pytest

from vision import deck_profiles
from vision.models.reader import JITTERS, Jitter


def test_copies_move_and_scale_each_box_by_shares_of_its_size():
    boxes = np.array([[10, 20, 40, 80], [0, 0, 10, 10]], np.float32)  # 30 x 60 and 10 x 10
    got = Jitter(((0, 0, 1), (0.1, -0.05, 1), (0, 0, 0.5))).boxes(boxes)
    assert got.shape == (6, 4)
    assert np.allclose(got[:2], boxes)  # copy-major: the boxes themselves first
    assert np.allclose(got[2], [13, 17, 43, 77]) and np.allclose(got[3], [1, -0.5, 11, 9.5])
    assert np.allclose(got[4], [17.5, 35, 32.5, 65])


def test_the_mean_of_probabilities_or_of_their_logs():
    p = np.array([[[0.9, 0.1]], [[0.1, 0.9]], [[0.5, 0.5]]])
    assert np.allclose(Jitter(((0, 0, 1),) * 3).mean(p), [[0.5, 0.5]])
    sure = np.array([[[0.99, 0.01]], [[0.6, 0.4]]])
    got = Jitter(((0, 0, 1),) * 2, log=True).mean(sure)
    want = np.sqrt(sure[0] * sure[1])
    assert np.allclose(got, want / want.sum()) and np.isclose(got.sum(), 1)


def test_named_copies_and_stored_copies():
    assert Jitter.of(None) is None
    both = Jitter.of("both-log")
    assert both.log and both.copies == JITTERS["both"] and len(both.copies) == 7
    again = Jitter.of({"copies": [[0, 0, 1], [0.04, 0, 1]], "log": False})
    assert again == Jitter(((0.0, 0.0, 1.0), (0.04, 0.0, 1.0)))
    with pytest.raises(ValueError, match="no test-time copies named"):
        Jitter.of("wobble")


@pytest.fixture(scope="module")
def reader():
    from vision.models.reader import DEFAULT_READER, IndexReader

    if not DEFAULT_READER.is_file():
        pytest.skip("no shipped reader")
    return IndexReader()


def test_a_profile_keeps_its_copies_and_reads_their_mean(reader, tmp_path):
    from vision.models.detector import check_photo

    jitter = Jitter.of("shift")
    deck_profiles.DeckProfile("jittered", reader.stock_heads(), 20, 300, {}, "", False, jitter=jitter).save(tmp_path)
    again = deck_profiles.DeckProfile.load("jittered", tmp_path)
    assert again.jitter == jitter
    _, read = again.models(None, reader)
    image, reading = check_photo()
    boxes = np.asarray(reading["indices"], np.float32)
    rank_p, suit_p = read.probabilities(image, boxes)
    plain = reader.with_heads(again.heads)
    each = [plain.probabilities(image, jitter.boxes(boxes)[k * len(boxes):(k + 1) * len(boxes)])
            for k in range(len(jitter.copies))]
    assert np.allclose(rank_p, np.mean([r for r, _ in each], 0), atol=1e-5)
    assert np.allclose(suit_p, np.mean([s for _, s in each], 0), atol=1e-5)
    assert reader.jitter is None  # the stock reader reads each box once
    deck_profiles.DeckProfile("plain", reader.stock_heads(), 20, 300, {}, "", False).save(tmp_path)
    assert deck_profiles.DeckProfile.load("plain", tmp_path).jitter is None
