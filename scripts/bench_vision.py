"""Milliseconds per stage of the camera pipeline and photos per second, per inference backend and photo size.

    python scripts/bench_vision.py [--photo examples/table.jpg] [--repeat 5] [--backends onnxruntime,openvino]

The photo is resized to 1280x720 (a webcam frame), 1600x1200 and 4000x3000 (12 MP, a phone photo); each size is
read ``--repeat`` times after one warm-up read with the models loaded once per backend, and the median of each
stage is printed: 1 find boxes (the detector over the pyramid and the index reader, ``vision.pipeline.detect``),
1b read (the fans' help, ``read_indices``), 2-4 cards, piles, stack checks and the layout (the rest of
``read_image``), 5 score (``scorer``). The last column
is each backend's time over ONNX Runtime's. With torch and Ultralytics installed, the detector alone is also run
through Ultralytics PyTorch on the same model (``models/cards.pt``) at the largest pass, for the ratio.
Timings on a shared machine are noisy: compare figures from one run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SIZES = {"1280x720": (1280, 720), "1600x1200": (1600, 1200), "12 MP": (4000, 3000)}


def _fit(image: np.ndarray, width: int, height: int) -> np.ndarray:
    """``image`` resized to cover width x height and cropped to it (no bars)."""
    h, w = image.shape[:2]
    r = max(width / w, height / h)
    big = cv2.resize(image, (round(w * r), round(h * r)), interpolation=cv2.INTER_CUBIC if r > 1 else cv2.INTER_AREA)
    y, x = (big.shape[0] - height) // 2, (big.shape[1] - width) // 2
    return np.ascontiguousarray(big[y:y + height, x:x + width])


def read_once(image: np.ndarray, detector, reader, stacks) -> dict[str, float]:
    """One read of ``image`` through stages 1 to 5; seconds per stage."""
    from scorer.layout import TableLayout
    from scorer.scoring import score_round
    from vision.pipeline import detect, read_image, read_indices
    from vision.types import TableReading

    t = [time.perf_counter()]
    found = detect(image, detector, reader)
    t.append(time.perf_counter())
    read_indices(found)  # stage 1b alone, for its time; read_image runs it again (its time is taken off below)
    t.append(time.perf_counter())
    sides = read_image(image, detector, reader, stacks, found=found)
    doc = TableReading(sides).layout()
    t.append(time.perf_counter())
    score_round(TableLayout.from_dict(doc), lenient=True)
    t.append(time.perf_counter())
    return {"1 find boxes": t[1] - t[0], "1b read": t[2] - t[1], "2-4 piles": t[3] - t[2] - (t[2] - t[1]),
            "5 score": t[4] - t[3]}


def models(backend: str):
    import os

    from vision.models.stacks import DEFAULT_STACKS, StackChecker
    from vision.pipeline import load_models

    os.environ["HANDFOOT_BACKEND"] = backend
    detector, reader = load_models()
    return detector, reader, StackChecker(DEFAULT_STACKS)


def ultralytics_ms(image: np.ndarray, imgsz: int, repeat: int) -> float | None:
    """Median ms of the detector through Ultralytics PyTorch at ``imgsz``, or None without torch/Ultralytics."""
    try:
        from ultralytics import YOLO
    except ImportError:
        return None
    model = YOLO(str(ROOT / "models" / "cards.pt"))
    model.predict(image, imgsz=imgsz, verbose=False, device="cpu")
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        model.predict(image, imgsz=imgsz, verbose=False, device="cpu")
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    from vision.models.backends import BACKENDS, openvino_available

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--photo", type=Path, default=ROOT / "examples" / "table.jpg")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--backends", default=",".join(b for b in BACKENDS if b != "openvino" or openvino_available()))
    args = p.parse_args(argv)
    photo = cv2.imread(str(args.photo))
    if photo is None:
        p.error(f"{args.photo}: not a readable image")
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    print(f"photo {args.photo.name}, median of {args.repeat} reads after one warm-up; ms per stage")
    print(f"{'size':<11}{'backend':<13}{'1 find':>8}{'1b read':>9}{'2-4':>7}{'5':>6}{'total':>8}{'photos/s':>10}"
          f"{'vs ORT':>8}")
    base: dict[str, float] = {}
    loaded = {b: models(b) for b in backends}
    for b, trio in loaded.items():
        print(f"{b}: " + ", ".join(f"{m.what} {m.backend_name} {m.precision}" for m in trio))
    for label, (w, h) in SIZES.items():
        image = _fit(photo, w, h)
        for backend in backends:
            detector, reader, stacks = loaded[backend]
            read_once(image, detector, reader, stacks)  # warm-up (a new input shape compiles in OpenVINO)
            runs = [read_once(image, detector, reader, stacks) for _ in range(args.repeat)]
            stage = {k: 1000 * statistics.median(r[k] for r in runs) for k in runs[0]}
            total = 1000 * statistics.median(sum(r.values()) for r in runs)
            base.setdefault(label, total) if backend == "onnxruntime" else None
            ratio = f"{total / base[label]:.2f}" if label in base else "-"
            print(f"{label:<11}{backend:<13}{stage['1 find boxes']:>8.0f}{stage['1b read']:>9.0f}"
                  f"{stage['2-4 piles']:>7.0f}{stage['5 score']:>6.1f}{total:>8.0f}{1000 / total:>10.2f}{ratio:>8}")
    top = _fit(photo, 1600, 1200)
    ms = ultralytics_ms(top, 1600, args.repeat)
    if ms is None:
        print("Ultralytics PyTorch: not installed (pip install -e '.[train]'), no ratio")
    else:
        from vision.models.detector import CardDetector

        det = CardDetector(backend="onnxruntime")
        det(top, 1600)
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            det(top, 1600)
            times.append(time.perf_counter() - start)
        print(f"detector alone at 1600 px: Ultralytics PyTorch {ms:.0f} ms, ONNX Runtime "
              f"{1000 * statistics.median(times):.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
