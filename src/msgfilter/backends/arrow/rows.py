"""Rows as the per-message backend sees them, for the row-by-row path and `messages()`:
Python values of the selector types the plan gives each column, and each row's
(properties, tag, keys) and AMQP fields by the layout's rules."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ...layout import DEFAULT_LAYOUT, OTHER, Layout, Opaque
from ...message import Message
from .columns import check_properties_type, decomposer, keys_joiner
from .parts import Datum


def python_values(datum: Datum) -> list[object]:
    """The values of a column as Python objects with the selector types the plan gives
    them: str, int, float, bool, None, or Opaque for a value of no selector type."""
    parts = decomposer(datum.type)(datum)
    columns = {k: d.to_pylist() for k, d in parts.items()}
    raw = datum.to_pylist() if OTHER in parts else None
    out: list[object] = []
    for row in range(len(datum)):
        value: object = None
        for kind, column in columns.items():
            if column[row] is not None:
                value = Opaque(raw[row]) if kind == OTHER else column[row]  # type: ignore[index]
                break
        out.append(value)
    return out


def _map_rows(datum: Datum, wanted: frozenset[str] | None) -> list[dict[str, object]]:
    chunks = datum.chunks if isinstance(datum, pa.ChunkedArray) else [datum]
    rows: list[dict[str, object]] = []
    for chunk in chunks:
        keys = chunk.keys.to_pylist()
        items = python_values(chunk.items)
        offsets = chunk.offsets.to_pylist()
        valid = chunk.is_valid().to_pylist()
        for row in range(len(chunk)):
            entries: dict[str, object] = {}
            if valid[row]:
                for at in range(offsets[row], offsets[row + 1]):
                    key = keys[at]
                    if wanted is None or key in wanted:
                        entries[key] = items[at]
            rows.append(entries)
    return rows


def message_rows(
    data: Any, layout: Layout = DEFAULT_LAYOUT, names: Iterable[str] | None = None
) -> list[tuple[dict[str, object], object, tuple[str, ...]]]:
    """(properties, tag, keys) of each row, by the layout's rules (see Layout)."""
    schema = data.schema
    wanted = None if names is None else frozenset(names)
    rows: list[dict[str, object]] = [{} for _ in range(data.num_rows)]
    column = layout.properties_column
    if column is not None and column in schema.names:
        index = schema.names.index(column)
        check_properties_type(column, schema.field(index).type)
        rows = _map_rows(data.column(index), wanted)
    # A typed column wins over the map entry of its name (each column's first occurrence).
    for name in layout.typed_columns(schema.names):
        if wanted is not None and name not in wanted:
            continue
        values = python_values(data.column(schema.names.index(name)))
        for row, value in zip(rows, values, strict=True):
            row[name] = value
    tags: list[object] = [None] * data.num_rows
    if layout.tags_column is not None and layout.tags_column in schema.names:
        tags = python_values(data.column(schema.names.index(layout.tags_column)))
    keys: list[tuple[str, ...]] = [()] * data.num_rows
    if layout.keys_column is not None and layout.keys_column in schema.names:
        keys_datum = data.column(schema.names.index(layout.keys_column))
        joiner = keys_joiner(layout.keys_column, keys_datum.type)
        texts = python_values(keys_datum if joiner is None else joiner(keys_datum))
        keys = [() if text is None else (text,) for text in texts]  # type: ignore[misc]
    return list(zip(rows, tags, keys, strict=True))


def field_rows(
    data: Any, layout: Layout = DEFAULT_LAYOUT, names: Iterable[str] | None = None
) -> list[dict[str, object]] | None:
    """Each row's AMQP header and properties fields by their spec names (a message's
    `headers`), from the columns of their qualified names (`Layout`); None when the
    table has no such column (of `names`, the qualified names wanted)."""
    wanted = None if names is None else frozenset(names)
    columns = [
        (column, spec) for column, spec in layout.field_columns(data.schema.names)
        if wanted is None or column in wanted
    ]
    if not columns:
        return None
    rows: list[dict[str, object]] = [{} for _ in range(data.num_rows)]
    for column, spec in columns:
        values = python_values(data.column(data.schema.names.index(column)))
        for row, value in zip(rows, values, strict=True):
            if value is not None:
                row[spec] = value
    return rows


def row_messages(
    data: Any, layout: Layout = DEFAULT_LAYOUT, names: Iterable[str] | None = None
) -> list[Message]:
    """Each row as the `Message` the per-message backend is given (properties, AMQP
    fields as headers, tag, keys): `msgfilter.arrow.messages`."""
    rows = message_rows(data, layout, names)
    found = field_rows(data, layout, names)
    fields: list[dict[str, object] | None] = [None] * len(rows) if found is None else [*found]
    return [
        Message(properties, headers, tags=tag, keys=keys)  # type: ignore[arg-type]
        for (properties, tag, keys), headers in zip(rows, fields, strict=True)
    ]


def answer_marked(
    result: pa.BooleanArray, marks: list[Datum], data: Any, layout: Layout,
    evaluate: Callable[[Any], bool | None],
) -> pa.BooleanArray:
    """`result` with the rows `marks` flag (those a kernel could not answer exactly)
    answered by `evaluate` (the per-message evaluator) on each row's message."""
    mask = pc.fill_null(functools.reduce(pc.or_kleene, marks), False)
    if isinstance(mask, pa.Scalar):
        mask = pa.repeat(mask, data.num_rows)
    elif isinstance(mask, pa.ChunkedArray):
        mask = mask.combine_chunks()
    if not pc.any(mask).as_py():
        return result
    rows = data.filter(mask)
    answers = pa.array([evaluate(m) for m in row_messages(rows, layout)], pa.bool_())
    return pc.replace_with_mask(result, mask, answers)
