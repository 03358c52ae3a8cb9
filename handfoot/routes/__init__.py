"""The web service's routes, one module per resource (after the FastAPI full-stack template), thin over the
application layer: :mod:`.rules` (health, rules, scoring a layout), :mod:`.photos`, :mod:`.decks`, :mod:`.games`,
:mod:`.live` (``/v1/live``) and :mod:`.page` (the page); :mod:`.deps` holds the dependencies they share (tests swap
them with ``app.dependency_overrides``). :func:`handfoot.service.create_app` includes the routers."""
