"""The ``/v1`` routes about the service and the rules: health, the rules presets, and scoring a layout."""

from __future__ import annotations

import typing
from enum import Enum
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, Request
from pydantic import BaseModel, Field
from pydantic.fields import FieldInfo

from scorer import PRESET_NAMES, get_rules
from scorer.rules import Rules

from .. import core
from ..errors import NotFoundError
from ..results import RoundScoreOut
from .deps import ERRORS, LAYOUT_EXAMPLE, get_jobs, get_settings

router = APIRouter(prefix="/v1")


class Health(BaseModel):
    """The service is up; which models are loaded (file names, None when not), the photo jobs, and the largest
    photo it takes (``photo_bytes``: file bytes; ``photo_pixels``: width x height pixels), which the page shrinks a
    larger photo to fit before sending it."""

    status: Literal["ok"]
    version: str
    models: dict[str, str | None]
    photo_reading: bool
    jobs: dict[str, int]
    photo_bytes: int
    photo_pixels: int


@router.get("/health", response_model=Health, responses={401: ERRORS[401]})
def health(request: Request, jobs=Depends(get_jobs), settings=Depends(get_settings)) -> Health:
    models = request.app.state.models
    described = models.describe() if models is not None else {"detector": None, "reader": None, "stacks": None}
    return Health(status="ok", version=request.app.version, models=described, photo_reading=models is not None,
                  jobs={"running": jobs.active, "at_once": jobs.running, "waiting": jobs.admitted - jobs.active},
                  photo_bytes=settings.limits.file_bytes, photo_pixels=settings.limits.pixels)


def _preset(name: str) -> dict[str, Any]:
    """A preset's values (as ``handfoot rules NAME --json``) and ``going_out``: the books a side needs to go out, in
    words (``scorer.rules.Rules.going_out_text``)."""
    rules = get_rules(name)
    return {**rules.model_dump(mode="json"), "going_out": rules.going_out_text()}


@router.get("/rules", responses={401: ERRORS[401]})
def list_rules() -> dict[str, dict[str, Any]]:
    """Every preset: its values and ``going_out`` (:func:`_preset`)."""
    return {n: _preset(n) for n in PRESET_NAMES}


@router.get("/rules/{name}", responses={404: ERRORS[404], 401: ERRORS[401]})
def one_rules(name: Annotated[str, Field(max_length=40)]) -> dict[str, Any]:
    """One preset: its values and ``going_out`` (:func:`_preset`)."""
    if name not in PRESET_NAMES:
        raise NotFoundError(f"no rules preset {name!r}; presets: {', '.join(PRESET_NAMES)}")
    return _preset(name)


class RuleField(BaseModel):
    """One field of a preset, for house-rule switches: its name, value, type (``bool``, ``int``, ``list``...)
    and what it means (with the seed and section it comes from)."""

    field: str
    value: Any
    type: str
    description: str
    optional: bool = Field(False, description="None is a value of it (a page's empty field)")
    minimum: float | None = Field(None, description="its least value, for a number")
    maximum: float | None = Field(None, description="its greatest value, for a number (for each, for a list)")
    choices: list[str] | None = Field(None, description="the values it may take, for a choice")


def _field(name: str, value: Any, info: FieldInfo) -> RuleField:
    """A rule field as :class:`RuleField`: its type is the value's, or for a value of None the type it may take;
    a number's bounds (a list's: each item's), a choice's values."""
    args = typing.get_args(info.annotation)
    optional = type(None) in args
    inner = [a for a in args if a is not type(None)] if optional else [info.annotation]
    base = inner[0] if len(inner) == 1 else None
    kind = type(value).__name__ if value is not None or base is None else getattr(base, "__name__", "NoneType")
    items = typing.get_args(base) if typing.get_origin(base) in (tuple, list) else ()  # Annotated[int, Field(ge, le)]
    limits = list(info.metadata) + [k for a in items for m in getattr(a, "__metadata__", ())
                                    for k in (m.metadata if isinstance(m, FieldInfo) else [m])]
    bounds = {"minimum": next((m.ge for m in limits if getattr(m, "ge", None) is not None), None),
              "maximum": next((m.le for m in limits if getattr(m, "le", None) is not None), None)}
    enum = base if isinstance(base, type) and issubclass(base, Enum) else None
    return RuleField(field=name, value=value, type=kind, description=info.description or "", optional=optional,
                     choices=[e.value for e in enum] if enum else None, **bounds)


@router.get("/rules/{name}/fields", response_model=list[RuleField], responses={404: ERRORS[404], 401: ERRORS[401]})
def rule_fields(name: Annotated[str, Field(max_length=40)]) -> list[RuleField]:
    """A preset's fields with their meaning, in order: what a page shows as house-rule switches."""
    values = one_rules(name)
    return [_field(k, values[k], info) for k, info in Rules.model_fields.items()
            if k not in ("name", "title", "source")]



# -- layouts ---------------------------------------------------------------------------------------------------
@router.post("/score", response_model=RoundScoreOut, responses={k: ERRORS[k] for k in (401, 413, 422)})
def score(layout: Annotated[dict[str, Any], Body(openapi_examples={"round": {"value": LAYOUT_EXAMPLE}})],
          lenient: bool = False, settings=Depends(get_settings)) -> RoundScoreOut:
    """Score a layout (docs/layout.md): the JSON of ``handfoot score LAYOUT --json``. A layout that breaks the
    rules is refused (422, with ``problems``) unless ``lenient``."""
    table = core.layout_of(layout, settings.limits)
    return core.score_layout(table, lenient=lenient).score


