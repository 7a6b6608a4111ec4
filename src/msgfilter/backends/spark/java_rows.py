"""Values as the `activemq` dialect must see them in Python: each number with the Java
class of its column's type (int8 a Byte, int32 an Integer, float32 a Float, ...), as
the native lowering reads it (activemq_values.java_typed). A plain Python int would be
a Long to the dialect and a float a Double, losing the class the column gives
(rowwise.py wraps the fallback's values by this table)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from ...java.types import Byte, Double, Float, Int, Long, Short

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
