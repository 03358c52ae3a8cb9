"""The page's own routes (outside ``/v1``): the page at ``/`` (``handfoot/web``, its files under ``/static``) and
``/live``, the live view."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse

router = APIRouter()

WEB = Path(__file__).resolve().parent.parent / "web"


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def home() -> FileResponse:
    """The page at the card table (``handfoot/web``): games, rounds from photos, checking and correcting."""
    return FileResponse(WEB / "index.html", media_type="text/html", headers={"Cache-Control": "no-cache"})


@router.get("/live", include_in_schema=False)
def live_page() -> RedirectResponse:
    """The live view is a view of the page."""
    return RedirectResponse("/#/live", status_code=307)
