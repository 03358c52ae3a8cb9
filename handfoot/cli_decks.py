"""The ``handfoot`` command line's deck commands: ``detect`` (a photo's corner indices, the examples a deck is taught
from) and ``deck learn`` / ``deck list`` / ``deck remove`` (deck profiles), over :mod:`handfoot.learning`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from scorer import HandFootError
from scorer.wording import counted

from . import core, files, learning, reports
from .cli_out import EXIT_BAD_INPUT, say
from .errors import ConflictError

#: where the command line sends a family teaching handfoot its deck
TEACHING = core.CLI_WAY.teach


def cmd_detect(args: argparse.Namespace) -> int:
    paths = learning.image_paths(args.images)
    if not 0 < args.conf <= 1:
        raise HandFootError(f"--conf must be in (0, 1], got {args.conf}")
    if args.imgsz < 320:
        raise HandFootError(f"--imgsz must be at least 320 pixels, got {args.imgsz}")
    dests = []
    if args.annotate:
        files.check_annotate_target(args.annotate, len(paths))
        dests = files.annotation_paths(args.annotate, paths)
    models = core.load_models(args.model, args.reader, no_stacks=True, deck=args.deck, negative=args.negative,
                              decks=decks_folder(args))
    written: list[Path] = []

    def drawn(k: int, picture) -> None:
        files.write_picture(dests[k], picture)
        written.append(dests[k])

    failures, empty = 0, []
    for record in learning.detect_examples(paths, models, args.conf, args.imgsz, drawn if dests else None):
        if isinstance(record, HandFootError):
            say(f"handfoot: error: {record}")
            failures += 1
            continue
        if not record["detections"]:
            empty.append(Path(record["image"]))
        if args.json:
            print(json.dumps(record))
        else:
            cards = ", ".join(f"{d['card']} ({d['confidence']:.2f})" for d in record["detections"]) or "no cards found"
            print(f"{record['image']}: {counted(len(record['detections']), 'corner index', 'corner indices')}: "
                  f"{cards}")
    for dest in written:  # after the photos' lines, as score says it (on standard error beside --json's lines)
        (say if args.json else print)(f"annotated: {dest}")
    if empty:
        say(f"handfoot: {_no_cards_found(empty, len(paths) - failures, models, args)}")
    return EXIT_BAD_INPUT if failures else 0


def _no_cards_found(empty: list[Path], read: int, models: core.Models, args: argparse.Namespace) -> str:
    """What ``detect`` says of the photos of ``empty`` where no card was found (of ``read`` photos read): whether
    their negatives show corner indices (a deck printed light on dark paper: detect them with ``--negative``), and
    how a deck is taught (read with --deck or --negative: only how)."""
    none = f"{len(empty)} of {counted(read, 'photo')}: no card found"
    if args.deck or args.negative:
        return f"{none} (is each card's corner in view, in focus and lit?){core.no_cards_advice(core.CLI_WAY, models)}"
    shown, looked = learning.negatives_shown(empty, models, args.conf, args.imgsz)
    if shown:
        some = f"{shown} of the {looked} read so" if looked > 1 else "it"
        return (f"{none}; read as {'negatives' if looked > 1 else 'a negative'} (light print on dark paper), {some} "
                f"{'shows' if shown == 1 else 'show'} corner indices: is your deck printed light on "
                f"dark? detect {'them' if len(empty) > 1 else 'it'} again with --negative (to teach handfoot the "
                f"deck: {TEACHING})")
    return (f"{none} (is each card's corner in view, in focus and lit?); a deck of its own design can be taught "
            f"from photos whose cards are found, or with each index's box added by hand: {TEACHING}")


def cmd_deck_learn(args: argparse.Namespace) -> int:
    before = learning.saved_deck(args.name, decks_folder(args))  # a name in use, told before the examples are read
    if before is not None and not args.replace:
        raise ConflictError(f"a deck profile {args.name} exists already, learned from {reports.deck_figures(before)}; "
                            "add --replace to replace it, or choose another --name")
    try:
        profile, path, replaced = learning.learn_from_files([Path(p) for p in args.examples], args.name,
                                                            decks_folder(args), reports.stage_bars(),
                                                            lambda note: say(f"handfoot: {note}"),
                                                            lambda count: print(count, flush=True))  # report's 1st line
    except HandFootError as exc:
        if not learning.no_profile_needed(exc):
            raise
        print(f"{exc}\n{reports.RANK_AND_COLOUR}")  # good news: nothing is wrong, and nothing to keep
        return 0
    print(reports.deck_learned(profile, path, replaced))
    return 0


def decks_folder(args: argparse.Namespace) -> Path:
    """The deck profiles' folder of a command with ``--db`` (``deck``, ``watch``, ``score``, ``detect``): beside
    that ledger (where ``serve --db`` looks), else the data folder's."""
    return core.decks_dir(Path(args.db).parent) if args.db else core.decks_dir()


def cmd_deck_list(args: argparse.Namespace) -> int:
    profiles = learning.list_decks(decks_folder(args))
    if not profiles:
        print(f"no deck profiles yet in {decks_folder(args)} (handfoot deck learn EXAMPLES.jsonl --name NAME)")
    for p in profiles:
        print(reports.deck_line(p))
    return 0


def cmd_deck_remove(args: argparse.Namespace) -> int:
    learning.remove_deck(args.name, decks_folder(args))
    print(f"removed deck {args.name}")
    return 0
