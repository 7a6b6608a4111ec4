"""The index's records: one per distinct filter, with the keys that share it."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from typing import Any

from ..filter import Filter
from ..selector import SelectorFilter
from ..shapes.cache import template_of
from .clauses import ClausePlan

#: Keys a few subscriptions share are kept in a list (a one-key dict costs 224 bytes, a
#: list 64); beyond this many, a dict, so that removing one stays O(1).
_LIST_KEYS = 8


class Entry:
    """One distinct filter and the subscription keys that share it (in the order they
    were added). Slots, not a dataclass: an index holds one per distinct filter, and its
    bytes are most of what an index costs per subscription beside the filter."""

    __slots__ = ("clauses", "filter", "first", "identity", "keys", "matches", "number")

    def __init__(self, number: int, compiled: Filter, clauses: ClausePlan,
                 identity: Hashable) -> None:
        self.number = number
        self.filter = compiled
        self.clauses = clauses
        #: What `identity(compiled)` returned: the entry's key among equal filters.
        self.identity = identity
        self.keys: list[Hashable] | dict[Hashable, None] = []
        #: The member number of its first clause in the clause tables (the others follow).
        self.first = 0
        #: `filter.matches`, one attribute away for the hot loop.
        self.matches: Callable[[Any], bool] = compiled.matches

    def add_key(self, key: Hashable) -> None:
        keys = self.keys
        if type(keys) is list:
            if len(keys) < _LIST_KEYS:
                keys.append(key)
                return
            keys = self.keys = dict.fromkeys(keys)
        keys[key] = None  # type: ignore[call-overload]

    def remove_key(self, key: Hashable) -> None:
        """Forget `key` (which it holds)."""
        keys = self.keys
        if type(keys) is list:
            # By identity first: an index key equals only itself among its entry's keys.
            for at, held in enumerate(keys):
                if held is key or held == key:
                    del keys[at]
                    return
            raise KeyError(key)  # pragma: no cover - the index removes keys it filed
        del keys[key]  # type: ignore[arg-type]


class Shared:
    """A filter that has no shape key (see `identity`) as a dict key whose hash is
    computed once (a filter hashes its tree)."""

    __slots__ = ("filter", "hash")

    def __init__(self, f: Filter) -> None:
        self.filter = f
        self.hash = hash(f)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Shared):
            return NotImplemented
        return self.filter is other.filter or (
            self.hash == other.hash and self.filter == other.filter)


def identity(f: Filter) -> Hashable:
    """What makes two filters one entry. A selector compiled from its shape's template is
    known by its shape and literal values (texts that differ only in spacing), without
    building its tree: a tuple; any other filter by itself (`Shared`), since a filter
    hashes its tree. The two forms never compare equal, so two equal filters of which one
    has a template and one not (or of different shapes: `(a = 1)` and `a = 1`) are two
    entries: that costs a duplicate evaluation, never an answer."""
    if isinstance(f, SelectorFilter) and not f.empty and template_of(f.shape) is not None:
        return (type(f), f.shape, _literal_key(f.literals))
    return Shared(f)


def _literal_key(values: tuple[Any, ...]) -> tuple[Any, ...]:
    # Literals compare as the tree's nodes do: a float by its bits (-0.0 is not 0.0). A
    # slot's type is the shape's (its literal kind), so 1 and 1.0 never meet in one slot.
    if any(_negative_zero(v) for v in values):
        return tuple(("-0.0",) if _negative_zero(v) else v for v in values)
    return values


def _negative_zero(value: Any) -> bool:
    return type(value) is float and value == 0.0 and math.copysign(1.0, value) < 0
