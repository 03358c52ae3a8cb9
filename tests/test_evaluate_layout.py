"""scripts/evaluate_layout.py's per-table figures on a tiny generated table, from true boxes."""

import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("cv2")
pytest.importorskip("resvg_py")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from datasets.evaluation import LEGIBLE_PX, ONE_CARD_HAND, evaluate_scene  # noqa: E402
from sides import read_side  # noqa: E402

from datasets.scene_labels import true_detections  # noqa: E402
from datasets.scene_piles import Pile  # noqa: E402
from datasets.scenes import make_scene  # noqa: E402
from vision.classes import class_id  # noqa: E402
from vision.types import Detections  # noqa: E402


def _doc(deck):
    piles = [Pile("meld", ["7H", "JK", "7S", "7D"]), Pile("meld", ["KH", "KS", "KD"])]
    scene = make_scene(4, [deck], size=(1280, 960), full_view=True, piles=piles, clutter=False)
    return {"image": "t.jpg", "design": scene.design, **scene.layout, "cards": scene.cards}


def test_true_boxes_score_exactly_and_count_the_joker(anglo_deck):
    doc = _doc(anglo_deck)
    dets, owners = true_detections(doc)
    stats, failures = Counter(), Counter()
    evaluate_scene(doc, read_side(dets), owners, stats, failures)
    assert stats["tables"] == 1 and stats["score_exact"] == 1 and stats["fans_counted"] == 2
    assert stats["tables_joker"] == 1 and stats["score_exact_joker"] == 1
    assert stats["joker_indices"] == stats["joker_indices_read"] == 1  # a fanned joker shows one corner


def test_a_missed_joker_breaks_its_meld(anglo_deck):
    doc = _doc(anglo_deck)
    dets, owners = true_detections(doc)
    keep = np.array([c != "JK" for c in dets.codes])
    stats, failures = Counter(), Counter()
    evaluate_scene(doc, read_side(dets[keep]), owners[keep], stats, failures)
    assert stats["joker_indices"] == 1 and stats["joker_indices_read"] == 0
    assert stats["tables_joker"] == 1 and stats["score_exact"] == 0 and stats["fans_counted"] == 1


def test_a_fan_read_where_the_table_has_none_is_a_failure_kind(anglo_deck):
    doc = _doc(anglo_deck)
    dets, owners = true_detections(doc)
    failures = Counter()
    evaluate_scene(doc, read_side(dets), owners, Counter(), failures)
    assert not failures
    # three nines read off the cloth, nowhere near a card: no true card owns them
    far = Detections(np.array([[900 + 30 * k, 800, 920 + 30 * k, 820] for k in range(3)], np.float32),
                     np.full(3, 0.9, np.float32), np.array([class_id("9S")] * 3, np.int64))
    stats, failures = Counter(), Counter()
    evaluate_scene(doc, read_side(Detections.merge([dets, far])), np.concatenate([owners, [-1, -1, -1]]), stats, failures)
    assert failures["extra meld (read where the table has none)"] == 1 and stats["score_exact"] == 0


def test_a_one_card_hand_makes_a_table_unreadable(anglo_deck):
    # a hand of one card is laid as a loose card is (datasets.scenes), which is not scored: no photo can tell
    for piles, readable in (([Pile("meld", ["KH", "KS", "KD"]), Pile("left", ["QC", "7D"])], 1),
                            ([Pile("meld", ["KH", "KS", "KD"]), Pile("left", ["QC"])], 0)):
        scene = make_scene(4, [anglo_deck], size=(1280, 960), full_view=True, piles=piles, clutter=False)
        doc = {"image": "t.jpg", "design": scene.design, **scene.layout, "cards": scene.cards}
        dets, owners = true_detections(doc)
        stats, failures = Counter(), Counter()
        evaluate_scene(doc, read_side(dets), owners, stats, failures)
        assert stats["tables_readable"] == readable
        # read as a loose card, the lone QC is its own failure kind, not a hand read wrong; a two-card hand
        # missing its 7D is a hand read wrong
        assert failures[ONE_CARD_HAND] == 1 - readable and not failures["cards left in hand wrong"]
        if readable:
            keep = np.array([c != "7D" for c in dets.codes])
            failures = Counter()
            evaluate_scene(doc, read_side(dets[keep]), owners[keep], Counter(), failures)
            assert failures["cards left in hand wrong"] == 1 and not failures[ONE_CARD_HAND]


def test_a_wrong_score_with_no_note_is_counted_as_a_silent_error(anglo_deck):
    doc = _doc(anglo_deck)
    dets, owners = true_detections(doc)
    stats = Counter()
    evaluate_scene(doc, read_side(dets), owners, stats, Counter())
    assert stats["tables_unflagged"] == stats["score_exact_unflagged"] == 1  # right, and nothing to check
    # the meld of kings missed whole: the score is wrong and nothing on the photo says so
    keep = np.array([not c.startswith("K") for c in dets.codes])
    stats = Counter()
    evaluate_scene(doc, read_side(dets[keep]), owners[keep], stats, Counter())
    assert stats["score_exact"] == 0 and stats["tables_unflagged"] == 1 and stats["score_exact_unflagged"] == 0


def test_cached_boxes_and_readings_give_what_the_detector_gives(anglo_deck, tmp_path):
    """--cache keeps a photo's found boxes and their readings; a rerun from the file reads the same detections."""
    from datasets.evaluation import cached_found

    from vision.config import DEFAULT
    from vision.models.reader import DEFAULT_READER
    from vision.pipeline import detect, load_models, read_indices

    if not DEFAULT_READER.is_file():
        pytest.skip("no shipped reader")
    detector, reader = load_models()
    image = make_scene(4, [anglo_deck], size=(1280, 960), full_view=True, clutter=False,
                       piles=[Pile("meld", ["7H", "JK", "7S", "7D"]), Pile("meld", ["KH", "KS", "KD"])]).image
    direct, unread = read_indices(detect(image, detector, reader))
    assert len(direct) >= 5
    path = tmp_path / "cache" / "t.npz"
    first = cached_found(path, image, detector, reader, DEFAULT)
    assert path.is_file()
    second = cached_found(path, np.zeros_like(image), detector, reader, DEFAULT)  # the file, not the blank
    for found in (first, second):
        dets, boxes = read_indices(found)
        assert dets.codes == direct.codes and np.allclose(dets.xyxy, direct.xyxy)
        assert np.allclose(boxes.xyxy, unread.xyxy)


def test_squared_books_found_and_each_designs_figures(anglo_deck):
    from datasets.evaluation import design_figures

    piles = [Pile("meld", ["9H", "9S", "9D"]), Pile("squared", ["QH"] * 6 + ["QD"], marker="QD")]
    scene = make_scene(5, [anglo_deck], size=(1280, 960), full_view=True, piles=piles, clutter=False)
    doc = {"image": "t.jpg", "design": scene.design, **scene.layout, "cards": scene.cards}
    dets, owners = true_detections(doc)
    stats = Counter()
    evaluate_scene(doc, read_side(dets), owners, stats, Counter())
    assert stats["books_squared"] == 1 and stats["books_squared_found"] == 1
    figures = design_figures(stats)
    assert figures["squared_books_found"] == 1 and figures["fans"] == 1 and figures["score_exact"] == 1
    # the marker's indices unread: the book is not found, and the table is scored wrong
    keep = np.array([c != "QD" for c in dets.codes])
    stats = Counter()
    evaluate_scene(doc, read_side(dets[keep]), owners[keep], stats, Counter())
    assert stats["books_squared"] == 1 and stats["books_squared_found"] == 0 and stats["score_exact"] == 0
    assert design_figures(stats)["wrong_unflagged"] == stats["wrong_unflagged"]


def test_fan_failures_buckets_a_fan_by_why_its_card_was_lost(anglo_deck):
    from fan_failures import fan_buckets
    from vision.classes import RANKS

    doc = _doc(anglo_deck)
    dets, owners = true_detections(doc)

    def found(boxes, rank):  # the detector's boxes as stage 1 gives them, read as ``rank`` by the reader
        rank_p = np.full((len(boxes), len(RANKS)), 0.01, np.float32)
        rank_p[:, RANKS.index(rank)] = 0.8
        return Detections(boxes, np.full(len(boxes), 0.3, np.float32), np.zeros(len(boxes), np.int64),
                          {"rank_p": rank_p})

    assert fan_buckets(doc, read_side(dets), found(dets.xyxy, "7"), owners, 0.3) == []  # every fan right
    king = np.flatnonzero(np.array([c == "KS" for c in dets.codes]))[:1]
    keep = np.ones(len(dets), bool)
    keep[king] = False
    reading = read_side(dets[keep])
    # the king's box found and read a king, under the floor; found and read a seven; not found at all
    for boxes, rank, why in ((dets.xyxy[king], "K", "under floor"), (dets.xyxy[king], "7", "read wrong"),
                             (np.zeros((0, 4), np.float32), "K", "not boxed")):
        got = fan_buckets(doc, reading, found(boxes, rank), owners[keep], 0.3)
        assert [(r["cards"], r["bucket"]) for r in got] == [(3, why)] and got[0]["missing"][0]["code"] == "KS"
    # --oracle: stage 1 is the true boxes, read as their true codes (no reader's probabilities): a card whose true
    # box no pile holds was dropped by the later stages
    got = fan_buckets(doc, reading, dets, owners[keep], 0.3)
    assert [(r["cards"], r["bucket"]) for r in got] == [(3, "dropped")]


def test_the_silent_tables_are_named_and_the_noted_ones_counted(anglo_deck, tmp_path):
    """evaluate_layout.py names each table scored wrong with no note, and counts the tables with notes (and how many
    of those were scored exactly all the same)."""
    import json

    import cv2
    from evaluate_layout import main

    scenes = tmp_path / "scenes"
    (scenes / "images").mkdir(parents=True)
    (scenes / "layouts").mkdir()
    right = [Pile("meld", ["7H", "7S", "7D"]), Pile("meld", ["KH", "KS", "KD"])]
    noted = [Pile("meld", ["7H", "7S"]), Pile("meld", ["KH", "KS", "KD"])]  # a two-card meld: a note
    for name, (seed, piles, extra) in {"a_right": (4, right, False), "b_noted": (5, noted, False),
                                       "c_silent": (6, right, True)}.items():
        scene = make_scene(seed, [anglo_deck], size=(1280, 960), full_view=True, piles=piles, clutter=False)
        doc = {"image": f"{name}.png", "design": scene.design, **scene.layout, "cards": scene.cards}
        if extra:  # the truth holds a meld the photo does not show: scored wrong, and nothing says so
            doc["teams"]["A"]["melds"].append(["QC", "QC", "QC"])
        cv2.imwrite(str(scenes / "images" / doc["image"]), scene.image)
        (scenes / "layouts" / f"{name}.json").write_text(json.dumps(doc))
    out = tmp_path / "figures.json"
    assert main(["--scenes", str(scenes), "--oracle", "--no-stacks", "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    assert figures["silent_tables"] == ["c_silent"] and figures["wrong_unflagged"] == 1
    assert figures["tables_noted"] == 1 and figures["exact_noted"] == 1  # b, right all the same: the note was needless


def test_hand_and_book_causes_name_why_a_hand_or_a_squared_book_was_lost(anglo_deck):
    from hand_book_failures import book_causes, hand_cause

    piles = [Pile("meld", ["KH", "KS", "KD"]), Pile("left", ["QC", "7D", "9S"]), Pile("squared", ["5S"] * 6 + ["5H"],
                                                                                        marker="5H")]
    scene = make_scene(4, [anglo_deck], size=(1280, 960), full_view=True, piles=piles, clutter=False)
    doc = {"image": "t.jpg", "design": scene.design, **scene.layout, "cards": scene.cards}
    dets, owners = true_detections(doc)
    reading = read_side(dets)
    assert book_causes(doc, reading, owners) == []  # the marker seen whole is read as a squared book
    # the hand's 7D not read: a hand card not read; the marker's indices not read: its book is lost unread
    keep = np.array([c not in ("7D", "5H") for c in dets.codes])
    reading = read_side(dets[keep])
    assert hand_cause(doc, reading, owners[keep])[0] == "hand card not read"
    assert [c for c, _ in book_causes(doc, reading, owners[keep])] == ["marker not read"]


def test_a_fan_showing_an_index_too_small_to_read_is_not_counted_legible(anglo_deck):
    doc = _doc(anglo_deck)
    dets, owners = true_detections(doc)
    stats = Counter()
    evaluate_scene(doc, read_side(dets), owners, stats, Counter())
    assert stats["fans_legible"] == stats["fans_legible_counted"] == 2
    small = next(c for c in doc["cards"] if c["code"] == "KS")
    side = LEGIBLE_PX - 1
    small["index_boxes_px"] = [[b[0], b[1], b[0] + side, b[1] + side] for b in small["index_boxes_px"]]
    stats = Counter()
    evaluate_scene(doc, read_side(dets), owners, stats, Counter())
    assert stats["fans"] == 2 and stats["fans_legible"] == stats["fans_legible_counted"] == 1


def test_stage_caches_put_a_true_joker_in_place_of_the_box_over_it():
    from stage_caches import true_jokers

    from vision.classes import RANK_JOKER, RANKS

    rank_p = np.zeros((2, len(RANKS)), np.float32)
    rank_p[:, 0] = 1
    found = Detections(np.array([[10, 10, 30, 30], [100, 100, 120, 120]], np.float32), np.array([0.4, 0.9], np.float32),
                       np.zeros(2, np.int64), {"rank_p": rank_p, "suit_p": np.full((2, 4), 0.25, np.float32)})
    out = true_jokers(found, np.array([[11, 11, 31, 31]], np.float32))
    assert len(out) == 2 and out.xyxy[0].tolist() == [100, 100, 120, 120]  # the box over the joker gave way
    assert out.xyxy[1].tolist() == [11, 11, 31, 31] and out.data["rank_p"][1, RANK_JOKER] == 1
