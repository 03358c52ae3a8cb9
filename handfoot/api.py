"""The ``/v1`` routes of the web service, thin over the application layer.

Rules, layout scoring, photo readings (kept with their photos) and games (the ledger). The models, the ledger,
the settings and the photo-job slots come in as dependencies (:func:`get_models`, :func:`get_ledger`, ...), so
tests swap them with ``app.dependency_overrides``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import (APIRouter, BackgroundTasks, Body, Depends, File, Form, Header, Path as PathParam, Query, Request,
                     UploadFile)
from fastapi.responses import FileResponse, HTMLResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from scorer import PRESET_NAMES, HandFootError, get_rules

from . import app as application
from . import games, readings, teaching
from .sync import etag, expected_version
from .errors import NotFoundError, TooLargeError, UnavailableError
from .ledger import Ledger, new_id
from .limits import check_file_size, parse_json
from .results import PhotoScore, RoundScoreOut

router = APIRouter(prefix="/v1")
root = APIRouter()

LAYOUT_EXAMPLE = {"rules": "pagat", "round": 1, "went_out": "A",
                  "teams": {"A": {"melds": [["KH", "KS", "KD", "KC", "KH", "KS", "KD"], ["8H", "8S", "8D"]],
                                  "squared_books": [{"top": "QH"}], "red_threes": ["3H"]},
                            "B": {"melds": [["9S", "9H", "2C"]], "left": [["QD", "7C", "4S"]]}}}
ERRORS = {k: {"description": v, "content": {"application/json": {"example": {"error": "what was wrong"}}}}
          for k, v in ((401, "no access token (when served beyond this computer)"), (404, "no such game, round "
                        "or reading"), (409, "does not fit the game (a photo reading already saved: `game` and "
                                           "`round` name where)"), (413, "too large"),
                       (422, "bad input, named in one line"), (503, "busy: retry after Retry-After seconds"))}
ERRORS[412] = {"description": "the game changed since the version in If-Match (on another phone): `game` is the "
                              "game as it is now", "content": {"application/json": {"example": {
                                  "error": "the game was changed on another phone", "game": {}}}}}
#: a deck profile's name (``vision.decks.NAME``)
DECK_NAME = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$"
DeckName = Annotated[str, PathParam(pattern=DECK_NAME, description="a deck profile's name: letters, digits, - and _")]
IF_MATCH = Header(alias="If-Match", max_length=200, pattern=r'^(\*|(W/)?"[0-9]{1,11}")$',
                  description='the game\'s version this change was made from (its ETag, "7"): 412 when it changed '
                              "since")
IDEMPOTENCY_KEY = Header(alias="Idempotency-Key", max_length=200, pattern=r"^[\x21-\x7e]{1,200}$",
                         description="a random id per action: the same key again gets the first answer, nothing new "
                                     "is stored")


# -- dependencies -------------------------------------------------------------------------------------------------
def get_settings(request: Request):
    return request.app.state.settings


def get_ledger(request: Request) -> Ledger:
    return request.app.state.ledger


def get_jobs(request: Request):
    return request.app.state.jobs


def get_models_if_any(request: Request) -> application.Models | None:
    """The camera models loaded at start-up, or None when photo reading is off."""
    return request.app.state.models


def get_teacher(request: Request) -> teaching.Teacher:
    return request.app.state.teacher


def get_models(request: Request) -> application.Models:
    """The camera models loaded at start-up. Raises UnavailableError (503) when there are none."""
    models = request.app.state.models
    if models is None:
        raise UnavailableError(f"photo reading is off on this server: {request.app.state.models_error or 'no models'}")
    return models


# -- health and rules ---------------------------------------------------------------------------------------------
class Health(BaseModel):
    """The service is up; which models are loaded (file names, None when not) and the photo jobs."""

    status: Literal["ok"]
    version: str
    models: dict[str, str | None]
    photo_reading: bool
    jobs: dict[str, int]


@router.get("/health", response_model=Health, responses={401: ERRORS[401]})
def health(request: Request, jobs=Depends(get_jobs)) -> Health:
    models = request.app.state.models
    described = models.describe() if models is not None else {"detector": None, "reader": None, "stacks": None}
    return Health(status="ok", version=request.app.version, models=described, photo_reading=models is not None,
                  jobs={"running": jobs.active, "at_once": jobs.running, "waiting": jobs.admitted - jobs.active})


@router.get("/rules", responses={401: ERRORS[401]})
def list_rules() -> dict[str, dict[str, Any]]:
    """Every preset and its values (as ``handfoot rules --json``)."""
    return {n: get_rules(n).model_dump(mode="json") for n in PRESET_NAMES}


@router.get("/rules/{name}", responses={404: ERRORS[404], 401: ERRORS[401]})
def one_rules(name: Annotated[str, Field(max_length=40)]) -> dict[str, Any]:
    """One preset's values (as ``handfoot rules NAME --json``)."""
    if name not in PRESET_NAMES:
        raise NotFoundError(f"no rules preset {name!r}; presets: {', '.join(PRESET_NAMES)}")
    return get_rules(name).model_dump(mode="json")


class RuleField(BaseModel):
    """One field of a preset, for house-rule switches: its name, value, type (``bool``, ``int``, ``list``...)
    and what it means (with the seed and section it comes from)."""

    field: str
    value: Any
    type: str
    description: str


@router.get("/rules/{name}/fields", response_model=list[RuleField], responses={404: ERRORS[404], 401: ERRORS[401]})
def rule_fields(name: Annotated[str, Field(max_length=40)]) -> list[RuleField]:
    """A preset's fields with their meaning, in order: what a page shows as house-rule switches."""
    from scorer.rules import Rules

    values = one_rules(name)
    return [RuleField(field=k, value=values[k], type=type(values[k]).__name__, description=info.description or "")
            for k, info in Rules.model_fields.items() if k not in ("name", "title", "source")]


# -- layouts ---------------------------------------------------------------------------------------------------
@router.post("/score", response_model=RoundScoreOut, responses={k: ERRORS[k] for k in (401, 413, 422)})
def score(layout: Annotated[dict[str, Any], Body(openapi_examples={"round": {"value": LAYOUT_EXAMPLE}})],
          lenient: bool = False, settings=Depends(get_settings)) -> RoundScoreOut:
    """Score a layout (docs/layout.md): the JSON of ``handfoot score LAYOUT --json``. A layout that breaks the
    rules is refused (422, with ``problems``) unless ``lenient``."""
    table = application.layout_of(layout, settings.limits)
    return application.score_layout(table, lenient=lenient).score


# -- photos ------------------------------------------------------------------------------------------------------
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


def _save_upload(upload: UploadFile, dest: Path) -> None:
    upload.file.seek(0)
    with open(dest, "wb") as f:
        shutil.copyfileobj(upload.file, f, 1024 * 1024)


def _read_photos(ledger: Ledger, reading_id: str, tables: list[UploadFile], hands: list[tuple[str, UploadFile]],
                 req: application.PhotoRequest, models: application.Models, limits) -> PhotoScore:
    """Save the uploads under ``photos/<id>/``, read and score them, write the annotated copies and store the
    reading; on any error nothing is kept. Runs in a worker thread."""
    from vision.imagesize import image_format

    folder = ledger.reading_dir(reading_id)
    folder.mkdir(parents=True)
    try:
        paths, names, files = [], [], []
        for k, upload in enumerate([*tables, *(u for _, u in hands)]):
            upload.file.seek(0)
            kind = image_format(upload.file.read(64)) or "bin"
            ext = {"JPEG": ".jpg"}.get(kind, "." + kind.lower())
            dest = folder / f"photo-{k}{ext}"
            _save_upload(upload, dest)
            paths.append(dest)
            names.append(Path(upload.filename or f"photo-{k}").name[:120])
            files.append({"name": names[-1], "file": dest.name, "annotated": f"annotated-{k}.jpg",
                          "kind": "table" if k < len(tables) else "hand"})
        result = application.read_and_score_photos(paths[:len(tables)], req, models,
                                                   [(t, p) for (t, _), p in zip(hands, paths[len(tables):])],
                                                   limits, names, application.decks_dir(ledger.path.parent))
        application.keep_reading(ledger, reading_id, result, files)
        return result
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


@router.post("/photos", response_model=PhotoReadingOut, status_code=201,
             responses={k: ERRORS[k] for k in (401, 413, 422, 503)})
async def read_photos(
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
        conf: Annotated[float, Form(gt=0, le=1)] = application.DEFAULT_CONF,
        deck: Annotated[str | None, Form(max_length=40, pattern=DECK_NAME, description="read with this deck profile "
                                                                  "(GET /v1/decks)")] = None,
        idempotency_key: Annotated[str | None, IDEMPOTENCY_KEY] = None,
        settings=Depends(get_settings), ledger: Ledger = Depends(get_ledger), jobs=Depends(get_jobs),
        models: application.Models = Depends(get_models)) -> PhotoReadingOut:
    """Read photos of the table (and of hands) and score the round: the JSON of ``handfoot score PHOTO --json``
    plus the reading's ``id``, every pile with its id and every card with its boxes in image pixels. The
    photos are kept (``photos``, ``annotated``). At most ``max_jobs`` readings run at once and a few wait;
    past that the answer is 503 with ``Retry-After``."""
    limits = settings.limits
    hands = hands or []
    uploads = [*photos, *hands]
    if len(uploads) > limits.files:
        raise TooLargeError(f"{len(uploads)} photos (at most {limits.files} at once)")
    for upload in uploads:
        check_file_size(upload.size or 0, upload.filename or "photo", limits)
    hand_names = tuple(t.strip() for t in (hand_teams or "").split(",") if t.strip())
    if len(hand_names) != len(hands):
        raise HandFootError(f"{len(hands)} hand photo{'s' * (len(hands) != 1)} but {len(hand_names)} team"
                            f"{'s' * (len(hand_names) != 1)} in hand_teams: give one team per hand photo")
    house = parse_json(house_rules, limits, "house_rules") if house_rules else {}
    if not isinstance(house, dict):
        raise HandFootError("house_rules must be a JSON object of rule fields")
    left_packets = application.parse_left(left or (), limits)
    req = application.PhotoRequest(
        rules=rules, house_rules=tuple(house.items()), round=round, went_out=went_out or None, split=split,
        teams=application.parse_teams(teams),
        left=tuple((t, tuple(tuple(p) for p in ps)) for t, ps in left_packets.items()), conf=conf,
        deck=deck or None)
    application.check_photo_request(req, len(photos), hand_names)  # before any photo work
    if req.deck:
        application.with_deck(models, req.deck, decks_dir(settings))  # an unknown deck: 404 before any work
    jobs.admit()
    reading_id = new_id()
    result = await jobs.run(_read_photos, ledger, reading_id, list(photos), list(zip(hand_names, hands)), req,
                            models, limits)
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
    """The original photo ``k`` of a reading, as it was uploaded."""
    return _photo_file(ledger, reading_id, k, "file")


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
    round: int | None = Field(None, ge=1, le=99)
    went_out: str | None = Field("", max_length=40)


@router.post("/photos/{reading_id}/corrections", response_model=PhotoScore,
             responses={k: ERRORS[k] for k in (401, 404, 413, 422)})
def try_corrections(reading_id: str, body: CorrectionsIn, ledger: Ledger = Depends(get_ledger)) -> PhotoScore:
    """The reading with ``corrections`` applied and scored again, nothing stored: what a round made from it
    would score (``POST /v1/games/{id}/rounds`` with ``photo_reading`` stores it)."""
    from pydantic import TypeAdapter, ValidationError

    from scorer.errors import InvalidLayoutError

    from .corrections import Correction

    result, _ = _stored(ledger, reading_id)
    try:
        ops = TypeAdapter(list[Correction]).validate_python(body.corrections)
    except ValidationError as exc:
        raise InvalidLayoutError(games._first_error(exc)) from None
    return readings.correct_reading(result, ops, round_no=body.round, went_out=body.went_out)


# -- decks -------------------------------------------------------------------------------------------------------
def decks_dir(settings) -> Path:
    """The service's deck profiles: ``decks/`` beside its ledger."""
    return application.decks_dir(settings.db.parent)


class DeckCheck(BaseModel):
    """A profile's check: how many indices its check photos hold, and the share of them read right by the
    ``stock`` reader and with the ``profile`` (0-1)."""

    indices: int = 0
    stock: float = 0.0
    profile: float = 0.0


class DeckOut(BaseModel):
    """A deck profile: its name, the example photos and indices it learned from, its check figures (``indices``,
    and the share read right by the ``stock`` reader and with the ``profile``), when it was made, and whether
    the deck is read as its negative (``negative``: light print on dark paper)."""

    name: str
    photos: int
    indices: int
    check: DeckCheck
    created: str
    negative: bool = False


class DeckLearnIn(BaseModel):
    """Learn a deck from games' photo rounds as they were saved (every correction applied)."""

    model_config = ConfigDict(extra="forbid")

    games: list[Annotated[str, Field(max_length=40)]] = Field(min_length=1, max_length=50)


class DeckJobOut(BaseModel):
    """A deck-learning job: ``state`` ``learning``, ``done`` (``deck`` is the profile) or ``failed`` (``error``
    says why, e.g. a profile refused for reading its check photos worse); ``stage``, ``done_photos`` and
    ``photos`` say how far it is."""

    id: str
    name: str
    state: Literal["learning", "done", "failed"]
    stage: str = ""
    done_photos: int = 0
    photos: int = 0
    deck: DeckOut | None = None
    error: str | None = None


def _deck_out(profile) -> DeckOut:
    return DeckOut(name=profile.name, photos=profile.photos, indices=profile.indices, check=profile.check,
                   created=profile.created, negative=profile.negative)


@router.get("/decks", response_model=list[DeckOut], responses={401: ERRORS[401]})
def list_decks(settings=Depends(get_settings)) -> list[DeckOut]:
    """The deck profiles this server reads with (``deck`` on ``POST /v1/photos``)."""
    from vision.decks import list_profiles

    return [_deck_out(p) for p in list_profiles(decks_dir(settings))]


@router.delete("/decks/{name}", status_code=204, responses={404: ERRORS[404], 401: ERRORS[401]})
def delete_deck(name: DeckName, settings=Depends(get_settings)) -> Response:
    """Delete a deck profile."""
    from vision.decks import remove_profile

    remove_profile(name, decks_dir(settings))
    return Response(status_code=204)


@router.post("/decks/{name}/learn", response_model=DeckJobOut, status_code=202,
             responses={k: ERRORS[k] for k in (401, 404, 422, 503)})
async def learn_deck(name: DeckName, body: DeckLearnIn, request: Request,
                     settings=Depends(get_settings), ledger: Ledger = Depends(get_ledger), jobs=Depends(get_jobs),
                     models: application.Models = Depends(get_models)) -> DeckJobOut:
    """Learn (or learn again) the deck profile ``name`` from the photo rounds of ``games``, in the background:
    the answer is the job (``GET /v1/decks/jobs/{id}`` says how far it is). It shares the photo readings'
    places: 503 with ``Retry-After`` when they are all taken."""
    import numpy as np

    from vision.decks import Example, check_name

    check_name(name)
    examples = [Example(Path(doc["image"]), np.array([d["box"] for d in doc["detections"]], np.float32),
                        tuple(d["card"] for d in doc["detections"])) for g in body.games
                for doc in teaching.game_examples(ledger, g)]
    return _start_learning(name, examples, request, settings, jobs, models)


@router.post("/decks/{name}/learn/upload", response_model=DeckJobOut, status_code=202,
             responses={k: ERRORS[k] for k in (401, 413, 422, 503)})
async def learn_deck_from_upload(
        name: DeckName, request: Request,
        examples: Annotated[UploadFile, File(description="the examples: JSON lines as `handfoot detect --json` "
                                                         "prints them, each card code checked")],
        photos: Annotated[list[UploadFile], File(description="the photos the examples name (matched by file "
                                                             "name)")],
        settings=Depends(get_settings), jobs=Depends(get_jobs),
        models: application.Models = Depends(get_models)) -> DeckJobOut:
    """Learn (or learn again) the deck profile ``name`` from an uploaded examples file and its photos, in the
    background, as ``POST /v1/decks/{name}/learn`` does from games. Each example's ``image`` is matched to an
    uploaded photo by its file name; the uploads are deleted when the job ends."""
    from starlette.concurrency import run_in_threadpool

    from vision.decks import MAX_PHOTOS, check_name

    check_name(name)
    limits = settings.limits
    if len(photos) > MAX_PHOTOS:
        raise TooLargeError(f"{len(photos)} photos (at most {MAX_PHOTOS} to learn a deck from)")
    for upload in photos:
        check_file_size(upload.size or 0, upload.filename or "photo", limits)
    total = sum(upload.size or 0 for upload in photos)
    if total > limits.upload_bytes:
        raise TooLargeError(f"the photos hold {total / 1e6:.0f} MB (at most {limits.upload_bytes / 1e6:.0f} MB at "
                            "once)")
    folder = decks_dir(settings) / ".uploads" / new_id()
    try:
        found = await run_in_threadpool(_saved_examples, folder, examples, photos, limits)
        job = _start_learning(name, found, request, settings, jobs, models,
                              lambda: shutil.rmtree(folder, ignore_errors=True))
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return job


def _saved_examples(folder: Path, examples: UploadFile, photos: list[UploadFile], limits) -> list:
    """Save the uploaded photos in ``folder`` and read the uploaded examples against them
    (:func:`handfoot.app.uploaded_examples`). Runs in a worker thread."""
    folder.mkdir(parents=True)
    saved: dict[str, Path] = {}
    for k, upload in enumerate(photos):
        label = Path((upload.filename or "").replace("\\", "/")).name[:120]
        if not label:
            raise HandFootError(f"photo {k + 1} has no file name: the examples name their photos by file name")
        if label in saved:
            raise HandFootError(f"two photos are called {label}: the examples name their photos by file name")
        saved[label] = folder / f"photo-{k}{Path(label).suffix.lower()[:8]}"
        _save_upload(upload, saved[label])
    examples.file.seek(0)
    text = examples.file.read(limits.json_bytes + 1)
    return application.uploaded_examples(folder, Path(examples.filename or "examples.jsonl").name[:120], text, saved,
                                         limits)


def _start_learning(name: str, examples: list, request: Request, settings, jobs, models: application.Models,
                    cleanup=None) -> DeckJobOut:
    """Check ``examples`` (too few photos or indices: 422 before any work), take a place among the photo readings'
    (503 when none is free) and learn the profile ``name`` in the background; ``cleanup()`` runs when the job
    ends. Returns the job."""
    import asyncio

    from vision.decks import check_folds, learn

    if models.reader is None:
        raise HandFootError("no index reader is loaded: decks cannot be learned")
    check_folds(examples)
    jobs.admit()
    job = DeckJobOut(id=new_id(), name=name, state="learning", photos=len(examples))
    table = request.app.state.deck_jobs
    table[job.id] = job
    while len(table) > 50:  # the oldest jobs are forgotten
        table.pop(next(iter(table)))

    def progress(stage: str, done: int, total: int) -> None:
        job.stage, job.done_photos = stage, done

    def work():
        profile = learn(examples, models.reader.with_heads(None), name, progress=progress)
        profile.save(decks_dir(settings))
        return profile

    async def run():
        try:
            job.deck, job.state, job.stage = _deck_out(await jobs.run(work)), "done", "done"
            job.done_photos = job.photos
        except Exception as exc:  # a refused profile, too few examples: the job says so
            job.state, job.error = "failed", str(exc)
        finally:
            if cleanup:
                cleanup()

    request.app.state.deck_tasks.add(task := asyncio.create_task(run()))
    task.add_done_callback(request.app.state.deck_tasks.discard)
    return job


@router.get("/decks/jobs/{job_id}", response_model=DeckJobOut, responses={404: ERRORS[404], 401: ERRORS[401]})
def deck_job(job_id: Annotated[str, Field(max_length=40)], request: Request) -> DeckJobOut:
    """A deck-learning job started by ``POST /v1/decks/{name}/learn``."""
    job = request.app.state.deck_jobs.get(job_id)
    if job is None:
        raise NotFoundError(f"no deck-learning job {job_id}")
    return job


# -- games -------------------------------------------------------------------------------------------------------
@router.post("/games", response_model=games.GameOut, status_code=201,
             responses={k: ERRORS[k] for k in (401, 409, 413, 422)})
def create_game(body: games.GameCreate, response: Response, ledger: Ledger = Depends(get_ledger),
                idempotency_key: Annotated[str | None, IDEMPOTENCY_KEY] = None) -> games.GameOut:
    """Start a game: rules preset, teams, players, house rules."""
    record = games.create_game(ledger, body)
    return _tagged(response, games.game_view(ledger, record.id))


@router.get("/games", response_model=list[games.GameSummary], responses={401: ERRORS[401]})
def list_games(ledger: Ledger = Depends(get_ledger)) -> list[games.GameSummary]:
    """Every game kept, newest first."""
    return games.game_summaries(ledger)


@router.get("/games/{game_id}", response_model=games.GameOut, responses={404: ERRORS[404], 401: ERRORS[401]})
def get_game(game_id: str, response: Response, ledger: Ledger = Depends(get_ledger)) -> games.GameOut:
    """The game: its rounds scored, running totals, next round's opening minimum, leader and winner, and its
    ``version`` (also its ``ETag``: send it back as ``If-Match`` when changing a round)."""
    return _tagged(response, games.game_view(ledger, game_id))


def _tagged(response: Response, game: games.GameOut) -> games.GameOut:
    response.headers["ETag"] = etag(game.version)
    response.headers["Cache-Control"] = "no-cache"
    return game


@router.delete("/games/{game_id}", status_code=204, responses={404: ERRORS[404], 401: ERRORS[401]})
def delete_game(game_id: str, ledger: Ledger = Depends(get_ledger)) -> Response:
    """Forget a game and its rounds (its photo readings stay)."""
    ledger.delete_game(game_id)
    return Response(status_code=204)


ROUND_BODY = Body(openapi_examples={
    "layout": {"summary": "a layout (docs/layout.md)", "value": LAYOUT_EXAMPLE},
    "photo": {"summary": "a photo reading with corrections",
              "value": {"photo_reading": "0123456789abcdef", "went_out": "A",
                        "corrections": [{"op": "set_card", "card": "i0p1.0", "code": "QH"}]}}})


@router.post("/games/{game_id}/rounds", response_model=games.GameOut, status_code=201,
             responses={k: ERRORS[k] for k in (401, 404, 409, 412, 413, 422)})
def add_round(game_id: str, body: Annotated[dict[str, Any], ROUND_BODY], background: BackgroundTasks,
              request: Request, response: Response, lenient: bool = False,
              if_match: Annotated[str | None, IF_MATCH] = None,
              idempotency_key: Annotated[str | None, IDEMPOTENCY_KEY] = None,
              settings=Depends(get_settings), ledger: Ledger = Depends(get_ledger),
              teacher: teaching.Teacher = Depends(get_teacher),
              models: application.Models | None = Depends(get_models_if_any)) -> games.GameOut:
    """Score and keep the next round: a layout, or ``{"photo_reading": ID, "corrections": [...], "went_out":
    TEAM}``. A round that breaks the rules is refused (422 with ``problems``) unless ``lenient``; a photo reading
    already saved as a round is 409 naming it; a stale ``If-Match`` is 412 with the game as it is now. A photo
    round of a game that teaches its deck has the deck learned again after the answer (``handfoot.teaching``)."""
    out = games.add_round(ledger, game_id, body, lenient, settings.limits, expected_version(request))
    _teach(background, teacher, ledger, game_id, body, models)
    return _tagged(response, out)


def _teach(background: BackgroundTasks, teacher: teaching.Teacher, ledger: Ledger, game_id: str,
           body: dict[str, Any], models: application.Models | None) -> None:
    if isinstance(body, dict) and body.get("photo_reading") and models is not None:
        background.add_task(teacher.lesson_after_round, ledger, game_id, models.reader)


@router.put("/games/{game_id}/rounds/{n}", response_model=games.GameOut,
            responses={k: ERRORS[k] for k in (401, 404, 409, 412, 413, 422)})
def replace_round(game_id: str, n: int, body: Annotated[dict[str, Any], ROUND_BODY], background: BackgroundTasks,
                  request: Request, response: Response, lenient: bool = False,
                  if_match: Annotated[str | None, IF_MATCH] = None,
                  settings=Depends(get_settings), ledger: Ledger = Depends(get_ledger),
                  teacher: teaching.Teacher = Depends(get_teacher),
                  models: application.Models | None = Depends(get_models_if_any)) -> games.GameOut:
    """Correct round ``n``: the same body as adding one; it is scored again (``If-Match``: as adding one; and it
    teaches as adding one does)."""
    out = games.replace_round(ledger, game_id, n, body, lenient, settings.limits, expected_version(request))
    _teach(background, teacher, ledger, game_id, body, models)
    return _tagged(response, out)


@router.delete("/games/{game_id}/rounds/{n}", response_model=games.GameOut,
               responses={k: ERRORS[k] for k in (401, 404, 409, 412)})
def undo_round(game_id: str, n: int, request: Request, response: Response,
               if_match: Annotated[str | None, IF_MATCH] = None,
               ledger: Ledger = Depends(get_ledger)) -> games.GameOut:
    """Undo round ``n``: the rounds after it move up one (``If-Match``: as adding one)."""
    ledger.game(game_id)
    with ledger.rounds_lock:
        ledger.delete_round(game_id, n, expected_version(request))
    return _tagged(response, games.game_view(ledger, game_id))


class GameDeckIn(BaseModel):
    """The deck profile a game's photos are read with (``GET /v1/decks``), or null for the stock reader; and
    whether the game's saved photo rounds go on teaching that deck (``teach``, default true; false opts out)."""

    model_config = ConfigDict(extra="forbid")

    deck: str | None = Field(max_length=40, pattern=DECK_NAME)
    teach: bool = True


@router.put("/games/{game_id}/deck", response_model=games.GameOut, responses={k: ERRORS[k] for k in (401, 404, 422)})
def set_game_deck(game_id: str, body: GameDeckIn, response: Response, ledger: Ledger = Depends(get_ledger),
                  settings=Depends(get_settings)) -> games.GameOut:
    """Read this game's photos (the round page, the live view) with a deck profile, and let its saved photo rounds
    teach that deck (``teach``, default true: ``handfoot.teaching``). A deck not learned yet is taught (the game
    reads with the stock reader until it is learned); with ``teach`` false it must exist (404)."""
    from vision.decks import check_name, list_profiles

    known = [p.name for p in list_profiles(decks_dir(settings))]
    if body.deck is not None:
        check_name(body.deck)
        if body.deck not in known and not body.teach:
            raise NotFoundError(f"no deck profile {body.deck!r} (known: {', '.join(known) or 'none yet'}; this "
                                "server keeps its decks beside its ledger: `handfoot deck learn ... --db` that file)")
    ledger.set_deck(game_id, body.deck if body.deck in known else None)
    ledger.set_teach(game_id, body.deck if body.teach else None)
    return _tagged(response, games.game_view(ledger, game_id))


@router.get("/games/{game_id}/examples.jsonl", response_class=Response,
            responses={200: {"content": {"application/x-ndjson": {}}}, 404: ERRORS[404], 401: ERRORS[401]})
def export_examples(game_id: str, ledger: Ledger = Depends(get_ledger)) -> Response:
    """The game's photo rounds as they were saved (every correction applied), as deck-learning examples: one JSON
    object a line, ``{"image": PATH, "detections": [{"card": "KH", "box": [x1, y1, x2, y2]}, ...]}``, the photo's
    path on this server's disk (``handfoot deck learn`` reads the file)."""
    import json

    lines = [json.dumps(doc) for doc in teaching.game_examples(ledger, game_id)]
    return Response("".join(line + "\n" for line in lines), media_type="application/x-ndjson",
                    headers={"Content-Disposition": f'attachment; filename="handfoot-{game_id}-examples.jsonl"'})


@router.get("/games/{game_id}/export.csv", response_class=Response,
            responses={200: {"content": {"text/csv": {}}}, 404: ERRORS[404], 401: ERRORS[401]})
def export_csv(game_id: str, ledger: Ledger = Depends(get_ledger)) -> Response:
    """The round grid: each round's minimum, each team's points and running total."""
    import re

    record = ledger.game(game_id)
    teams = "-vs-".join(re.sub(r"[^A-Za-z0-9]+", "-", t).strip("-") or "team" for t in record.teams)[:80]
    name = f"handfoot-{teams}-{record.created[:10]}.csv"
    return Response(games.export_csv(ledger, game_id), media_type="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


WEB = Path(__file__).resolve().parent / "web"


@root.get("/", response_class=HTMLResponse, include_in_schema=False)
def home() -> FileResponse:
    """The page at the card table (``handfoot/web``): games, rounds from photos, checking and correcting."""
    return FileResponse(WEB / "index.html", media_type="text/html", headers={"Cache-Control": "no-cache"})
