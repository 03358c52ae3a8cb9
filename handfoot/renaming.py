"""Team names in stored JSON: a game's rounds (layouts, corrections), its photo readings and the live view name its
teams; :func:`renamed` gives such a document with some teams renamed (``{"Jonses": "Joneses"}``).

A team's name is a key of a ``teams``, ``left``, ``totals`` or ``names`` object, a value of a ``team``, ``went_out``,
``leader`` or ``winner`` key, an item of a ``teams`` list (the teams a photo shows), or a place's first part
(``teams.Jonses.melds[0]``). Text written for a person (a reading's notes) keeps the names it was written with.
"""

from __future__ import annotations

from typing import Any, Mapping

#: keys whose object is keyed by team name
KEYED_BY_TEAM = frozenset({"teams", "left", "totals", "names"})
#: keys whose value is a team's name
NAMING_A_TEAM = frozenset({"team", "went_out", "leader", "winner"})


def renamed(doc: Any, names: Mapping[str, str]) -> Any:
    """``doc`` (parsed JSON) with each team name ``old`` of ``names`` (old -> new, applied at once: two teams may
    swap names) written as ``new`` wherever it names a team (see the module's docstring); ``doc`` is not changed."""
    if not names:
        return doc
    return _renamed(doc, names, None)


def _renamed(item: Any, names: Mapping[str, str], key: str | None) -> Any:
    if isinstance(item, dict):
        if key in KEYED_BY_TEAM:  # a team's own object (its layout, its score) is named by its key alone
            return {names.get(k, k): _renamed(v, names, None) for k, v in item.items()}
        return {k: _renamed(v, names, k) for k, v in item.items()}
    if isinstance(item, list):
        if key == "teams":
            return [names.get(v, v) if isinstance(v, str) else _renamed(v, names, None) for v in item]
        return [_renamed(v, names, None) for v in item]
    if isinstance(item, str):
        if key in NAMING_A_TEAM:
            return names.get(item, item)
        if item.startswith("teams."):
            return _renamed_place(item, names)
    return item


def _renamed_place(place: str, names: Mapping[str, str]) -> str:
    """A place in a layout (``teams.Jonses.melds[0]``, ``teams.Jonses``) with its team renamed; the longest old name
    that it starts with is its team (``A.B`` before ``A``)."""
    for old in sorted(names, key=len, reverse=True):
        head = f"teams.{old}"
        rest = place[len(head):]
        if place.startswith(head) and rest[:1] in ("", ".", "["):
            return f"teams.{names[old]}{rest}"
    return place
