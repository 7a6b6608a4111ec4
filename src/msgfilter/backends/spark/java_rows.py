"""Rows as the `activemq` dialect must see them in Python: each number with the Java
class of its column's type (int8 a Byte, int32 an Integer, float32 a Float, ...), as
the native lowering reads it (activemq_values.java_typed). A plain Python int would be
a Long to the dialect and a float a Double, losing the class the column gives."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from ...jtypes import Byte, Double, Float, Int, Long, Short
from ...tables import DEFAULT_LAYOUT, Layout

_CLASSES: tuple[tuple[Any, type], ...] = (
    (pa.int8(), Byte), (pa.int16(), Short), (pa.int32(), Int), (pa.int64(), Long),
    (pa.float32(), Float), (pa.float64(), Double),
)


def java_class(dtype: pa.DataType) -> type | None:
    """The Java class of an Arrow number type's values (None: not a Java number)."""
    for arrow_type, cls in _CLASSES:
        if dtype == arrow_type:
            return cls
    return None


def java_messages(
    messages: list[dict[str, object]], rows_type: pa.StructType,
    layout: Layout = DEFAULT_LAYOUT,
) -> list[dict[str, object]]:
    """`messages` (fallback.message_dicts of rows of `rows_type`) with every plain number
    wrapped in the Java class of the column it came from: the top-level column of its
    name, else the properties map's value type."""
    fields = {rows_type.field(i).name: rows_type.field(i).type
              for i in reversed(range(rows_type.num_fields))}
    typed = {name: java_class(fields[name]) for name in layout.typed_columns(fields)}
    props = fields.get(layout.properties_column) if layout.properties_column else None
    in_map = java_class(props.item_type) if props is not None and pa.types.is_map(props) else None
    for message in messages:
        for name, value in message.items():
            cls = typed.get(name, in_map)
            # Strings (tags, keys, string columns) and booleans stay as they are.
            if cls is not None and type(value) in (int, float):
                message[name] = cls(value)
    return messages
