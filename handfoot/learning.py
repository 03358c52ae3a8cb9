"""Deck-learning jobs of the web service: a deck profile (``vision.decks``) learned in the background from
examples (games' photo rounds or an uploaded examples file), each job watched by its id.

The jobs share the photo readings' places (:class:`handfoot.service.PhotoJobs`): a job waits for one like a
reading does, and starting one when none is free is :class:`handfoot.errors.BusyError` (503).
"""

from __future__ import annotations

import asyncio
import importlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from scorer import HandFootError
from scorer.errors import InvalidLayoutError
from scorer.wording import counted
from vision.config import DEFAULT

from .core import check_photo_file, reading_negatives
from .deck_sync import DeckExpect, DeckOut, save_deck
from .errors import ConflictError, DeckChangedError, TooLargeError
from .ledger import new_id
from .limits import DEFAULT_LIMITS, Limits, parse_json

#: the most jobs remembered; the oldest are forgotten
KEPT_JOBS = 50
#: at most this many photos where no card was found are read again as their negatives (:func:`negatives_shown`)
NEGATIVE_LOOKS = 5


class DeckJobOut(BaseModel):
    """A deck-learning job: ``state`` ``learning``, ``done`` (``deck`` is the profile) or ``failed`` (``error``
    says why, e.g. a profile refused for reading its check photos worse); ``stage``, ``done_photos`` and
    ``photos`` say how far it is; ``replaced``, once done, the profile of that name the new one replaced (None:
    there was none); ``changed``, once failed, whether it failed because the profile of that name was not the one
    it was allowed to replace any more (taught on another phone while it learned: nothing was saved,
    :mod:`handfoot.deck_sync`)."""

    id: str
    name: str
    state: Literal["learning", "done", "failed"]
    stage: str = ""
    done_photos: int = 0
    photos: int = 0
    deck: DeckOut | None = None
    replaced: DeckOut | None = None
    changed: bool = False
    error: str | None = None


class DeckLearning:
    """The deck-learning jobs of one server: the last :data:`KEPT_JOBS` by id, and their running tasks (kept
    referenced until they end).

    Args:
        decks: the folder the learned profiles are saved in.
        jobs: the photo readings' places (``admit()``, ``await run(fn)``).
    """

    def __init__(self, decks: Path, jobs: Any) -> None:
        self.decks = decks
        self.jobs = jobs
        self.table: dict[str, DeckJobOut] = {}
        self.tasks: set[asyncio.Task] = set()

    def job(self, job_id: str) -> DeckJobOut | None:
        """The job ``job_id``, or None when there is none (or it was forgotten)."""
        return self.table.get(job_id)

    def check(self, name: str, expect: DeckExpect = DeckExpect()) -> None:
        """Refuse to start learning the profile ``name`` now: ConflictError (409, ``job``: its id) while a job of
        this server learns it; DeckChangedError (412) when the profile kept is not one ``expect`` lets be
        replaced."""
        running = next((j for j in self.table.values() if j.name == name and j.state == "learning"), None)
        if running is not None:
            raise ConflictError(f"deck {name!r} is being learned already (on another phone?): wait until that "
                                f"ends (GET /v1/decks/jobs/{running.id}), then teach it again", job=running.id)
        expect.check(name, self.decks)

    def start(self, name: str, examples: list, models: Any, cleanup: Callable[[], Any] | None = None,
              done: Callable[[Any], Any] | None = None, expect: DeckExpect = DeckExpect()) -> DeckJobOut:
        """Check the start (:meth:`check`: 409, 412) and ``examples`` (too few photos or indices: 422 before any
        work), take a place among the photo readings' (503 when none is free) and learn the profile ``name`` with
        ``models.reader`` in the background, saving it in place of the one of that name when ``expect`` still lets
        that one be replaced (:func:`learn_and_save`: else the job fails, ``changed``); ``cleanup()`` runs when the
        job ends, ``done(profile)`` when it saved one. Must be called on the event loop (no job of the name can
        start between the check and this job's entry). Returns the job, updated in place as it runs."""
        from vision.decks import check_folds  # the optional vision extra (OpenCV, ONNX Runtime)

        if models.reader is None:
            raise HandFootError("no index reader is loaded: decks cannot be learned")
        self.check(name, expect)
        check_folds(examples)
        self.jobs.admit()
        job = DeckJobOut(id=new_id(), name=name, state="learning", photos=len(examples))
        self.table[job.id] = job
        while len(self.table) > KEPT_JOBS:
            self.table.pop(next(iter(self.table)))

        def progress(stage: str, done: int, total: int) -> None:
            job.stage, job.done_photos = stage, done

        def work():
            profile, _, before = learn_and_save(examples, models.reader.with_heads(None), name, self.decks,
                                                progress, models.detector, expect)
            job.replaced = DeckOut.of(before) if before is not None else None
            if done:
                done(profile)
            return profile

        async def run():
            try:
                job.deck, job.state, job.stage = DeckOut.of(await self.jobs.run(work)), "done", "done"
                job.done_photos = job.photos
            except Exception as exc:  # a refused profile, too few examples, another phone's: the job says so
                job.state, job.error, job.changed = "failed", str(exc), isinstance(exc, DeckChangedError)
            finally:
                if cleanup:
                    cleanup()

        self.tasks.add(task := asyncio.create_task(run()))
        task.add_done_callback(self.tasks.discard)
        return job


def uploaded_examples(folder: Path, examples_name: str, examples_text: bytes, photos: dict[str, Path],
                      limits: Limits = DEFAULT_LIMITS) -> list:
    """Deck-learning examples (``vision.decks.Example``) from an uploaded examples file (JSON lines, as ``handfoot
    detect --json`` prints them, ``examples_name`` its name) and the photos uploaded with it, saved in ``folder``
    (``photos``: each photo's uploaded file name -> where it was saved): a line's ``image`` is matched by its file
    name alone (the path was the sender's). Every photo's bytes and pixels are checked from its header.

    Raises:
        TooLargeError: the examples file over ``limits.json_bytes``, a photo over ``limits.file_bytes`` or
            ``limits.pixels``.
        vision.decks.ExamplesError: a photo uploaded as the examples file (or an empty or pretty-printed one), a line
            that is not an example, names a photo not uploaded, or an example the checks of
            ``vision.decks.read_examples`` refuse (messages name the uploaded file and line).
        ImageError: a photo that is not an image, or too small to read (under ``limits.min_side``).
    """
    from vision.decks import ExamplesError, examples_text as checked_text, read_examples  # the vision extra

    if len(examples_text) > limits.json_bytes:
        raise TooLargeError(f"{examples_name}: examples file too large ({len(examples_text):,} bytes; at most "
                            f"{limits.json_bytes:,})")
    lines = []
    for k, line in enumerate(checked_text(examples_name, examples_text).splitlines(), 1):
        if not line.strip():
            continue
        try:
            doc = parse_json(line, limits, f"{examples_name}:{k}")
        except InvalidLayoutError as exc:
            raise ExamplesError(str(exc)) from None
        image = doc.get("image") if isinstance(doc, dict) else None
        if isinstance(image, str):
            saved = photos.get(Path(image.replace("\\", "/")).name)
            if saved is None:
                raise ExamplesError(f"{examples_name}:{k}: photo {Path(image).name} was not uploaded with the "
                                    "examples (upload every photo the file names)")
            check_photo_file(saved, limits, Path(image).name)
            doc = {**doc, "image": saved.name}
        lines.append(json.dumps(doc))
    path = folder / "examples.jsonl"
    path.write_text("\n".join(lines) + "\n")
    try:
        return read_examples([path])
    except ExamplesError as exc:  # its messages name the file saved here: name the one uploaded
        raise ExamplesError(str(exc).replace(str(path), examples_name)) from None


# -- the command line's deck work (``handfoot detect``, ``handfoot deck``) ---------------------------------------
def _vision(module: str):
    """The module ``vision.<module>`` (``decks``, ``deck_profiles``). Raises HandFootError without the vision
    extra."""
    try:
        return importlib.import_module(f"vision.{module}")  # the optional vision extra (OpenCV, ONNX Runtime)
    except ImportError as exc:
        raise HandFootError(f"deck needs the vision extra (pip install -e '.[vision]'): {exc}") from None


def learn_from_files(paths: list[Path], name: str, decks_folder: Path,
                     progress: Callable[[str, int, int], Any] | None = None,
                     say: Callable[[str], Any] | None = None,
                     given: Callable[[str], Any] | None = None) -> tuple[Any, Path, Any]:
    """Learn the deck profile ``name`` from examples files (JSON lines as ``handfoot detect --json`` prints them)
    with the stock reader, save it in ``decks_folder`` (:func:`learn_and_save`); ``say(note)`` is told what was
    made of the examples (boxes clipped to their photo) and ``given(line)`` (default ``say``) the photos given and
    those with no box, both before the learning starts. Returns the profile (``vision.deck_profiles.DeckProfile``),
    its file and the profile of that name it replaced (None: none).
    Raises HandFootError: a bad name or examples file, too few examples (the message counts the photos given and
    those with no box), a profile refused."""
    decks = _vision("decks")
    from vision.pipeline import load_models  # the optional vision extra (OpenCV, ONNX Runtime)

    decks.check_name(name)
    notes: list[str] = []
    empty: list[str] = []
    negatives: list[str] = []
    examples = decks.read_examples(paths, notes, empty, negatives)
    for note in notes:
        if say:
            say(note)
    if empty:  # too few left is told with what was given; else said
        count = f"{counted(len(examples) + len(empty), 'photo')} given, {len(empty)} of them with no card labelled"
        try:
            decks.check_folds(examples)
        except decks.ExamplesError as exc:
            raise decks.ExamplesError(f'{count} (their "detections" are empty: '
                                      f"{decks.no_card_found(len(empty), len(negatives))}); of the others, {exc}"
                                      ) from None
        if given or say:
            (given or say)(f"{count}: they teach nothing")
    detector, reader = load_models()
    return learn_and_save(examples, reader, name, decks_folder, progress, detector)


def learn_and_save(examples: list, reader: Any, name: str, decks_folder: Path,
                   progress: Callable[[str, int, int], Any] | None = None, detector: Any = None,
                   expect: DeckExpect = DeckExpect()) -> tuple[Any, Path, Any]:
    """Learn the deck profile ``name`` from ``examples`` (``vision.decks.learn`` with ``reader`` and ``detector``)
    and save it in ``decks_folder``, in place of the profile of that name kept there when ``expect`` lets that one
    be replaced (:func:`handfoot.deck_sync.save_deck`; by default any): learning again under a name replaces its
    profile (``handfoot deck learn`` only with ``--replace``; the page asks first, and sends the version it asked
    about), as ``handfoot deck learn`` and ``POST /v1/decks/{name}/learn`` both tell. Returns the profile (its
    ``version`` set), its file and the profile it replaced (None: there was none).

    Raises:
        vision.decks.ProfileRefusedError: the profile reads its check photos worse than the stock reader (the one
            kept before, when there is one, stays: the message says so); ``vision.decks.AlreadyReadError`` when no
            profile is needed; the errors of ``vision.decks.learn``.
        DeckChangedError: the profile kept now is not one ``expect`` lets be replaced (taught meanwhile): nothing
            saved.
    """
    decks = _vision("decks")
    before = saved_deck(name, decks_folder)
    try:
        profile = decks.learn(examples, reader, name, progress=progress, detector=detector)
    except decks.ProfileRefusedError as exc:  # AlreadyReadError too: kept as it is, told the deck stays
        if before is not None:
            exc.args = (f"{exc}; the deck {name} learned before stays as it was",)
        raise
    return save_deck(profile, decks_folder, expect)


def saved_deck(name: str, decks_folder: Path) -> Any | None:
    """The deck profile ``name`` kept in ``decks_folder`` (``vision.deck_profiles.DeckProfile``), or None when there
    is none. Raises HandFootError: a name that is no deck's name; the vision extra missing."""
    return _vision("deck_profiles").saved_profile(name, decks_folder)


def no_profile_needed(exc: Exception) -> bool:
    """Whether ``exc``, raised by :func:`learn_from_files`, is good news: no profile is needed, the stock reader
    reads the examples as their codes say (``vision.decks.AlreadyReadError``)."""
    return isinstance(exc, _vision("decks").AlreadyReadError)


def list_decks(decks_folder: Path) -> list[Any]:
    """The deck profiles kept in ``decks_folder`` (``vision.deck_profiles.DeckProfile``)."""
    return _vision("deck_profiles").list_profiles(decks_folder)


def remove_deck(name: str, decks_folder: Path) -> None:
    """Delete the deck profile ``name`` from ``decks_folder``. Raises NotFoundError when there is none."""
    _vision("deck_profiles").remove_profile(name, decks_folder)


def image_paths(images: list[str]) -> list[Path]:
    """The photos of ``images`` (files, or folders: every photo in them whose name ends in one of
    ``vision.images.IMAGE_SUFFIXES``), for ``handfoot detect``. Raises HandFootError: the vision extra is missing;
    no photo given (the message names the suffixes a folder is read for)."""
    try:
        import onnxruntime  # noqa: F401

        from vision.images import IMAGE_SUFFIXES, image_paths  # the optional vision extra (OpenCV, ONNX Runtime)
    except ImportError as exc:  # the vision extra is not installed
        raise HandFootError(f"detect needs the vision extra (pip install -e '.[vision]'): {exc}") from None
    paths = image_paths(images)
    if not paths:
        raise HandFootError(f"no photos in {', '.join(images)}: a folder is read for its {', '.join(IMAGE_SUFFIXES)} "
                            "files")
    return paths


def detect_examples(paths: list[Path], models: Any, conf: float, imgsz: int,
                    drawn: Callable[[int, Any], Any] | None = None) -> Iterator[dict[str, Any] | HandFootError]:
    """Each photo of ``paths`` read into corner indices with ``models`` (``handfoot.core.Models``) at confidence
    ``conf`` and the pyramid's longest side ``imgsz``: ``{"image", "width", "height", "negative", "detections":
    [{"card", "confidence", "box"}, ...]}`` (a deck-learning example once checked; ``negative``: whether the photo
    was read as its negative, ``--negative`` or a deck profile that reads negatives), or the error of a photo that cannot be
    read (:func:`handfoot.core.check_photo_file`: missing, not an image, too large or too small). ``drawn(k, picture)``, when given, is called before photo ``k``'s record with the photo as read
    ((H, W, 3) uint8 BGR, the boxes' pixels) and each box drawn on it with its card code
    (``vision.annotate.CornerAnnotator``)."""
    from vision.annotate import CornerAnnotator  # the optional vision extra (OpenCV, ONNX Runtime)
    from vision.images import load_photo  # the optional vision extra (OpenCV, ONNX Runtime)
    from vision.models.detector import NegativeDetector  # the optional vision extra (OpenCV, ONNX Runtime)
    from vision.pipeline import detect, read_indices  # the optional vision extra (OpenCV, ONNX Runtime)

    detector, reader = models.detector, models.reader
    negative = isinstance(detector, NegativeDetector)
    config = DEFAULT.replace(**{"reading.min_conf": conf, "pyramid.max_side": imgsz})
    for k, path in enumerate(paths):
        try:
            check_photo_file(path)
            image = load_photo(path)
        except HandFootError as exc:
            yield exc
            continue
        det, _ = read_indices(detect(image, detector, reader, config), not detector.names_cards, config)
        if drawn is not None:
            drawn(k, CornerAnnotator().annotate(image, det))
        yield {"image": str(path), "width": int(image.shape[1]), "height": int(image.shape[0]), "negative": negative,
               "detections": det.to_list()}


def negatives_shown(paths: list[Path], models: Any, conf: float, imgsz: int, most: int = NEGATIVE_LOOKS
                    ) -> tuple[int, int]:
    """How many of the first ``most`` photos of ``paths`` show corner indices when read as their negatives (255 -
    each pixel: a deck printed light on dark paper) by :func:`detect_examples` with ``models``, ``conf`` and
    ``imgsz``, and how many were read so (a photo that cannot be read counts as showing none)."""
    looked = paths[:most]
    negatives = reading_negatives(models)
    shown = sum(1 for r in detect_examples(looked, negatives, conf, imgsz) if isinstance(r, dict) and r["detections"])
    return shown, len(looked)
