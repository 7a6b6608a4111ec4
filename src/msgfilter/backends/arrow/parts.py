"""Values as parts: one datum per selector kind a value can take, and the helpers that
combine and test them (see the package docstring).

An Arrow column has one type, but a selector value can take a different selector type in
each row (a union column, a map value, `'a' + x` of such a value), so a value is held as
`Parts`: one datum (array, chunked array or scalar) per kind of `msgfilter.layout`, each
null in the rows where the value has another kind or is NULL. A NULL value has no part in
that row; the literal NULL has no parts at all. A condition is a bool datum with null for
UNKNOWN, and is the BOOLEAN part when it is used as a value.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any, TypeAlias

import pyarrow as pa
import pyarrow.compute as pc

from ...layout import BOOLEAN, DOUBLE, LONG, OTHER, STRING

#: An array, a chunked array or a scalar: what the compute kernels accept.
Datum: TypeAlias = Any
#: A value split by selector kind.
Parts: TypeAlias = dict[str, Datum]

#: The Arrow type of each kind's part (OTHER: TRUE where the row has such a value).
PART_TYPES: dict[str, pa.DataType] = {
    LONG: pa.int64(), DOUBLE: pa.float64(), STRING: pa.large_string(),
    BOOLEAN: pa.bool_(), OTHER: pa.bool_(),
}

TRUE = pa.scalar(True, pa.bool_())
FALSE = pa.scalar(False, pa.bool_())
NULL_BOOL = pa.scalar(None, pa.bool_())
NULL_LONG = pa.scalar(None, pa.int64())


def as_large_string(datum: Datum) -> Datum:
    if datum.type == pa.large_string():
        return datum
    return pc.cast(datum, pa.large_string())


def same_strings(a: Datum, b: Datum) -> tuple[Datum, Datum]:
    """Two string data of one type (string and large_string do not meet in a kernel)."""
    if a.type == b.type:
        return a, b
    return as_large_string(a), as_large_string(b)


def merge(all_parts: Iterable[Parts]) -> Parts:
    """Parts of disjoint values (each row has at most one) combined into one value."""
    by_kind: dict[str, list[Datum]] = {}
    for parts in all_parts:
        for kind, datum in parts.items():
            by_kind.setdefault(kind, []).append(datum)
    merged: Parts = {}
    for kind, data in by_kind.items():
        if len(data) == 1:
            merged[kind] = data[0]
            continue
        if kind == STRING and len({d.type for d in data}) > 1:
            data = [as_large_string(d) for d in data]
        merged[kind] = pc.coalesce(*data)
    return merged


def masked(parts: Parts, mask: Datum) -> Parts:
    """`parts` kept where `mask` is true, NULL elsewhere."""
    return {k: pc.if_else(mask, d, pa.scalar(None, d.type)) for k, d in parts.items()}


def present(parts: Parts) -> Datum:
    """TRUE in the rows where the value is not NULL (never null itself)."""
    if not parts:
        return FALSE
    return functools.reduce(pc.or_, [pc.is_valid(d) for d in parts.values()])


def false_unless_null(*values: Parts) -> Datum:
    """FALSE where every value is present, UNKNOWN where one is NULL."""
    if any(not p for p in values):
        return NULL_BOOL
    both = functools.reduce(pc.and_, [present(p) for p in values])
    return pc.if_else(both, FALSE, NULL_BOOL)


def first(results: list[Datum]) -> Datum:
    """The first non-null of `results` in each row."""
    return results[0] if len(results) == 1 else pc.coalesce(*results)


def as_condition(parts: Parts) -> Datum:
    """J39: a boolean is itself, NULL is UNKNOWN, any other value is FALSE."""
    if not parts:
        return NULL_BOOL
    boolean = parts.get(BOOLEAN)
    if boolean is not None and len(parts) == 1:
        return boolean
    others = false_unless_null({k: d for k, d in parts.items() if k != BOOLEAN})
    return others if boolean is None else pc.coalesce(boolean, others)
