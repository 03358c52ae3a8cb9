"""The ``/v1/photos`` routes: photos of the table (and hands) read and scored, kept with their photos, and
corrections tried on a kept reading."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, File, Form, Query, Request, UploadFile
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from scorer import HandFootError
from scorer.errors import InvalidLayoutError
from scorer.numbers import WholeOrNone

from .. import core, games, photo_request, readings
from ..corrections import Correction
from ..errors import NotFoundError, PhotosError, TooLargeError
from ..files import shown_photo
from ..ledger import Ledger, new_id
from ..limits import check_file_size, parse_json
from ..results import PhotoScore
from .deps import (DECK_NAME, ERRORS, IDEMPOTENCY_KEY, decks_dir, get_jobs, get_ledger, get_models, get_settings,
                   save_upload, sent_sizes)

router = APIRouter(prefix="/v1")


class PhotoReadingOut(PhotoScore):
    """A photo reading kept by the server: :class:`PhotoScore` plus its ``id``, and where its photos are:
    ``photos[k]`` the original of image ``k``, ``annotated[k]`` it with what was read drawn on it."""

    id: str
    photos: list[str]
    annotated: list[str]


def _reading_out(reading_id: str, result: PhotoScore) -> PhotoReadingOut:
    n = len(result.images)
    return PhotoReadingOut(**result.model_dump(), id=reading_id,
                           photos=[f"/v1/photos/{reading_id}/images/{k}" for k in range(n)],
                           annotated=[f"/v1/photos/{reading_id}/annotated/{k}.jpg" for k in range(n)])


def _read_photos(ledger: Ledger, reading_id: str, tables: list[UploadFile], hands: list[tuple[str, UploadFile]],
                 req: photo_request.PhotoRequest, models: core.Models, limits,
                 too_large: dict[int, HandFootError]) -> PhotoScore:
    """Save the uploads under ``photos/<id>/`` (but those ``too_large``, by place: table photos, then hands), read
    and score them, write the annotated copies and store the reading; on any error nothing is kept (every photo's
    told at once, those too large with them). Runs in a worker thread."""
    from vision.images import image_format  # the optional vision extra (OpenCV, ONNX Runtime)

    folder = ledger.reading_dir(reading_id)
    folder.mkdir(parents=True)
    try:
        paths, names, files = [], [], []
        for k, upload in enumerate([*tables, *(u for _, u in hands)]):
            upload.file.seek(0)
            kind = image_format(upload.file.read(64)) or "bin"
            ext = {"JPEG": ".jpg"}.get(kind, "." + kind.lower())
            dest = folder / f"photo-{k}{ext}"
            digest = save_upload(upload, dest) if k not in too_large else ""  # never kept: not read
            paths.append(dest)
            names.append(Path(upload.filename or f"photo-{k}").name[:120])
            files.append({"name": names[-1], "file": dest.name, "annotated": f"annotated-{k}.jpg",
                          "kind": "table" if k < len(tables) else "hand",
                          "sha256": digest})
        result = core.read_and_score_photos(paths[:len(tables)], req, models,
                                                   [(t, p) for (t, _), p in zip(hands, paths[len(tables):])],
                                                   limits, names, core.decks_dir(ledger.path.parent), too_large,
                                                   core.WEB_WAY)
        core.keep_reading(ledger, reading_id, result, files)
        return result
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


@router.post("/photos", response_model=PhotoReadingOut, status_code=201,
             responses={k: ERRORS[k] for k in (401, 409, 413, 422, 428, 503)})
async def read_photos(
        request: Request,
        photos: Annotated[list[UploadFile], File(description="table photos: one per team, in the order of "
                                                             "`teams` (or one photo with `split`)")],
        hands: Annotated[list[UploadFile] | None, File(description="photos of a player's hand or foot fanned "
                                                                   "face up: every card a card left")] = None,
        hand_teams: Annotated[str | None, Form(max_length=400, description="the team of each hand photo, in "
                                                                          "order: A,B")] = None,
        rules: Annotated[str, Form(max_length=40)] = "pagat",
        round: Annotated[int | None, Form(ge=1, le=99)] = None,
        went_out: Annotated[str | None, Form(max_length=40)] = None,
        split: Annotated[Literal["horizontal", "vertical"] | None, Form()] = None,
        teams: Annotated[str | None, Form(max_length=400, description="team of each table photo: A,B")] = None,
        left: Annotated[list[str] | None, Form(description='cards still held, as TEAM:CARDS ("A:KH 7C 4S"), '
                                                           "one per hand or foot")] = None,
        house_rules: Annotated[str | None, Form(max_length=4000, description="JSON object of rule fields")] = None,
        conf: Annotated[float, Form(gt=0, le=1)] = photo_request.DEFAULT_CONF,
        deck: Annotated[str | None, Form(max_length=40, pattern=DECK_NAME, description="read with this deck profile "
                                                                  "(GET /v1/decks)")] = None,
        negative: Annotated[bool, Form(description="read each photo's negative: a deck printed light on dark "
                                                   "(gold on black); a deck's profile decides for itself")] = False,
        idempotency_key: Annotated[str | None, IDEMPOTENCY_KEY] = None,
        settings=Depends(get_settings), ledger: Ledger = Depends(get_ledger), jobs=Depends(get_jobs),
        models: core.Models = Depends(get_models)) -> PhotoReadingOut:
    """Read photos of the table (and of hands) and score the round: the JSON of ``handfoot score PHOTO --json``
    plus the reading's ``id``, every pile with its id and every card with its boxes in image pixels. The
    photos are kept (``photos``, ``annotated``). At most ``max_jobs`` readings run at once and a few wait;
    past that the answer is 503 with ``Retry-After``. It needs an ``Idempotency-Key`` (428 without, said by
    :class:`handfoot.sync.Idempotency` before the upload is read): sent again after a lost answer, the same key gets
    the first reading (409 with ``Retry-After`` while that one is still being read), nothing read or kept twice."""
    limits = settings.limits
    hands = hands or []
    uploads = [*photos, *hands]
    if len(uploads) > limits.files:
        raise TooLargeError(f"{len(uploads)} photos: a round is read from at most {limits.files} at once (a side's "
                            "piles fit in one or two photos: choose those)")
    too_large = {}  # every photo over the limit by its place, named with every other photo's error
    for k, (upload, size) in enumerate(zip(uploads, sent_sizes(request, uploads, limits.file_bytes))):
        try:
            check_file_size(size, upload.filename or "photo", limits)
        except TooLargeError as exc:
            too_large[k] = exc
    if len(too_large) == len(uploads):  # no photo to read
        raise PhotosError.of(list(too_large.values()))
    hand_names = tuple(t.strip() for t in (hand_teams or "").split(",") if t.strip())
    if len(hand_names) != len(hands):
        raise HandFootError(f"{len(hands)} hand photo{'s' * (len(hands) != 1)} but {len(hand_names)} team"
                            f"{'s' * (len(hand_names) != 1)} in hand_teams: give one team per hand photo")
    house = parse_json(house_rules, limits, "house_rules") if house_rules else {}
    if not isinstance(house, dict):
        raise HandFootError("house_rules must be a JSON object of rule fields")
    left_packets = photo_request.parse_left(left or (), limits)
    req = photo_request.PhotoRequest(
        rules=rules, house_rules=tuple(house.items()), round=round, went_out=went_out or None, split=split,
        teams=photo_request.parse_teams(teams),
        left=tuple((t, tuple(tuple(p) for p in ps)) for t, ps in left_packets.items()), conf=conf,
        deck=deck or None, negative=negative)
    photo_request.check_photo_request(req, len(photos), hand_names)  # before any photo work
    if req.deck:  # an unknown deck: 404, a deck read as photographed asked for negatives: 422, before any work
        deck_models = core.with_deck(models, req.deck, decks_dir(settings))
        if negative:
            core.reading_negatives(deck_models, req.deck)
    jobs.admit()
    reading_id = new_id()
    result = await jobs.run(_read_photos, ledger, reading_id, list(photos), list(zip(hand_names, hands)), req,
                            models, limits, too_large)
    return _reading_out(reading_id, result)


def _stored(ledger: Ledger, reading_id: str) -> tuple[PhotoScore, list[dict[str, str]]]:
    record = ledger.reading(ledger.reading_dir(reading_id).name)
    return readings.load_reading(record.result), record.files


@router.get("/photos/{reading_id}", response_model=PhotoReadingOut, responses={404: ERRORS[404], 401: ERRORS[401]})
def get_reading(reading_id: str, ledger: Ledger = Depends(get_ledger)) -> PhotoReadingOut:
    """A kept photo reading, as ``POST /v1/photos`` answered it."""
    result, _ = _stored(ledger, reading_id)
    return _reading_out(reading_id, result)


def _photo_file(ledger: Ledger, reading_id: str, k: int, key: str) -> FileResponse:
    _, files = _stored(ledger, reading_id)
    if not 0 <= k < len(files):
        raise NotFoundError(f"photo reading {reading_id} has {len(files)} photo{'s' * (len(files) != 1)}, no {k}")
    path = ledger.reading_dir(reading_id) / Path(files[k][key]).name
    if not path.is_file():
        raise NotFoundError(f"the photo file of reading {reading_id} is gone")
    return FileResponse(path)


@router.get("/photos/{reading_id}/images/{k}", response_class=FileResponse,
            responses={200: {"content": {"image/jpeg": {}}}, 404: ERRORS[404], 401: ERRORS[401]})
def get_photo(reading_id: str, k: int, ledger: Ledger = Depends(get_ledger)):
    """The original photo ``k`` of a reading, as it was uploaded (a HEIC or TIFF photo, which browsers may not show,
    as a JPEG of the pixels the reading's boxes are in: ``handfoot.files.shown_photo``)."""
    return FileResponse(shown_photo(Path(_photo_file(ledger, reading_id, k, "file").path)))


@router.get("/photos/{reading_id}/annotated/{k}.jpg", response_class=FileResponse,
            responses={200: {"content": {"image/jpeg": {}}}, 404: ERRORS[404], 401: ERRORS[401]})
def get_annotated(reading_id: str, k: int, ledger: Ledger = Depends(get_ledger)):
    """Photo ``k`` with every card read boxed, the piles outlined and labelled, and the totals."""
    return _photo_file(ledger, reading_id, k, "annotated")


@router.get("/photos/{reading_id}/annotated.jpg", response_class=FileResponse,
            responses={200: {"content": {"image/jpeg": {}}}, 404: ERRORS[404], 401: ERRORS[401]})
def get_annotated_first(reading_id: str, image: Annotated[int, Query(ge=0, le=99)] = 0,
                        ledger: Ledger = Depends(get_ledger)):
    """Photo ``image`` (default the first) annotated, as ``/annotated/{k}.jpg``."""
    return _photo_file(ledger, reading_id, image, "annotated")


class CorrectionsIn(BaseModel):
    """Corrections to try on a reading (``handfoot.corrections``), with the round's facts."""

    model_config = ConfigDict(extra="forbid")

    corrections: list[Any] = Field(default_factory=list, max_length=500)
    round: WholeOrNone = Field(None, ge=1, le=99)
    went_out: str | None = Field("", max_length=40)


@router.post("/photos/{reading_id}/corrections", response_model=PhotoScore,
             responses={k: ERRORS[k] for k in (401, 404, 413, 422)})
def try_corrections(reading_id: str, body: CorrectionsIn, ledger: Ledger = Depends(get_ledger)) -> PhotoScore:
    """The reading with ``corrections`` applied and scored again, nothing stored: what a round made from it
    would score (``POST /v1/games/{id}/rounds`` with ``photo_reading`` stores it)."""
    result, _ = _stored(ledger, reading_id)
    try:
        ops = TypeAdapter(list[Correction]).validate_python(body.corrections)
    except ValidationError as exc:
        raise InvalidLayoutError(games.first_error(exc)) from None
    return readings.correct_reading(result, ops, round_no=body.round, went_out=body.went_out)


