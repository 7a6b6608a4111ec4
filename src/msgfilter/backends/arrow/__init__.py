"""Checked AST -> a plan of `pyarrow.compute` kernel calls over a Table or RecordBatch.

A plan is built once per (filter, schema, layout) and evaluates a whole table with a
handful of kernel calls per node: no Python runs per row, except where a rule says so (a
double written as text, J31, is converted once per distinct value).

Values are held as parts, one datum per selector kind (`parts.py`): the parts of a
statically typed column are just the column, so the common case is one kernel call per
operator. Where Arrow's kernels differ from the dialect the plan corrects them
(`values.py`, `like.py`): integer division truncates like Java but raises on a zero
divisor and gives 0 for MIN / -1 (J30 wants NULL and MIN); strings order by UTF-8 bytes,
which is code point order, while J27 wants UTF-16 code units; `is_in` is FALSE, not NULL,
for a null input; LIKE patterns become an anchored RE2 expression (or a prefix, suffix or
substring test) built from `parse_like`'s segments.

The modules, by job:

    parts.py      values split by selector kind, and the helpers over them
    columns.py    Arrow types -> parts (msgfilter.layout' type classes); identifier readers
    values.py     comparison and arithmetic kernels (J19-J32)
    like.py       LIKE and IN as kernels
    compiler.py   dispatch on node class through a model's table; BETWEEN once
    jms.py        the JMS value model's table
    coercion.py   RocketMQ's string -> Java type conversions as kernels
    rocketmq.py   the RocketMQ value model's table
    plan.py       compile_arrow: a tree -> a plan, by the filter's value model
    rows.py       rows as the per-message backend sees them (the row-by-row path)

Each value model with kernels has one table (`plan.LOWERINGS`); any other model, and a
node class its table lacks, raise `Unsupported` and are evaluated row by row by the caller.
"""

from __future__ import annotations

from ...layout import DEFAULT_LAYOUT, Layout, LayoutError, Opaque
from .compiler import Unsupported
from .plan import LOWERINGS, ROW_BY_ROW, Plan, compile_arrow
from .rows import field_rows, message_rows, python_values, row_messages

__all__ = [
    "DEFAULT_LAYOUT",
    "LOWERINGS",
    "ROW_BY_ROW",
    "Layout",
    "LayoutError",
    "Opaque",
    "Plan",
    "Unsupported",
    "compile_arrow",
    "field_rows",
    "message_rows",
    "python_values",
    "row_messages",
]
