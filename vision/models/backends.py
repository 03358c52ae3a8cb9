"""Inference backends for the shipped ONNX models: ONNX Runtime and OpenVINO behind one small interface.

The model files stay ONNX. Every backend is opened with :func:`open_model` and offers the part of ONNX Runtime's
``InferenceSession`` the model wrappers use: ``get_inputs()`` / ``get_outputs()`` (each with ``name`` and
``shape``, ``None`` for a dynamic axis) and ``run(None, {input name: array})`` -> a list of arrays in the model's
output order.

Which backend runs a model is a setting (:data:`BACKEND_ENV`, or the ``backend`` argument): ``onnxruntime``,
``openvino`` or ``auto`` (the default). ``auto`` is ONNX Runtime unless OpenVINO is installed and, for that model
on this CPU, :func:`calibrate` found OpenVINO faster and reading the same.

*Reading the same* is the model's own :class:`Check`: a fixed input (the shipped check photo, ``models/check.jpg``,
its indices and cards) and a test of whether two runs' outputs make the same reading (the detector's boxes, the
reader's codes, the stack checker's verdicts), not a raw output difference. OpenVINO runs a model at the CPU's
fastest precision (bf16 on a CPU with AMX, f32 elsewhere); where that precision changes a reading of the check, it
runs the model in f32 (:data:`PRECISIONS`), whether chosen or forced. The verdict is kept in
``~/.cache/handfoot/backends.json`` (or ``$HANDFOOT_CACHE``), keyed by the model file's digest, the CPU and both
libraries' versions, so it is measured once a machine. OpenVINO keeps far more memory
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
from typing import Any, Callable, Protocol, Sequence

import numpy as np

BACKENDS = ("onnxruntime", "openvino")
#: environment variable that forces a backend (``onnxruntime``, ``openvino``) or leaves the choice (``auto``)
BACKEND_ENV = "HANDFOOT_BACKEND"
#: largest absolute difference of any output value for two runs of a model without a reading check of its own
#: (:func:`tolerance_check`) to count as the same
TOLERANCE = 0.01
#: OpenVINO's inference precisions: ``native`` (the CPU's fastest: bf16 with AMX, else f32) and ``f32``
PRECISIONS = ("native", "f32")
#: the cache's entries are of this form (an older form is measured again)
CACHE_FORM = 2
#: OpenVINO must take at most this share of ONNX Runtime's time to be chosen (a margin over timing noise)
FASTER = 0.9


class Session(Protocol):
    """A model opened for inference on a backend (:func:`open_model`), what each model wrapper runs: ONNX Runtime's
    ``InferenceSession`` interface, which :class:`OpenVinoSession` gives too. ``get_inputs`` and ``get_outputs``
    list the model's ports (each with ``name`` and ``shape``); ``run`` maps input names to arrays and returns the
    outputs named (every output, in the model's order, for None)."""

    def get_inputs(self) -> Sequence[Any]: ...

    def get_outputs(self) -> Sequence[Any]: ...

    def run(self, output_names: Sequence[str] | None, feeds: dict[str, np.ndarray]) -> list[np.ndarray]: ...


@dataclass(frozen=True)
class Port:
    """A model input or output: its ``name`` and ``shape`` (``None`` for a dynamic axis)."""

    name: str
    shape: tuple[int | None, ...]


@dataclass(frozen=True)
class Check:
    """A model's fixed check: ``feeds()`` makes its input (name -> array); ``agree(reference, outputs)`` tells
    whether two runs' outputs (lists of arrays in the model's output order) read the same."""

    feeds: Callable[[], dict[str, np.ndarray]]
    agree: Callable[[list[np.ndarray], list[np.ndarray]], bool]


def tolerance_check(feeds: Callable[[], dict[str, np.ndarray]]) -> Check:
    """A check for a model with no reading of its own: every output value within :data:`TOLERANCE`."""
    return Check(feeds, lambda a, b: max_abs_diff(a, b) <= TOLERANCE)


def max_abs_diff(a: list[np.ndarray], b: list[np.ndarray]) -> float:
    """The largest absolute difference of any value of two runs' outputs."""
    return max((float(np.abs(x.astype(np.float64) - y.astype(np.float64)).max()) if x.size else 0.0
                for x, y in zip(a, b)), default=0.0)


class OpenVinoSession:
    """An OpenVINO CPU model with ONNX Runtime's session interface (``get_inputs``, ``get_outputs``, ``run``).

    Args:
        path: the ONNX file; threads: inference threads; precision: ``native`` (OpenVINO's default on this CPU:
            bf16 with AMX) or ``f32`` (:data:`PRECISIONS`).
    """

    name = "openvino"

    def __init__(self, path: Path, threads: int, precision: str = "native") -> None:
        import openvino as ov  # the optional fast extra

        if precision not in PRECISIONS:
            raise ValueError(f"unknown OpenVINO precision {precision!r}; use one of {', '.join(PRECISIONS)}")
        core = ov.Core()
        model = core.read_model(str(path))
        config = {"INFERENCE_NUM_THREADS": threads, "PERFORMANCE_HINT": "LATENCY"}
        if precision == "f32":
            config["INFERENCE_PRECISION_HINT"] = "f32"
        self._compiled = core.compile_model(model, "CPU", config)
        #: the element type the CPU computes in: ``f32`` or ``bf16`` (``f16`` on some CPUs)
        self.precision = _type_name(self._compiled.get_property("INFERENCE_PRECISION_HINT"))
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


def _type_name(element_type) -> str:
    name = str(getattr(element_type, "get_type_name", lambda: element_type)())
    return {"bfloat16": "bf16", "float32": "f32", "float16": "f16"}.get(name, name)


def _dims(shape) -> tuple[int | None, ...]:
    return tuple(d.get_length() if d.is_static else None for d in shape)


def _onnxruntime(path: Path, threads: int):
    import onnxruntime as ort  # the optional vision extra

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


def open_model(path: Path, threads: int, backend: str | None = None, check: Check | None = None) -> Session:
    """The model at ``path`` on a backend: ``backend`` (or ``$HANDFOOT_BACKEND``; default ``auto``).

    ``check`` is the model's :class:`Check`: with it :func:`calibrate` chooses the backend (``auto``) and
    OpenVINO's precision (``auto`` and ``openvino``); without it ``auto`` is ONNX Runtime and OpenVINO runs in f32.

    Raises:
        ValueError: an unknown backend name, or ``openvino`` asked for and not installed.
        Whatever the backend raises on a file it cannot load.
    """
    choice = (backend or os.environ.get(BACKEND_ENV) or "auto").strip().lower()
    if choice not in (*BACKENDS, "auto"):
        raise ValueError(f"unknown inference backend {choice!r}; use one of {', '.join(BACKENDS)} or auto")
    if choice == "openvino" and not openvino_available():
        raise ValueError("the openvino backend is asked for but OpenVINO is not installed (pip install openvino)")
    if choice == "onnxruntime" or not openvino_available() or (choice == "auto" and check is None):
        return _onnxruntime(path, threads)
    if check is None:
        return OpenVinoSession(path, threads, "f32")
    verdict = calibrate(path, threads, check)
    if choice == "auto" and verdict["choice"] != "openvino":
        return _onnxruntime(path, threads)
    return OpenVinoSession(path, threads, verdict["openvino_precision"])


def backend_name(session: Any) -> str:
    """``openvino`` or ``onnxruntime``: which backend ``session`` (from :func:`open_model`) is."""
    return "openvino" if isinstance(session, OpenVinoSession) else "onnxruntime"


def precision_name(session: Any) -> str:
    """The element type ``session`` (from :func:`open_model`) computes in: ``f32``, or ``bf16`` for OpenVINO at
    its native precision on a CPU with AMX."""
    return session.precision if isinstance(session, OpenVinoSession) else "f32"


def _cache_file() -> Path:
    base = os.environ.get("HANDFOOT_CACHE") or str(Path.home() / ".cache" / "handfoot")
    return Path(base) / "backends.json"


def _key(path: Path) -> str:
    import onnxruntime  # the optional vision extra
    import openvino  # the optional fast extra

    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    return f"{digest}|{platform.processor() or platform.machine()}|{os.cpu_count()}|ort {onnxruntime.__version__}|" \
           f"ov {openvino.__version__}"


def _timed(session: Any, feeds: dict[str, np.ndarray], repeat: int) -> tuple[list[np.ndarray], float]:
    """``session``'s outputs for ``feeds`` and the best of ``repeat`` timings (seconds) after that first run."""
    outputs = session.run(None, feeds)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        session.run(None, feeds)
        best = min(best, time.perf_counter() - start)
    return outputs, best


def compare(path: Path, threads: int, check: Check, repeat: int = 3, onnx_session: Any = None) -> dict[str, Any]:
    """Run the model's check through ONNX Runtime (``onnx_session``: the model opened on it already, else opened here)
    and OpenVINO, OpenVINO first at its native precision and, when that reads otherwise than ONNX Runtime, in f32.

    Returns:
        ``openvino_precision`` (``native`` or ``f32``: the first that reads as ONNX Runtime does, else ``f32``),
        ``precision`` (what that computes in: ``bf16``, ``f32``), ``same`` (whether it reads the same),
        ``native_same`` (whether the native precision did), ``max_abs_diff`` (its largest output difference) and
        ``seconds`` (the best of ``repeat`` timings of each backend, after one warm-up run).
    """
    feeds = check.feeds()
    reference, ort_seconds = _timed(onnx_session or _onnxruntime(path, threads), feeds, repeat)
    session = OpenVinoSession(path, threads, "native")
    outputs = session.run(None, feeds)
    native_same = same = check.agree(reference, outputs)
    chosen = "native"
    if not same and session.precision != "f32":
        session, chosen = OpenVinoSession(path, threads, "f32"), "f32"
        outputs = session.run(None, feeds)
        same = check.agree(reference, outputs)
    if not same:
        chosen = "f32"
    _, ov_seconds = _timed(session, feeds, repeat)
    return {"openvino_precision": chosen, "precision": session.precision, "same": bool(same),
            "native_same": bool(native_same), "max_abs_diff": max_abs_diff(reference, outputs),
            "seconds": {"onnxruntime": ort_seconds, "openvino": ov_seconds}}


def calibrate(path: Path, threads: int, check: Check) -> dict[str, Any]:
    """Which backend to use for the model at ``path`` on this machine, and OpenVINO's precision (see
    :func:`compare`): OpenVINO when it reads ``check`` as ONNX Runtime does and takes at most :data:`FASTER` of
    its time, else ONNX Runtime. Measured once and kept in the cache file (a cache that cannot be written is not an
    error)."""
    cache = _cache_file()
    key = _key(path)
    try:
        known = json.loads(cache.read_text())
    except (OSError, ValueError):
        known = {}
    if isinstance(known.get(key), dict) and known[key].get("form") == CACHE_FORM:
        return known[key]
    session = _onnxruntime(path, threads)  # a file that is not a model is refused here, before it is said timed
    logging.getLogger("handfoot").warning("handfoot: timing ONNX Runtime against OpenVINO for %s on this computer (once, a "
                                          "few seconds)", path.name)
    measured = compare(path, threads, check, onnx_session=session)
    faster = measured["seconds"]["openvino"] <= FASTER * measured["seconds"]["onnxruntime"]
    verdict = {"form": CACHE_FORM, **measured,
               "choice": "openvino" if measured["same"] and faster else "onnxruntime"}
    known[key] = verdict
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(known, indent=1))
    except OSError:
        pass
    return verdict
