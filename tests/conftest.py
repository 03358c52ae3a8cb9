import os
from contextlib import contextmanager
from typing import Iterator
from pathlib import Path

import pytest

# the models run on ONNX Runtime in tests unless a test asks otherwise: readings stay the same wherever OpenVINO
# is installed (tests/test_backends.py compares the two)
os.environ.setdefault("HANDFOOT_BACKEND", "onnxruntime")

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    return SHARED


@pytest.fixture(scope="session")
def anglo_deck():
    """The 'anglo' deck (Debian aisleriot art, fetched once into the cache); skips when it cannot be fetched.

    A failure after the fetch (rendering, index finding) is a bug and fails the test instead of skipping it.
    """
    pytest.importorskip("cv2")
    pytest.importorskip("resvg_py")
    from datasets import cardart

    try:
        cardart.fetch_cardart(sources=("aisleriot",), quiet=True)
    except (RuntimeError, OSError) as exc:  # no network / no apt-get here
        pytest.skip(f"card art not available: {exc}")
    return cardart.load_deck("anglo")


def once() -> dict[str, str]:
    """The headers of a round added by a test as another phone: an ``Idempotency-Key`` of its own (a round added
    with nothing that tells a repeat apart is 428)."""
    import uuid

    return {"Idempotency-Key": uuid.uuid4().hex}


@contextmanager
def served(app, log_level: str = "warning") -> Iterator[str]:
    """A real uvicorn server for ``app`` on 127.0.0.1 (a free port) in a thread: yields its base URL, and stops
    it afterwards."""
    import socket
    import threading
    import time

    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level=log_level))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
