#!/usr/bin/env python3
"""Train the corner-index detector (Ultralytics YOLO) offline, on CPU or CUDA, and ship it to models/.

Examples::

    # continue the shipped one-class index finder with new data (the reader names what it finds)
    python scripts/train.py --data data/more/data.yaml --weights models/cards.pt --single-cls --epochs 10
    # a 53-class detector (one class per card code) from scratch on generated tiles (2-core CPU, one hour)
    python scripts/train.py --data data/synth/data.yaml --model yolo11n.yaml --time 1.0 --imgsz 320
    # then export and copy into models/
    python scripts/train.py --ship runs/cards/train/weights/best.pt

Nothing is downloaded: the model is built from a ``.yaml`` (or loaded from local weights), Ultralytics runs
with ``YOLO_OFFLINE``, settings sync off and plots off. On CPU the torch thread count is raised to the core
count (Ultralytics' default is cores - 1) since training runs alone. Checkpoints are written every epoch
(``last.pt``) and every ``--save-period`` epochs; ``--resume`` continues an interrupted run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_AUTOINSTALL", "False")
os.environ.setdefault("YOLO_CONFIG_DIR", str(ROOT / ".yolo"))
os.environ.setdefault("MPLBACKEND", "Agg")


def _offline_settings() -> None:
    from ultralytics.utils import SETTINGS

    SETTINGS.update({"sync": False, "hub": False} if "hub" in SETTINGS else {"sync": False})


def _without_downloads() -> None:
    """Keep Ultralytics' trainer from reaching for what an offline machine lacks.

    * On CUDA its AMP check first downloads ``yolo26n.pt`` to compare outputs; offline that cannot work (and
      may wait on the network), so the check is skipped and AMP stays on, as Ultralytics itself does when the
      download fails.
    * Each epoch's checkpoint stores ``results.csv`` read with polars, which the GPU machine of
      ``scripts/device_train.sh`` lacks (a 40 MB wheel, over what may travel there); without polars the file
      is read with the ``csv`` module into the same ``{column: [values]}`` form.
    """
    import csv

    from ultralytics.engine import trainer

    trainer.check_amp = lambda model: True
    try:
        import polars  # noqa: F401
        return
    except ImportError:
        pass

    def read_results_csv(self) -> dict:
        try:
            with open(self.csv, newline="") as f:
                rows = list(csv.DictReader(f))
        except OSError:
            return {}
        def number(v: str):
            try:
                return float(v)
            except ValueError:
                return v
        return {k.strip(): [number(r[k]) for r in rows] for k in (rows[0] if rows else {})}

    trainer.BaseTrainer.read_results_csv = read_results_csv


def train(args: argparse.Namespace) -> Path:
    import torch
    from ultralytics import YOLO
    from ultralytics.utils import torch_utils

    _offline_settings()
    _without_downloads()
    cuda = torch.cuda.is_available() and args.device != "cpu"
    device = args.device or (0 if cuda else "cpu")
    if not cuda:
        threads = args.threads or (os.cpu_count() or 1)
        torch.set_num_threads(threads)
        torch_utils.NUM_THREADS = threads  # Ultralytics caps CPU training at cores - 1

    if args.resume:
        model = YOLO(str(args.resume))
        model.train(resume=True)
        return Path(model.trainer.best)

    source = str(args.weights) if args.weights else args.model
    model = YOLO(source)
    fine_tune = bool(args.weights)
    params = dict(
        data=str(args.data), epochs=args.epochs, imgsz=args.imgsz, batch=args.batch, device=device,
        project=str(args.project), name=args.name, exist_ok=True, plots=False, save_period=args.save_period,
        workers=args.workers, patience=0, seed=args.seed, deterministic=False, verbose=True,
        optimizer=args.optimizer, lr0=args.lr0 if args.lr0 else (0.002 if fine_tune else 0.01),
        cos_lr=True, close_mosaic=max(1, args.epochs // 10), warmup_epochs=1.0 if fine_tune else 3.0,
        # card indices must not be mirrored; rotation and perspective come from the generator
        fliplr=0.0, flipud=0.0, degrees=0.0, mosaic=args.mosaic, scale=0.4, translate=0.1,
        hsv_h=0.02, hsv_s=0.6, hsv_v=0.4, amp=cuda, cache=args.cache, single_cls=args.single_cls,
    )
    if args.time:
        params["time"] = args.time
    if args.fraction < 1:
        params["fraction"] = args.fraction
    start = time.time()
    model.train(**params)
    best = Path(model.trainer.best if Path(model.trainer.best).exists() else model.trainer.last)
    info = {"source": source, "data": str(args.data), "params": {k: v for k, v in params.items()},
            "device": str(device), "torch": torch.__version__, "seconds": round(time.time() - start),
            "best": str(best)}
    (best.parent / "train_info.json").write_text(json.dumps(info, indent=2, default=str))
    print(json.dumps(info, indent=2, default=str))
    return best


def ship(weights: Path, imgsz: int) -> None:
    """Copy weights to models/cards.pt and export models/cards.onnx (dynamic input size)."""
    from ultralytics import YOLO

    _offline_settings()
    models = ROOT / "models"
    models.mkdir(exist_ok=True)
    dst = models / "cards.pt"
    # strip optimizer state: smaller file, same weights
    import torch

    ckpt = torch.load(weights, map_location="cpu", weights_only=False)
    ckpt["optimizer"] = None  # training state only; the weights are in "model" (or "ema")
    torch.save(ckpt, dst)
    model = YOLO(str(dst))
    onnx_path = Path(model.export(format="onnx", imgsz=imgsz, dynamic=True, simplify=True, opset=17))
    shutil.move(str(onnx_path), models / "cards.onnx")
    for f in (dst, models / "cards.onnx"):
        print(f"{f}: {f.stat().st_size / 1e6:.1f} MB")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, help="Ultralytics data.yaml (datasets/generate.py writes one)")
    ap.add_argument("--model", default="yolo11n.yaml", help="model yaml to build from scratch")
    ap.add_argument("--weights", type=Path, help="continue training from these weights (e.g. models/cards.pt)")
    ap.add_argument("--resume", type=Path, help="resume an interrupted run from its last.pt")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--time", type=float, default=None, help="hours; fits the schedule to a time budget")
    ap.add_argument("--imgsz", type=int, default=320)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--optimizer", default="SGD")
    ap.add_argument("--lr0", type=float, default=None)
    ap.add_argument("--mosaic", type=float, default=1.0)
    ap.add_argument("--single-cls", action="store_true",
                    help="one class, 'corner index': the detector only finds indices, the index reader names "
                         "them (from --weights, every layer but the class head is kept)")
    ap.add_argument("--fraction", type=float, default=1.0)
    ap.add_argument("--cache", default=False, help="cache images: ram/disk/False")
    ap.add_argument("--device", default=None, help="cpu, 0, ... (default: CUDA if present)")
    ap.add_argument("--threads", type=int, default=None, help="CPU torch threads (default: all cores)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--save-period", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--project", type=Path, default=ROOT / "runs" / "cards")
    ap.add_argument("--name", default="train")
    ap.add_argument("--ship", type=Path, help="export these weights to models/cards.pt and models/cards.onnx")
    ap.add_argument("--export-imgsz", type=int, default=640)
    args = ap.parse_args(argv)
    if args.ship:
        ship(args.ship, args.export_imgsz)
        return 0
    if not args.data and not args.resume:
        ap.error("--data is required (or --resume / --ship)")
    best = train(args)
    print(f"best weights: {best}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
