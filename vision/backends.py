"""Inference backends for the shipped ONNX models: ONNX Runtime and OpenVINO behind one small interface.

The model files stay ONNX. Every backend is opened with :func:`open_model` and offers the part of ONNX Runtime's
``InferenceSession`` the model wrappers use: ``get_inputs()`` / ``get_outputs()`` (each with ``name`` and
``shape``, ``None`` for a dynamic axis) and ``run(None, {input name: array})`` -> a list of arrays in the model's
output order.

Which backend runs a model is a setting (:data:`BACKEND_ENV`, or the ``backend`` argument): ``onnxruntime``,
``openvino`` or ``auto`` (the default). ``auto`` is ONNX Runtime unless OpenVINO is installed and, for that model
on this CPU, :func:`calibrate` found OpenVINO faster and its outputs the same within :data:`TOLERANCE`; the
verdict is kept in ``~/.cache/handfoot/backends.json`` (or ``$HANDFOOT_CACHE``), keyed by the model file's
digest, the CPU and both libraries' versions, so it is measured once a machine. OpenVINO keeps far more memory
resident than ONNX Runtime without its arena (``models/HISTORY.md`` has the figures); the choice weighs speed only.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

BACKENDS = ("onnxruntime", "openvino")
#: environment variable that forces a backend (``onnxruntime``, ``openvino``) or leaves the choice (``auto``)
BACKEND_ENV = "HANDFOOT_BACKEND"
#: largest absolute difference of any output value (box coordinates in model pixels, class scores 0..1) for
#: two backends to count as the same
TOLERANCE = 0.01
#: OpenVINO must take at most this share of ONNX Runtime's time to be chosen (a margin over timing noise)
FASTER = 0.9


@dataclass(frozen=True)
class Port:
    """A model input or output: its ``name`` and ``shape`` (``None`` for a dynamic axis)."""

    name: str
    shape: tuple[int | None, ...]


class OpenVinoSession:
    """An OpenVINO CPU model with ONNX Runtime's session interface (``get_inputs``, ``get_outputs``, ``run``).

    Args:
        path: the ONNX file; threads: inference threads.
    """

    name = "openvino"

    def __init__(self, path: Path, threads: int) -> None:
        import openvino as ov

        core = ov.Core()
        model = core.read_model(str(path))
        self._compiled = core.compile_model(model, "CPU", {"INFERENCE_NUM_THREADS": threads,
                                                          "PERFORMANCE_HINT": "LATENCY"})
        self._request = self._compiled.create_infer_request()
        self._inputs = [Port(p.get_any_name(), _dims(p.get_partial_shape())) for p in model.inputs]
        self._outputs = [Port(p.get_any_name(), _dims(p.get_partial_shape())) for p in model.outputs]

    def get_inputs(self) -> list[Port]:
        return self._inputs

    def get_outputs(self) -> list[Port]:
        return self._outputs

    def run(self, names: Sequence[str] | None, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        """The outputs called ``names`` (None: all of them, in order) for ``feeds``."""
        result = self._request.infer({k: np.ascontiguousarray(v) for k, v in feeds.items()})
        by_name = {port.name: np.array(result[out]) for port, out in zip(self._outputs, self._compiled.outputs)}
        return [by_name[n] for n in names] if names is not None else list(by_name.values())


def _dims(shape) -> tuple[int | None, ...]:
    return tuple(d.get_length() if d.is_static else None for d in shape)


def _onnxruntime(path: Path, threads: int):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.enable_cpu_mem_arena = False  # its arena keeps the largest (full-resolution) buffers for good
    opts.log_severity_level = 3
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def openvino_available() -> bool:
    try:
        import openvino  # noqa: F401
    except ImportError:
        return False
    return True


def open_model(path: Path, threads: int, backend: str | None = None,
               probe: Callable[[], dict[str, np.ndarray]] | None = None):
    """The model at ``path`` on a backend: ``backend`` (or ``$HANDFOOT_BACKEND``; default ``auto``).

    ``probe`` makes a typical input (name -> array) for :func:`calibrate` when the choice is ``auto``.

    Raises:
        ValueError: an unknown backend name, or ``openvino`` asked for and not installed.
        Whatever the backend raises on a file it cannot load.
    """
    choice = (backend or os.environ.get(BACKEND_ENV) or "auto").strip().lower()
    if choice not in (*BACKENDS, "auto"):
        raise ValueError(f"unknown inference backend {choice!r}; use one of {', '.join(BACKENDS)} or auto")
    if choice == "openvino" and not openvino_available():
        raise ValueError("the openvino backend is asked for but OpenVINO is not installed (pip install openvino)")
    if choice == "auto":
        choice = "onnxruntime"
        if openvino_available() and probe is not None and calibrate(path, threads, probe)["choice"] == "openvino":
            choice = "openvino"
    return OpenVinoSession(path, threads) if choice == "openvino" else _onnxruntime(path, threads)


def backend_name(session: Any) -> str:
    """``openvino`` or ``onnxruntime``: which backend ``session`` (from :func:`open_model`) is."""
    return "openvino" if isinstance(session, OpenVinoSession) else "onnxruntime"


def _cache_file() -> Path:
    base = os.environ.get("HANDFOOT_CACHE") or str(Path.home() / ".cache" / "handfoot")
    return Path(base) / "backends.json"


def _key(path: Path) -> str:
    import onnxruntime
    import openvino

    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    return f"{digest}|{platform.processor() or platform.machine()}|{os.cpu_count()}|ort {onnxruntime.__version__}|" \
           f"ov {openvino.__version__}"


def compare(path: Path, threads: int, feeds: dict[str, np.ndarray], repeat: int = 3) -> dict[str, Any]:
    """Run ``feeds`` through both backends: the largest output difference and the best of ``repeat`` timings
    (seconds, after one warm-up run) of each."""
    sessions = {"onnxruntime": _onnxruntime(path, threads), "openvino": OpenVinoSession(path, threads)}
    outputs, seconds = {}, {}
    for name, session in sessions.items():
        outputs[name] = session.run(None, feeds)
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            session.run(None, feeds)
            best = min(best, time.perf_counter() - start)
        seconds[name] = best
    diff = max(float(np.abs(a.astype(np.float64) - b.astype(np.float64)).max()) if a.size else 0.0
               for a, b in zip(outputs["onnxruntime"], outputs["openvino"]))
    return {"max_abs_diff": diff, "seconds": seconds}


def calibrate(path: Path, threads: int, probe: Callable[[], dict[str, np.ndarray]]) -> dict[str, Any]:
    """Which backend to use for the model at ``path`` on this machine: OpenVINO when its outputs on ``probe()``
    match ONNX Runtime's within :data:`TOLERANCE` and it takes at most :data:`FASTER` of the time, else ONNX
    Runtime. Measured once and kept in the cache file (a cache that cannot be written is not an error)."""
    cache = _cache_file()
    key = _key(path)
    try:
        known = json.loads(cache.read_text())
    except (OSError, ValueError):
        known = {}
    if key in known:
        return known[key]
    logging.getLogger("handfoot").warning("handfoot: timing ONNX Runtime against OpenVINO for %s on this computer (once, a "
                                          "few seconds)", path.name)
    measured = compare(path, threads, probe())
    same = measured["max_abs_diff"] <= TOLERANCE
    faster = measured["seconds"]["openvino"] <= FASTER * measured["seconds"]["onnxruntime"]
    verdict = {**measured, "choice": "openvino" if same and faster else "onnxruntime"}
    known[key] = verdict
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(known, indent=1))
    except OSError:
        pass
    return verdict
