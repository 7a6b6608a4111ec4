"""AMQP property filters (`msgfilter.amqp.PropertyFilter`, RabbitMQ 4.1+) as kernels: each
entry a condition over the value it reads, the filter their AND, never UNKNOWN.

An entry matches where its value is present and: the reference is None (AMQP null:
anything present), or an `&p:` / `&s:` reference is a prefix / suffix of a string or
binary (bytewise), or the reference equals the value by Erlang's `==` (the `=` of
`amqp_values.compare`). Application properties are read as amqp-sql reads bare names,
properties fields from the columns of their qualified names (`properties.subject`). Rows
holding a value the kernels have no AMQP reading for are answered by `Filter.evaluate`."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ...amqp.properties import Affix, PropertyFilter
from ...layout import BINARY, BOOLEAN, DOUBLE, LONG, STRING, Layout
from ...layout import resolve as resolve_name
from .amqp_values import amqp_split, amqp_value, compare
from .columns import check_layout, field_reader, resolver
from .compiler import Unsupported
from .parts import FALSE, Datum, Parts, first, present
from .plan import Plan
from .rows import answer_marked

Reader = Callable[[Any], Parts]
Entry = Callable[[Parts], Datum]

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _reference(value: object) -> Parts:
    """A reference value (as `PropertyFilter` holds it) as a literal's parts."""
    if isinstance(value, bool):
        return {BOOLEAN: pa.scalar(value)}
    if isinstance(value, int):
        if not _LONG_MIN <= value <= _LONG_MAX:
            raise Unsupported("a reference integer beyond a long")
        return {LONG: pa.scalar(value, pa.int64())}
    if isinstance(value, float):
        return {DOUBLE: pa.scalar(value, pa.float64())}
    if isinstance(value, bytes):
        return {BINARY: pa.scalar(value, pa.large_binary())}
    raise Unsupported(f"a reference of type {type(value).__name__}")  # pragma: no cover


def _entry(reference: object) -> Entry:
    """The condition one entry's reference puts on the value it reads (FALSE where the
    value is absent)."""
    if reference is None:
        return present
    if isinstance(reference, Affix):
        try:
            text = reference.text.decode("utf-8")
        except UnicodeDecodeError:
            raise Unsupported("a reference holding a lone surrogate") from None
        test = pc.starts_with if reference.prefix else pc.ends_with

        def matches_affix(value: Parts) -> Datum:
            hits = [test(value[k], text) for k in (STRING, BINARY) if k in value]
            return pc.fill_null(first(hits), False) if hits else FALSE

        return matches_affix
    parts = _reference(reference)
    return lambda value: pc.fill_null(compare("=", value, parts), False)


def compile_properties(f: PropertyFilter, schema: pa.Schema, layout: Layout) -> Plan:
    """The plan of a property filter over tables of `schema`; Unsupported where a
    reference or a column has no kernel."""
    check_layout(schema, layout)
    entries: list[tuple[Reader, Entry]] = []
    for name, reference in f.properties:
        column = field_reader(name, schema, layout, amqp_split)
        if column is None:
            # The message has no such field: no row matches.
            return lambda data: pa.repeat(FALSE, data.num_rows)
        entries.append((column, _entry(reference)))
    for name, reference in f.application_properties:
        if resolve_name(name, schema.names, layout).fallback_column is not None:
            raise Unsupported(f"{name} reads the layout's tags or keys column")
        entries.append((resolver(name, schema, layout, amqp_split), _entry(reference)))
    evaluate = f.evaluate

    def plan(data: Any) -> pa.BooleanArray:
        redo: list[Datum] = []
        results = [test(amqp_value(read(data), redo)) for read, test in entries]
        answer = functools.reduce(pc.and_, results)
        if isinstance(answer, pa.Scalar):
            answer = pa.repeat(answer, data.num_rows)
        elif isinstance(answer, pa.ChunkedArray):
            answer = answer.combine_chunks()
        if redo:
            answer = answer_marked(answer, redo, data, layout, evaluate)
        return answer

    return plan
