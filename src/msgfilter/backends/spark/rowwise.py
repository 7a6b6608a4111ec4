"""The fallback's Python path, for what no kernel evaluates (the activemq value model,
selectors holding text no Arrow string can hold): `Filter.evaluate` once per distinct
combination of the values the selector reads in a batch, not once per row.

A selector's answer depends only on the values of its identifiers, so rows that read the
same values get the same answer: each batch is reduced to its distinct tuples of those
values (message archives repeat a few regions, tiers and priorities), each tuple is
evaluated as a message, and the answers are spread back over the rows. The grouping is
Arrow's (`dictionary_encode` of each identifier, the codes combined into one key per row),
so only one row per distinct tuple is ever turned into Python values. Equal codes mean
values no selector can tell apart: a double by its bits (-0.0 is not 0.0, a NaN is found
again), other values by Arrow's equality within their column's type, a TAGS or KEYS value
also by the column it came from (their Java classes may differ). Identifier values are
those `message_dicts` gives: the map entry, overridden by a top-level column, TAGS and
KEYS from their columns where the map lacks the key; in the Java-typed models (activemq,
artemis, qpid) each number is wrapped in the Java class of the column it came from
(java_rows.java_class).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ...filter import Filter
from ...layout import Layout, join_keys, resolve
from ...message import KEYS_PROPERTY
from ...semantics.model import JAVA_TYPED
from .java_rows import java_class

_PLAIN = (str, int, bool, type(None))
#: Above this many possible combined codes the key is compacted first (int64 headroom).
_COMPACT_AT = 1 << 40


def _java(values: list[object], dtype: pa.DataType) -> list[object]:
    cls = java_class(dtype)
    if cls is None:
        return values
    # Strings and booleans stay as they are; NULL stays NULL.
    return [cls(value) if type(value) in (int, float) else value for value in values]


def _encode(key: pa.Array) -> tuple[pa.Array, int]:
    """Each row's code (int64) in order of first appearance, and how many there are."""
    encoded = pc.dictionary_encode(key, null_encoding="encode")
    return pc.cast(encoded.indices, pa.int64()), len(encoded.dictionary)


def _python_codes(values: list[object]) -> tuple[pa.Array, int]:
    """Codes by a Python key, for the types Arrow cannot hash (lists, structs)."""
    seen: dict[object, int] = {}
    codes = [
        seen.setdefault(v if type(v) in _PLAIN else (type(v), repr(v)), len(seen))
        for v in values
    ]
    return pa.array(codes, pa.int64()), len(seen)


class _Ident:
    """One identifier over a batch: a code per row, and its values at chosen rows."""

    __slots__ = ("codes", "pick", "size")

    def __init__(self, codes: pa.Array, size: int,
                 pick: Callable[[pa.Array], list[object]]) -> None:
        self.codes = codes
        self.size = size
        self.pick = pick


def _column(datum: pa.Array, java: bool, joins_keys: bool = False) -> _Ident:
    if isinstance(datum, pa.DictionaryArray):
        datum = datum.dictionary_decode()
    if joins_keys:
        joined = [join_keys(value) for value in datum.to_pylist()]
        codes, size = _python_codes(joined)
        return _Ident(codes, size, lambda rows: [joined[r] for r in rows.to_pylist()])
    key = datum
    if pa.types.is_floating(datum.type):
        key = pc.cast(datum, pa.float64()).view(pa.int64())
    try:
        codes, size = _encode(key)
    except pa.ArrowNotImplementedError:
        codes, size = _python_codes(datum.to_pylist())

    def pick(rows: pa.Array) -> list[object]:
        values = pc.take(datum, rows).to_pylist()
        return _java(values, datum.type) if java else values

    return _Ident(codes, size, pick)


def _read(name: str, batch: pa.RecordBatch, layout: Layout, java: bool) -> _Ident:
    """Identifier `name` as `message_dicts` gives it (None: NULL)."""
    names = batch.schema.names
    source = resolve(name, names, layout)
    if source.column is not None:
        return _column(batch.column(names.index(source.column)), java)
    found: _Ident | None = None
    has_key: pa.Array | None = None
    if source.map_column is not None:
        column = batch.column(names.index(source.map_column))
        key = pa.scalar(name, column.type.key_type)
        found = _column(pc.map_lookup(column, key, "last"), java)
        if source.fallback_column is not None:
            has_key = pc.is_valid(pc.map_lookup(column, key, "all"))
    if source.fallback_column is None:
        if found is not None:
            return found
        return _Ident(pa.repeat(pa.scalar(0, pa.int64()), batch.num_rows), 1,
                      lambda rows: [None] * len(rows))
    other = _column(batch.column(names.index(source.fallback_column)), java,
                    joins_keys=name == KEYS_PROPERTY)
    if found is None or has_key is None:
        return other
    # The map wins where it has the key at all (tables.Source); the key says which.
    codes = pc.if_else(has_key, found.codes, pc.add(other.codes, found.size))
    chosen, a, b = has_key, found, other

    def pick(rows: pa.Array) -> list[object]:
        return [x if h else y for h, x, y in zip(
            pc.take(chosen, rows).to_pylist(), a.pick(rows), b.pick(rows), strict=True)]

    return _Ident(codes, found.size + other.size, pick)


def evaluate_distinct(f: Filter, batch: pa.RecordBatch, layout: Layout) -> pa.BooleanArray:
    """`f.evaluate` of each row's message (its identifiers' values), computed once per
    distinct tuple of those values."""
    names = sorted(f.identifiers)
    java = f.model in JAVA_TYPED
    reads = [_read(name, batch, layout, java) for name in names]
    evaluate: Callable[[Any], bool | None] = f.evaluate
    if not reads:
        return pa.repeat(pa.scalar(evaluate({}), pa.bool_()), batch.num_rows)
    key, size = reads[0].codes, reads[0].size
    for read in reads[1:]:
        if size * read.size >= _COMPACT_AT:
            key, size = _encode(key)
        key = pc.add(pc.multiply(key, read.size), read.codes)
        size *= read.size
    groups, count = _encode(key)
    # Codes number groups in order of first appearance: each group's first row.
    firsts = pc.index_in(pa.array(range(count), pa.int64()), value_set=groups)
    columns = [read.pick(firsts) for read in reads]
    answers = [
        evaluate(dict(zip(names, values, strict=True)))
        for values in zip(*columns, strict=True)
    ]
    return pc.take(pa.array(answers, pa.bool_()), groups)
