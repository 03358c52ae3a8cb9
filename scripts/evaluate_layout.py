#!/usr/bin/env python3
"""Evaluate the whole camera pipeline (photo -> cards -> piles -> layout -> score) on generated tables.

Example::

    python -m datasets.generate --out data/heldout --scenes 200 --split val --seed 3 --designs heldout --full-view
    python scripts/evaluate_layout.py --scenes data/heldout/scenes/val            # with the shipped detector
    python scripts/evaluate_layout.py --scenes data/heldout/scenes/val --oracle   # true index boxes instead

Prints, over the scenes (each is one side's table, ground truth in ``layouts/*.json``):

* fan counting accuracy: fanned melds whose cards were counted right (one pile, right number of cards);
* exact-pile rate: true piles (melds, squared books, the red threes, hands) read with exactly their cards;
* exact-layout rate: tables whose whole layout was read exactly;
* exact-score rate: tables whose score equals the true score (a range that contains the true score, from a
  squared dirty or wild book nobody counted, is reported on its own line and is not "exact"); also over the
  tables a perfect reader could score exactly from the photo (every scored card shows an index, no squared
  dirty or wild book);
* the tables read with nothing to check (no note under "Check these") and how many of those were scored
  exactly; a table scored wrong with no note is a silent error, the one kind the user cannot catch (each one
  named); and the tables with notes, and how many of those were scored exactly all the same;
* the most frequent failure kinds.

``--oracle`` feeds the true corner boxes to stages 2-5: it measures the geometry alone, without the detector.

``--examples DIR`` measures the same figures on the photoreal renders of ``../shared/tables_examples`` (another
renderer's tables, ground truth in ``NNN.json``; ``datasets.examples``).

``--hands N`` renders N photos of one player's hand fanned face up (2-11 cards of the held-out designs, half of
them with clutter) and reads each as ``handfoot score --hand`` does (every card a card left): hands whose cards
were counted right, read exactly, and read right by rank and colour (what their score depends on), also over the
hands whose every card shows an index.

``--real DIR`` runs the photo path of ``handfoot score`` on every image of a folder of real photos (no ground
truth there, e.g. ``../shared/realdata/phone_corners/images``): it counts photos read, failures, cards and piles
by kind, and with ``--annotate-out OUT`` writes each annotated photo to OUT (keep OUT outside the repository:
the shared photos must not be copied into it).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from datasets.evaluation import (EXAMPLES_MATCH_IOU, LEGIBLE_PX, assign_owners, cached_found,  # noqa: E402
                                 design_figures, evaluate_scene)
from datasets.examples import load_examples  # noqa: E402
from datasets.scene_labels import true_detections  # noqa: E402

def read_hands(args: argparse.Namespace) -> int:
    """Render ``args.hands`` photos of a hand of the held-out designs and read them as hand photos."""
    from datasets.cardart import HELDOUT_DESIGNS, load_deck
    from datasets.scene_piles import Pile, hand_cards
    from datasets.scenes import make_scene
    from vision.classes import rank_colour
    from vision.pipeline import load_models, read_image

    detector, reader = load_models(args.model, args.reader)
    decks = [load_deck(d) for d in HELDOUT_DESIGNS]
    rng = np.random.default_rng(args.seed)
    stats: Counter = Counter()
    for k in range(args.hands):
        deck = decks[k % len(decks)]
        held = hand_cards(rng, int(rng.integers(2, 12)), jokers="JK" in deck.cards)
        scene = make_scene(args.seed * 100_000 + k, [deck], size=(1280, 960), full_view=True, clutter=bool(k % 2),
                           piles=[Pile("left", held)])
        side = read_image(scene.image, detector, reader, hand=True, config=args.config)[0]
        left = side.team_layout()["left"]
        got = left[0] if left else []
        readable = all(c["index_boxes_px"] for c in scene.cards)  # clutter may hide every index of a card
        right = sorted(map(rank_colour, got)) == sorted(map(rank_colour, held))
        stats["cards"] += len(held)
        stats["counted"] += len(got) == len(held)
        stats["exact"] += sorted(got) == sorted(held)
        stats["rank_colour"] += right
        stats["readable"] += readable
        stats["readable_rank_colour"] += readable and right
    n = max(1, args.hands)
    print(f"{args.hands} rendered hand photos ({stats['cards']} cards; designs {', '.join(HELDOUT_DESIGNS)}, "
          f"seed {args.seed}) — detector: {args.model.name}, reader {Path(reader.model).name if reader else 'none'}")
    print(f"  cards counted right: {stats['counted'] / n:.3f}; read exactly: {stats['exact'] / n:.3f}; "
          f"right by rank and colour (the score): {stats['rank_colour'] / n:.3f}")
    print(f"  of the {stats['readable']} hands whose every card shows an index (clutter hides some): right by rank and "
          f"colour {stats['readable_rank_colour'] / max(1, stats['readable']):.3f}")
    if args.json:
        args.json.write_text(json.dumps({"hands": args.hands, **stats}, indent=2))
    return 0


def read_real(args: argparse.Namespace) -> int:
    """Read every photo of ``args.real`` as ``handfoot score`` does; print what was found, write annotations."""
    import cv2

    from vision.images import ImageError, image_paths
    from vision.pipeline import NoCardsError, annotate, load_models, load_stack_checker, read_photos

    detector, reader = load_models(args.model, None if args.no_reader else args.reader)
    stacks = None if args.no_stacks else load_stack_checker(args.stacks)
    if args.no_reader:
        if not detector.names_cards:
            print(f"error: {args.model} finds indices without naming them; --no-reader needs a 53-class model")
            return 1
        reader = None
    paths = image_paths([str(args.real)])
    counts: Counter = Counter()
    kinds: Counter = Counter()
    for path in paths:
        try:
            photo = read_photos([path], detector, reader=reader, stacks=stacks, config=args.config)[0]
        except NoCardsError:
            counts["no cards found"] += 1
            continue
        except ImageError:
            counts["unreadable"] += 1
            continue
        counts["read"] += 1
        side = photo.sides[0]
        counts["cards"] += len(side.cards)
        counts["corner indices"] += len(side.detections)
        counts["notes"] += len(side.notes)
        kinds.update(p.kind.value for p in side.piles)
        if args.annotate_out:
            args.annotate_out.mkdir(parents=True, exist_ok=True)
            dest = args.annotate_out / f"{path.stem}_annotated.jpg"
            if not cv2.imwrite(str(dest), annotate(photo, [f"{len(side.cards)} cards, {len(side.piles)} piles"])):
                print(f"error: could not write {dest}")
                return 1
    print(f"{len(paths)} photos in {args.real}: {counts['read']} read, {counts['no cards found']} with no card found, "
          f"{counts['unreadable']} unreadable")
    print(f"  {counts['corner indices']} corner indices -> {counts['cards']} cards; piles: "
          + ", ".join(f"{v} {k}" for k, v in kinds.most_common()))
    print(f"  {counts['notes']} notes for the user (uncertain piles)")
    if args.json:
        args.json.write_text(json.dumps({"photos": len(paths), **counts, "piles": dict(kinds)}, indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=Path, default=ROOT / "data" / "heldout" / "scenes" / "val",
                    help="folder with images/ and layouts/ (datasets.generate output)")
    ap.add_argument("--oracle", action="store_true", help="use the true corner boxes instead of the detector")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--model", type=Path, default=ROOT / "models" / "cards.onnx")
    ap.add_argument("--conf", type=float, default=None, help="the reading floor (vision.config Reading.min_conf)")
    ap.add_argument("--set", action="append", default=[], metavar="SECTION.FIELD=VALUE",
                    help="override a vision.config setting, e.g. --set pyramid.target_index=32 (repeatable)")
    ap.add_argument("--reader", type=Path, help="index reader model (default: models/reader.onnx when present)")
    ap.add_argument("--no-reader", action="store_true",
                    help="use the detector's own card codes (a 53-class detector only)")
    ap.add_argument("--stacks", type=Path, help="stack checker model (default: models/stacks.onnx when present)")
    ap.add_argument("--no-stacks", action="store_true", help="read every single whole card as a squared book")
    ap.add_argument("--examples", type=Path,
                    help="a tables_examples folder (photoreal renders, NNN.jpg + NNN.json) instead of --scenes")
    ap.add_argument("--match-iou", type=float, default=None,
                    help="IoU at which a found box is a true index's (default 0.5; 0.3 with --examples, whose "
                         "boxes are drawn tighter than ours)")
    ap.add_argument("--real", type=Path, help="a folder of real photos to read (no ground truth)")
    ap.add_argument("--hands", type=int, help="instead: render this many photos of a hand (held-out designs) and "
                                              "read them as hand photos (handfoot score --hand)")
    ap.add_argument("--seed", type=int, default=1, help="with --hands: the first scene's seed")
    ap.add_argument("--annotate-out", type=Path, help="with --real: write annotated photos here")
    ap.add_argument("--json", type=Path, help="also write the figures to this file")
    ap.add_argument("--deck", type=Path, metavar="PROFILE.npz",
                    help="read with this deck profile (vision.decks; handfoot keeps them in its data folder's decks/)")
    ap.add_argument("--cache", type=Path,
                    help="keep each photo's found boxes and their readings here (one .npz a photo) and reuse them: "
                         "a rerun measures stages 1b-5 alone, in seconds (delete the folder when a model changes)")
    args = ap.parse_args(argv)
    from vision.config import DEFAULT

    try:
        changes = {k: json.loads(v) for k, _, v in (item.partition("=") for item in args.set)}
        if args.conf is not None:
            changes["reading.min_conf"] = args.conf
        args.config = DEFAULT.replace(**{k: tuple(v) if isinstance(v, list) else v for k, v in changes.items()})
    except ValueError as exc:
        ap.error(f"--set: {exc}")
    if args.real:
        return read_real(args)
    if args.hands:
        return read_hands(args)
    if args.match_iou is None:
        args.match_iou = EXAMPLES_MATCH_IOU if args.examples else 0.5
    if not 0 < args.match_iou <= 1:
        ap.error(f"--match-iou must be in (0, 1], got {args.match_iou}")
    if args.examples:
        source = args.examples
        docs = [(doc, args.examples / doc["image"]) for doc in load_examples(args.examples)][: args.limit]
    else:
        source = args.scenes
        docs = [(doc, args.scenes / "images" / doc["image"]) for doc in
                (json.loads(p.read_text()) for p in sorted((args.scenes / "layouts").glob("*.json"))[: args.limit])]
        if not docs:
            print(f"error: no layouts/*.json under {args.scenes}")
            return 1
    detector = None
    reader = None
    from vision.images import load_image
    from vision.pipeline import load_stack_checker

    stacks = None if args.no_stacks else load_stack_checker(args.stacks)
    if not args.oracle:
        from vision.models.detector import CardDetector
        from vision.pipeline import load_models

        if args.no_reader:
            detector = CardDetector(args.model)
            if not detector.names_cards:
                print(f"error: {args.model} finds indices without naming them; --no-reader needs a 53-class model")
                return 1
        else:
            detector, reader = load_models(args.model, args.reader)
            if args.deck:
                from vision.deck_profiles import DeckProfile

                detector, reader = DeckProfile.load(args.deck.stem, args.deck.parent).models(detector, reader)
    from vision.pipeline import read_image

    stats: Counter = Counter()
    failures: Counter = Counter()
    alone: Counter = Counter()  # tables not scored exactly, by their only failure kind
    by_design: dict[str, Counter] = {}  # each deck design's figures (tables of two decks: "mixed")
    silent: list[str] = []  # the tables scored wrong with no note, by name
    seconds: list[float] = []
    for doc, image_path in docs:
        image = load_image(image_path)
        if args.oracle:
            found, _ = true_detections(doc)
        else:
            start = time.perf_counter()
            cached = args.cache / f"{Path(image_path).stem}.npz" if args.cache and reader is not None else None
            timed = cached is None or not cached.is_file()  # a cached photo's time is not a detection's
            found = cached_found(cached, image, detector, reader, args.config)
            if timed:
                seconds.append(time.perf_counter() - start)
        reading = read_image(image, detector, reader, stacks, found=found, config=args.config)[0]
        owners = true_detections(doc)[1] if args.oracle else assign_owners(reading.detections, doc, args.match_iou)
        scene: Counter = Counter()
        table: Counter = Counter()
        evaluate_scene(doc, reading, owners, table, scene)
        stats.update(table)
        if table["wrong_unflagged"]:
            silent.append(Path(image_path).stem)
        design = doc.get("design", "?")
        by_design.setdefault("mixed" if "+" in design else design, Counter()).update(table)
        failures.update(scene)
        if not table["score_exact"]:
            alone[next(iter(scene)) if len(scene) == 1 else
                  "several failure kinds" if scene else "none of the kinds above"] += 1
    n = stats["tables"]
    on = f"{detector.backend_name} {detector.precision}" if detector is not None else ""
    on += ", stage 1 from --cache where cached" if args.cache else ""
    models = ["oracle (true boxes)"] if args.oracle else [f"{args.model.name} ({on})" if on else args.model.name]
    models += [f"reader {Path(reader.model).name}"] if reader else []
    models += [f"stack checker {Path(stacks.model).name}" if stacks else "no stack checker"]
    figures = {
        "tables": n, "detector": ", ".join(models),
        "fan_counting_accuracy": stats["fans_counted"] / max(1, stats["fans"]), "fans": stats["fans"],
        "fan_counting_accuracy_all_visible": stats["fans_visible_counted"] / max(1, stats["fans_visible"]),
        "fans_all_visible": stats["fans_visible"],
        "fan_counting_accuracy_legible": stats["fans_legible_counted"] / max(1, stats["fans_legible"]),
        "fans_legible": stats["fans_legible"],
        "exact_pile_rate": stats["piles_exact"] / max(1, stats["piles"]), "piles": stats["piles"],
        "exact_layout_rate": stats["layout_exact"] / n, "exact_score_rate": stats["score_exact"] / n,
        "score_range_contains_truth_rate": stats["score_range"] / n,
        "tables_readable": stats["tables_readable"],
        "exact_score_rate_readable": stats["score_exact_readable"] / max(1, stats["tables_readable"]),
        "tables_showing_a_joker": stats["tables_joker"],
        "exact_score_rate_joker": stats["score_exact_joker"] / max(1, stats["tables_joker"]),
        "exact_score_rate_no_joker": (stats["score_exact"] - stats["score_exact_joker"])
        / max(1, n - stats["tables_joker"]),
        "joker_indices": stats["joker_indices"], "joker_indices_read": stats["joker_indices_read"],
        "tables_unflagged": stats["tables_unflagged"], "exact_unflagged": stats["score_exact_unflagged"],
        "wrong_unflagged": stats["wrong_unflagged"], "silent_tables": silent,
        "tables_noted": stats["tables_noted"], "exact_noted": stats["score_exact_noted"],
        "tables_no_cards": stats["tables_no_cards"],
        "single_whole_cards": {"squared_book_tops": stats["singles_stack"],
                               "kept_as_squared_books": stats["singles_stack_kept"],
                               "other": stats["singles_other"], "read_as_loose": stats["singles_other_loose"]},
        "squared_books": stats["books_squared"], "squared_books_found": stats["books_squared_found"],
        "fans_noted_edges": stats["fans_noted_edges"], "fans_noted_edges_wrong": stats["fans_noted_edges_wrong"],
        "by_design": {d: design_figures(c) for d, c in sorted(by_design.items())},
        "failures": dict(failures.most_common()),
        "tables_not_exact_by_only_failure": dict(alone.most_common()),
        "detect_seconds_median": float(np.median(seconds)) if seconds else None,
    }
    print(f"{n} tables from {source} — detector: {figures['detector']}")
    print(f"  fan counting accuracy: {figures['fan_counting_accuracy']:.3f} "
          f"({stats['fans_counted']}/{stats['fans']} fans)")
    print(f"    fans whose every card shows an index: {figures['fan_counting_accuracy_all_visible']:.3f} "
          f"({stats['fans_visible_counted']}/{stats['fans_visible']})")
    print(f"    fans whose every card shows an index of {LEGIBLE_PX:.0f} px or more: "
          f"{figures['fan_counting_accuracy_legible']:.3f} ({stats['fans_legible_counted']}/{stats['fans_legible']})")
    print(f"  exact-pile rate:       {figures['exact_pile_rate']:.3f} ({stats['piles_exact']}/{stats['piles']} piles)")
    print(f"  exact-layout rate:     {figures['exact_layout_rate']:.3f}")
    print(f"  exact-score rate:      {figures['exact_score_rate']:.3f}")
    print(f"    on tables a perfect reader could score exactly ({stats['tables_readable']}: every scored card "
          f"shows an index, no dirty/wild squared book, no one-card hand): "
          f"{figures['exact_score_rate_readable']:.3f}")
    print(f"    on the {stats['tables_joker']} tables showing a joker: {figures['exact_score_rate_joker']:.3f}; on the "
          f"others: {figures['exact_score_rate_no_joker']:.3f} (joker indices read as jokers: "
          f"{stats['joker_indices_read']} of {stats['joker_indices']})")
    print(f"  score a range holding the true score: {figures['score_range_contains_truth_rate']:.3f}")
    print(f"  tables read with nothing to check (no note, no rule broken): {stats['tables_unflagged']}, "
          f"of them scored exactly: {stats['score_exact_unflagged']}; tables scored wrong with no note (silent errors): "
          f"{figures['wrong_unflagged']} of {n - stats['score_exact']}"
          + (f"; photos with no card read (refused by handfoot score, not silent): {stats['tables_no_cards']}"
             if stats["tables_no_cards"] else ""))
    print(f"    the silent ones: {', '.join(silent) if silent else 'none'}")
    print(f"  tables with notes or broken rules to check: {stats['tables_noted']}, "
          f"of them scored exactly: {stats['score_exact_noted']}")
    print(f"  single whole cards: {stats['singles_stack_kept']}/{stats['singles_stack']} squared books' tops kept as "
          f"squared books, {stats['singles_other_loose']}/{stats['singles_other']} others read as loose")
    print(f"  squared books found (read as a squared book): {stats['books_squared_found']}/{stats['books_squared']}")
    print(f"  fans whose edges show another count than their indices, or whose end is covered (noted): "
          f"{stats['fans_noted_edges']}, of them "
          f"counted wrong: {stats['fans_noted_edges_wrong']} (of {stats['fans'] - stats['fans_counted']} counted wrong)")
    print("  by deck design (fans counted right; squared books found; exact score; silent errors):")
    for d, f in figures["by_design"].items():
        print(f"    {d:14s} fans {f['fans_counted']:3d}/{f['fans']:<3d} ({f['fan_counting_accuracy']:.3f}); squared books "
              f"{f['squared_books_found']:2d}/{f['squared_books']:<2d}; exact score {f['score_exact']:3d}/{f['tables']:<3d} "
              f"({f['exact_score_rate']:.3f}); silent {f['wrong_unflagged']}")
    if seconds:
        print(f"  detection: median {np.median(seconds):.2f} s per photo (image pyramid, ONNX Runtime, 2 threads)")
    print("  failure kinds:")
    for k, v in failures.most_common():
        print(f"    {v:4d}  {k}")
    print(f"  tables not scored exactly ({n - stats['score_exact']}), by their only failure kind:")
    for k, v in alone.most_common():
        print(f"    {v:4d}  {k}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    from vision.models.detector import ModelError

    try:
        sys.exit(main())
    except (FileNotFoundError, ModelError) as exc:  # a missing or wrong model file: one line, no traceback
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
