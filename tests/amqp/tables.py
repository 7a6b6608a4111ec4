"""AMQP messages as Arrow tables by msgfilter.layout's rules: application properties as
typed columns named for them, header and properties fields as columns of their qualified
names (`header.priority`, `properties.subject`)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import pyarrow as pa

from msgfilter import Message
from msgfilter.message import amqp_field_name

_LONG = range(-(2**63), 2**63)


def arrow_type(value: object) -> pa.DataType | None:
    """The column type holding `value` as an AMQP value (None: no Arrow type holds it:
    an integer beyond a long)."""
    if isinstance(value, bool):
        return pa.bool_()
    if isinstance(value, int):
        return pa.int64() if value in _LONG else None
    if isinstance(value, float):
        return pa.float64()
    if isinstance(value, str):
        return pa.string()
    if isinstance(value, bytes):
        return pa.binary()
    if isinstance(value, uuid.UUID):
        return pa.binary(16)
    if isinstance(value, datetime):
        return pa.timestamp("ms", tz="UTC")
    return None


def _cell(value: Any) -> Any:
    return value.bytes if isinstance(value, uuid.UUID) else value


def one_row(message: Message) -> tuple[pa.Table, frozenset[str]]:
    """The one-row table of `message`, and the names (as a filter's `identifiers` list
    them) whose value no column can hold."""
    columns: dict[str, pa.Array] = {}
    lost: set[str] = set()
    entries = [*message.properties.items()]
    entries += [(amqp_field_name(k), v) for k, v in message.headers.items()]
    for name, value in entries:
        if value is None:
            continue
        dtype = arrow_type(value)
        if dtype is None:
            lost.add(name)
            continue
        columns[name] = pa.array([_cell(value)], dtype)
    table = pa.table(columns) if columns else pa.table({"#": pa.array([0])})
    return table, frozenset(lost)
