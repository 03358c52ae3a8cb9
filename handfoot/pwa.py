"""The page as an installable app, and the HTTPS authority for phones: routes outside ``/v1`` that must sit at the
site's root.

``/manifest.webmanifest`` (the web app manifest: name, start URL, standalone, theme colour, icons drawn by
``scripts/make_icons.py``), ``/sw.js`` (the service worker, at the root so that its scope is the whole site),
``/offline.html`` (what the service worker shows when the server is away) and ``/handfoot-ca.crt`` (the
certificate authority of ``handfoot serve --https``, :mod:`handfoot.https`, for a phone to trust).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, Response

from .errors import NotFoundError
from .https import CA_NAME, FOLDER
from .routes.page import WEB

router = APIRouter(include_in_schema=False)


def _web(name: str, media_type: str, cache: str = "no-cache") -> FileResponse:
    return FileResponse(WEB / name, media_type=media_type, headers={"Cache-Control": cache})


@router.get("/manifest.webmanifest")
def manifest() -> FileResponse:
    return _web("manifest.webmanifest", "application/manifest+json")


@router.get("/sw.js")
def service_worker() -> FileResponse:
    """The service worker; never cached by the browser's HTTP cache, so a new version is found at once."""
    response = _web("sw.js", "text/javascript", "no-store")
    response.headers["Service-Worker-Allowed"] = "/"
    return response


@router.get("/offline.html")
def offline() -> FileResponse:
    return _web("offline.html", "text/html")


@router.get("/handfoot-ca.crt")
def certificate_authority(request: Request) -> Response:
    """The HTTPS certificate authority of this server (PEM), for a phone to install and trust; 404 on plain
    HTTP."""
    path = request.app.state.settings.db.parent / FOLDER / CA_NAME
    if request.url.scheme != "https" or not path.is_file():
        raise NotFoundError("this server does not serve HTTPS: start it with handfoot serve --https")
    return Response(path.read_bytes(), media_type="application/x-x509-ca-cert",
                    headers={"Content-Disposition": 'attachment; filename="handfoot-ca.crt"'})
