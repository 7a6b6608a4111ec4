"""AMQP property filters (`msgfilter.amqp.PropertyFilter`, RabbitMQ 4.1+) as native Columns:
each entry a condition on the value it reads, the filter their AND, never NULL.

Values are read as amqp-sql reads them (`amqp._typed`: application properties from their
columns or the map, properties fields from the columns of their qualified names); a
reference None is presence, `&p:` / `&s:` are `startswith` / `endswith` of a string
(Spark compares UTF-8 bytes, as RabbitMQ does), any other reference Erlang's `==`
(`amqp.compare`). A binary value or reference, a column type without a native rule, or
an integer reference beyond a long falls back (the Arrow UDF runs the Arrow kernels)."""

from __future__ import annotations

import operator
from collections.abc import Iterable
from functools import reduce

from pyspark.sql import Column
from pyspark.sql import functions as F

from ... import layout as tables
from ...amqp.properties import Affix, PropertyFilter
from ...filter import Filter
from ...layout import NULL, STRING
from .amqp import compare, typed_amqp
from .errors import Fallback
from .schema import Schema
from .values import V, const

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _text(value: bytes) -> str | None:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _entry(x: V, reference: object) -> Column:
    """The entry's condition on value `x`: TRUE or FALSE."""
    if x.kind == NULL:
        return F.lit(False)
    if reference is None:
        return x.col.isNotNull()
    if isinstance(reference, Affix):
        text = _text(reference.text)
        if x.kind != STRING or text is None:
            return F.lit(False)
        hit = x.col.startswith(text) if reference.prefix else x.col.endswith(text)
        return F.coalesce(hit, F.lit(False))
    if isinstance(reference, bytes):
        # A str reference is held as its UTF-8: it equals a string of that text only.
        text = _text(reference)
        if x.kind != STRING or text is None:
            return F.lit(False)
        return F.coalesce(x.col == F.lit(text), F.lit(False))
    if isinstance(reference, int) and not isinstance(reference, bool) and not (
        _LONG_MIN <= reference <= _LONG_MAX
    ):
        raise Fallback("a reference integer beyond a long")
    return F.coalesce(compare("=", x, const(reference)).col, F.lit(False))


def lower_properties(f: Filter, schema: Schema) -> Column:
    if not isinstance(f, PropertyFilter):  # pragma: no cover - the model says it is
        raise TypeError(f"{f!r} is no AMQP property filter")
    conditions: list[Column] = []
    for name, reference in f.properties:
        found = schema.resolve_field(name, typed_amqp)
        if found is None:
            return F.lit(False)  # no row has the field
        conditions.append(_entry(found, reference))
    for name, reference in f.application_properties:
        if tables.resolve(name, schema.names, schema.layout).fallback_column is not None:
            raise Fallback(f"{name} reads the layout's tags or keys column")
        conditions.append(_entry(schema.resolve(name, typed_amqp), reference))
    return reduce(operator.and_, conditions)


def property_texts(f: Filter) -> Iterable[str]:
    """The names and string references of a property filter (no lone surrogate may be
    among them in a Spark string)."""
    assert isinstance(f, PropertyFilter)
    for name, reference in (*f.properties, *f.application_properties):
        yield name
        if isinstance(reference, Affix):
            yield reference.text.decode("utf-8", "surrogatepass")
