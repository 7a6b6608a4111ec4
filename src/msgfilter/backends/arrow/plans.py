"""The one cache of Arrow plans: a filter's kernels over tables of one schema and layout,
built once and shared by `msgfilter.arrow`, the Spark fallback's Arrow UDFs and the
index's `match_table`.

`plan_of(f, schema, layout)` is the plan of a selector whose value model has a kernel
table (`plan.LOWERINGS`: amqp-sql's included), of a tag filter (`tags.compile_tags`) or
of an AMQP property filter (`amqp_properties`), and None for a filter no kernel
evaluates (the caller runs it row by row).
"""

from __future__ import annotations

import threading

import pyarrow as pa
from cachetools import LRUCache

from ...amqp.properties import PropertyFilter
from ...amqp.sql import AmqpSqlFilter
from ...filter import Filter
from ...layout import Layout
from ...selector import SelectorFilter
from .amqp_properties import compile_properties
from .compiler import Unsupported
from .plan import LOWERINGS, Plan, compile_arrow
from .tags import TAG_MODELS, compile_tags

#: Plans kept, most recently used, one per (dialect, text, filter class, schema, layout):
#: an index holds one per distinct filter, so this is many more than one user keeps.
PLAN_CACHE_SIZE = 65_536


class RowwiseFallbackWarning(RuntimeWarning):
    """A kernel failed on this data, so the filter was evaluated row by row (slowly) with
    the per-message backend. The answers are still right; please report the case."""


# None: no kernel evaluates the filter on tables of that schema (the row-by-row path).
_plans: LRUCache[tuple[str, str, type, pa.Schema, Layout], Plan | None] = LRUCache(
    maxsize=PLAN_CACHE_SIZE
)
_lock = threading.Lock()


def plan_of(f: Filter, schema: pa.Schema, layout: Layout) -> Plan | None:
    """The Arrow plan of `f` over tables of `schema` seen through `layout` (None: no
    kernel evaluates it). Raises LayoutError for a properties column the kernels cannot
    read."""
    # Keyed by text, not by the filter: filters compare equal when their trees do, and
    # ApproxLit(0.0) == ApproxLit(-0.0), which are different selectors here.
    key = (f.dialect, f.text, type(f), schema, layout)
    with _lock:
        found = _plans.get(key, _MISSING)
    if found is not _MISSING:
        return found  # type: ignore[return-value]
    built: Plan | None = None
    try:
        if f.model in TAG_MODELS:
            built = compile_tags(f, schema, layout)
        elif f.model in LOWERINGS and isinstance(f, SelectorFilter | AmqpSqlFilter):
            built = compile_arrow(f.tree, f.model, schema, layout)
        elif isinstance(f, PropertyFilter):
            built = compile_properties(f, schema, layout)
    except Unsupported:
        built = None
    with _lock:
        return _plans.setdefault(key, built)


def cache_clear() -> None:
    """Forget the cached plans."""
    with _lock:
        _plans.clear()


_MISSING = object()
