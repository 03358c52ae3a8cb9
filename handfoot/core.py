"""The application layer: scoring a layout, and reading and scoring photos (every check on the request, the models).

What a photo reading asks, and its checks, live in :mod:`handfoot.photo_request`. The command line
(``handfoot.cli``) and the web service (``handfoot.routes``) are thin over these functions; each
returns a typed result of :mod:`handfoot.results` and raises a :class:`scorer.HandFootError` (one line, naming
what was wrong) for anything a user can cause. Every check on the request comes before the slow photo work.

A reading's piles, their verdicts and corrections live in :mod:`handfoot.readings`; games in
:mod:`handfoot.games`. The camera pipeline (``vision``, the ``vision`` extra) is imported only when photos are read.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from scorer import HandFootError
from scorer.errors import InvalidLayoutError
from scorer.layout import TableLayout
from scorer.rules import Rules
from scorer.scoring import score_round
from vision.config import DEFAULT as VISION_DEFAULT

from .errors import PhotosError, TooLargeError, UnavailableError
from .limits import DEFAULT_LIMITS, Limits, check_file_size, check_layout_cards, parse_json
from .photo_request import DEFAULT_CONF, PhotoRequest, check_photo_request
from .readings import reading_json, rescore, rules_of, totals_lines
from .results import LayoutScore, PhotoScore, RoundScoreOut, image_dict

if TYPE_CHECKING:
    import numpy as np



# -- rules and layouts ----------------------------------------------------------------------------------------
def layout_of(doc: Any, limits: Limits = DEFAULT_LIMITS) -> TableLayout:
    """A layout document (parsed JSON) validated, after its card count is checked.

    Raises:
        TooLargeError: more than ``limits.layout_cards`` cards.
        InvalidLayoutError: naming the first wrong place.
    """
    check_layout_cards(doc, limits)
    return TableLayout.from_dict(doc)


def read_layout_file(path: str | Path, limits: Limits = DEFAULT_LIMITS) -> TableLayout:
    """A layout file, its size, nesting depth and card count checked before it is parsed.

    Raises:
        InvalidLayoutError: a missing, unreadable or malformed file (the message names it).
        TooLargeError: over ``limits`` (names the file).
    """
    p = Path(path)
    try:
        if p.is_dir():
            raise InvalidLayoutError(f"{p}: is a directory, not a layout file")
        size = p.stat().st_size
        if size > limits.json_bytes:
            raise TooLargeError(f"{p}: layout file too large: {size:,} bytes (at most {limits.json_bytes:,})")
        data = p.read_bytes()
    except FileNotFoundError:
        raise InvalidLayoutError(f"{p}: no such file") from None
    except OSError as exc:
        raise InvalidLayoutError(f"{p}: cannot read layout: {exc.strerror or exc}") from None
    try:
        return layout_of(parse_json(data, limits, "layout file"), limits)
    except HandFootError as exc:
        raise type(exc)(f"{p}: {exc}") from None


def layout_rules(layout: TableLayout, rules: str | None = None, house_rules: dict[str, Any] | None = None) -> Rules:
    """The rules a layout is scored under: ``rules`` (default: the layout's own preset), the layout's
    ``house_rules`` and then ``house_rules`` applied on top.

    Raises:
        UnknownRulesError, RulesError: bad rules.
    """
    return rules_of(rules or layout.rules, {**layout.house_rules, **dict(house_rules or {})})


def score_layout(layout: TableLayout, rules: str | None = None, house_rules: dict[str, Any] | None = None,
                 lenient: bool = False) -> LayoutScore:
    """Score a layout under ``rules`` (default: the layout's own preset), the layout's ``house_rules`` and then
    ``house_rules`` applied on top.

    Raises:
        IllegalLayoutError: the layout breaks the rules (unless ``lenient``; ``.problems`` lists all).
        UnknownRulesError, RulesError: bad rules.
    """
    result = score_round(layout, layout_rules(layout, rules, house_rules), lenient=lenient)
    out = LayoutScore(layout=layout.to_dict(), score=RoundScoreOut.model_validate(result.to_dict()))
    return out.with_round(result)


# -- where things are kept -----------------------------------------------------------------------------------------
def data_dir() -> Path:
    """The user's handfoot data folder (the ledger, deck profiles): ``$HANDFOOT_DATA``, else
    ``$XDG_DATA_HOME/handfoot``, else ``~/.local/share/handfoot``."""
    if os.environ.get("HANDFOOT_DATA"):
        return Path(os.environ["HANDFOOT_DATA"])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "handfoot"


def decks_dir(data: Path | None = None) -> Path:
    """Where deck profiles are kept: ``decks/`` in the data folder ``data`` (default :func:`data_dir`; the service
    passes its ledger's folder)."""
    return (data or data_dir()) / "decks"


# -- photos: the models -----------------------------------------------------------------------------------------
@dataclass
class Models:
    """The camera pipeline's models, loaded once: the corner-index detector, the index reader (or None) and the
    stack checker (or None). ``conf`` is the reading floor asked for when they were loaded (each request gives
    its own, ``PhotoRequest.conf``); ``deck`` the deck profile they read with (:func:`with_deck`), or None."""

    detector: Any
    reader: Any = None
    stacks: Any = None
    conf: float = DEFAULT_CONF
    deck: str | None = None

    def describe(self) -> dict[str, str | None]:
        """Each model's file name, or None when it is not loaded."""
        def name(m: Any) -> str | None:
            return None if m is None else Path(str(getattr(m, "model", m))).name
        return {"detector": name(self.detector), "reader": name(self.reader), "stacks": name(self.stacks)}


def _vision():
    try:
        import onnxruntime  # noqa: F401  (checked here so a missing extra is one clear line)

        from vision import pipeline  # the optional vision extra (OpenCV, ONNX Runtime)
    except ImportError as exc:
        raise UnavailableError(f"reading photos needs the vision extra (pip install -e '.[vision]'): {exc}") from None
    return pipeline


def load_models(model: str | Path | None = None, reader: str | Path | None = None, stacks: str | Path | None = None,
                no_stacks: bool = False, conf: float = DEFAULT_CONF, deck: str | None = None,
                negative: bool = False, decks: Path | None = None) -> Models:
    """Load the detector, reader and stack checker (defaults: the shipped ``models/*.onnx``); with ``deck`` the
    reader reads with that deck's profile (``vision.decks``, kept in ``decks``, default :func:`decks_dir`); with
    ``negative`` every photo is read as its negative (:func:`reading_negatives`).

    Raises:
        UnavailableError: the vision extra is not installed.
        HandFootError: a model file asked for by name is missing or cannot be loaded (``ModelError``); ``negative``
            with the profile of a deck read as photographed.
    """
    pipeline = _vision()
    try:
        detector, index_reader = pipeline.load_models(model, reader)
        checker = None if no_stacks else pipeline.load_stack_checker(stacks)
    except FileNotFoundError as exc:
        raise HandFootError(str(exc)) from None
    models = Models(detector, index_reader, checker, conf)
    models = with_deck(models, deck, decks) if deck else models
    return reading_negatives(models, deck) if negative else models


def reading_negatives(models: Models, deck: str | None = None) -> Models:
    """``models`` reading each photo's negative (255 - each pixel: a deck printed light on dark paper shows the
    dark-on-light indices the models learned): the detector wrapped (``vision.models.detector.NegativeDetector``;
    ``vision.pipeline.detect`` reads the negative for every model). Models of a deck profile that reads the
    negative already are returned as they are.

    Raises:
        HandFootError: models of the profile ``deck`` of a deck read as photographed (dark print on light paper).
    """
    from vision.models.detector import NegativeDetector  # the optional vision extra (OpenCV, ONNX Runtime)

    if isinstance(models.detector, NegativeDetector):
        return models
    if deck:
        raise HandFootError(f"the deck {deck} is read as photographed (dark print on light paper): its profile "
                            "reads no negative")
    return replace(models, detector=NegativeDetector(models.detector))


def with_deck(models: Models, deck: str, folder: Path | None = None) -> Models:
    """``models`` reading with the deck profile ``deck`` (kept in ``folder``, default :func:`decks_dir`): its reader
    heads, and each photo's negative for a deck printed light on dark paper (``DeckProfile.negative``: its
    detector wrapped, ``vision.pipeline.detect`` does the rest).

    Raises:
        HandFootError: no such profile (``DeckNotFoundError``), or no index reader loaded.
    """
    from vision.deck_profiles import DeckProfile  # the optional vision extra (OpenCV, ONNX Runtime)

    profile = DeckProfile.load(deck, folder or decks_dir())
    if models.reader is None:
        raise HandFootError(f"deck {deck!r}: no index reader is loaded to read with it")
    detector, reader = profile.models(models.detector, models.reader)
    return replace(models, detector=detector, reader=reader, deck=deck)


# -- photos: checks on the files ----------------------------------------------------------------------------------
def check_photo_file(path: Path, limits: Limits = DEFAULT_LIMITS, name: str | None = None) -> str:
    """A photo file's bytes and pixels (from its header, nothing decoded) against ``limits``; returns the sha256
    of its bytes (to find a photo given twice).

    Raises:
        ImageError (a HandFootError): missing, a folder, empty, not an image (``vision.images.check_image_header``);
            ImageTooSmallError: its short side under ``limits.min_side``.
        TooLargeError, ImageTooLargeError: over ``limits.file_bytes`` or ``limits.pixels``.
    """
    from vision.images import ImageError, check_image_header  # the optional vision extra (OpenCV, ONNX Runtime)

    name = name or str(path)
    if path.is_dir():
        raise ImageError(f"{name}: a folder, not an image file")
    if not path.is_file():
        raise ImageError(f"{name}: no such file")
    check_file_size(path.stat().st_size, name, limits)
    data = path.read_bytes()  # at most limits.file_bytes; a TIFF's size may lie at its end
    check_image_header(data, name, limits.pixels, limits.min_side)
    return hashlib.sha256(data).hexdigest()


# -- photos: reading and scoring --------------------------------------------------------------------------------
@dataclass(frozen=True)
class WayForward:
    """How a front end tells the way past a photo with no card found: ``teach`` is where it tells how a deck is
    taught; ``negative`` how a photo is asked to be read as its negative there, or None where it cannot be;
    ``typing`` how the round's cards are typed instead; ``no_deck`` how a photo is read without a deck profile."""

    teach: str
    negative: str | None = None
    typing: str = "type the cards instead"
    no_deck: str = "without the deck"


#: the command line's way forward (its --negative; docs/usage.md's section on teaching)
CLI_WAY = WayForward('docs/usage.md, "Teach it your deck"', "add --negative",
                     "type the round's cards in a layout file and score that (handfoot score LAYOUT.json; "
                     "docs/layout.md)", "without --deck")
#: the web service's: the round page's box that reads the photos' negatives; a game teaches its deck on its page
WEB_WAY = WayForward('the game\'s "Teach handfoot your deck"',
                     'tick "Our cards are light print on dark" above Read the cards',
                     '"Type the cards instead" on the Score round page',
                     'with no deck chosen under "Read this game\'s photos with"')


def no_cards_advice(way: WayForward, models: Models) -> str:
    """What follows the message of a photo with no card found (``"; ..."``, one line) read with ``models``: with
    a deck profile, what can work (such a photo teaches the deck nothing): the photo taken again closer and sharper,
    the negative to try without the profile when it reads none (where ``way`` has one), or the cards typed; read as
    negatives already, that the deck can be taught; else the negative to try and the teaching."""
    from vision.models.detector import NegativeDetector  # the optional vision extra (OpenCV, ONNX Runtime)

    if models.deck:
        dark = "" if isinstance(models.detector, NegativeDetector) or not way.negative else \
            f"; cards printed light on dark? read it {way.no_deck} and {way.negative}"
        return (f"; a photo with no card found teaches the deck {models.deck} nothing: take it again closer and "
                f"sharper, each card's corner in view and lit{dark}; or {way.typing}")
    if isinstance(models.detector, NegativeDetector):
        return f"; this deck can be taught: {way.teach}"
    if way.negative:
        return (f"; cards printed light on dark (a black deck)? {way.negative}; a deck of its own design can be "
                f"taught: {way.teach}")
    return f"; a deck of its own design, or printed light on dark, can be taught: {way.teach}"


def read_and_score_photos(photos: Sequence[Path], req: PhotoRequest, models: Models,
                          hands: Sequence[tuple[str, Path]] = (), limits: Limits = DEFAULT_LIMITS,
                          names: Sequence[str] | None = None, decks: Path | None = None,
                          refused: Mapping[int, HandFootError] | None = None,
                          way: WayForward | None = None) -> PhotoScore:
    """Read table photos (one per team, or one split photo) and photos of hands (team, path: every card a card
    left), and score the round. A photo in which cards are found is always scored: what breaks the rules is in
    the score's problems, every guess of the camera in ``notes``.

    ``names`` gives the name each file is shown by (default its path), table photos then hands; ``req.deck`` a
    deck profile kept in the folder ``decks`` (default :func:`decks_dir`); ``refused``: the photos (by place,
    table photos then hands) the caller refused already (too large to keep), their error each: not read, told
    with the others' (their path need not be a file); ``way``: the front end's way past a photo with no card found,
    told after the last such photo's message (:func:`no_cards_advice`; None: nothing told).

    Raises:
        HandFootError: a bad request (:func:`check_photo_request`), a photo given twice, a file that is not an
            image, too large (:class:`TooLargeError`) or holds no cards (``NoCardsError``); ``PhotosError`` where
            several photos fail, each error naming its file, all told at once (every other photo is still read).
    """
    pipeline = _vision()
    rules = check_photo_request(req, len(photos), [t for t, _ in hands])
    if req.deck:
        models = with_deck(models, req.deck, decks)
    if req.negative:
        models = reading_negatives(models, req.deck)
    paths = [Path(p) for p in photos] + [Path(p) for _, p in hands]
    shown = list(names) if names is not None else [str(p) for p in paths]
    if len(paths) > limits.files:
        raise TooLargeError(f"{len(paths)} photos (at most {limits.files} at once, table and hand photos together)")
    resolved = [p.resolve() for p in paths]
    twice = next((k for k, p in enumerate(resolved) if p in resolved[:k]), None)
    if twice is not None:
        raise HandFootError(f"{shown[twice]}: given twice; each photo is read once, as a table photo or as one "
                            "hand photo")
    errors: dict[int, HandFootError] = dict(refused or {})  # each photo's own error (by its place), all told together
    digests: dict[str, str] = {}
    for k, (path, name) in enumerate(zip(paths, shown)):
        if k in errors:
            continue
        try:
            digest = check_photo_file(path, limits, name)
        except HandFootError as exc:
            errors[k] = exc
            continue
        if digest in digests:
            first = "was chosen twice" if name == digests[digest] else f"is the same photo as {digests[digest]}"
            errors[k] = HandFootError(f"{name} {first}: each photo is read once, for one team (take one photo of "
                                      "each team's side)")
        digests.setdefault(digest, name)
    teams = req.table_teams(len(photos))
    owners = teams + [t for t, _ in hands]

    def named(exc: ValueError) -> HandFootError:  # the name the user knows, not a stored file's path
        message = str(exc)
        for path, name, team in zip(paths, shown, owners):
            if str(path) in message:
                message = message.replace(str(path), f"{name} (team {team})" if name != str(path) else name)
        return (type(exc) if isinstance(exc, HandFootError) else HandFootError)(message)

    # each photo read alone (a split photo is the one photo), so every photo without cards is told at once
    config = VISION_DEFAULT.replace(**{"reading.min_conf": req.conf})
    readings: list = []
    for k, path in enumerate(paths):
        if k in errors:
            continue
        try:
            if k < len(photos):
                readings += pipeline.read_photos([path], models.detector, teams if req.split else [teams[k]],
                                                 req.split, reader=models.reader, stacks=models.stacks, config=config)
            else:
                readings += pipeline.read_hand_photos([(owners[k], path)], models.detector, reader=models.reader,
                                                      config=config)
        except ValueError as exc:  # ImageError, NoCardsError are HandFootErrors; read_photos' own checks are not
            errors[k] = named(exc)
    empty = [k for k in sorted(errors) if isinstance(errors[k], pipeline.NoCardsError)]
    if empty and way:  # once, after the last photo with no card found
        errors[empty[-1]] = pipeline.NoCardsError(f"{errors[empty[-1]]}{no_cards_advice(way, models)}")
    if errors:
        raise PhotosError.of([errors[k] for k in sorted(errors)])
    return photo_score(readings, shown, req, rules)


def photo_score(readings: list, names: list[str], req: PhotoRequest, rules: Rules) -> PhotoScore:
    """Stage 4-5 on the pipeline's photo readings: piles with ids, the layout, the notes and the score."""
    images: list[dict[str, Any]] = []
    notes: list[str] = []
    for i, photo in enumerate(readings):
        notes += [f"team {side.team}: {side.photo_note}" for side in photo.sides if side.photo_note]
        images.append(image_dict(i, photo, names[i]))
    on_table = {s.team for p in readings for s in p.sides if not s.hand}
    hand_teams = {s.team for p in readings for s in p.sides if s.hand}
    left = req.left_packets
    for team in sorted((hand_teams | set(left)) - on_table):
        notes.append(f"team {team}: no photo of its table was given, only its cards left in hand are scored "
                     f"(table photos: {', '.join(sorted(on_table)) or 'none'})")
    typed = images[-1]["piles"] if images else []
    for k, (team, packet) in enumerate((t, p) for t, packets in left.items() for p in packets):
        typed.append({"id": f"t{k}", "team": team, "kind": "left", "box": None, "notes": [],
                      "cards": [{"id": f"t{k}.{j}", "code": code, "confidence": 1.0, "boxes": [], "center": [],
                                 "size": 0.0} for j, code in enumerate(packet)]})
    result = rescore(images, {}, req.rules, dict(req.house_rules), req.round or 1, req.went_out, notes, rules)
    result = result.model_copy(update={"left": left, "deck": req.deck})
    return result.with_readings(readings)


def keep_reading(ledger, reading_id: str, result: PhotoScore, files: list[dict[str, str]]) -> None:
    """Write each photo's annotated copy (``annotated-K.jpg``) into the reading's folder of ``ledger``
    (``handfoot.ledger.Ledger``; the photos are there already, named in ``files``) and keep the reading."""
    import cv2  # OpenCV: the optional vision extra

    folder = ledger.reading_dir(reading_id)
    for k in range(len(result.images)):
        cv2.imwrite(str(folder / f"annotated-{k}.jpg"), annotated_image(result, k), [cv2.IMWRITE_JPEG_QUALITY, 85])
    ledger.add_reading(reading_id, reading_json(result), files)


def annotated_image(result: PhotoScore, k: int) -> "np.ndarray":
    """Photo ``k`` of ``result`` (read in this process) with its boxes, pile outlines labelled by
    :attr:`PileOut.label`, and the team totals drawn on it: (H, W, 3) uint8 BGR."""
    pipeline = _vision()
    photo = result.reading(k)
    image = result.images[k]
    by_id = {p.id: p.label for p in image.piles}
    labels, n = {}, 0
    for side in photo.sides:
        for pile in side.piles:
            labels[pile] = by_id.get(f"i{k}p{n}", pile.kind.value)
            n += 1
    return pipeline.annotate(photo, totals_lines(result.score), labels)


