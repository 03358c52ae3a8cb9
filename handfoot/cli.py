"""The ``handfoot`` command line.

Every sub-command prints a readable report, or JSON with ``--json``. Bad input (an unknown card code, rule
name or key, an impossible layout) exits with status 1 and a one-line ``handfoot: error: ...`` message on
standard error; a usage mistake exits with status 2. Set ``HANDFOOT_DEBUG=1`` to see tracebacks.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from scorer import PRESET_NAMES, HandFootError, get_rules, parse_cards
from scorer.cards import Card
from scorer.rules import Rules

from . import app
from .https import add_https_option, serve_https  # the HTTPS of serve and watch --serve

EXIT_BAD_INPUT = 1
#: most deals `odds` simulates (about half a minute on two cores)
MAX_DEALS = 1_000_000


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2))


def layout_text(value: Any, indent: int = 0) -> str:
    """A layout document as JSON for a person to edit: objects one key a line, each pile (a list of card codes, or
    a squared book's object) on one line, as in README's layouts; ends with a newline at the top level."""
    pad = "  " * indent

    def flat(v: Any) -> bool:
        return not isinstance(v, (dict, list)) or all(not isinstance(x, (dict, list))
                                                     for x in (v.values() if isinstance(v, dict) else v))
    if flat(value) and indent:
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        rows = [f"{pad}  {json.dumps(k)}: {layout_text(v, indent + 1)}" for k, v in value.items()]
        text = "{\n" + ",\n".join(rows) + f"\n{pad}}}" if rows else "{}"
    else:
        rows = [f"{pad}  {layout_text(v, indent + 1)}" for v in value]
        text = "[\n" + ",\n".join(rows) + f"\n{pad}]" if rows else "[]"
    return text + ("\n" if not indent else "")


def _house_rules(pairs: Sequence[str] | None) -> dict[str, Any]:
    """``--set key=value`` pairs, values parsed as JSON when possible (``2``, ``true``, ``[60,90]``)."""
    out: dict[str, Any] = {}
    for pair in pairs or ():
        if "=" not in pair:
            raise HandFootError(f"--set needs key=value, got {pair!r}")
        key, _, raw = pair.partition("=")
        try:
            out[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[key.strip()] = raw
    return out


def _rules(args: argparse.Namespace, default: str = "pagat") -> Rules:
    return get_rules(getattr(args, "rules", None) or default, **_house_rules(getattr(args, "set", None)))


# -- score ----------------------------------------------------------------------------------------------------
def _is_layout(path: str) -> bool:
    return path.lower().endswith(".json")


def cmd_score(args: argparse.Namespace) -> int:
    if all(_is_layout(p) for p in args.inputs):
        if len(args.inputs) != 1:
            raise HandFootError("give one layout JSON file (use `handfoot game` for several rounds)")
        given = [f"--{f.replace('_', '-')}" for f in PHOTO_FLAGS if getattr(args, f) is not None]
        if given:
            raise HandFootError(f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} only to photos; "
                                "a layout file has its own round, went_out and teams")
        return _score_layout(args)
    if any(_is_layout(p) for p in args.inputs):
        raise HandFootError("give either one layout JSON file or photos, not both")
    return _score_photos(args)


def _score_layout(args: argparse.Namespace) -> int:
    layout = app.read_layout_file(args.inputs[0])
    result = app.score_layout(layout, args.rules, _house_rules(args.set), lenient=args.lenient)
    if args.json:
        _print_json(result.score.model_dump(mode="json"))
    else:
        _print_layout(layout)
        print(result._round.format_text())
    return 0


def _print_layout(layout) -> None:
    """Each team's piles as the layout file gives them, one a line, before the score (so an edit shows)."""
    def cards(codes) -> str:
        return " ".join(str(c) for c in codes)
    for team, t in layout.teams.items():
        rows = [("meld", cards(m)) for m in t.melds]
        rows += [("squared book", f"{b.top} on top" + (f", {b.count} cards" if b.count else "")
                  + (f" ({cards(b.cards)})" if b.cards else "")) for b in t.squared_books]
        rows += [("red threes", cards(t.red_threes))] if t.red_threes else []
        rows += [("left in hand", cards(h)) for h in t.left if h]
        rows += [("loose (not scored)", cards(t.loose))] if t.loose else []
        print(f"team {team} (layout)")
        for label, text in rows:
            print(f"  {label:<22} {text}")
    print()


def _hand_photos(values: Sequence[str] | None) -> list[tuple[str, str]]:
    """``--hand A:hand.jpg`` -> [("A", "hand.jpg")] (the photo is read later)."""
    out = []
    for v in values or ():
        team, sep, photo = v.partition(":")
        if not sep or not team.strip() or not photo.strip():
            raise HandFootError(f"--hand needs TEAM:PHOTO, got {v!r}")
        out.append((team.strip(), photo.strip()))
    return out


#: flags of `score` that only mean something for photos
PHOTO_FLAGS = ("annotate", "split", "teams", "left", "hand", "went_out", "round", "conf", "model", "reader",
               "save_layout", "deck")


def _score_photos(args: argparse.Namespace) -> int:
    from vision.images import IMAGE_SUFFIXES

    if args.conf is not None and not 0 < args.conf <= 1:
        raise HandFootError(f"--conf must be in (0, 1], got {args.conf}")
    left = app.parse_left(args.left or ())
    req = app.PhotoRequest(rules=args.rules or "pagat", house_rules=tuple(_house_rules(args.set).items()),
                           round=args.round, went_out=args.went_out, split=args.split,
                           teams=app.parse_teams(args.teams),
                           left=tuple((t, tuple(tuple(p) for p in packets)) for t, packets in left.items()),
                           conf=app.DEFAULT_CONF if args.conf is None else args.conf)
    hands = _hand_photos(args.hand)
    app.check_photo_request(req, len(args.inputs), [t for t, _ in hands])  # before the slow work
    for _, photo in hands:  # a mistyped hand photo, before the slow detection of the table photos
        if Path(photo).is_dir():
            raise HandFootError(f"{photo}: a folder; --hand takes one photo (repeat --hand for several)")
        if not Path(photo).is_file():
            raise HandFootError(f"{photo}: no such file")
    n_photos = len(args.inputs) + len(hands)
    if args.annotate:
        suffix = Path(args.annotate).suffix.lower()
        if suffix and suffix not in IMAGE_SUFFIXES and not Path(args.annotate).is_dir():
            raise HandFootError(f"--annotate {args.annotate}: give an image name ({', '.join(IMAGE_SUFFIXES)}) or "
                                "a folder")
        if suffix in IMAGE_SUFFIXES and n_photos > 1:
            raise HandFootError(f"--annotate {args.annotate} names one image, but {n_photos} photos are read: give "
                                "a folder (each annotated picture is written there under its photo's name)")
    models = app.load_models(args.model, args.reader, args.stacks, args.no_stacks, req.conf, deck=args.deck)
    if args.deck:
        print(f"handfoot: reading with the deck profile {args.deck}", file=sys.stderr)
    result = app.read_and_score_photos([Path(p) for p in args.inputs], req, models,
                                       [(t, Path(p)) for t, p in hands])
    if args.save_layout:
        try:
            Path(args.save_layout).write_text(layout_text(result.layout))
        except OSError as exc:
            raise HandFootError(f"could not write the layout {args.save_layout}: {exc.strerror}") from None
        print(f"layout saved: {args.save_layout}", file=sys.stderr)
    if args.annotate:
        _write_annotations(args.annotate, result)
    if args.json:
        _print_json(result.model_dump(mode="json"))
        return 0
    for image in result.images:
        width = max([22] + [len(p.label) + 1 for p in image.piles])
        for team in image.teams:
            piles = [p for p in image.piles if p.team == team and not p.id.startswith("t")]  # typed: below
            n = sum(len(p.cards) for p in piles)
            if image.kind == "hand":
                print(f"team {team}, cards left in hand ({image.image}): {n} card{'s' * (n != 1)} seen")
            else:
                k = len(piles)
                squared = any(p.kind == "squared_book" for p in piles)
                print(f"team {team} ({image.image}): {n} card{'s' * (n != 1)} seen, in {k} pile{'s' * (k != 1)}"
                      + (" (a squared book shows one card and is scored as a whole book)" if squared else ""))
            for pile in piles:
                print(f"  {pile.label:<{width}} {' '.join(c.code for c in pile.cards)}")
    for team, packets in result.left.items():
        for packet in packets:
            print(f"team {team} left (entered): {' '.join(packet)}")
    print()
    print(result._round.format_text())
    if result.notes:
        print("\nCheck these (the camera is not sure):")
        for note in result.notes:
            print(f"  - {note}")
    if result.notes or result.score.problems:
        path = args.save_layout
        how = (f"fix {path}, then run: handfoot score {path}" if path else
               "add --save-layout LAYOUT.json, fix that file, then run: handfoot score LAYOUT.json")
        print(f"\nTo correct the reading: {how} (add --lenient while it still breaks the rules)")
    return 0


def _write_annotations(target: str, result) -> None:
    """One photo: write ``target`` when it has an image suffix. Otherwise ``target`` is a folder of
    ``<stem>_annotated.jpg`` (``<stem>_2_annotated.jpg`` ... when two photos share a name)."""
    import cv2

    from vision.images import IMAGE_SUFFIXES

    out = Path(target)
    if len(result.images) == 1 and out.suffix.lower() in IMAGE_SUFFIXES:
        dests = [out]
    else:
        dests, used = [], set()
        for image in result.images:
            base = Path(image.image).stem
            stem, k = base, 1
            while stem in used:
                k += 1
                stem = f"{base}_{k}"
            used.add(stem)
            dests.append(out / f"{stem}_annotated.jpg")
    for k, dest in enumerate(dests):
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
            ok = cv2.imwrite(str(dest), app.annotated_image(result, k))
        except (OSError, cv2.error) as exc:
            import errno

            why, where = (getattr(exc, "strerror", None) or str(exc)).lower(), getattr(exc, "filename", None)
            if getattr(exc, "errno", None) in (errno.EEXIST, errno.ENOTDIR) and where:
                why = f"{where} is a file, not a folder"
            elif where and str(where) != str(dest):
                why = f"{why} ({where})"
            raise HandFootError(f"could not write the annotated image {dest}: {why}") from None
        if not ok:
            raise HandFootError(f"could not write the annotated image {dest}")
        print(f"annotated: {dest}", file=sys.stderr)


# -- rules ----------------------------------------------------------------------------------------------------
def cmd_rules(args: argparse.Namespace) -> int:
    if not args.name:
        presets = [get_rules(n) for n in PRESET_NAMES]
        if args.json:
            _print_json({r.name: r.model_dump(mode="json") for r in presets})
        else:
            for r in presets:
                print(f"{r.name:<14}{r.title}")
            print("\n'handfoot rules NAME' lists a preset's values.")
        return 0
    rules = _rules(argparse.Namespace(rules=args.name, set=args.set))
    if args.json:
        _print_json(rules.model_dump(mode="json"))
        return 0
    print(f"{rules.name}: {rules.title}\nsource: {rules.source}\n")
    for field_name, info in Rules.model_fields.items():
        if field_name in ("name", "title", "source"):
            continue
        value = getattr(rules, field_name)
        value = getattr(value, "value", value)
        print(f"  {field_name:<30}{json.dumps(value):<22}{info.description or ''}")
    return 0


# -- check-meld -----------------------------------------------------------------------------------------------
def cmd_check_meld(args: argparse.Namespace) -> int:
    from scorer.melds import check_meld
    from scorer.opening import check_opening

    rules = _rules(args)
    melds = [parse_cards(text) for text in args.melds]
    pickup = Card.parse(args.pickup) if args.pickup else None
    checks = [check_meld(m, rules) for m in melds]
    opening = check_opening(melds, args.round, rules, pickup=pickup) if args.round else None
    if args.json:
        _print_json({
            "rules": rules.name,
            "melds": [{"cards": [c.code for c in ch.cards], "legal": ch.legal, "reasons": list(ch.reasons),
                       "rank": ch.rank.value if ch.rank else None, "naturals": ch.naturals, "wilds": ch.wilds,
                       "points": ch.points, "book": ch.kind.value if ch.kind else None} for ch in checks],
            "opening": None if opening is None else {
                "round": opening.round, "points": opening.points, "minimum": opening.minimum,
                "meets": opening.meets, "shortfall": opening.shortfall, "reasons": list(opening.reasons)},
        })
    else:
        print(f"Rules: {rules.name}")
        for text, ch in zip(args.melds, checks):
            print(f"  {' '.join(c.code for c in ch.cards)}: {ch.describe()}")
        if opening is not None:
            print(opening.describe())
    legal = all(ch.legal for ch in checks) and (opening is None or opening.meets)
    return 0 if legal else EXIT_BAD_INPUT if args.strict else 0


# -- opening --------------------------------------------------------------------------------------------------
def cmd_opening(args: argparse.Namespace) -> int:
    from scorer.opening import best_opening

    rules = _rules(args)
    hand = parse_cards(" ".join(args.hand))
    plan = best_opening(hand, rules, args.round)
    if args.json:
        _print_json({"rules": rules.name, "round": args.round, "points": plan.points, "minimum": plan.minimum,
                     "meets": plan.meets, "melds": [[c.code for c in m] for m in plan.melds]})
    else:
        print(f"Best opening under '{rules.name}'" + (f", round {args.round}" if args.round else "") + ":")
        print("  " + plan.describe())
    return 0


# -- odds -----------------------------------------------------------------------------------------------------
def cmd_odds(args: argparse.Namespace) -> int:
    from scorer.odds import simulate_odds

    if not 1 <= args.deals <= MAX_DEALS:
        raise HandFootError(f"--deals must be 1 to {MAX_DEALS:,} (got {args.deals:,})")
    bar = _progress_bar(args.deals, "deals")
    try:
        report = simulate_odds(_rules(args), deals=args.deals, seed=args.seed,
                               progress=(lambda done, total: bar.update(done - bar.n)) if bar else None)
    except ValueError as exc:
        raise HandFootError(str(exc)) from None
    finally:
        if bar:
            bar.close()
    if args.json:
        _print_json(report.to_dict())
    else:
        print(report.format_table())
    return 0


def _progress_bar(total: int, unit: str, at_least: int = 500_000):
    """A tqdm bar on standard error when it is a terminal and the work is long (``total`` of ``at_least`` or
    more), else None."""
    if total < at_least or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit=f" {unit}", unit_scale=True, file=sys.stderr, leave=False)


# -- game -----------------------------------------------------------------------------------------------------
def cmd_game(args: argparse.Namespace) -> int:
    from scorer.game import Game
    from scorer.layout import TableLayout
    from scorer.scoring import score_round

    layouts = [TableLayout.from_file(p) for p in args.layouts]
    name = args.rules or layouts[0].rules
    game = Game(get_rules(name, **{**layouts[0].house_rules, **_house_rules(args.set)}))
    for path, layout in zip(args.layouts, layouts):
        try:
            game.add_round(score_round(layout, game.rules, lenient=args.lenient))
        except HandFootError as exc:
            raise HandFootError(f"{path}: {exc}") from None
    if args.json:
        _print_json(game.to_dict())
    else:
        print(game.format_text())
    return 0


# -- detect ---------------------------------------------------------------------------------------------------
def cmd_watch(args: argparse.Namespace) -> int:
    from . import live, watch
    from . import picture as shown

    if args.round < 1:
        raise HandFootError(f"--round {args.round}: rounds are numbered from 1")
    if args.headless and (args.serve or args.window):
        raise HandFootError("--headless shows nothing: leave out --serve and --window")
    if args.record and not Path(args.record).resolve().parent.is_dir():
        raise HandFootError(f"--record {args.record}: no such folder")
    source = args.video if args.video is not None else args.camera
    if args.window:
        shown.check_window()
    stream = watch.frames(source)
    first = next(stream)  # a missing file, an unreadable video or no camera: one line, before the models load
    req, ledger = _watch_request(args)
    if args.serve:
        stream.close()
        return _serve(args, lambda models, decks: live.start(source, models, req, args.game,
                                                             Path(args.record) if args.record else None, decks,
                                                             wait_for_viewer=args.video is not None))
    import itertools

    models = app.load_models()
    if req.deck:  # --deck, or the game's deck
        models = app.with_deck(models, req.deck, _decks(args))
    read, score = live.round_reader(models, req)
    watcher = watch.Watcher(read, score)
    print(f"handfoot: watching {'camera ' + str(args.camera) if args.video is None else args.video}"
          f"{' with the deck profile ' + req.deck if req.deck else ''} (Ctrl-C to stop)", file=sys.stderr)
    stopped, writer, totals = None, None, {}
    try:
        for t, frame in itertools.chain([first], stream):
            for event in watcher.step(t, frame):
                totals = event.totals
                if args.json:
                    print(event.to_json(), flush=True)
                else:
                    print(f"{event.t:7.1f} s  {event.text}  ({', '.join(f'{k} {v:,}' for k, v in totals.items())})",
                          flush=True)
            if args.record or args.window:
                picture = shown.draw(frame, watcher.seen, totals, "moving" if watcher.moving else "watching")
                if args.record:
                    writer = writer or shown.video_writer(Path(args.record), picture.shape[1], picture.shape[0],
                                                          _fps_of(args.video) if args.video else shown.RECORD_FPS)
                    writer.write(picture)
                if args.window and not shown.show_window(picture):
                    break  # q or Esc in the window
    except HandFootError as exc:  # the camera stopped: say so, keep what was read
        stopped = exc
        print(f"handfoot: error: {exc}", file=sys.stderr)
    finally:
        if writer is not None:
            writer.release()
    final = score(watcher.layout) if watcher.layout.get("teams") else {}
    if args.json:
        print(json.dumps({"end": True, "reads": watcher.reads, "layout": watcher.layout, "totals": final}))
    else:
        print(f"end: {watcher.reads} readings; round totals: "
              + (", ".join(f"{k} {v:,}" for k, v in final.items()) or "no cards seen"))
    if ledger is not None:
        from . import games

        try:
            if watcher.layout.get("teams"):
                game = games.add_round(ledger, args.game, watcher.layout, lenient=True)
                print(f"handfoot: round {len(game.rounds)} added to game {game.id} (correct it on the page if a "
                      "card was misread)", file=sys.stderr)
        finally:
            ledger.close()
    return 1 if stopped else 0


def _fps_of(video: str) -> float:
    """A video file's frames per second (15 when it does not say)."""
    import cv2

    cap = cv2.VideoCapture(video)
    try:
        return cap.get(cv2.CAP_PROP_FPS) or 15.0
    finally:
        cap.release()


def _watch_request(args: argparse.Namespace):
    """The round ``watch`` reads (``app.PhotoRequest``) and, with ``--game``, the ledger holding the game (None
    with ``--serve``, whose server opens it). Raises HandFootError: no such game, or one that is over."""
    from . import live

    if not args.game:
        return app.PhotoRequest(rules=args.rules, round=args.round, split=args.split,
                                teams=app.parse_teams(args.teams), deck=args.deck), None
    from . import games
    from .ledger import Ledger

    ledger = Ledger.open(Path(args.db) if args.db else app.data_dir() / "handfoot.db")
    req = live.request_for_game(games.game_view(ledger, args.game), args.split, args.deck)
    if args.serve:
        ledger.close()
        ledger = None
    return req, ledger


def cmd_detect(args: argparse.Namespace) -> int:
    try:
        from vision.config import DEFAULT
        from vision.images import ImageError, image_paths, load_photo
        from vision.pipeline import detect, read_indices
        import onnxruntime  # noqa: F401
    except ImportError as exc:  # the vision extra is not installed
        raise HandFootError(f"detect needs the vision extra (pip install -e '.[vision]'): {exc}") from None

    paths = image_paths(args.images)
    if not paths:
        raise HandFootError("no images given (a directory argument must contain .jpg/.png images)")
    if not 0 < args.conf <= 1:
        raise HandFootError(f"--conf must be in (0, 1], got {args.conf}")
    if args.imgsz < 320:
        raise HandFootError(f"--imgsz must be at least 320 pixels, got {args.imgsz}")
    models = app.load_models(args.model, args.reader, no_stacks=True, deck=args.deck)
    detector, reader = models.detector, models.reader
    config = DEFAULT.replace(**{"reading.min_conf": args.conf, "pyramid.max_side": args.imgsz})
    failures = 0
    for path in paths:
        try:
            image = load_photo(path)
        except ImageError as exc:
            print(f"handfoot: error: {exc}", file=sys.stderr)
            failures += 1
            continue
        det, _ = read_indices(detect(image, detector, reader, config), not detector.names_cards, config)
        record = {"image": str(path), "width": int(image.shape[1]), "height": int(image.shape[0]),
                  "detections": det.to_list()}
        if args.json:
            print(json.dumps(record))
        else:
            cards = ", ".join(f"{d['card']} ({d['confidence']:.2f})" for d in record["detections"]) or "no cards found"
            print(f"{path}: {len(det)} corner indices: {cards}")
    return EXIT_BAD_INPUT if failures else 0


# -- serve ----------------------------------------------------------------------------------------------------
def _check_port(host: str, port: int) -> None:
    """Raise a one-line HandFootError when ``host``:``port`` cannot be listened on (in use, or not this computer's
    address), before anything is loaded or printed as started."""
    import socket

    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as exc:
        why = "already in use (another handfoot serve?); choose another with --port" if exc.errno == 98 else \
            (exc.strerror or str(exc)).lower()
        raise HandFootError(f"cannot serve on {host}:{port}: {why}") from None


def cmd_deck_learn(args: argparse.Namespace) -> int:
    try:
        from vision import decks
        from vision.pipeline import load_models
    except ImportError as exc:
        raise HandFootError(f"deck needs the vision extra (pip install -e '.[vision]'): {exc}") from None
    decks.check_name(args.name)
    examples = decks.read_examples([Path(p) for p in args.examples])
    _, reader = load_models()
    profile = decks.learn(examples, reader, args.name, progress=_stage_bars())
    path = profile.save(_decks(args))
    c = profile.check
    print(f"deck {profile.name}: learned from {profile.photos} photos ({profile.indices} indices)"
          f"{'; printed light on dark, so read as its negative' if profile.negative else ''}; checked first on "
          f"{'photos kept aside' if c.get('method', 'kept aside') == 'kept aside' else 'each photo left out in turn'}"
          f" ({c['indices']} indices): {c['stock']:.1%} read right before, {c['profile']:.1%} with the profile")
    print(f"saved {path}; use it with --deck {profile.name}")
    return 0


def _stage_bars():
    """A ``progress(stage, done, total)`` callback drawing a tqdm bar a stage on a terminal, else None."""
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    bars: dict[str, tqdm] = {}

    def progress(stage: str, done: int, of: int) -> None:
        bar = bars.get(stage) or bars.setdefault(stage, tqdm(total=of, desc=stage, unit="photo", leave=False))
        bar.n = done
        bar.refresh()
        if done >= of:
            bar.close()

    return progress


def _decks(args: argparse.Namespace) -> Path:
    """The deck profiles' folder of a command with ``--db`` (``deck``, ``watch``): beside that ledger (where
    ``serve --db`` looks), else the data folder's."""
    return app.decks_dir(Path(args.db).parent) if args.db else app.decks_dir()


def cmd_deck_list(args: argparse.Namespace) -> int:
    from vision import decks

    profiles = decks.list_profiles(_decks(args))
    if not profiles:
        print(f"no deck profiles yet in {_decks(args)} (handfoot deck learn EXAMPLES.jsonl --name NAME)")
    for p in profiles:
        print(f"{p.name:<20} {p.photos} photos, {p.indices} indices, check {p.check.get('stock', 0):.1%} -> "
              f"{p.check.get('profile', 0):.1%}{', read as its negative' if p.negative else ''}, {p.created}")
    return 0


def cmd_deck_remove(args: argparse.Namespace) -> int:
    from vision import decks

    decks.remove_profile(args.name, _decks(args))
    print(f"removed deck {args.name}")
    return 0


def _port(text: str) -> int:
    """An argparse type: a TCP port number, 1-65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1-65535, not {port}")
    return port


def cmd_serve(args: argparse.Namespace) -> int:
    return _serve(args)


def _serve(args: argparse.Namespace, watching=None) -> int:
    """Run the web service on ``args.host``/``args.port`` with the ledger ``args.db``; ``watching(models, decks)``
    starts the table the live view shows (``handfoot watch --serve``; ``decks`` is the server's deck folder)."""
    import logging
    import secrets

    try:
        import uvicorn  # noqa: F401  (checked here: one clear line when it is missing)

        from .service import LOOPBACK, Settings, create_app
    except ImportError as exc:
        raise HandFootError(f"serve needs fastapi and uvicorn (pip install -e .): {exc}") from None
    from . import app as application
    from .ledger import Ledger

    settings = Settings(**({"db": Path(args.db)} if args.db else {}), max_jobs=args.max_jobs, host=args.host,
                        hosts=tuple(getattr(args, "allow_host", None) or ()))
    local = args.host in LOOPBACK
    if not local:
        settings.token = os.environ.get("HANDFOOT_TOKEN") or secrets.token_urlsafe(18)
    Ledger.open(settings.db).close()  # a database that cannot be used is one line, before the server starts
    _check_port(args.host, args.port)
    print("handfoot: loading the camera models...", file=sys.stderr)
    try:
        models = application.load_models()
    except HandFootError as exc:
        models = None
        print(f"handfoot: photo reading is off: {exc}", file=sys.stderr)
    session = None
    if watching is not None:
        if models is None:
            raise HandFootError("watch needs the camera models")
        session = watching(models, application.decks_dir(settings.db.parent))
    app = create_app(settings, models=models, load_models=False, live=session)
    print(f"handfoot: ledger {settings.db}", file=sys.stderr)
    ssl = serve_https(args, settings.db.parent)  # handfoot.https: the certificate made once, kept, its fingerprint
    for url in _addresses(args.host, args.port, "https" if ssl else "http"):
        print(f"handfoot: open {url}" + ("/live" if session else "/")
              + (f"?token={settings.token}" if settings.token else ""), file=sys.stderr)
        if ssl:
            print(f"handfoot: a phone trusts it for good with {url}/handfoot-ca.crt"
                  + (f"?token={settings.token}" if settings.token else ""), file=sys.stderr)
    if local:
        print("handfoot: only this computer can connect; for phones on your network: handfoot "
              + ("watch ... --serve" if session else "serve") + " --host "
              "0.0.0.0", file=sys.stderr)
    logging.basicConfig(level=logging.WARNING, format="handfoot: %(message)s")
    trace = logging.FileHandler(settings.db.parent / "handfoot.log")
    trace.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    logging.getLogger("handfoot.trace").addHandler(trace)
    from .serving import server

    try:
        server(app, args.host, args.port, getattr(args, "idle_timeout", None) or 20.0,
               getattr(args, "max_connections", None), **ssl).run()
    except KeyboardInterrupt:  # Ctrl-C: the server stopped cleanly (running readings finished)
        pass
    except (OSError, SystemExit) as exc:
        raise HandFootError(f"cannot serve on {args.host}:{args.port}: {exc}") from None
    print("handfoot: stopped", file=sys.stderr)
    return 0


def _addresses(host: str, port: int, scheme: str = "http") -> list[str]:
    """The URLs a browser can open for a server bound to ``host``: this computer's network addresses for
    ``0.0.0.0``."""
    import socket

    if host not in ("0.0.0.0", "::", ""):
        return [f"{scheme}://{'[' + host + ']' if ':' in host else host}:{port}"]
    found = set()
    try:
        found |= {a for a in socket.gethostbyname_ex(socket.gethostname())[2] if not a.startswith("127.")}
    except OSError:
        pass
    if not found and hasattr(socket, "if_nameindex"):  # Linux: each interface's IPv4 address, asked locally
        import fcntl
        import struct

        for _, name in socket.if_nameindex():
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                    packed = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name[:15].encode()))  # SIOCGIFADDR
                address = socket.inet_ntoa(packed[20:24])
            except OSError:
                continue
            if not address.startswith("127."):
                found.add(address)
    return [f"{scheme}://{a}:{port}" for a in sorted(found)] or [f"{scheme}://<this computer's address>:{port}"]


# -- parser ---------------------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="handfoot", description="Score Hand and Foot rounds.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add_rules(sp: argparse.ArgumentParser, default_hint: str = "pagat") -> None:
        sp.add_argument("--rules", metavar="NAME", help=f"rule preset ({', '.join(PRESET_NAMES)}); "
                                                        f"default: {default_hint}")
        sp.add_argument("--set", action="append", metavar="FIELD=VALUE",
                        help="override one rule field (house rule), e.g. --set go_out_clean_books=2")

    sp = sub.add_parser("score", help="score a round from photos of the table, or from a layout JSON file")
    sp.add_argument("inputs", nargs="+", metavar="PHOTO_OR_LAYOUT",
                    help="photos (one per team: A, B, ...) or one layout JSON file (see docs/layout.md)")
    add_rules(sp, "the layout's own 'rules', else pagat")
    sp.add_argument("--round", type=int, help="round number (photos only; default 1)")
    sp.add_argument("--went-out", metavar="TEAM", help="the team that went out (photos only)")
    sp.add_argument("--teams", metavar="A,B", help="team of each photo, in order (default A, B, ...)")
    sp.add_argument("--split", choices=["horizontal", "vertical"],
                    help="one whole-table photo: horizontal = bottom half team A, top half B; "
                         "vertical = left half A, right half B")
    sp.add_argument("--left", action="append", metavar='TEAM:"CARDS"',
                    help='cards still held by a team, e.g. --left A:"KH 7C 4S" (repeat per hand or foot)')
    sp.add_argument("--hand", action="append", metavar="TEAM:PHOTO",
                    help="a photo of one player's hand or foot fanned face up: its cards count only as cards left "
                         "for TEAM, never as melds or books, e.g. --hand B:foot.jpg (repeat per hand or foot; adds "
                         "to --left)")
    sp.add_argument("--annotate", metavar="OUT", help="write the photo with what was read drawn on it "
                                                      "(a .jpg file for one photo, or a folder for several, hand "
                                                      "photos included)")
    sp.add_argument("--conf", type=float, help="minimum confidence of a card's reading: P(rank) x P(colour) x "
                                                f"sqrt(detector confidence) (photos; default {app.DEFAULT_CONF})")
    sp.add_argument("--save-layout", metavar="LAYOUT.json",
                    help="write the layout read from the photos, to correct by hand and score again")
    sp.add_argument("--model", help="detector ONNX model (default: models/cards.onnx)")
    sp.add_argument("--reader", help="index reader ONNX model (default: models/reader.onnx when present)")
    sp.add_argument("--deck", help="read with this deck's profile (handfoot deck learn; handfoot deck list)")
    sp.add_argument("--stacks", help="stack checker ONNX model: squared book or loose card "
                                     "(default: models/stacks.onnx when present)")
    sp.add_argument("--no-stacks", action="store_true",
                    help="read every single card seen whole as a squared book's marker (no stack check)")
    sp.add_argument("--json", action="store_true", help="print JSON")
    sp.add_argument("--lenient", action="store_true",
                    help="score a layout that breaks the rules, listing problems (photos always are)")
    sp.set_defaults(func=cmd_score)

    sp = sub.add_parser("rules", help="list rule presets, or one preset's values")
    sp.add_argument("name", nargs="?", help="preset name")
    sp.add_argument("--set", action="append", metavar="FIELD=VALUE", help="override one rule field")
    sp.add_argument("--json", action="store_true", help="print the preset's values as JSON")
    sp.set_defaults(func=cmd_rules)

    sp = sub.add_parser("check-meld", help="explain whether melds are legal, and whether they open a round")
    sp.add_argument("melds", nargs="+", help='one quoted meld per argument, e.g. "QH QS QD JK" "8S 8H 8D"')
    sp.add_argument("--round", type=int, help="check the melds together as this round's opening")
    sp.add_argument("--pickup", metavar="CARD", help="the top discard, when opening by taking the pile")
    sp.add_argument("--strict", action="store_true", help="exit 1 when a meld or the opening is not legal")
    add_rules(sp)
    sp.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    sp.set_defaults(func=cmd_check_meld)

    sp = sub.add_parser("opening", help="find the best opening meld a hand can make")
    sp.add_argument("hand", nargs="+", help='the hand, e.g. "KH KS JK 9H 9S 9D 2C"')
    sp.add_argument("--round", type=int, help="round number (checks its minimum)")
    add_rules(sp)
    sp.add_argument("--json", action="store_true", help="print the opening found as JSON")
    sp.set_defaults(func=cmd_opening)

    sp = sub.add_parser("odds", help="simulate deals: opening chances, wilds, red threes, bad up-cards")
    sp.add_argument("--deals", type=int, default=100_000,
                    help=f"how many deals to simulate (default 100,000; at most {MAX_DEALS:,})")
    sp.add_argument("--seed", type=int, default=0, help="random seed: the same seed deals the same cards (default 0)")
    add_rules(sp)
    sp.add_argument("--json", action="store_true", help="print the figures as JSON")
    sp.set_defaults(func=cmd_odds)

    sp = sub.add_parser("detect", help="find card corner indices in photos with the shipped model")
    sp.add_argument("images", nargs="+", help="image files or directories of images")
    sp.add_argument("--json", action="store_true", help="one JSON object per image, one per line")
    sp.add_argument("--imgsz", type=int, default=2560,
                    help="largest detector pass, long side in pixels (at least 320; the passes are chosen from the "
                         "indices' size, vision.config Pyramid)")
    sp.add_argument("--conf", type=float, default=app.DEFAULT_CONF, help="minimum confidence")
    sp.add_argument("--model", help="detector ONNX model (default: models/cards.onnx)")
    sp.add_argument("--reader", help="index reader ONNX model (default: models/reader.onnx when present)")
    sp.add_argument("--deck", help="read with this deck's profile (handfoot deck learn; handfoot deck list)")
    sp.set_defaults(func=cmd_detect)

    sp = sub.add_parser("watch", help="score a round live from a camera above the table, or from a video of it",
                        description="Read the table each time it changed and settled (nothing is read while a "
                                    "hand moves over it) and print what changed: melds new and grown, books "
                                    "complete and squared, red threes laid, with the round's totals.")
    source = sp.add_mutually_exclusive_group(required=True)
    source.add_argument("--video", help="a video file of the table")
    source.add_argument("--camera", type=int, help="a camera index (0: the first camera)")
    sp.add_argument("--rules", default="pagat", help="rule preset (default pagat)")
    sp.add_argument("--round", type=int, default=1, help="round number (default 1)")
    sp.add_argument("--split", choices=("horizontal", "vertical"), help="the camera sees both teams' sides")
    sp.add_argument("--teams", help="team names: A,B")
    sp.add_argument("--deck", help="read with this deck's profile (handfoot deck list)")
    sp.add_argument("--json", action="store_true", help="one JSON object per event, one per line")
    sp.add_argument("--headless", action="store_true",
                    help="print the events only (the default without --serve or --window)")
    sp.add_argument("--record", metavar="OUT.mp4", help="write the annotated picture to this video")
    sp.add_argument("--window", action="store_true",
                    help="show the annotated picture in a window (an OpenCV with a GUI; q closes it)")
    sp.add_argument("--game", help="the game whose next round this is (its rules, round and teams); without "
                                   "--serve the round is added to it at the end")
    sp.add_argument("--serve", action="store_true",
                    help="show the live view in the browser (handfoot serve with this table watched: open /live)")
    sp.add_argument("--host", default="127.0.0.1", help="with --serve: address to listen on (default 127.0.0.1)")
    sp.add_argument("--port", type=_port, default=8000, help="with --serve: port (default 8000)")
    sp.add_argument("--db", metavar="PATH", help="the game ledger (default ~/.local/share/handfoot/handfoot.db)")
    sp.add_argument("--max-jobs", type=int, default=1, help=argparse.SUPPRESS)
    add_https_option(sp)
    sp.set_defaults(func=cmd_watch)

    sp = sub.add_parser("deck", help="teach handfoot your own deck from photos whose cards you checked")
    deck = sp.add_subparsers(dest="deck_command", required=True, metavar="{learn,list,remove}")
    dp = deck.add_parser("learn", help="learn a deck profile from examples: JSON lines as `handfoot detect --json` "
                                       "prints them, each card code checked (and missed boxes added)",
                         description="Learn a deck profile from examples: one JSON object a line, "
                                     '{"image": PATH, "detections": [{"card": "KH", "box": [x1, y1, x2, y2]}, ...]}, '
                                     "as `handfoot detect --json` prints them, each code checked by hand. The "
                                     "index reader's last layers are fitted to the examples (ONNX Runtime and "
                                     "NumPy, no PyTorch); a deck printed light on dark paper is read as its "
                                     "negative; every fourth photo (every 2nd or 3rd for close-ups) checks the "
                                     "profile, and a profile that reads those worse than the stock reader is not "
                                     "kept.")
    dp.add_argument("examples", nargs="+", help="examples files (.jsonl)")
    dp.add_argument("--name", required=True, help="the deck's name (letters, digits, - and _)")
    dp.set_defaults(func=cmd_deck_learn)
    dp = deck.add_parser("list", help="the deck profiles learned on this computer")
    dp.set_defaults(func=cmd_deck_list)
    dp = deck.add_parser("remove", help="delete a deck profile")
    dp.add_argument("name", help="the deck's name, as `handfoot deck list` shows it")
    dp.set_defaults(func=cmd_deck_remove)
    for dp in deck.choices.values():
        dp.add_argument("--db", metavar="PATH", help="the decks of the game ledger at PATH, as `serve --db PATH` and "
                                                     "`watch --db PATH` use them (default: ~/.local/share/handfoot)")

    sp = sub.add_parser("serve", help="run the web service (the API under /v1, docs at /docs)")
    sp.add_argument("--host", default="127.0.0.1",
                    help="address to listen on (default 127.0.0.1: this computer only; 0.0.0.0 lets phones on "
                         "your network in, with an access token printed in the address to open)")
    sp.add_argument("--port", type=_port, default=8000, help="port (default 8000)")
    sp.add_argument("--db", metavar="PATH", help="the game ledger, a SQLite file (default: "
                                                 "~/.local/share/handfoot/handfoot.db; photos are kept beside it)")
    sp.add_argument("--max-jobs", type=int, default=1, help="photo readings worked on at once (default 1)")
    sp.add_argument("--idle-timeout", type=float, default=20.0, metavar="SECONDS",
                    help="close a connection that starts no request for this long (default 20)")
    sp.add_argument("--max-connections", type=int, metavar="N",
                    help="connections at once; past that the answer is 503 (default: from the open-file limit, "
                         "at most 1000)")
    sp.add_argument("--allow-host", action="append", metavar="NAME",
                    help="a name the server may be opened by besides its addresses, localhost and this computer's "
                         "name (e.g. a name your router gives it); other names are refused")
    add_https_option(sp)
    sp.set_defaults(func=cmd_serve)

    sp = sub.add_parser("game", help="score a game's rounds in order and show running totals")
    sp.add_argument("layouts", nargs="+", help="one layout JSON file per round, in order")
    add_rules(sp, "the first layout's 'rules'")
    sp.add_argument("--lenient", action="store_true",
                    help="score rounds whose layouts break the rules, listing the problems, "
                         "instead of stopping at the first")
    sp.add_argument("--json", action="store_true", help="print the rounds and totals as JSON")
    sp.set_defaults(func=cmd_game)
    return p


def _command_parser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the (sub)command ``args`` holds (``deck learn``'s for ``handfoot deck learn``)."""
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        name = getattr(args, subs[0].dest, None) if subs else None
        if name is None or name not in subs[0].choices:
            return parser
        parser = subs[0].choices[name]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 bad input, 2 usage, 130 interrupted)."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # the command's own usage line, and the option meant when it is a near miss
        command = _command_parser(parser, args)
        known = [o for a in command._actions for o in a.option_strings]
        near = [m for x in extra if x.startswith("-") for m in difflib.get_close_matches(x.split("=")[0], known, 1)]
        command.error(f"unrecognized arguments: {' '.join(extra)}" + (f" (did you mean {near[0]}?)" if near else ""))
    if getattr(args, "set", None):  # a mistyped --set is a usage mistake: exit 2, before any work
        try:
            get_rules(getattr(args, "rules", None) or getattr(args, "name", None) or "pagat",
                      **_house_rules(args.set))
        except HandFootError as exc:
            parser.exit(2, f"handfoot: error: --set: {exc}\n")
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("handfoot: interrupted", file=sys.stderr)
        return 130
    except HandFootError as exc:
        hint = ""
        if getattr(exc, "problems", None) and not getattr(args, "lenient", True):
            hint = " — add --lenient to score anyway and list every problem"
        print(f"handfoot: error: {exc}{hint}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # e.g. piped into `head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # never a traceback for the user
        if os.environ.get("HANDFOOT_DEBUG"):
            raise
        print(f"handfoot: internal error: {exc.__class__.__name__}: {exc} (set HANDFOOT_DEBUG=1 for details)",
              file=sys.stderr)
        return 3


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
