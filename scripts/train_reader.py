#!/usr/bin/env python3
"""Train the index reader: a small CNN that reads a corner index's rank and suit from a crop around its box.

Why: the YOLO detector finds where corner indices are far better than it reads them (see models/README.md);
reading is a small-image classification problem that trains in minutes on a CPU. Rank (A-K, joker, or "no
index") and suit are separate heads, so each rank is learned from all four suits' examples.

Example::

    python -m datasets.crops --out data/crops_train.npz data/synth/tiles/train data/real320
    python -m datasets.crops --out data/crops_val.npz data/synth/tiles/val --negatives 1
    python scripts/train_reader.py --train data/crops_train.npz --val data/crops_val.npz --epochs 12 --width 1.5
    # -> models/reader.pt (weights) and models/reader.onnx (what vision/reader.py runs)

Validation crops must come from designs never trained on (datasets.cardart.HELDOUT_DESIGNS).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from datasets.crops import CONTEXT, NEGATIVE  # noqa: E402
from vision.classes import RANKS  # noqa: E402
from vision.models.crops import INPUT, WINDOW  # noqa: E402


def targets(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Class ids -> (rank index 0-14, suit index 0-3 or -1 where the suit does not apply)."""
    rank = np.where(labels < 52, labels % 13, np.where(labels == 52, 13, 14))
    suit = np.where(labels < 52, labels // 13, -1)
    return rank.astype(np.int64), suit.astype(np.int64)


def build_model(width: float = 1.0):
    """A small CNN: at ``width`` 1, 0.27 M parameters and about 20 M multiply-adds per 32 px crop (fast to train
    on a CPU); ``width`` scales every layer's channels (1.5: about 0.6 M parameters, 2.2 x the work)."""
    import torch.nn as nn

    c = [max(8, int(round(k * width))) for k in (24, 48, 96, 128)]

    def conv(cin, cout):
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(True)]

    class Reader(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(*conv(3, c[0]), nn.MaxPool2d(2), *conv(c[0], c[1]), *conv(c[1], c[1]),
                                          nn.MaxPool2d(2), *conv(c[1], c[2]), *conv(c[2], c[2]), nn.MaxPool2d(2),
                                          *conv(c[2], c[3]), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1))
            self.rank = nn.Linear(c[3], len(RANKS))
            self.suit = nn.Linear(c[3], 4)

        def forward(self, x):
            f = self.features(x)
            return self.rank(f), self.suit(f)

    return Reader()


def with_softmax(model):
    """The reader for export: (N, 3, INPUT, INPUT) float BGR in [0, 1] -> (rank probs, suit probs)."""
    import torch

    class Exported(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            r, s = self.m(x)
            return torch.softmax(r, 1), torch.softmax(s, 1)

    return Exported(model)


def augment(batch, rng: np.random.Generator, train: bool, shape: float = 0.0):
    """Stored STORE-px crops (N, 3, STORE, STORE) in [0, 1] -> INPUT-px windows: jittered position, scale and
    rotation (train), colour gains, contrast, grey, blur and noise (train); the centred window otherwise. With
    ``shape`` (train), that share of the crops also gets its glyphs' shapes changed: a shear, another aspect, a
    smooth warp (a 4 x 4 field of offsets up to 6 % of the window) and strokes made thicker or thinner."""
    import torch
    import torch.nn.functional as F

    n = batch.shape[0]
    base = WINDOW / CONTEXT  # window side / stored side
    if train:
        scale = base * rng.uniform(0.85, 1.2, n)
        ang = rng.uniform(-0.3, 0.3, n)
        tx, ty = rng.uniform(-0.12, 0.12, (2, n)) * base
    else:
        scale, ang, tx, ty = np.full(n, base), np.zeros(n), np.zeros(n), np.zeros(n)
    dev = batch.device
    cos, sin = np.cos(ang) * scale, np.sin(ang) * scale
    rows = np.stack([np.stack([cos, -sin, tx], 1), np.stack([sin, cos, ty], 1)], 1)
    warped = np.zeros(n, bool)
    if train and shape > 0:
        warped = rng.random(n) < shape
        shear, aspect = rng.uniform(-0.2, 0.2, n) * warped, np.exp(rng.uniform(-0.15, 0.15, n) * warped)
        rows[:, 0, 1] += shear * rows[:, 0, 0]
        rows[:, 0, :2] *= aspect[:, None]
    theta = torch.tensor(rows, dtype=torch.float32, device=dev)
    grid = F.affine_grid(theta, (n, 3, INPUT, INPUT), align_corners=False)
    if warped.any():
        field = torch.tensor(rng.uniform(-0.06, 0.06, (n, 2, 4, 4)) * warped[:, None, None, None] * base,
                             dtype=torch.float32, device=dev)
        grid = grid + F.interpolate(field, size=(INPUT, INPUT), mode="bicubic", align_corners=True).permute(0, 2, 3, 1)
    out = F.grid_sample(batch, grid, mode="bilinear", padding_mode="border", align_corners=False)
    if warped.any():  # dark ink on light paper: a min filter thickens strokes, a max filter thins them
        thicker = -F.max_pool2d(-out, 3, 1, 1)
        thinner = F.max_pool2d(out, 3, 1, 1)
        way = rng.random(n)
        mix = torch.tensor(rng.uniform(0.3, 0.7, n) * warped, dtype=torch.float32, device=dev).view(n, 1, 1, 1)
        pick = torch.tensor(way < 0.5, device=dev).view(n, 1, 1, 1)
        out = out + mix * (torch.where(pick, thicker, thinner) - out)
    if train:
        gains = torch.tensor(rng.uniform(0.75, 1.25, (n, 3, 1, 1)), dtype=torch.float32, device=dev)
        contrast = torch.tensor(rng.uniform(0.6, 1.3, (n, 1, 1, 1)), dtype=torch.float32, device=dev)
        mean = out.mean((1, 2, 3), keepdim=True)
        out = (out - mean) * contrast + mean
        out = out * gains
        grey = torch.tensor(rng.random(n) < 0.1, device=dev).view(n, 1, 1, 1)
        out = torch.where(grey, out.mean(1, keepdim=True).expand_as(out), out)
        blur = torch.tensor(rng.random(n) < 0.25, device=dev).view(n, 1, 1, 1)
        k = torch.tensor([[1, 2, 1], [2, 4, 2], [1, 2, 1]], dtype=torch.float32, device=dev).div(16)
        k = k.view(1, 1, 3, 3).repeat(3, 1, 1, 1)
        out = torch.where(blur, F.conv2d(F.pad(out, (1, 1, 1, 1), mode="replicate"), k, groups=3), out)
        out = out + torch.randn_like(out) * torch.tensor(rng.uniform(0, 0.04, (n, 1, 1, 1)), dtype=torch.float32,
                                                         device=dev)
    return out.clamp(0, 1)


def evaluate(model, crops: np.ndarray, labels: np.ndarray, batch: int = 512) -> dict:
    import torch

    rank_t, suit_t = targets(labels)
    model.eval()
    dev = next(model.parameters()).device
    preds_r, preds_s = [], []
    with torch.no_grad():
        for i in range(0, len(labels), batch):
            x = torch.from_numpy(crops[i:i + batch]).to(dev).permute(0, 3, 1, 2).float().div(255)
            r, s = model(augment(x, np.random.default_rng(0), train=False))
            preds_r.append(r.argmax(1).cpu().numpy())
            preds_s.append(s.argmax(1).cpu().numpy())
    pr, ps = np.concatenate(preds_r), np.concatenate(preds_s)
    idx = labels < NEGATIVE
    cards = labels < 52
    code_ok = (pr == rank_t) & ((ps == suit_t) | (labels >= 52))
    return {
        "index_code_accuracy": float(code_ok[idx].mean()) if idx.any() else float("nan"),
        "rank_accuracy": float((pr == rank_t)[idx].mean()) if idx.any() else float("nan"),
        "suit_accuracy": float((ps == suit_t)[cards].mean()) if cards.any() else float("nan"),
        "negatives_rejected": float((pr[~idx] == 14).mean()) if (~idx).any() else float("nan"),
        "indices_called_negative": float((pr[idx] == 14).mean()) if idx.any() else float("nan"),
        "n_indices": int(idx.sum()), "n_negatives": int((~idx).sum()),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", type=Path, nargs="+", required=True, help=".npz files from datasets.crops")
    ap.add_argument("--val", type=Path, required=True, help=".npz of held-out designs")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default=None, help="cpu or cuda (default: cuda when there is one)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=ROOT / "models")
    ap.add_argument("--weights", type=Path, help="continue from these weights (reader.pt of the same --width)")
    ap.add_argument("--width", type=float, default=1.0, help="channel multiplier of the network")
    ap.add_argument("--shape", type=float, default=0.0,
                    help="share of training crops whose glyph shapes are changed too (augment)")
    args = ap.parse_args(argv)

    import torch
    import torch.nn.functional as F

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    parts, va = [np.load(p) for p in args.train], np.load(args.val)
    crops = np.concatenate([p["crops"] for p in parts])
    labels = np.concatenate([p["labels"] for p in parts])
    vcrops, vlabels = va["crops"], va["labels"]
    rank_t, suit_t = targets(labels)
    dev = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    model = build_model(args.width)
    if args.weights:
        model.load_state_dict(torch.load(args.weights, map_location="cpu"))
    model.to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * math.ceil(len(labels) / args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.1)
    start = time.time()
    history = []
    for epoch in range(args.epochs):
        model.train()
        order = rng.permutation(len(labels))
        total = 0.0
        for i in range(0, len(order), args.batch):
            idx = order[i:i + args.batch]
            x = torch.from_numpy(crops[idx]).to(dev).permute(0, 3, 1, 2).float().div(255)
            x = augment(x, rng, train=True, shape=args.shape)
            r, s = model(x)
            rt = torch.from_numpy(rank_t[idx]).to(dev)
            st = torch.from_numpy(suit_t[idx]).to(dev)
            loss = F.cross_entropy(r, rt, label_smoothing=0.05)
            has_suit = st >= 0
            if has_suit.any():
                loss = loss + F.cross_entropy(s[has_suit], st[has_suit], label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        m = evaluate(model, vcrops, vlabels)
        history.append({"epoch": epoch + 1, "loss": total / len(labels), **m})
        print(f"epoch {epoch + 1}/{args.epochs}  loss {total / len(labels):.3f}  "
              f"held-out: code {m['index_code_accuracy']:.3f} rank {m['rank_accuracy']:.3f} "
              f"suit {m['suit_accuracy']:.3f} negatives rejected {m['negatives_rejected']:.3f}  "
              f"({time.time() - start:.0f} s)", flush=True)
        args.out.mkdir(parents=True, exist_ok=True)
        torch.save({k: v.cpu() for k, v in model.state_dict().items()}, args.out / "reader.pt")
    export(model.cpu(), args.out / "reader.onnx")
    info = {"train": [str(p) for p in args.train], "val": str(args.val), "width": args.width, "epochs": args.epochs,
            "device": str(dev),
            "batch": args.batch,
            "lr": args.lr, "shape": args.shape, "seconds": round(time.time() - start), "train_crops": int(len(labels)),
            "history": history}
    (args.out / "reader_train.json").write_text(json.dumps(info, indent=1))
    return 0


def export(model, path: Path) -> None:
    import torch

    model.eval()
    wrapped = with_softmax(model)
    dummy = torch.zeros(1, 3, INPUT, INPUT)
    torch.onnx.export(wrapped, dummy, str(path), input_names=["crops"], output_names=["rank", "suit"],
                      dynamic_axes={"crops": {0: "n"}, "rank": {0: "n"}, "suit": {0: "n"}}, opset_version=17,
                      dynamo=False)
    print(f"{path}: {path.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    sys.exit(main())
