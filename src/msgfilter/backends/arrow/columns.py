"""Reading columns: an Arrow type split into parts by the type classes of
`msgfilter.layout`, and each identifier read where `tables.resolve` says."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeAlias

import pyarrow as pa
import pyarrow.compute as pc

from ... import layout as tables
from ...layout import LONG_MAX, NULL, OTHER, STRING, Conversion, Layout
from .map_entries import MapEntries
from .parts import NULL_BOOL, PART_TYPES, TRUE, Datum, Parts, as_large_string, masked, merge

#: How the value of one identifier is read from a Table or RecordBatch.
Reader: TypeAlias = Callable[[Any], Parts]
#: A batch's map column (by index) grouped by key (`map_entries`), for a reader of many keys.
Maps: TypeAlias = Callable[[Any, int], MapEntries]


def conversion(dtype: pa.DataType) -> Conversion:
    """The type class of a plain (not encoded) Arrow type."""
    t = pa.types
    if t.is_int64(dtype):
        return tables.INT64
    if t.is_uint64(dtype):
        return tables.UINT64
    if t.is_integer(dtype):
        return tables.INTEGER
    if t.is_float64(dtype):
        return tables.FLOAT64
    if t.is_floating(dtype):
        return tables.FLOAT
    if t.is_string(dtype) or t.is_large_string(dtype):
        return tables.TEXT
    if t.is_boolean(dtype):
        return tables.BOOL
    if t.is_null(dtype):
        return tables.VOID
    return tables.OPAQUE


@functools.lru_cache(maxsize=1024)
def decomposer(dtype: pa.DataType) -> Callable[[Datum], Parts]:
    """The function that splits a column of type `dtype` into parts (the type table
    of docs/arrow.md). Cached: plans are built per schema, and a schema's types recur."""
    t = pa.types
    # Encodings first: their values are those of the type they encode.
    if t.is_string_view(dtype):
        return lambda d: {STRING: pc.cast(d, pa.large_string())}
    found = decoded(dtype, decomposer)
    if found is not None:
        return found
    if t.is_union(dtype):
        return functools.partial(_union_parts, dtype)
    rule = conversion(dtype)
    kind = rule.kind
    if kind == NULL:
        return lambda d: {}
    if kind == OTHER:
        return _other
    if rule.long_range:
        return _uint64_parts
    if rule.widen:
        target = PART_TYPES[kind]
        return lambda d: {kind: pc.cast(d, target)}
    return lambda d: {kind: d}


def decoded(
    dtype: pa.DataType, split: Callable[[pa.DataType], Callable[[Datum], Parts]]
) -> Callable[[Datum], Parts] | None:
    """For a dictionary or run-end encoded type: its values decoded, then split by
    `split` as the type they encode; None for any other type."""
    if pa.types.is_dictionary(dtype):
        inner = split(dtype.value_type)
        return lambda d: inner(pc.cast(d, dtype.value_type))
    if pa.types.is_run_end_encoded(dtype):
        values = split(dtype.value_type)
        return lambda d: values(pc.run_end_decode(d))
    return None


def _other(datum: Datum) -> Parts:
    return {OTHER: pc.if_else(pc.is_valid(datum), TRUE, NULL_BOOL)}


def _uint64_parts(datum: Datum) -> Parts:
    # Values above Long.MAX_VALUE are no Java long: no selector type (documented).
    big = pc.greater(datum, pa.scalar(LONG_MAX, pa.uint64()))
    small = pc.if_else(big, pa.scalar(None, pa.uint64()), datum)
    return {
        tables.LONG: pc.cast(small, pa.int64()),
        OTHER: pc.if_else(big, TRUE, NULL_BOOL),
    }


def _union_parts(dtype: pa.DataType, datum: Datum) -> Parts:
    array = datum.combine_chunks() if isinstance(datum, pa.ChunkedArray) else datum
    if isinstance(array, pa.Scalar):  # pragma: no cover - columns are never scalars
        array = pa.array([array.as_py()], dtype)
    length, offset = len(array), array.offset
    buffers = array.buffers()
    # `type_codes` and `offsets` of a sliced union ignore the slice offset: read the
    # buffers ourselves.
    codes = pa.Array.from_buffers(pa.int8(), length, [None, buffers[1]], offset=offset)
    dense = dtype.mode == "dense"
    if dense:
        offsets = pa.Array.from_buffers(pa.int32(), length, [None, buffers[2]], offset=offset)
    pieces: list[Parts] = []
    for index, code in enumerate(dtype.type_codes):
        child = array.field(index)
        mask = pc.equal(codes, pa.scalar(code, pa.int8()))
        if dense:
            child = pc.take(child, pc.if_else(mask, offsets, pa.scalar(None, pa.int32())))
            parts = decomposer(child.type)(child)
        else:
            parts = masked(decomposer(child.type)(child), mask)
        pieces.append(parts)
    return merge(pieces)


def check_properties_type(column: str, dtype: pa.DataType) -> None:
    """LayoutError unless `dtype` is a map keyed by strings."""
    if not pa.types.is_map(dtype) or not (
        pa.types.is_string(dtype.key_type) or pa.types.is_large_string(dtype.key_type)
    ):
        raise tables.properties_type_error(column, str(dtype))


def keys_joiner(column: str, dtype: pa.DataType) -> Callable[[Datum], Datum] | None:
    """KEYS text from a keys column: a string as it is (None: nothing to do), a list of
    strings joined by spaces (NULL when the list is empty or holds a NULL); any other
    type is a LayoutError."""
    t = pa.types
    if t.is_string(dtype) or t.is_large_string(dtype):
        return None
    if t.is_list(dtype) or t.is_large_list(dtype):
        item = dtype.value_type
        if t.is_string(item) or t.is_large_string(item):

            def join(datum: Datum) -> Datum:
                joined = pc.binary_join(datum, pa.scalar(" ", item))
                empty = pc.equal(pc.list_value_length(datum), 0)
                return pc.if_else(empty, pa.scalar(None, joined.type), joined)

            return join
    raise tables.keys_type_error(column, str(dtype))


#: An Arrow type -> the function splitting its columns into parts (`decomposer`).
Splitter: TypeAlias = Callable[[pa.DataType], Callable[[Datum], Parts]]


def _column_reader(index: int, dtype: pa.DataType, splitter: Splitter = decomposer) -> Reader:
    split = splitter(dtype)
    return lambda data: split(data.column(index))


def _map_lookup(index: int, key: pa.Scalar, occurrence: str) -> Callable[[Any], Datum]:
    return lambda data: pc.map_lookup(data.column(index), key, occurrence)


def resolver(
    name: str, schema: pa.Schema, layout: Layout, splitter: Splitter = decomposer,
    maps: Maps | None = None,
) -> Reader:
    """How the value of identifier `name` is read from tables of `schema` (each type
    split into parts by `splitter`); from the properties map through `maps` where given
    (a caller reading many names of one batch), else by `pc.map_lookup`."""
    names = schema.names
    # The common case first, without building a Source: plans are built per schema.
    if tables.reads_column(name, names, layout):
        index = names.index(name)
        return _column_reader(index, schema.field(index).type, splitter)
    source = tables.resolve(name, names, layout)
    from_map = (
        None if source.map_column is None
        else _map_reader(name, schema, source.map_column, splitter, maps)
    )
    if source.fallback_column is None:
        return from_map if from_map is not None else (lambda data: {})
    index = names.index(source.fallback_column)
    dtype = schema.field(index).type
    joiner = keys_joiner(source.fallback_column, dtype) if source.joins_keys else None
    read_fallback: Reader
    if joiner is not None:
        split, join = decomposer(pa.large_string()), joiner
        read_fallback = lambda data: split(as_large_string(join(data.column(index))))  # noqa: E731
    else:
        read_fallback = _column_reader(index, dtype, splitter)
    if from_map is None or source.map_column is None:
        return read_fallback
    map_index = names.index(source.map_column)
    key = pa.scalar(name, schema.field(map_index).type.key_type)
    has_key = _map_lookup(map_index, key, "all")

    def read_either(data: Any) -> Parts:
        # The map wins where it has the key at all (tables.Source).
        found = pc.is_valid(has_key(data))
        return merge(
            (masked(from_map(data), found), masked(read_fallback(data), pc.invert(found)))
        )

    return read_either


def field_reader(
    field: str, schema: pa.Schema, layout: Layout, splitter: Splitter = decomposer
) -> Reader | None:
    """How AMQP field `field` is read from tables of `schema` (`tables.resolve_field`);
    None where no column holds it."""
    source = tables.resolve_field(field, schema.names, layout)
    if source.column is None:
        return None
    index = schema.names.index(source.column)
    return _column_reader(index, schema.field(index).type, splitter)


def _map_reader(
    name: str, schema: pa.Schema, column: str, splitter: Splitter = decomposer,
    maps: Maps | None = None,
) -> Reader:
    index = schema.names.index(column)
    dtype = schema.field(index).type
    check_properties_type(column, dtype)
    key = pa.scalar(name, dtype.key_type)
    lookup = _map_lookup(index, key, "last") if maps is None \
        else lambda data: maps(data, index).lookup(name)
    split = splitter(dtype.item_type)
    return lambda data: split(lookup(data))


def check_layout(schema: pa.Schema, layout: Layout) -> None:
    """LayoutError when the table's properties column is not a map keyed by strings."""
    column = layout.properties_column
    if column is not None and column in schema.names:
        check_properties_type(column, schema.field(schema.names.index(column)).type)

