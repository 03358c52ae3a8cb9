#!/usr/bin/env python3
"""Export one index reader, or the average of several, as the ONNX model ``vision/reader.py`` runs.

Readers trained apart (another width, another seed) make different mistakes; averaging their probabilities
reads better than either (measured in models/README.md). The exported model has the same input and outputs as
one reader's (``crops (n, 3, 32, 32)`` BGR in [0, 1] -> ``rank (n, 15)``, ``suit (n, 4)`` probabilities), so
the pipeline does not know how many readers it holds.

Example::

    python scripts/export_reader.py runs/reader/jk2/reader.pt:1.5 runs/reader/w20/reader.pt:2.0 \\
        --out models/reader.onnx --val data/crops_val.npz

Each argument is ``WEIGHTS:WIDTH`` (the ``--width`` it was trained with, ``scripts/train_reader.py``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from train_reader import build_model, export  # noqa: E402


def parse_member(text: str) -> tuple[Path, float]:
    """``"path/reader.pt:1.5"`` -> (path, width).

    Raises:
        argparse.ArgumentTypeError: no ``:WIDTH``, a width that is not a positive number, or a missing file.
    """
    path, sep, width = text.rpartition(":")
    if not sep:
        raise argparse.ArgumentTypeError(f"{text!r}: give WEIGHTS:WIDTH, e.g. runs/reader/jk2/reader.pt:1.5")
    try:
        w = float(width)
    except ValueError:
        w = -1.0
    if w <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: the width after ':' must be a positive number")
    if not Path(path).is_file():
        raise argparse.ArgumentTypeError(f"{path}: no such weights file")
    return Path(path), w


def averaged(members: list[tuple[Path, float]]):
    """A torch module returning the mean of the members' (rank logits, suit logits) *after* softmax, as
    logarithms, so that :func:`train_reader.export` (which applies softmax) yields the mean probabilities."""
    import torch

    nets = []
    for path, width in members:
        net = build_model(width)
        net.load_state_dict(torch.load(path, map_location="cpu"))
        net.eval()
        nets.append(net)

    class Mean(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.nets = torch.nn.ModuleList(nets)

        def forward(self, x):
            outs = [net(x) for net in self.nets]
            rank = torch.stack([torch.softmax(r, 1) for r, _ in outs]).mean(0)
            suit = torch.stack([torch.softmax(s, 1) for _, s in outs]).mean(0)
            return torch.log(rank), torch.log(suit)

    return Mean()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("members", nargs="+", type=parse_member, help="WEIGHTS:WIDTH of each reader")
    ap.add_argument("--out", type=Path, required=True, help="the .onnx file to write")
    ap.add_argument("--val", type=Path, help="also print the accuracy on these crops (.npz of held-out designs), "
                    "as train_reader.py measures it after each epoch")
    args = ap.parse_args(argv)
    try:
        import torch  # noqa: F401
    except ImportError:
        ap.error("needs torch (the training extra: pip install -e '.[train]')")
    model = averaged(args.members)
    if args.val:
        import numpy as np

        from train_reader import evaluate

        va = np.load(args.val)
        m = evaluate(model, va["crops"], va["labels"])
        print(f"{args.val}: code {m['index_code_accuracy']:.3f} rank {m['rank_accuracy']:.3f} "
              f"suit {m['suit_accuracy']:.3f} negatives rejected {m['negatives_rejected']:.3f}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    export(model, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
