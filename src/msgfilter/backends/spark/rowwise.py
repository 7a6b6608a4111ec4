"""The fallback's Python path, for what no kernel evaluates (the activemq value model,
selectors holding text no Arrow string can hold): `Filter.evaluate` once per distinct
combination of the values the selector reads in a batch, not once per row.

A selector's answer depends only on the values of its identifiers, so rows that read the
same values get the same answer: each batch is reduced to its distinct tuples of those
values (message archives repeat a few regions, tiers and priorities), each tuple is
evaluated as a message, and the answers are spread back over the rows. The key of a
value is exact: a double by its bits (-0.0 is not 0.0), a value of no selector type by
its type and repr (Decimal('1.50') is not Decimal('1.5')), a TAGS or KEYS value by the
column it came from (their Java classes may differ). Identifier values are those
`message_dicts` gives: the map entry, overridden by a top-level column, TAGS and KEYS
from their columns where the map lacks the key; in the Java-typed models (activemq,
artemis, qpid) each number is wrapped in the Java class of the column it came from
(java_rows.java_class).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ...filter import Filter
from ...message import KEYS_PROPERTY
from ...semantics.model import JAVA_TYPED
from ...tables import Layout, join_keys, resolve
from .java_rows import java_class

_PLAIN = (str, int, bool, type(None))
_MISSING = object()


def _keys_of(datum: pa.Array, values: list[object]) -> list[object]:
    """A hashable key per value that tells apart every two values a selector could."""
    if pa.types.is_floating(datum.type):
        # By bits: -0.0 and 0.0 differ; a NaN is found again (NaN != NaN as a float).
        bits = pc.cast(datum, pa.float64()).view(pa.int64())
        return bits.to_pylist()  # type: ignore[no-any-return]
    if all(type(value) in _PLAIN for value in values):
        return values
    return [value if type(value) in _PLAIN else (type(value), repr(value)) for value in values]


def _java(values: list[object], dtype: pa.DataType) -> list[object]:
    cls = java_class(dtype)
    if cls is None:
        return values
    # Strings and booleans stay as they are; NULL stays NULL.
    return [cls(value) if type(value) in (int, float) else value for value in values]


class _Read:
    """One identifier's values and keys over a batch."""

    __slots__ = ("keys", "values")

    def __init__(self, values: list[object], keys: list[object]) -> None:
        self.values = values
        self.keys = keys


def _read_column(datum: pa.Array, java: bool, joins_keys: bool = False) -> _Read:
    values = datum.to_pylist()
    if joins_keys:
        values = [join_keys(value) for value in values]
        return _Read(values, values)
    keys = _keys_of(datum, values)
    return _Read(_java(values, datum.type) if java else values, keys)


def _read(name: str, batch: pa.RecordBatch, layout: Layout, java: bool) -> _Read:
    """The values of identifier `name` as `message_dicts` gives them (None: NULL)."""
    names = batch.schema.names
    source = resolve(name, names, layout)
    if source.column is not None:
        return _read_column(batch.column(names.index(source.column)), java)
    count = batch.num_rows
    found: _Read | None = None
    has_key: list[bool] | None = None
    if source.map_column is not None:
        column = batch.column(names.index(source.map_column))
        key = pa.scalar(name, column.type.key_type)
        found = _read_column(pc.map_lookup(column, key, "last"), java)
        if source.fallback_column is not None:
            has_key = pc.is_valid(pc.map_lookup(column, key, "all")).to_pylist()
    if source.fallback_column is None:
        return found if found is not None else _Read([None] * count, [None] * count)
    other = _read_column(
        batch.column(names.index(source.fallback_column)), java,
        joins_keys=name == KEYS_PROPERTY,
    )
    if found is None or has_key is None:
        return other
    # The map wins where it has the key at all (tables.Source); the key says which.
    return _Read(
        [a if h else b for h, a, b in zip(has_key, found.values, other.values, strict=True)],
        [(0, a) if h else (1, b) for h, a, b in zip(has_key, found.keys, other.keys,
                                                     strict=True)],
    )


def evaluate_distinct(f: Filter, batch: pa.RecordBatch, layout: Layout) -> pa.BooleanArray:
    """`f.evaluate` of each row's message (its identifiers' values), computed once per
    distinct tuple of those values."""
    names = sorted(f.identifiers)
    java = f.model in JAVA_TYPED
    reads = [_read(name, batch, layout, java) for name in names]
    evaluate: Callable[[Any], bool | None] = f.evaluate
    if not reads:
        return pa.repeat(pa.scalar(evaluate({}), pa.bool_()), batch.num_rows)
    answers: dict[object, object] = {}
    out: list[bool | None] = []
    values = [r.values for r in reads]
    for row, key in enumerate(zip(*[r.keys for r in reads], strict=True)):
        found = answers.get(key, _MISSING)
        if found is _MISSING:
            message = {name: column[row] for name, column in zip(names, values, strict=True)}
            found = answers[key] = evaluate(message)
        out.append(found)  # type: ignore[arg-type]
    return pa.array(out, pa.bool_())
