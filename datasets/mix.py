"""Write one Ultralytics ``data.yaml`` that trains on several image folders (synthetic tiles + real photos).

Example::

    python -m datasets.mix --out data/mix.yaml --val data/synth/tiles/val/images \\
        --train data/synth/tiles/train/images data/synth2/tiles/train/images data/real320/images

Every folder must hold YOLO ``images/`` with sibling ``labels/`` in :data:`vision.classes.CLASS_NAMES` ids.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from vision.classes import CLASS_NAMES


def write_mix(out: Path, train: list[Path], val: Path) -> Path:
    """Write ``out`` (a data.yaml) with absolute train/val folders. Raises FileNotFoundError for a missing one."""
    for folder in [*train, val]:
        if not Path(folder).is_dir():
            raise FileNotFoundError(f"image folder not found: {folder}")
    lines = ["train:"] + [f"  - {Path(t).resolve()}" for t in train]
    lines += [f"val: {Path(val).resolve()}", "names:"] + [f"  {i}: '{n}'" for i, n in enumerate(CLASS_NAMES)]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--train", type=Path, nargs="+", required=True)
    ap.add_argument("--val", type=Path, required=True)
    args = ap.parse_args(argv)
    try:
        print(write_mix(args.out, args.train, args.val))
    except FileNotFoundError as exc:
        print(f"error: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
