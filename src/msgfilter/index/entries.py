"""The index's records: one per distinct filter, with the keys that share it."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from ..filter import Filter
from .clauses import ClausePlan
from .keys import Plan


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
    #: The single-probe plan `match_table` reads (`keys.plan`), made when first needed,
    #: and `plan.exact` beside it.
    plan: Plan | None = None
    exact: bool = False

    def __post_init__(self) -> None:
        self.matches = self.filter.matches


class Shared:
    """A filter as a dict key whose hash is computed once (a filter hashes its tree)."""

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
            self.hash == other.hash and self.filter == other.filter
        )
