"""Schemathesis against the OpenAPI schema of a real server (uvicorn on 127.0.0.1, in a thread): generated
requests to every operation, bounded in number, never answered with a 5xx other than 503 (busy, with
Retry-After), and every answer matches its documented schema's status codes."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

schemathesis = pytest.importorskip("schemathesis")
uvicorn = pytest.importorskip("uvicorn")
from hypothesis import HealthCheck, settings  # noqa: E402

from conftest import once, served  # noqa: E402
from handfoot.service import Settings, create_app  # noqa: E402

PHOTO = Path(__file__).resolve().parents[1] / "examples" / "table.jpg"
#: generated requests per operation (about 20 operations)
EXAMPLES = 25


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A real handfoot service (real models: photos that are images get read) on a free port."""
    from handfoot.core import load_models

    app = create_app(Settings(db=tmp_path_factory.mktemp("schema") / "h.db"), models=load_models())
    with served(app, "critical") as url:
        yield url


_calls = itertools.count()


def _check(case, ids: dict[str, str]) -> None:
    params = case.path_parameters or {}
    keep = case.method == "DELETE" and case.path == "/v1/games/{game_id}"  # the game stays for the others
    for key in ("game_id", "reading_id"):  # a real id in 3 calls of 4, so the generated bodies reach the work
        if key in params and next(_calls) % 4 and not keep:
            params[key] = ids[key]
    response = case.call(timeout=60)
    if response.status_code == 503:
        assert "retry-after" in {k.lower() for k in response.headers} or "photo reading is off" in response.text
        return
    assert response.status_code < 500, (case.method, case.path, response.status_code, response.text[:300])
    if response.status_code >= 400:
        assert isinstance(response.json()["error"], str), response.text[:300]


def test_no_server_errors(server):
    from hypothesis import given

    import httpx

    with open(PHOTO, "rb") as f:
        reading = httpx.post(f"{server}/v1/photos", files=[("photos", ("t.jpg", f, "image/jpeg"))], timeout=60, headers=once())
    game = httpx.post(f"{server}/v1/games", json={"rules": "six-deck", "teams": ["A", "B"]}, timeout=10, headers=once())
    ids = {"reading_id": reading.json()["id"], "game_id": game.json()["id"]}
    api = schemathesis.openapi.from_url(f"{server}/openapi.json")
    operations = [result.ok() for result in api.get_all_operations()]
    assert len(operations) >= 15
    for operation in operations:
        if operation.path.endswith("/events"):  # an event stream never ends by itself: tests/test_sync.py
            continue

        @given(case=operation.as_strategy())
        @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        def run(case):
            _check(case, ids)
        run()


#: schema-valid requests the API may still refuse: what JSON Schema cannot say (a layout that breaks the rules, a
#: photo that is not an image, a stale If-Match, an undo with neither If-Match nor Idempotency-Key, a busy server) is
#: 409, 412, 413, 422, 428 or 503, never another 4xx
CONFIG = """
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "401", "403", "404", "409", "412", "413", "422", "428", "503"]
"""


def test_schemathesis_with_every_check_finds_nothing(server, tmp_path):
    """Schemathesis's own run with ``--checks all`` (response schemas, status codes, headers such as ``Allow``,
    event streams, schema-invalid requests refused, stateful links between operations), bounded: 3 examples an
    operation, a fixed seed."""
    import subprocess
    import sys

    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    run = subprocess.run([sys.executable, "-c", "import sys; from schemathesis.cli import schemathesis; "
                          "sys.exit(schemathesis())", "--config-file", str(config), "run", f"{server}/openapi.json",
                          "--checks", "all", "--max-examples", "3", "--seed", "3", "--no-color"],
                         capture_output=True, text=True, timeout=600, cwd=tmp_path)  # its cache: not in the repo
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "failures" not in run.stdout.lower().split("summary")[-1]
