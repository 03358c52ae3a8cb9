"""The ``/v1/decks`` routes: deck profiles, and learning them in the background (:mod:`handfoot.learning`)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated

import numpy as np
from fastapi import APIRouter, Depends, File, UploadFile
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from scorer import HandFootError

from .. import core, teaching
from ..errors import NotFoundError, TooLargeError
from ..deck_sync import DeckExpect, DeckOut, remove_deck
from ..learning import DeckJobOut, DeckLearning, uploaded_examples as learning_examples
from ..ledger import Ledger, new_id
from ..limits import check_file_size
from .deps import (DECK_DELETE_IF_MATCH, DECK_ERRORS, DECK_IF_MATCH, ERRORS, IF_NONE_MATCH, DeckName, decks_dir,
                   get_learning, get_ledger, get_models, get_settings, save_upload)

router = APIRouter(prefix="/v1")


class DeckLearnIn(BaseModel):
    """Learn a deck from games' photo rounds as they were saved (every correction applied)."""

    model_config = ConfigDict(extra="forbid")

    games: list[Annotated[str, Field(max_length=40)]] = Field(min_length=1, max_length=50)


@router.get("/decks", response_model=list[DeckOut], responses={401: ERRORS[401]})
def list_decks(settings=Depends(get_settings)) -> list[DeckOut]:
    """The deck profiles this server reads with (``deck`` on ``POST /v1/photos``), each with its ``version`` (sent
    back as ``If-Match`` to learn it again only while it is that one)."""
    from vision.deck_profiles import list_profiles  # the optional vision extra (OpenCV, ONNX Runtime)

    return [DeckOut.of(p) for p in list_profiles(decks_dir(settings))]


@router.delete("/decks/{name}", status_code=204,
               responses={404: ERRORS[404], 401: ERRORS[401], 412: DECK_ERRORS[412]})
def delete_deck(name: DeckName, settings=Depends(get_settings),
                if_match: Annotated[str | None, DECK_DELETE_IF_MATCH] = None) -> Response:
    """Delete a deck profile; with ``If-Match``, only while it is the profile of that ``version`` (412 with the
    profile as it is now when it was taught again since: nothing deleted)."""
    version = None if if_match is None else DeckExpect.of(if_match, None).version
    remove_deck(name, decks_dir(settings), version)
    return Response(status_code=204)


@router.post("/decks/{name}/learn", response_model=DeckJobOut, status_code=202,
             responses={**{k: ERRORS[k] for k in (401, 404, 422, 503)}, **DECK_ERRORS})
async def learn_deck(name: DeckName, body: DeckLearnIn, ledger: Ledger = Depends(get_ledger),
                     learning: DeckLearning = Depends(get_learning),
                     models: core.Models = Depends(get_models),
                     if_match: Annotated[str | None, DECK_IF_MATCH] = None,
                     if_none_match: Annotated[str | None, IF_NONE_MATCH] = None) -> DeckJobOut:
    """Learn (or learn again) the deck profile ``name`` from the photo rounds of ``games``, in the background:
    the answer is the job (``GET /v1/decks/jobs/{id}`` says how far it is; learning again replaces the profile of
    that name, and the job done says which in ``replaced``). ``If-None-Match: *`` learns a new deck only,
    ``If-Match`` replaces only the profile of that ``version``: 412 when it is not so at the start, and a job that
    finds it not so as it saves fails (``changed``) and saves nothing (:mod:`handfoot.deck_sync`); with neither,
    whatever is kept is replaced. 409 while a job learns that name already. It shares the photo readings' places:
    503 with ``Retry-After`` when they are all taken."""
    from vision.decks import Example, check_name  # the optional vision extra (OpenCV, ONNX Runtime)

    check_name(name)
    expect = DeckExpect.of(if_match, if_none_match)
    learning.check(name, expect)
    examples = [Example(Path(doc["image"]), np.array([d["box"] for d in doc["detections"]], np.float32),
                        tuple(d["card"] for d in doc["detections"])) for g in body.games
                for doc in teaching.game_examples(ledger, g)]
    return learning.start(name, examples, models, done=lambda profile: ledger.set_lesson(
        name, teaching.learned(profile, len(examples), len(body.games)).model_dump()), expect=expect)


@router.post("/decks/{name}/learn/upload", response_model=DeckJobOut, status_code=202,
             responses={**{k: ERRORS[k] for k in (401, 413, 422, 503)}, **DECK_ERRORS})
async def learn_deck_from_upload(
        name: DeckName,
        examples: Annotated[UploadFile, File(description="the examples: JSON lines as `handfoot detect --json` "
                                                         "prints them, each card code checked")],
        photos: Annotated[list[UploadFile], File(description="the photos the examples name (matched by file "
                                                             "name)")],
        settings=Depends(get_settings), learning: DeckLearning = Depends(get_learning),
        models: core.Models = Depends(get_models),
        if_match: Annotated[str | None, DECK_IF_MATCH] = None,
        if_none_match: Annotated[str | None, IF_NONE_MATCH] = None) -> DeckJobOut:
    """Learn (or learn again) the deck profile ``name`` from an uploaded examples file and its photos, in the
    background, as ``POST /v1/decks/{name}/learn`` does from games (``If-Match``, ``If-None-Match``, 409, 412 as
    there, before the photos are kept). Each example's ``image`` is matched to an uploaded photo by its file name;
    the uploads are deleted when the job ends."""
    from vision.decks import MAX_PHOTOS, check_name  # the optional vision extra (OpenCV, ONNX Runtime)

    check_name(name)
    expect = DeckExpect.of(if_match, if_none_match)
    learning.check(name, expect)
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
        found = await run_in_threadpool(saved_examples, folder, examples, photos, limits)
        job = learning.start(name, found, models, lambda: shutil.rmtree(folder, ignore_errors=True), expect=expect)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return job


def saved_examples(folder: Path, examples: UploadFile, photos: list[UploadFile], limits) -> list:
    """Save the uploaded photos in ``folder`` and read the uploaded examples against them
    (:func:`handfoot.learning.uploaded_examples`). Runs in a worker thread."""
    folder.mkdir(parents=True)
    saved: dict[str, Path] = {}
    for k, upload in enumerate(photos):
        label = Path((upload.filename or "").replace("\\", "/")).name[:120]
        if not label:
            raise HandFootError(f"photo {k + 1} has no file name: the examples name their photos by file name")
        if label in saved:
            raise HandFootError(f"two photos are called {label}: the examples name their photos by file name")
        saved[label] = folder / f"photo-{k}{Path(label).suffix.lower()[:8]}"
        save_upload(upload, saved[label])
    examples.file.seek(0)
    text = examples.file.read(limits.json_bytes + 1)
    return learning_examples(folder, Path(examples.filename or "examples.jsonl").name[:120], text, saved,
                                         limits)


@router.get("/decks/jobs/{job_id}", response_model=DeckJobOut, responses={404: ERRORS[404], 401: ERRORS[401]})
def deck_job(job_id: Annotated[str, Field(max_length=40)],
             learning: DeckLearning = Depends(get_learning)) -> DeckJobOut:
    """A deck-learning job started by ``POST /v1/decks/{name}/learn``."""
    job = learning.job(job_id)
    if job is None:
        raise NotFoundError(f"no deck-learning job {job_id}")
    return job


