"""The ``/v1/live`` routes: a table watched by a camera, for the page's live view (``/live``), thin over
:mod:`handfoot.live` and :mod:`handfoot.live_rounds`.

One session at a time per server (``app.state.live``): started here from the page (a camera index) or by
``handfoot watch --serve`` (a camera or a video file).
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from fastapi import APIRouter, Depends, Request, WebSocket
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.websockets import WebSocketDisconnect

from scorer import HandFootError
from scorer.numbers import Whole

from .. import core, games, live, live_rounds
from ..camera import FRAME_WIDTH, BrowserCamera, decode_frame
from ..errors import ConflictError, NotFoundError, TooLargeError
from ..ledger import Ledger
from .deps import ERRORS, decks_dir, get_ledger, get_live, get_models, get_settings

router = APIRouter(prefix="/v1/live")
BOUNDARY = "handfoot-frame"


class LiveStart(BaseModel):
    """Start watching: a ``camera`` of the server's computer (0: the first) or, with ``source`` ``browser``, the
    camera of a browser that sends its frames over the WebSocket ``/v1/live/camera``; the game whose next round
    it watches, how the picture is split between its teams (none: the camera sees the game's first team's side)
    and the deck profile to read with."""

    model_config = ConfigDict(extra="forbid")
    source: Literal["camera", "browser"] = "camera"
    camera: Whole = Field(0, ge=0, le=63)
    game: str = Field(max_length=40)
    split: Literal["horizontal", "vertical"] | None = None
    deck: str | None = Field(None, max_length=40, pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")


class LiveEnd(BaseModel):
    """End the round: keep the stable reading for the check view of ``game`` (default the session's game)."""

    model_config = ConfigDict(extra="forbid")
    game: str | None = Field(None, max_length=40)


class LiveEnded(BaseModel):
    """The kept reading (``GET /v1/photos/{reading}``), its game, and the page's address to check and save it."""

    reading: str
    game: str
    check: str


@router.get("", responses={401: ERRORS[401]})
def live_state(request: Request, ledger: Ledger = Depends(get_ledger)) -> dict[str, Any]:
    """What the live view shows (``handfoot.live.LiveSession.state``); ``{"status": "off"}`` when nothing is
    watched. Once the round watched is saved to its game (ended here, or typed or read from a photo on another
    phone), the next round is watched (``handfoot.live_rounds.follow_game``). Its teams are named as the game names
    them now (renamed on a phone since the camera started: ``handfoot.live_rounds.named_as_game``)."""
    session = getattr(request.app.state, "live", None)
    if session is None:
        return {"status": "off", "message": "nothing is being watched"}
    live_rounds.follow_game(session, ledger)
    return live_rounds.named_as_game(_state(session), session, ledger)


def _state(session: live.LiveSession) -> dict[str, Any]:
    """The session's state; for a browser's camera also ``frame_width``, the width its frames are sent at; once End
    of round was pressed and until that round is saved, ``ended``: its ``game``, ``reading`` and ``check`` (the
    page's address that checks and saves it, as ``POST /v1/live/end-round`` gave it)."""
    state = session.state()
    if isinstance(session.source, BrowserCamera):
        state["frame_width"] = FRAME_WIDTH
    if session.ended is not None:
        state["ended"] = _ended(*session.ended).model_dump()
    return state


def _ended(game: str, reading: str) -> LiveEnded:
    """The round ended for ``game`` as the photo reading ``reading``, with the page's address that checks it."""
    return LiveEnded(reading=reading, game=game, check=f"/#/game/{game}/check/{reading}")


@router.post("", status_code=201, responses={k: ERRORS[k] for k in (401, 404, 409, 422, 503)})
def start_live(body: LiveStart, request: Request, ledger: Ledger = Depends(get_ledger),
               models: core.Models = Depends(get_models), settings=Depends(get_settings)) -> dict[str, Any]:
    """Watch a camera of this computer, or a browser's (``source: browser``: its frames come over the WebSocket
    ``/v1/live/camera``), for the next round of a game. 409 while another session runs; 422 when there is no
    camera at that index."""
    old = getattr(request.app.state, "live", None)
    if old is not None and old.running:
        raise ConflictError("a table is already being watched: stop it first")
    game = games.game_view(ledger, body.game)
    req = live_rounds.request_for_game(game, body.split, body.deck)
    if body.source == "browser":
        camera = BrowserCamera()
        request.app.state.live = live.start(camera, models, req, game.id, decks=decks_dir(settings),
                                            open_frames=camera.open)
        return _state(request.app.state.live)
    stream = request.app.state.open_frames(body.camera)
    next(stream)  # no camera at that index: one line, before anything starts
    stream.close()
    request.app.state.live = live.start(body.camera, models, req, game.id, decks=decks_dir(settings),
                                        open_frames=request.app.state.open_frames)
    return request.app.state.live.state()


@router.delete("", status_code=204, responses={401: ERRORS[401], 404: ERRORS[404]})
def stop_live(request: Request, session: live.LiveSession = Depends(get_live)) -> Response:
    """Stop watching (the last reading is dropped; end the round first to keep it)."""
    session.stop()
    request.app.state.live = None
    return Response(status_code=204)


@router.post("/replay", status_code=201, responses={k: ERRORS[k] for k in (401, 404, 409)})
def replay_live(request: Request, session: live.LiveSession = Depends(get_live)) -> dict[str, Any]:
    """Play the watched video again from its start (a fresh round; a camera cannot be replayed: 409)."""
    if not isinstance(session.source, str):
        raise ConflictError("a camera cannot be played again; only a video")
    request.app.state.live = session.replay()
    return _state(request.app.state.live)


@router.get("/frame.jpg", response_class=Response, responses={401: ERRORS[401], 404: ERRORS[404]})
def live_frame(session: live.LiveSession = Depends(get_live)) -> Response:
    """The latest annotated picture, as a JPEG."""
    seq, data = session.jpeg()
    if not data:
        raise NotFoundError("no picture yet")
    return Response(data, media_type="image/jpeg", headers={"Cache-Control": "no-store"})


@router.get("/stream.mjpg", response_class=StreamingResponse, responses={401: ERRORS[401], 404: ERRORS[404]})
async def live_stream(request: Request, session: live.LiveSession = Depends(get_live)) -> StreamingResponse:
    """The annotated picture as it comes (``multipart/x-mixed-replace``: an ``<img>`` shows it); ends when the
    session stops or the page goes."""

    async def parts():
        last = -1
        while True:
            seq, data = session.jpeg(wait=0)  # never blocks the event loop
            if seq != last and data:
                last = seq
                yield (f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(data)}\r\n\r\n"
                       .encode() + data + b"\r\n")
            elif not session.running or request.app.state.changes.stopping.is_set() or await request.is_disconnected():
                return
            else:
                await asyncio.sleep(0.02)

    return StreamingResponse(parts(), media_type=f"multipart/x-mixed-replace; boundary={BOUNDARY}",
                             headers={"Cache-Control": "no-store"})


@router.post("/end-round", response_model=LiveEnded, status_code=201,
             responses={k: ERRORS[k] for k in (401, 404, 409)})
def end_round(body: LiveEnd, ledger: Ledger = Depends(get_ledger),
              session: live.LiveSession = Depends(get_live)) -> LiveEnded:
    """Keep the stable layout as a photo reading and give the page's address that checks it and saves it to the
    game; once it is saved there, the session watches the next round. Sent again (an answer lost, or pressed on
    another phone too) before that reading is saved and before the table is read anew, the same answer: one
    reading. 409 before the table was read once, as once the round watched was saved on another phone (the next
    round is watched then, nothing of it read yet)."""
    live_rounds.follow_game(session, ledger)  # a round saved meanwhile on another phone is not ended again
    game = body.game or session.game
    if game is None:
        raise ConflictError("say which game the round goes to")
    view = games.game_view(ledger, game)  # 404 for an unknown game
    return _ended(game, live_rounds.end_round(session, ledger, view))  # the next round starts once it is saved


@router.websocket("/camera")
async def live_camera(ws: WebSocket) -> None:
    """A browser's camera: each binary message one JPEG frame (at most ``handfoot.camera.MAX_FRAME_BYTES``, a
    side at most ``MAX_SIDE`` px), answered ``{"frames": n}`` once taken, so the page sends the next one then.
    Closed with 4404 when no session waits for a browser's camera, 4409 when another socket took over, 4410
    when the session stopped, 1003 for a text message, 1009 for a frame too large, 1007 for one not a JPEG.
    A page that closes it with 1000 stopped its camera on purpose: the live view says so at once
    (``handfoot.camera.BrowserCamera.hang_up``). The access token and the Origin are checked before (``handfoot.guard.Guard``)."""
    session = getattr(ws.app.state, "live", None)
    await ws.accept()
    if session is None or not isinstance(session.source, BrowserCamera) or not session.running:
        await ws.close(4404, "no live view waits for a browser's camera: start one first")
        return
    camera: BrowserCamera = session.source
    me = camera.connect()
    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                if message.get("code") == 1000:  # closed by its page on purpose (Stop this camera)
                    camera.hang_up(me)
                return
            if ws.app.state.live is not session or not session.running:
                await ws.close(4410, "the live view stopped")
                return
            if not camera.current(me):
                await ws.close(4409, "another camera took over")
                return
            data = message.get("bytes")
            if data is None:
                await ws.close(1003, "frames are binary messages, one JPEG each")
                return
            try:
                frame = await run_in_threadpool(decode_frame, data)
            except HandFootError as exc:
                await ws.close(1009 if isinstance(exc, TooLargeError) else 1007, str(exc)[:120])
                return
            camera.put(frame)
            await ws.send_json({"frames": camera.received})
    except WebSocketDisconnect as exc:
        if exc.code == 1000:
            camera.hang_up(me)
