"""The index's records: one per distinct filter, with the keys that share it."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from ..filter import Filter
from ..selector import SelectorFilter
from ..shapes.cache import template_of
from .clauses import ClausePlan


@dataclass(slots=True, eq=False)
class Entry:
    """One distinct filter and the subscription keys that share it."""

    number: int
    filter: Filter
    clauses: ClausePlan
    shared: Shared
    text_key: tuple[str, str, type]
    keys: dict[Hashable, None] = field(default_factory=dict)
    #: The member number of each clause in the clause tables.
    members: tuple[int, ...] = ()
    #: `filter.matches`, one attribute away for the hot loop.
    matches: Callable[[Any], bool] = field(init=False)

    def __post_init__(self) -> None:
        self.matches = self.filter.matches


class Shared:
    """A filter as a dict key whose hash is computed once. A selector compiled from its
    shape's template is known by its shape and literal values (texts that differ only in
    spacing), without building its tree; any other filter by itself (a filter hashes
    its tree). Two equal filters of different shapes (`(a = 1)` and `a = 1`) are then two
    entries: that costs a duplicate evaluation, never an answer."""

    __slots__ = ("filter", "hash", "key")

    def __init__(self, f: Filter) -> None:
        self.filter = f
        self.key: object = None
        if isinstance(f, SelectorFilter) and not f.empty and template_of(f.shape) is not None:
            self.key = (type(f), f.shape, _literal_key(f.literals))
            self.hash = hash(self.key)
        else:
            self.hash = hash(f)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Shared):
            return NotImplemented
        if self.filter is other.filter:
            return True
        if self.hash != other.hash or (self.key is None) != (other.key is None):
            return False
        return self.filter == other.filter if self.key is None else self.key == other.key


def _literal_key(values: tuple[Any, ...]) -> tuple[Any, ...]:
    # Literals compare as the tree's nodes do: a float by its bits (-0.0 is not 0.0).
    if any(_negative_zero(v) for v in values):
        return tuple(("-0.0",) if _negative_zero(v) else v for v in values)
    return values


def _negative_zero(value: Any) -> bool:
    return type(value) is float and value == 0.0 and math.copysign(1.0, value) < 0
