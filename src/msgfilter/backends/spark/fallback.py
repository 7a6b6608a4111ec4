"""What runs in Python, batch by batch in Arrow UDFs (never row by row through Spark):
Java's text of a double, and the whole filter where no native lowering exists.

A whole filter runs on each Arrow batch Spark hands the UDF (10,000 rows by default):
the batch's columns become a RecordBatch and the Arrow backend's plan for the filter
(its kernels, `backends/arrow`; tag filters by `backends/arrow/tags.py`) evaluates it
at once. Only what no kernel evaluates (the activemq value model; a selector holding a
lone surrogate) runs `Filter.evaluate`, once per distinct tuple of the values it reads
(rowwise.py), with each number in the Java class of its column."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ...filter import Filter
from ...layout import DEFAULT_LAYOUT, OTHER, Layout, join_keys, resolve
from ...message import AMQP_FIELDS_BY_NAME, KEYS_PROPERTY, TAGS_PROPERTY, Message
from ...selector import SelectorFilter
from ...semantics.model import ValueModel
from ...tags.pulsar import PulsarTagFilter
from ..arrow import Plan
from ..arrow.columns import conversion as arrow_conversion
from ..arrow.plans import plan_of
from ..arrow.tags import pulsar_answer, string_part
from ..arrow.values import double_text as arrow_double_text
from .errors import NotNativeError
from .rowwise import evaluate_distinct
from .schema import Schema, column_ref
from .tags import tag_sources


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


def _reads_opaque(f: Filter, schema: pa.Schema, layout: Layout) -> bool:
    """Whether an identifier of `f` may read a value of no selector type (a timestamp,
    a decimal, ...). The rocketmq kernels compare two such values as unlike types
    (docs/arrow.md) where `Filter.evaluate` compares the Python objects, so such a
    filter takes the Python path."""
    names = schema.names
    for name in f.identifiers:
        source = resolve(name, names, layout)
        types = []
        if source.column is not None:
            types.append(schema.field(names.index(source.column)).type)
        else:
            if source.map_column is not None:
                types.append(schema.field(names.index(source.map_column)).type.item_type)
            if source.fallback_column is not None and not source.joins_keys:
                types.append(schema.field(names.index(source.fallback_column)).type)
        if any(arrow_conversion(dtype).kind == OTHER for dtype in types):
            return True
    return False


def batch_plan(f: Filter, schema: pa.Schema, layout: Layout) -> Plan | None:
    """The Arrow backend's kernels for `f` on batches of `schema` (None: none exist for
    this filter, the Python path evaluates it), from the one plan cache
    (`backends.arrow.plans`): built once per worker and schema."""
    if f.model is ValueModel.ROCKETMQ and _reads_opaque(f, schema, layout):
        return None
    return plan_of(f, schema, layout)


def evaluate_batch(f: Filter, layout: Layout, rows: Any) -> pa.Array:
    """The filter's answer for each row of a struct array whose fields are the frame's
    columns (by their names), each row seen as a message by the layout's rules: the
    Arrow backend's kernels on the whole batch where they exist, else `f.evaluate` once
    per distinct tuple of the values the selector reads (rowwise.py)."""
    if isinstance(rows, pa.ChunkedArray):
        rows = rows.combine_chunks()
    batch = pa.RecordBatch.from_struct_array(rows)
    plan = batch_plan(f, batch.schema, layout)
    if plan is not None:
        try:
            return plan(batch)
        except (pa.ArrowException, ArithmeticError, TypeError, ValueError):
            # A kernel failed on this data (msgfilter.arrow warns there): the Python
            # path below gives the same answers, slowly.
            pass
    if isinstance(f, SelectorFilter):
        return evaluate_distinct(f, batch, layout)
    # A tag filter on a table its kernels do not read: one message per row.
    messages = message_dicts(rows, layout)
    return pa.array([f.evaluate(m) for m in messages], pa.bool_())


def message_dicts(rows: Any, layout: Layout = DEFAULT_LAYOUT) -> list[Any]:
    """Each row of a struct array (fields named as the frame's columns) as the message
    mapping the layout describes: map entries, overridden by top-level columns, then
    TAGS and KEYS from the tags and keys columns where neither provides them.

    Plain dicts (the per-message backend's fastest input), or `Message`s whose headers
    are the AMQP fields where the batch has their columns; values of no selector type
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
    fields = layout.field_columns(columns)
    if not fields:
        return out
    # AMQP fields are the messages' headers (msgfilter.layout): no plain dict holds them.
    heads: list[dict[str, object]] = [{} for _ in range(count)]
    for column_name, spec in fields:
        for head, value in zip(heads, columns[column_name].to_pylist(), strict=True):
            if value is not None:
                head[spec] = value
    return [Message(props, head) for props, head in zip(out, heads, strict=True)]


def _udf_inputs(f: Filter, schema: Schema) -> list[str]:
    """The top-level columns the per-message UDF needs to build each row's message."""
    layout = schema.layout
    own = [layout.properties_column, layout.tags_column, layout.keys_column]
    wanted = [c for c in own if c is not None and c in schema.fields]
    wanted.extend(name for name in schema.typed_names() if name in f.identifiers)
    wanted.extend(c for c, _ in layout.field_columns(schema.names) if c in f.identifiers)
    return list(dict.fromkeys(wanted))


#: The names the looked-up inputs travel under: no identifier of any dialect holds `#`.
_PROPS, _TAGS, _KEYS = "#properties", "#tags", "#keys"
#: How the UDF reads looked-up inputs: each identifier's column under its own name, TAGS
#: and KEYS from a map of those entries where the frame's map has them, else from their
#: columns (the Layout rules, applied before the UDF).
LOOKED_UP = Layout(properties_column=_PROPS, typed=True, tags_column=_TAGS, keys_column=_KEYS)


def _looked_up(f: Filter, schema: Schema) -> list[Column] | None:
    """The inputs of `f` as the values of its identifiers, looked up in Spark: a map
    travels to Python (converted to Arrow entry by entry) only for the TAGS / KEYS
    entries. None when a name could collide with the inputs' own names."""
    if any(name.startswith("#") or name in AMQP_FIELDS_BY_NAME for name in f.identifiers):
        # An AMQP field's name is also that of an application property (`[p.subject]`
        # names one): both travel whole (`_udf_inputs`).
        return None
    props = schema.props[0] if schema.props is not None else None
    inputs: list[Column] = []
    entries: list[str] = []
    for name in sorted(f.identifiers):
        source = resolve(name, schema.names, schema.layout)
        if source.column is not None:
            inputs.append(column_ref(source.column).alias(name))
        elif source.fallback_column is None:
            if props is not None:
                inputs.append(F.try_element_at(column_ref(props), F.lit(name)).alias(name))
        else:
            own = _TAGS if source.fallback_column == schema.layout.tags_column else _KEYS
            column = column_ref(source.fallback_column)
            plain = own == _TAGS and _plain_strings(schema, source.fallback_column)
            if props is not None and plain:
                # One string column, the map's entry where the map has the key (a NULL
                # value hides the column, as a missing TAGS does), else the tags column:
                # a one-entry map per row costs Spark far more than the kernel's work.
                key = F.lit(name)
                has = F.map_contains_key(column_ref(props), key)
                entry = F.try_element_at(column_ref(props), key)
                inputs.append(F.when(has, entry).otherwise(column).alias(own))
                continue
            inputs.append(column.alias(own))
            if props is not None:
                entries.append(name)
    if len(entries) == 1:
        # The entry where the map has the key at all (a NULL value hides the column).
        key = F.lit(entries[0])
        has = F.map_contains_key(column_ref(props), key)  # type: ignore[arg-type]
        entry = F.create_map(key, F.try_element_at(column_ref(props), key))  # type: ignore[arg-type]
        inputs.append(F.when(has, entry).alias(_PROPS))
    elif entries:
        inputs.append(column_ref(props).alias(_PROPS))  # type: ignore[arg-type]
    return inputs


def _plain_strings(schema: Schema, column: str) -> bool:
    """Whether the map's values and `column` are both strings (then one merged string
    column carries exactly what the map entry or the column would)."""
    return (
        schema.props is not None
        and isinstance(schema.props[1].valueType, T.StringType)
        and isinstance(schema.fields.get(column), T.StringType)
    )


def udf_column(f: Filter, schema: T.StructType, layout: Layout = DEFAULT_LAYOUT) -> Column:
    """A boolean Column computing the filter in an Arrow UDF (`evaluate_batch` on each
    batch), each row seen as a message by the layout's rules: the same answers as
    `f.evaluate` and the native Column. The values of the identifiers are looked up in
    Spark where the filter names them (`_looked_up`); a Pulsar tag filter gets the tags
    (`_tag_inputs`)."""
    resolved = Schema(schema, layout)
    evaluator: Callable[[pa.Array], pa.Array]
    if isinstance(f, PulsarTagFilter):
        inputs = _tag_inputs(f, resolved)
        evaluator = _make_tag_evaluator(f)
    else:
        looked_up = _looked_up(f, resolved)
        if looked_up is None:
            inputs = [column_ref(c).alias(c) for c in _udf_inputs(f, resolved)]
        else:
            inputs, layout = looked_up, LOOKED_UP
        evaluator = _make_evaluator(f, layout)
    # A UDF needs an input; one with no column the layout could read.
    packed = F.struct(*inputs) if inputs else F.struct(F.lit(0).alias("#"))
    return _arrow_udf(evaluator, T.BooleanType())(packed)  # type: ignore[no-any-return]


#: The input holding a Pulsar tag filter's tags from the properties map.
_TAG_VALUES = "#tag-values"


def _tag_inputs(f: PulsarTagFilter, schema: Schema) -> list[Column]:
    """A Pulsar tag filter's inputs, its message tags as the Layout rules give them: the
    string columns whose name has the prefix, each under its name, and the values of the
    map's entries whose key has the prefix and names no column, one array per row.

    Only those values travel, not the map: each map entry costs Spark a conversion to
    Arrow, and `map_filter` has no generated code; `filter` and `transform` over the
    entries do. Every entry of a repeated key counts, as in the native Column."""
    tags = tag_sources(f, schema)
    inputs = [column_ref(name).alias(name) for name in tags.columns]
    if tags.props is not None:

        def is_tag(entry: Column) -> Column:
            return tags.is_tag_key(entry["key"]) & entry["value"].isNotNull()

        found = F.filter(F.map_entries(column_ref(tags.props[0])), is_tag)
        inputs.append(F.transform(found, lambda entry: entry["value"]).alias(_TAG_VALUES))
    return inputs


def tag_batch(f: PulsarTagFilter, rows: Any) -> pa.Array:
    """The Pulsar tag filter's answer for each row of a struct array of `_tag_inputs`."""
    if isinstance(rows, pa.ChunkedArray):
        rows = rows.combine_chunks()
    entries = None
    strings = []
    for field, column in zip(rows.type, rows.flatten(), strict=True):
        if field.name == _TAG_VALUES:
            entries = (pc.list_parent_indices(column), pc.list_flatten(column))
        elif field.name != "#":
            strings.append(string_part(column))
    return pulsar_answer(f, len(rows), entries, strings)


def _make_tag_evaluator(f: PulsarTagFilter) -> Callable[[pa.Array], pa.Array]:
    def evaluate_tags(rows: pa.Array) -> pa.Array:
        return tag_batch(f, rows)

    return evaluate_tags


def _make_evaluator(f: Filter, layout: Layout) -> Callable[[pa.Array], pa.Array]:
    # A closure: cloudpickle ships the filter (as its text, rebuilt through the compile
    # cache on the executor) and the layout with it.
    def evaluate_rows(rows: pa.Array) -> pa.Array:
        return evaluate_batch(f, layout, rows)

    return evaluate_rows
