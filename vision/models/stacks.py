"""The stack checker (``models/stacks.onnx``, ONNX Runtime through :mod:`vision.models.backends`, no torch): the
probability that a stack of cards lies under a whole card, from the card turned upright with its surroundings
(:func:`vision.models.crops.corners_crop`: :data:`~vision.models.crops.STACK_INPUT` px a side,
:data:`~vision.models.crops.STACK_CONTEXT` card heights). Stage 3b (:mod:`vision.photo_checks`) asks it. The model
is trained by ``scripts/train_stacks.py`` on generated tables of the training designs; its figures are in
``models/README.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from ..types import CardInstance
from .backends import TOLERANCE, Check
from .crops import STACK_INPUT, corners_crop
from .detector import MODELS_DIR, OnnxModel, check_photo

DEFAULT_STACKS = MODELS_DIR / "stacks.onnx"


@dataclass
class StackChecker(OnnxModel):
    """Probability that a stack of cards lies under a whole card.

    Args:
        model: path to ``stacks.onnx`` (input ``(n, 3, 96, 96)`` BGR in [0, 1] from
            :func:`vision.models.crops.card_crop`; output ``(n, 2)`` probabilities of [loose, stack]); ``threads``
            and the errors raised on loading (FileNotFoundError, ModelError): :class:`vision.models.detector.OnnxModel`.
    """

    model: str | Path = DEFAULT_STACKS
    what: ClassVar[str] = "stack checker"
    input_chw: ClassVar[tuple[int, int, int]] = (3, STACK_INPUT, STACK_INPUT)

    @classmethod
    def check(cls, path: Path) -> Check:
        """The check photo's whole cards (:data:`vision.models.detector.CHECK_READING`), upright and upside down; the
        same reading is the same verdict (stack or loose) on every card, its probability (which the notes print)
        within :data:`vision.models.backends.TOLERANCE`."""
        def feeds() -> dict[str, np.ndarray]:
            image, reading = check_photo()
            crops = np.stack([corners_crop(image, np.asarray(a), np.asarray(b), turn=t)
                              for t in (0.0, np.pi) for a, b in reading["cards"]])
            return {"crops": crops.transpose(0, 3, 1, 2).astype(np.float32) / 255.0}
        return Check(feeds, lambda a, b: np.array_equal(a[0][:, 1] >= 0.5, b[0][:, 1] >= 0.5)
                     and float(np.abs(a[0][:, 1] - b[0][:, 1]).max()) <= TOLERANCE)

    def p_stack(self, image: np.ndarray, cards: list[CardInstance]) -> np.ndarray:
        """(n,) probability of a stack under each card of a (H, W, 3) uint8 BGR image, averaged over the card
        upright and upside down.

        Raises:
            ValueError: for a card that does not show both indices (see :func:`vision.models.crops.card_crop`).
        """
        for c in cards:
            if not c.fully_visible:
                raise ValueError(f"card {c.code} shows one index; its frame needs both")
        return self.p_stack_between(image, [(c.centers[0], c.centers[1]) for c in cards])

    def p_stack_between(self, image: np.ndarray, corners: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        """(n,) :meth:`p_stack` of the cards whose two corner-index centres ((2,) pixels each) are given."""
        if not corners:
            return np.zeros(0, np.float32)
        crops = np.stack([corners_crop(image, a, b, turn=t) for t in (0.0, np.pi) for a, b in corners])
        x = crops.transpose(0, 3, 1, 2).astype(np.float32) / 255.0
        (p,) = self._session.run(None, {"crops": x})
        return p[:, 1].reshape(2, len(corners)).mean(0).astype(np.float32)
