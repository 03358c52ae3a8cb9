#!/usr/bin/env python3
"""Train the stack checker: a small CNN that tells a squared book's marker card (a stack under it) from a loose
single card, on crops from ``datasets.stacks``.

Example::

    python -m datasets.generate --out data/tables_stack --scenes 500 --split train --seed 11 --full-view
    python -m datasets.generate --out data/tables_stack2 --scenes 700 --split train --seed 12 --full-view
    python -m datasets.stacks --out data/stacks2.npz data/tables_stack/scenes/train data/tables_stack2/scenes/train
    python scripts/train_stacks.py --data data/stacks2.npz --epochs 30 --threads 2
    # -> models/stacks.pt and models/stacks.onnx (what vision/stacks.py runs)
    python scripts/train_stacks.py --data data/stacks3.npz --weights models/stacks.pt --epochs 8 --lr 1e-3 \
        --out runs/stacks/s3    # continue the shipped model on new data

Validation is on whole scenes never trained on (the last ``--val-share`` of the scenes); the figures it prints
are on the plain crops of those scenes only. Crops of real photos (``datasets.stacks --phone-corners-train``)
carry negative scene numbers, so they always fall in the training part.
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

from vision.models.crops import STACK_INPUT  # noqa: E402


def build_model():
    """About 0.1 M parameters; (N, 3, 96, 96) BGR in [0, 1] -> (N, 2) logits of [loose, stack]."""
    import torch.nn as nn

    def block(cin, cout):
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(True)]

    return nn.Sequential(*block(3, 16), nn.MaxPool2d(2), *block(16, 32), nn.MaxPool2d(2), *block(32, 48),
                         nn.MaxPool2d(2), *block(48, 64), nn.MaxPool2d(2), *block(64, 96),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(96, 2))


def augment(x, rng: np.random.Generator, zoom: float = 0.0):
    """(N, 3, S, S) float in [0, 1]: mirror and flips (a stack is a stack either way), colour gains, contrast,
    blur and noise; with ``zoom`` > 0 also a scale of 1 / (1 + U(-zoom, zoom)) about the centre and a turn of up
    to 0.1 rad (another deck's card fills more or less of the crop: its index centres, from which the crop is
    framed, sit nearer or farther from its corners)."""
    import torch
    import torch.nn.functional as F

    n = x.shape[0]
    if zoom > 0:
        s = torch.tensor(1 + rng.uniform(-zoom, zoom, n), dtype=torch.float32)
        a = torch.tensor(rng.uniform(-0.1, 0.1, n), dtype=torch.float32)
        theta = torch.zeros(n, 2, 3)
        theta[:, 0, 0] = s * torch.cos(a)
        theta[:, 0, 1] = -s * torch.sin(a)
        theta[:, 1, 0] = s * torch.sin(a)
        theta[:, 1, 1] = s * torch.cos(a)
        grid = F.affine_grid(theta, list(x.shape), align_corners=False)
        x = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
    flip_h = torch.from_numpy(rng.random(n) < 0.5).view(n, 1, 1, 1)
    x = torch.where(flip_h, x.flip(3), x)
    flip_v = torch.from_numpy(rng.random(n) < 0.5).view(n, 1, 1, 1)
    x = torch.where(flip_v, x.flip(2), x)
    gains = torch.tensor(rng.uniform(0.7, 1.3, (n, 3, 1, 1)), dtype=torch.float32)
    contrast = torch.tensor(rng.uniform(0.6, 1.3, (n, 1, 1, 1)), dtype=torch.float32)
    mean = x.mean((1, 2, 3), keepdim=True)
    x = ((x - mean) * contrast + mean) * gains
    blur = torch.from_numpy(rng.random(n) < 0.3).view(n, 1, 1, 1)
    k = torch.tensor([[1, 2, 1], [2, 4, 2], [1, 2, 1]], dtype=torch.float32).div(16).view(1, 1, 3, 3)
    x = torch.where(blur, F.conv2d(F.pad(x, (1, 1, 1, 1), mode="replicate"), k.repeat(3, 1, 1, 1), groups=3), x)
    x = x + torch.randn_like(x) * torch.tensor(rng.uniform(0, 0.04, (n, 1, 1, 1)), dtype=torch.float32)
    return x.clamp(0, 1)


def figures(p_stack: np.ndarray, labels: np.ndarray, threshold: float = 0.5) -> dict:
    """Accuracy, and precision/recall of the *loose* call (p_stack < threshold) on plain crops."""
    loose = p_stack < threshold
    truth = labels == 0
    tp = int((loose & truth).sum())
    return {"accuracy": float((loose == truth).mean()) if len(labels) else float("nan"),
            "loose_precision": tp / max(1, int(loose.sum())), "loose_recall": tp / max(1, int(truth.sum())),
            "n": int(len(labels)), "n_loose": int(truth.sum())}


def predict(model, crops: np.ndarray, batch: int = 256) -> np.ndarray:
    import torch

    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(crops), batch):
            x = torch.from_numpy(crops[i:i + batch]).permute(0, 3, 1, 2).float().div(255)
            out.append(torch.softmax(model(x), 1)[:, 1].numpy())
    return np.concatenate(out) if out else np.zeros(0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, nargs="+", required=True,
                    help=".npz files from datasets.stacks (concatenated; give one twice to weigh it twice)")
    ap.add_argument("--weights", type=Path, help="continue from these weights (a stacks.pt of build_model())")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--val-share", type=float, default=0.15, help="share of scenes kept for validation")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--zoom", type=float, default=0.0,
                    help="scale jitter of the crops (e.g. 0.25: the card shows at 0.8-1.33 x its size), with a small turn")
    ap.add_argument("--out", type=Path, default=ROOT / "models")
    args = ap.parse_args(argv)

    import torch
    import torch.nn.functional as F

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    parts = [np.load(p) for p in args.data]  # one file given twice counts twice
    crops, labels, scene, view = (np.concatenate([d[k] for d in parts]) for k in ("crops", "labels", "scene", "view"))
    cut = np.quantile(np.unique(scene), 1 - args.val_share)
    train = scene <= cut
    val = (scene > cut) & (view == 0)
    tr_idx = np.flatnonzero(train)
    weight = torch.tensor([len(tr_idx) / max(1, 2 * (labels[tr_idx] == k).sum()) for k in (0, 1)],
                          dtype=torch.float32)
    model = build_model()
    if args.weights:
        model.load_state_dict(torch.load(args.weights, map_location="cpu"))
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-3)
    steps = args.epochs * math.ceil(len(tr_idx) / args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.1)
    start, history = time.time(), []
    for epoch in range(args.epochs):
        model.train()
        order = rng.permutation(tr_idx)
        total = 0.0
        for i in range(0, len(order), args.batch):
            idx = order[i:i + args.batch]
            x = augment(torch.from_numpy(crops[idx]).permute(0, 3, 1, 2).float().div(255), rng, args.zoom)
            loss = F.cross_entropy(model(x), torch.from_numpy(labels[idx]), weight=weight, label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        m = figures(predict(model, crops[val]), labels[val])
        history.append({"epoch": epoch + 1, "loss": total / len(tr_idx), **m})
        print(f"epoch {epoch + 1}/{args.epochs}  loss {total / len(tr_idx):.3f}  val (unseen scenes): accuracy "
              f"{m['accuracy']:.3f}, loose precision {m['loose_precision']:.3f} recall {m['loose_recall']:.3f} "
              f"({m['n']} cards, {m['n_loose']} loose)  ({time.time() - start:.0f} s)", flush=True)
        args.out.mkdir(parents=True, exist_ok=True)
        torch.save(model.state_dict(), args.out / "stacks.pt")
    export(model, args.out / "stacks.onnx")
    info = {"data": [str(p) for p in args.data], "weights": str(args.weights) if args.weights else None, "epochs": args.epochs,
            "batch": args.batch, "lr": args.lr, "zoom": args.zoom, "seconds": round(time.time() - start),
            "train_crops": int(len(tr_idx)),
            "val_cards": int(val.sum()), "history": history}
    (args.out / "stacks_train.json").write_text(json.dumps(info, indent=1))
    return 0


def export(model, path: Path) -> None:
    """ONNX with softmax: input ``crops`` (n, 3, 96, 96) -> ``p`` (n, 2) probabilities of [loose, stack]."""
    import torch

    class Exported(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            return torch.softmax(self.m(x), 1)

    model.eval()
    torch.onnx.export(Exported(model), torch.zeros(1, 3, STACK_INPUT, STACK_INPUT), str(path),
                      input_names=["crops"], output_names=["p"], dynamic_axes={"crops": {0: "n"}, "p": {0: "n"}},
                      opset_version=17, dynamo=False)
    print(f"{path}: {path.stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    sys.exit(main())
