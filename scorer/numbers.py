"""Whole numbers as JSON gives them: :data:`Whole`, an ``int`` field that refuses ``true`` and ``false``.

Pydantic takes a boolean for an integer (``"round": true`` would be round 1, ``"decks": true`` one deck): a
field typed :data:`Whole` (:data:`WholeOrNone`, :func:`whole`) refuses it as every other value not a whole number
is refused, in words that follow the field's name (``round: a whole number, not true``).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field


def not_a_boolean(value: Any) -> Any:
    """``value`` itself, unless it is ``True`` or ``False``.

    Raises:
        ValueError: ``"a whole number, not true"`` (or ``false``) for a boolean.
    """
    if isinstance(value, bool):
        raise ValueError(f"a whole number, not {str(value).lower()}")
    return value


#: an integer field that refuses a boolean (pydantic's own ``int`` takes ``true`` as 1); its bounds go in the
#: field's ``Field(ge=..., le=...)``
Whole = Annotated[int, BeforeValidator(not_a_boolean)]
#: :data:`Whole` or None (``null``); its bounds go in the field's ``Field(ge=..., le=...)`` as well
WholeOrNone = Annotated[int | None, BeforeValidator(not_a_boolean)]


def whole(**bounds: int) -> Any:
    """A :data:`Whole` within ``bounds`` (``ge``, ``le``), for the items of a list (``tuple[whole(ge=0), ...]``):
    the bounds set on the integer before the check, so that its JSON schema states them (``minimum``,
    ``maximum``; ``Annotated[Whole, Field(ge=0)]`` would not)."""
    return Annotated[int, Field(**bounds), BeforeValidator(not_a_boolean)]
