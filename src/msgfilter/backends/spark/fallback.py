"""What runs in Python, batch by batch in Arrow UDFs (never row by row through Spark):
Java's text of a double, and the whole filter by `Filter.evaluate` on each row's message
where no native lowering exists."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ...filter import Filter
from ...message import KEYS_PROPERTY, TAGS_PROPERTY
from ...semantics.model import JAVA_TYPED, ValueModel
from ...tables import DEFAULT_LAYOUT, Layout, join_keys
from ...tags.pulsar import PulsarTagFilter
from ..arrow.values import double_text as arrow_double_text
from .errors import NotNativeError
from .java_rows import java_messages
from .schema import Schema, column_ref


def double_text_batch(values: pa.Array) -> pa.Array:
    """Java's Double.toString of each double (J31), once per distinct value: the Arrow
    backend's rule, as the UDF's string type."""
    return pc.cast(arrow_double_text(values), pa.string())


_double_text: Any = None


def _arrow_udf(function: Callable[[pa.Array], pa.Array], return_type: T.DataType) -> Any:
    # New in pyspark 4.1 (and missing from its type stubs); native Columns need no UDF.
    make = getattr(F, "arrow_udf", None)
    if make is None:  # pragma: no cover - depends on the installed pyspark
        raise NotNativeError(
            "this filter needs Python per row, which msgfilter runs in an Arrow UDF: "
            "that needs pyspark 4.1 or later"
        )
    return make(function, return_type)


def double_text_udf() -> Any:
    """The Arrow UDF writing doubles as Java does (built once)."""
    global _double_text
    if _double_text is None:

        def double_text(values: pa.Array) -> pa.Array:
            return double_text_batch(values)

        _double_text = _arrow_udf(double_text, T.StringType())
    return _double_text


def evaluate_batch(f: Filter, layout: Layout, rows: Any) -> pa.Array:
    """`f.evaluate` of each row of a struct array whose fields are the frame's columns
    (by their names): the rows seen as messages by the layout's rules."""
    if isinstance(rows, pa.ChunkedArray):
        rows = rows.combine_chunks()
    messages = message_dicts(rows, layout)
    if f.model in JAVA_TYPED:
        messages = java_messages(messages, rows.type, layout)
    return pa.array([f.evaluate(m) for m in messages], pa.bool_())


def message_dicts(rows: Any, layout: Layout = DEFAULT_LAYOUT) -> list[dict[str, object]]:
    """Each row of a struct array (fields named as the frame's columns) as the message
    mapping the layout describes: map entries, overridden by top-level columns, then
    TAGS and KEYS from the tags and keys columns where neither provides them.

    Plain dicts (the per-message backend's fastest input); values of no selector type
    stay as pyarrow gives them (datetime, Decimal, bytes, list, ...), which every
    dialect treats as it treats `msgfilter.arrow.Opaque`.
    """
    names = [rows.type.field(i).name for i in range(rows.type.num_fields)]
    columns = dict(zip(names, rows.flatten(), strict=True))
    count = len(rows)
    out: list[dict[str, object]]
    props = columns.get(layout.properties_column) if layout.properties_column else None
    if props is not None and pa.types.is_map(props.type):
        keys, items = props.keys.to_pylist(), props.items.to_pylist()
        offsets, valid = props.offsets.to_pylist(), props.is_valid().to_pylist()
        out = [
            dict(zip(keys[offsets[r]:offsets[r + 1]], items[offsets[r]:offsets[r + 1]],
                     strict=True)) if valid[r] else {}
            for r in range(count)
        ]
    else:
        out = [{} for _ in range(count)]
    for name in layout.typed_columns(columns):
        for message, value in zip(out, columns[name].to_pylist(), strict=True):
            message[name] = value
    for name in (TAGS_PROPERTY, KEYS_PROPERTY):
        source = layout.fallback_column(name)
        column = columns.get(source) if source else None
        if column is None:
            continue
        values = column.to_pylist()
        if name == KEYS_PROPERTY:
            values = [join_keys(value) for value in values]
        for message, value in zip(out, values, strict=True):
            if value is not None:
                message.setdefault(name, value)
    return out


def _udf_inputs(f: Filter, schema: Schema) -> list[str]:
    """The top-level columns the per-message UDF needs to build each row's message."""
    layout = schema.layout
    own = [layout.properties_column, layout.tags_column, layout.keys_column]
    wanted = [c for c in own if c is not None and c in schema.fields]
    # A Pulsar tag filter reads every property whose name has its prefix.
    prefix = PulsarTagFilter.reads_prefix if f.model is ValueModel.PULSAR_TAG else None
    for name in schema.typed_names():
        if name in f.identifiers or (prefix is not None and name.startswith(prefix)):
            wanted.append(name)
    return list(dict.fromkeys(wanted))


def udf_column(f: Filter, schema: T.StructType, layout: Layout = DEFAULT_LAYOUT) -> Column:
    """A boolean Column computing `f.evaluate(message)` per row in an Arrow UDF, each row
    seen as a message by the layout's rules (the same answers as the native Column)."""
    resolved = Schema(schema, layout)
    names = _udf_inputs(f, resolved)
    packed = (
        F.struct(*[column_ref(c).alias(c) for c in names]) if names
        # A UDF needs an input; one with no column the layout could read.
        else F.struct(F.lit(0).alias("#"))
    )
    evaluate = _arrow_udf(_make_evaluator(f, layout), T.BooleanType())
    return evaluate(packed)  # type: ignore[no-any-return]


def _make_evaluator(f: Filter, layout: Layout) -> Callable[[pa.Array], pa.Array]:
    # A closure: cloudpickle ships the filter (as its text, rebuilt through the compile
    # cache on the executor) and the layout with it.
    def evaluate_rows(rows: pa.Array) -> pa.Array:
        return evaluate_batch(f, layout, rows)

    return evaluate_rows
