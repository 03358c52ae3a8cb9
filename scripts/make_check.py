"""Write the models' check reading (``models/check.json``): the indices and whole cards the shipped models find in
``models/check.jpg`` on ONNX Runtime in f32. The inference backends compare their readings of these
(``vision.models.backends.Check``). Run it again after the shipped models change.

    python scripts/make_check.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.models.reader import IndexReader  # noqa: E402
from vision.models.detector import CHECK_PHOTO, CHECK_READING, CardDetector, check_photo  # noqa: E402
from vision.pipeline import read_image  # noqa: E402


def main() -> None:
    image, _ = check_photo() if CHECK_READING.is_file() else (None, None)
    if image is None:
        import cv2

        image = cv2.imread(str(CHECK_PHOTO))
    sides = read_image(image, CardDetector(backend="onnxruntime"), IndexReader(backend="onnxruntime"))
    indices = [[round(float(v), 1) for v in box] for side in sides for box in side.detections.xyxy]
    cards = [[[round(float(v), 1) for v in c.centers[k]] for k in (0, 1)]
             for side in sides for c in side.cards if c.fully_visible]
    CHECK_READING.write_text(json.dumps({"photo": CHECK_PHOTO.name, "indices": indices, "cards": cards}) + "\n")
    print(f"{CHECK_READING}: {len(indices)} indices, {len(cards)} whole cards")


if __name__ == "__main__":
    main()
