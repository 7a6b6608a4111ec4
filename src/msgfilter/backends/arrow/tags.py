"""Tag filters as kernels over a whole table: RocketMQ's tag set against `TAGS`, Pulsar's
anytag / alltag against the string values of the `tag*` properties (the rules of
`msgfilter.tags`, read where `msgfilter.layout.Layout` says). A tag check has no UNKNOWN:
the answer is TRUE or FALSE in every row."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...filter import Filter
from ...layout import STRING, Layout
from ...message import TAGS_PROPERTY
from ...semantics.model import ValueModel
from ...tags.pulsar import PulsarTagFilter
from ...tags.rocketmq import RocketMQTagFilter
from .columns import check_layout, decomposer, resolver
from .compiler import Unsupported
from .parts import Datum

Plan: TypeAlias = Callable[[Any], pa.BooleanArray]


def _constant(value: bool) -> Plan:
    return lambda data: pa.repeat(pa.scalar(value, pa.bool_()), data.num_rows)


def _array(datum: Datum) -> pa.Array:
    return datum.combine_chunks() if isinstance(datum, pa.ChunkedArray) else datum


def _is_in(strings: Datum, values: list[str]) -> Datum:
    """TRUE where the string is one of `values`, FALSE elsewhere (NULL included)."""
    return pc.fill_null(pc.is_in(strings, value_set=pa.array(values, strings.type)), False)


def rocketmq_plan(f: RocketMQTagFilter, schema: pa.Schema, layout: Layout) -> Plan:
    """The client's re-check: TAGS is a string and one of the subscribed tags."""
    if f.subscribe_all:
        return _constant(True)
    if not f.tags:
        return _constant(False)
    read = resolver(TAGS_PROPERTY, schema, layout)
    tags = sorted(f.tags)

    def plan(data: Any) -> pa.BooleanArray:
        strings = read(data).get(STRING)
        if strings is None:  # TAGS is never a string in this table
            return pa.repeat(pa.scalar(False, pa.bool_()), data.num_rows)
        if isinstance(strings, pa.Scalar):  # pragma: no cover - columns are arrays
            strings = pa.repeat(strings, data.num_rows)
        return _array(_is_in(strings, tags))

    return plan


def _as_list(column: pa.Array) -> pa.Array:
    """A map array as the list of key-value structs it is laid out as: the list kernels
    (flatten, parent indices) have no map kernels."""
    entries = pa.struct([column.type.key_field, column.type.item_field])
    return column.view(pa.list_(pa.field("entries", entries, nullable=False)))


def string_part(datum: Datum) -> Datum | None:
    """The values of `datum` that are strings (NULL elsewhere); None when none can be."""
    return decomposer(datum.type)(datum).get(STRING)


def pulsar_plan(f: PulsarTagFilter, schema: pa.Schema, layout: Layout) -> Plan:
    """A message's tags are the string values of its properties whose key starts with
    `tag`: the map entries of such keys (the last of a repeated key) not shadowed by a
    top-level column of that name, and the top-level columns of such names."""
    if not (f.any_tags or f.all_tags):
        return _constant(True)
    prefix = f.reads_prefix
    typed = [name for name in layout.typed_columns(schema.names) if name.startswith(prefix)]
    columns = [schema.names.index(name) for name in typed]
    props = layout.properties_column
    map_index = schema.names.index(props) if props is not None and props in schema.names else None
    shadowed = pa.array(typed, pa.string())

    def map_entries(data: Any) -> tuple[pa.Array, pa.Array] | None:
        """(row of each tag entry, its string value) of the map's `tag*` entries."""
        column = _as_list(_array(data.column(map_index)))
        entries = pc.list_flatten(column)
        values = string_part(entries.field(1))
        if values is None:
            return None
        keys = entries.field(0)
        rows = pc.list_parent_indices(column)
        keep = pc.starts_with(keys, prefix)
        if typed:
            keep = pc.and_(keep, pc.invert(pc.is_in(keys, value_set=shadowed.cast(keys.type))))
        # A NULL value stays: as the last entry of a repeated key it hides the others.
        table = pa.table({"row": rows, "key": keys, "at": pa.array(np.arange(len(keys)))})
        table = table.filter(keep)
        # A repeated key: the last entry is the property's value (Layout rule 2).
        last = table.group_by(["row", "key"], use_threads=False).aggregate([("at", "max")])
        if last.num_rows < table.num_rows:
            table = table.filter(pc.is_in(table["at"], value_set=last["at_max"]))
        return _array(table["row"]), _array(pc.take(values, table["at"]))

    def plan(data: Any) -> pa.BooleanArray:
        entries = map_entries(data) if map_index is not None else None
        strings = [string_part(data.column(i)) for i in columns]
        return pulsar_answer(f, data.num_rows, entries, strings)

    return plan


def pulsar_answer(
    f: PulsarTagFilter,
    count: int,
    entries: tuple[pa.Array, pa.Array] | None,
    strings: list[Datum | None],
) -> pa.BooleanArray:
    """The filter's answer for `count` messages from their tags: `entries`, the row of
    each tag found in a map and its text, and `strings`, columns holding one tag (or
    NULL, or None for a column holding no strings) per row."""
    wanted = [sorted(f.any_tags)] if f.any_tags else []
    wanted.extend([tag] for tag in sorted(f.all_tags))
    every = pa.array(np.arange(count))
    answer: Datum = pa.scalar(True, pa.bool_())
    for values in wanted:
        found: Datum = pa.scalar(False, pa.bool_())
        if entries is not None:
            rows, texts = entries
            hits = pc.filter(rows, _is_in(texts, values))
            found = pc.is_in(every, value_set=hits.cast(every.type))
        for column in strings:
            if column is not None:
                found = pc.or_(found, _is_in(column, values))
        answer = pc.and_(answer, found)
    if isinstance(answer, pa.Scalar):
        return pa.repeat(answer, count)
    return _array(answer)


def compile_tags(f: Filter, schema: pa.Schema, layout: Layout) -> Plan:
    """A tag filter as a plan over tables of `schema`: a BooleanArray without nulls.
    Raises LayoutError for a properties column that is no map keyed by strings, and
    Unsupported for a filter that is no tag filter."""
    check_layout(schema, layout)
    if isinstance(f, RocketMQTagFilter):
        return rocketmq_plan(f, schema, layout)
    if isinstance(f, PulsarTagFilter):
        return pulsar_plan(f, schema, layout)
    raise Unsupported(f"{f!r} is no tag filter")


#: The tag value models these kernels evaluate.
TAG_MODELS: frozenset[ValueModel] = frozenset({ValueModel.ROCKETMQ_TAG, ValueModel.PULSAR_TAG})
