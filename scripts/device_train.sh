#!/usr/bin/env bash
# One prepared detector run for the GPU machine that some sessions are lent (see ../.library/device): about nine
# minutes in one command, inside the 15 minutes of device time a session has, machine start included.
#
# What it does, on a fresh machine with no network:
#   1. installs the carried Ultralytics wheels (.whl/) into $WORK/site (the machine has torch, OpenCV, NumPy);
#   2. unpacks the carried card art (.carry/art, written by `python -m datasets.artpack pack`) into the cache;
#   3. generates ~3,000 scenes of the training designs on every core (bigmix2's recipe of detector v10, new seeds;
#      no procedural font decks: they need system fonts) and the held-out-design validation tiles, and adds the
#      carried real tiles (.carry/real320, the phone_corners train split) twice, as v10's mix did;
#   4. continues models/cards.pt (one class) with scripts/train.py on CUDA for $HOURS hours;
#   5. writes the best and last weights (optimizer state stripped), results.csv and the log to $OUT;
#   6. with READER=1 (default) cuts reader crops from the same tiles and fine-tunes both index readers (jk2 from
#      models/reader.pt, w20 from models/reader_w20.pt) for READER_EPOCHS epochs each: reader_jk2.pt, reader_w20.pt
#      (their per-epoch validation accuracy on the held-out-design crops is in the log).
# Then, here (FILES: the run's files_at): `python scripts/train.py --ship FILES/cards_last.pt` (or cards_best.pt)
# and `python scripts/export_reader.py FILES/reader_jk2.pt:1.5 FILES/reader_w20.pt:2.0 --out models/reader.onnx
# --val data/crops_val.npz`; cache the dev tables' boxes and compare before shipping (models/README.md).
#
# Prepare here (once per session; ~58 MiB travel with the repository, under the 64 MiB limit):
#   python -m datasets.artpack pack --out .carry/art --designs train,heldout
#   python -m datasets.realdata --out data/real320 --size 320 --repeat 3   # if missing; then re-encode at q80:
#   PY=.venv/bin/python bash scripts/device_train.sh --prepare-real data/real320   # -> .carry/real320 (15 MB)
#   pip download --no-deps --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64 -d .whl \
#       ultralytics==8.4.190 ultralytics-thop==2.2.3
# Expected split of the 540 s (estimated here, not yet measured there): generation about 0.5 core-seconds a scene
# on this machine's cores, so about 100 s for the 3,000 scenes on 16; the readers' phase READER_SECONDS; the
# detector the rest (about 4 minutes, at batch 128 perhaps 10-20 epochs of the 26,000 tiles).
# Run there: device run with carry [".whl", ".carry"], command "bash scripts/device_train.sh" ($OUT is set), timeout_s
# 600 (the script ends by itself within BUDGET, 540 s).
# Try it here first at a tiny scale (CPU, about two minutes; .venv-yolo: a venv with pip install -e '.[datasets,vision,train]'):
#   PY=.venv-yolo/bin/python SCALE=0.01 HOURS=0.01 EPOCHS=2 BATCH=8 WORKERS=2 OUT=/tmp/dt_out WORK=/tmp/dt \
#     bash scripts/device_train.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PY:-python3}
if [ "${1:-}" = "--prepare-real" ]; then  # re-encode real tiles at JPEG quality 80 into .carry/real320
  exec "$PY" - "${2:?folder with images/ and labels/}" <<'EOF'
import shutil, sys
from pathlib import Path
import cv2
src, dst = Path(sys.argv[1]), Path(".carry/real320")
(dst / "images").mkdir(parents=True, exist_ok=True); (dst / "labels").mkdir(parents=True, exist_ok=True)
for f in sorted((src / "images").glob("*.jpg")):
    cv2.imwrite(str(dst / "images" / f.name), cv2.imread(str(f)), [cv2.IMWRITE_JPEG_QUALITY, 80])
for f in (src / "labels").glob("*.txt"):
    shutil.copy(f, dst / "labels" / f.name)
print(f"{dst}: {sum(1 for _ in (dst / 'images').glob('*.jpg'))} tiles")
EOF
fi

OUT=${OUT:?set OUT, the folder whose files come back}
WORK=${WORK:-/tmp/hf}
BUDGET=${BUDGET:-540}    # seconds for the whole script: training gets what generation leaves (less 60 s)
HOURS=${HOURS:-}         # or a fixed training time, hours (Ultralytics --time; ends with a final validation)
SCALE=${SCALE:-1}        # scale of the generated data (1: 3,000 scenes, about 24,000 tiles)
WORKERS=${WORKERS:-$(nproc)}
BATCH=${BATCH:-128}
LR0=${LR0:-0.01}
EPOCHS=${EPOCHS:-30}     # the schedule's length when --time is not reached first (close_mosaic: a tenth)
READER=${READER:-1}      # then fine-tune both index readers (jk2, w20) on crops of the same tiles ...
READER_EPOCHS=${READER_EPOCHS:-6}
READER_TILES=${READER_TILES:-12000}   # ... cut from up to this many whole-table tiles and as many others ...
READER_SECONDS=${READER_SECONDS:-150}  # ... in about this long (kept out of the detector's share of BUDGET)
mkdir -p "$OUT" "$WORK"
exec > >(tee -a "$OUT/log.txt") 2>&1
export PYTHONUNBUFFERED=1 HANDFOOT_CACHE="$WORK/cache" YOLO_CONFIG_DIR="$WORK/yolo" YOLO_OFFLINE=1 \
  YOLO_AUTOINSTALL=False MPLBACKEND=Agg
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
sc() { awk -v a="$1" -v s="$SCALE" 'BEGIN { n = int(a * s); print (n < 2 ? 2 : n) }'; }

stamp "python: $($PY -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__, "cuda", torch.cuda.is_available())')"
if ls .whl/*.whl >/dev/null 2>&1; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$WORK/site" .whl/*.whl
  export PYTHONPATH="$WORK/site${PYTHONPATH:+:$PYTHONPATH}"
fi
stamp "ultralytics $($PY -c 'import ultralytics; print(ultralytics.__version__)')"
"$PY" -m datasets.artpack unpack .carry/art --workers "$WORKERS"
stamp "art unpacked"

gen() {  # gen NAME SCENES SEED [generate flags...]
  local name=$1 n=$2 seed=$3; shift 3
  "$PY" -m datasets.generate --out "$WORK/$name" --scenes "$n" --seed "$seed" --tile 320 --workers "$WORKERS" "$@" \
    > "$WORK/$name.log" 2>&1 || { tail -20 "$WORK/$name.log"; exit 1; }
  stamp "generated $name: $(ls "$WORK/$name"/tiles/*/images | wc -l) tiles"
}
gen val 60 2 --split val --designs heldout --tiles-per-scene 4          # data/synth's validation tiles
gen g1 "$(sc 1200)" 201 --split train --designs train --tiles-per-scene 8 --full-view --enlarge 2 --joker-boost 2.5
gen g2 "$(sc 800)" 202 --split train --designs train --tiles-per-scene 8 --joker-boost 2.5
gen g3 "$(sc 600)" 203 --split train --designs train --tiles-per-scene 8 --tight-fans 0.6
gen g4 "$(sc 400)" 204 --split train --designs train --tiles-per-scene 8 --tight-fans 0.6 --enlarge 2
rm -rf "$WORK/real_a" "$WORK/real_b"
cp -r .carry/real320 "$WORK/real_a"
cp -al "$WORK/real_a" "$WORK/real_b"  # the real tiles twice (datasets.mix resolves links: two paths)
"$PY" -m datasets.mix --out "$WORK/mix/data.yaml" --val "$WORK/val/tiles/val/images" --train \
  "$WORK"/g{1,2,3,4}/tiles/train/images "$WORK/real_a/images" "$WORK/real_b/images"
stamp "mixed"

if [ -z "$HOURS" ]; then
  keep=$(( READER == 1 ? READER_SECONDS : 0 ))
  HOURS=$(awk -v b="$BUDGET" -v e="$(( $(date +%s) - t0 + keep ))" \
    'BEGIN { h = (b - e - 60) / 3600; printf "%.4f", (h < 0.01 ? 0.01 : h) }')
fi
stamp "training for $HOURS h"
"$PY" scripts/train.py --data "$WORK/mix/data.yaml" --weights models/cards.pt --single-cls --epochs "$EPOCHS" \
  --time "$HOURS" --imgsz 320 --batch "$BATCH" --workers "$WORKERS" --lr0 "$LR0" --cache ram --save-period -1 \
  --project "$WORK/runs" --name gpu
stamp "trained"

"$PY" - "$WORK/runs/gpu" "$OUT" <<'EOF'
import shutil, sys
from pathlib import Path
import torch
run, out = Path(sys.argv[1]), Path(sys.argv[2])
for name in ("best", "last"):
    src = run / "weights" / f"{name}.pt"
    if src.is_file():
        ckpt = torch.load(src, map_location="cpu", weights_only=False)
        ckpt["optimizer"] = None
        torch.save(ckpt, out / f"cards_{name}.pt")
if (run / "results.csv").is_file():
    shutil.copy(run / "results.csv", out / "results.csv")
if (run / "weights" / "train_info.json").is_file():
    shutil.copy(run / "weights" / "train_info.json", out / "train_info.json")
EOF
stamp "detector weights written"

if [ "$READER" = 1 ]; then
  # crops as for the shipped readers (models/README.md): every index of the training tiles plus two negatives a
  # tile; validation: the held-out-design tiles with one negative (data/crops_val.npz's recipe)
  # (datasets.crops runs on one core, about 900 tiles a second here: READER_TILES whole-table tiles, as many others)
  "$PY" -m datasets.crops --out "$WORK/crops_a.npz" "$WORK/g1/tiles/train" --limit "$READER_TILES" --seed 1
  "$PY" -m datasets.crops --out "$WORK/crops_b.npz" "$WORK/real_a" "$WORK"/g{2,3}/tiles/train \
    --limit "$READER_TILES" --seed 2
  "$PY" -m datasets.crops --out "$WORK/crops_val.npz" "$WORK/val/tiles/val" --negatives 1
  stamp "crops cut"
  for r in "jk2 1.5 models/reader.pt" "w20 2.0 models/reader_w20.pt"; do
    set -- $r
    "$PY" scripts/train_reader.py --train "$WORK/crops_a.npz" "$WORK/crops_b.npz" --val "$WORK/crops_val.npz" \
      --width "$2" \
      --weights "$3" --epochs "$READER_EPOCHS" --lr 1e-3 --batch 512 --threads "$WORKERS" --out "$WORK/reader_$1"
    cp "$WORK/reader_$1/reader.pt" "$OUT/reader_$1.pt"
    stamp "reader $1 trained"
  done
fi
ls -l "$OUT"
stamp "done"
