"""Write what the camera pipeline reads from a set of photos, and compare two such writes.

    python scripts/compare_layouts.py dump OUT --images [NAME=]DIR [--images ...] [--cache CACHE]
    python scripts/compare_layouts.py diff BEFORE AFTER

``dump`` reads every image of each ``--images`` folder (a folder of generated tables ``.../scenes/val/images``,
``../shared/tables_examples``, ``../shared/realdata/phone_corners/images`` ...) as one side and writes one JSON a
photo under ``OUT/<NAME or the folder's name>/``: the side's layout, its notes and its read corner indices. With ``--cache`` the
detector's boxes and the index reader's probabilities of each photo are kept there and reused, so a rerun
measures the later stages alone (what a refactor of those stages must not change).

``diff`` prints every photo whose reading differs between two dumps and a count per folder; exit 1 when any does.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

SUFFIXES = (".jpg", ".jpeg", ".png")


def _reading(image_path: Path, models, cache: Path | None, config) -> dict:
    from datasets.evaluation import cached_found
    from vision.images import load_image
    from vision.pipeline import read_image

    detector, reader, stacks = models
    image = load_image(image_path)
    found = cached_found(cache / f"{image_path.stem}.npz" if cache else None, image, detector, reader, config)
    side = read_image(image, detector, reader, stacks, source=image_path.name, found=found, config=config)[0]
    return {"layout": side.team_layout(), "notes": side.notes,
            "indices": [[round(float(v), 1) for v in box] + [code] for box, _, code in side.detections]}


def dump(out: Path, folders: list[str], cache: Path | None) -> int:
    from vision.pipeline import load_models, load_stack_checker

    from vision.config import DEFAULT

    detector, reader = load_models()
    models = (detector, reader, load_stack_checker())
    config = DEFAULT
    for spec in folders:
        name, _, where = spec.rpartition("=")
        folder = Path(where)
        name = name or folder.name
        paths = sorted(p for p in folder.iterdir() if p.suffix.lower() in SUFFIXES)
        dest = out / name
        dest.mkdir(parents=True, exist_ok=True)
        for path in paths:
            doc = _reading(path, models, cache / name if cache else None, config)
            (dest / f"{path.stem}.json").write_text(json.dumps(doc))
        print(f"{folder}: {len(paths)} photos -> {dest}")
    return 0


def diff(before: Path, after: Path) -> int:
    changed = 0
    for folder in sorted(p for p in before.iterdir() if p.is_dir()):
        files = sorted(folder.glob("*.json"))
        n = 0
        for f in files:
            other = after / folder.name / f.name
            a = json.loads(f.read_text())
            b = json.loads(other.read_text()) if other.is_file() else None
            if a == b:
                continue
            n += 1
            if b is None:
                print(f"{folder.name}/{f.stem}: missing after")
            elif a["layout"] != b["layout"]:
                print(f"{folder.name}/{f.stem}: layout {a['layout']} -> {b['layout']}")
            elif a["notes"] != b["notes"]:
                print(f"{folder.name}/{f.stem}: notes {a['notes']} -> {b['notes']}")
            else:
                print(f"{folder.name}/{f.stem}: indices {len(a['indices'])} -> {len(b['indices'])}")
        print(f"{folder.name}: {n} of {len(files)} photos differ")
        changed += n
    return 1 if changed else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out", type=Path)
    d.add_argument("--images", action="append", required=True, help="[NAME=]DIR: a folder of photos")
    d.add_argument("--cache", type=Path)
    c = sub.add_parser("diff")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = ap.parse_args(argv)
    if args.command == "dump":
        return dump(args.out, args.images, args.cache)
    return diff(args.before, args.after)


if __name__ == "__main__":
    raise SystemExit(main())
