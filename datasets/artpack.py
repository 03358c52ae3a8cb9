"""Pack the rendered card-art cache small enough to travel, and unpack it again (for a machine that cannot fetch).

``datasets.cardart.load_deck`` renders each design once into ``<cache>/cardart/rendered/<design>/<width>/`` (one
PNG per card face plus ``boxes.json``). A training machine with no network and no SVG renderer (the GPU machine
of ``scripts/device_train.sh``) cannot make that cache, and the folder that travels there is limited in size
(64 MiB with the repository), so :func:`pack` writes each face as lossless WebP: the 17 training designs' 28.5 MiB
of PNGs become 8.9 MiB, every pixel with any opacity unchanged (WebP may change the colour of fully transparent
pixels, which the compositor never shows). :func:`unpack` writes the PNG cache back.

Usage::

    python -m datasets.artpack pack --out .carry/art --designs train,heldout   # here (renders what is missing)
    python -m datasets.artpack unpack .carry/art                               # there: fills $HANDFOOT_CACHE
"""

from __future__ import annotations

import argparse
import shutil
from multiprocessing import get_context
from pathlib import Path

import cv2

from .cardart import CACHE_DIR, design_names, load_deck

WIDTH = 240  #: the render width ``datasets.scenes`` asks ``load_deck`` for


def _convert(job: tuple[str, str, str]) -> None:
    src, dst, ext = job
    img = cv2.imread(src, cv2.IMREAD_UNCHANGED)
    if img is None:
        raise RuntimeError(f"{src}: not a readable image")
    params = [cv2.IMWRITE_WEBP_QUALITY, 101] if ext == ".webp" else []  # 101: lossless
    ok, buf = cv2.imencode(ext, img, params)
    if not ok:
        raise RuntimeError(f"{src}: could not encode as {ext}")
    Path(dst).write_bytes(buf.tobytes())


def _run(jobs: list[tuple[str, str, str]], workers: int) -> None:
    if workers <= 1:
        for j in jobs:
            _convert(j)
        return
    with get_context("spawn").Pool(workers) as pool:
        pool.map(_convert, jobs, chunksize=16)


def pack(out: Path, designs: list[str], cache_dir: Path | None = None, workers: int = 2,
         render: bool = True) -> int:
    """Write ``out/<design>/<width>/`` with every card face of ``designs`` as lossless WebP plus ``boxes.json``.

    With ``render``, designs not yet rendered are rendered first (``load_deck``, which may fetch their art).
    Returns the bytes written. Raises RuntimeError for an unknown design or art that cannot be rendered.
    """
    root = Path(cache_dir or CACHE_DIR) / "cardart" / "rendered"
    jobs, total = [], 0
    for name in designs:
        if render:
            load_deck(name, WIDTH, cache_dir)
        src = root / name / str(WIDTH)
        dst = out / name / str(WIDTH)
        dst.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / "boxes.json", dst / "boxes.json")
        for png in sorted(src.glob("*.png")):
            jobs.append((str(png), str(dst / (png.stem + ".webp")), ".webp"))
    _run(jobs, workers)
    for f in out.rglob("*"):
        total += f.stat().st_size if f.is_file() else 0
    return total


def unpack(src: Path, cache_dir: Path | None = None, workers: int = 2) -> list[str]:
    """Fill ``<cache>/cardart/rendered/`` from a folder :func:`pack` wrote; returns the designs unpacked.

    Raises RuntimeError when ``src`` holds no packed design or a file cannot be decoded."""
    root = Path(cache_dir or CACHE_DIR) / "cardart" / "rendered"
    metas = sorted(src.glob(f"*/{WIDTH}/boxes.json"))
    if not metas:
        raise RuntimeError(f"{src}: no packed designs (expected <design>/{WIDTH}/boxes.json)")
    jobs, names = [], []
    for meta in metas:
        name = meta.parent.parent.name
        dst = root / name / str(WIDTH)
        dst.mkdir(parents=True, exist_ok=True)
        for webp in sorted(meta.parent.glob("*.webp")):
            jobs.append((str(webp), str(dst / (webp.stem + ".png")), ".png"))
        names.append(name)
    _run(jobs, workers)
    for meta in metas:  # the index last: load_deck trusts a folder that has one
        shutil.copy2(meta, root / meta.parent.parent.name / str(WIDTH) / "boxes.json")
    return names


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack", help="rendered cache -> lossless WebP folder")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--designs", default="train,heldout",
                   help="comma-separated designs and groups ('train', 'heldout', 'all')")
    p.add_argument("--workers", type=int, default=2)
    u = sub.add_parser("unpack", help="WebP folder -> rendered cache ($HANDFOOT_CACHE)")
    u.add_argument("src", type=Path)
    u.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    try:
        if args.cmd == "pack":
            size = pack(args.out, design_names(args.designs), workers=args.workers)
            print(f"packed {args.designs} into {args.out}: {size / 2 ** 20:.1f} MiB")
        else:
            names = unpack(args.src, workers=args.workers)
            print(f"unpacked {len(names)} designs into {CACHE_DIR / 'cardart' / 'rendered'}: {', '.join(names)}")
    except RuntimeError as e:
        print(f"error: {e}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
