"""Filters over Arrow data: a whole Table or RecordBatch at a time, with pyarrow kernels.

    >>> import pyarrow as pa, msgfilter, msgfilter.arrow
    >>> table = pa.table({"color": ["red", "blue", None], "weight": [3.0, 9.5, 4.0]})
    >>> f = msgfilter.compile("color = 'red' AND weight > 2.5")
    >>> msgfilter.arrow.evaluate(f, table).to_pylist()
    [True, False, None]
    >>> msgfilter.arrow.filter(f, table).num_rows
    1

The answers are the per-message backend's (`f.evaluate(message)`) for each row seen as
a message by the rules of `Layout`; docs/arrow.md has the rules, the type table and the
measured speed. Needs the `arrow` extra (pyarrow).
"""

from __future__ import annotations

import warnings
from typing import Any

try:
    import pyarrow as pa
    import pyarrow.compute as pc
except ImportError as error:  # pragma: no cover - depends on the installation
    raise ImportError(
        "msgfilter.arrow needs pyarrow: pip install 'msgfilter[arrow]'"
    ) from error

from . import dialects
from .backends.arrow import Opaque
from .backends.arrow import row_messages as _row_messages
from .backends.arrow.plans import RowwiseFallbackWarning, plan_of
from .backends.arrow.plans import cache_clear as clear_plans
from .engine import compile as _compile
from .filter import Filter
from .layout import DEFAULT_LAYOUT, Layout, LayoutError
from .message import Message
from .selector import SelectorFilter

__all__ = [
    "DEFAULT_LAYOUT",
    "Layout",
    "LayoutError",
    "Opaque",
    "RowwiseFallbackWarning",
    "cache_clear",
    "evaluate",
    "filter",
    "matches",
    "messages",
]

def _as_filter(expression: Filter | str, dialect: str) -> Filter:
    if isinstance(expression, Filter):
        return expression
    return _compile(expression, dialect)


def _check_data(data: Any) -> None:
    if not isinstance(data, pa.Table | pa.RecordBatch):
        raise TypeError(f"expected a pyarrow Table or RecordBatch, not {type(data).__name__}")


def evaluate(
    expression: Filter | str,
    data: pa.Table | pa.RecordBatch,
    layout: Layout = DEFAULT_LAYOUT,
    *,
    dialect: str = dialects.DEFAULT,
) -> pa.BooleanArray:
    """The value of the filter for each row: a BooleanArray of TRUE, FALSE and null
    (UNKNOWN), as `expression.evaluate(message)` gives for each row's message.

    `expression` is a compiled Filter or the text of one in `dialect`. Raises TypeError
    for data that is not a Table or RecordBatch and LayoutError when its properties
    column is not a map; never because of the values in the rows.
    """
    f = _as_filter(expression, dialect)
    _check_data(data)
    plan = plan_of(f, data.schema, layout)
    if plan is not None:
        try:
            return plan(data)
        except (pa.ArrowException, ArithmeticError, TypeError, ValueError) as error:
            warnings.warn(
                f"{f!r}: vector evaluation failed ({error}); evaluating row by row",
                RowwiseFallbackWarning,
                stacklevel=2,
            )
    # A selector reads only its identifiers; a tag filter's reads are its own affair.
    names = f.identifiers if plan is not None and isinstance(f, SelectorFilter) else None
    rows = messages(data, layout, names=names)
    return pa.array([f.evaluate(m) for m in rows], pa.bool_())


def matches(
    expression: Filter | str,
    data: pa.Table | pa.RecordBatch,
    layout: Layout = DEFAULT_LAYOUT,
    *,
    dialect: str = dialects.DEFAULT,
) -> pa.BooleanArray:
    """TRUE for the rows the filter matches, FALSE for the others (UNKNOWN included):
    a BooleanArray without nulls."""
    return pc.fill_null(evaluate(expression, data, layout, dialect=dialect), False)


def filter(
    expression: Filter | str,
    data: pa.Table | pa.RecordBatch,
    layout: Layout = DEFAULT_LAYOUT,
    *,
    dialect: str = dialects.DEFAULT,
) -> Any:
    """The rows of `data` (a Table or RecordBatch, the same kind back) that the filter
    matches, in order."""
    return data.filter(evaluate(expression, data, layout, dialect=dialect))


def messages(
    data: pa.Table | pa.RecordBatch,
    layout: Layout = DEFAULT_LAYOUT,
    names: Any = None,
) -> list[Message]:
    """Each row as the `Message` the per-message backend would be given: what a filter
    sees, for inspection and for the row-by-row path. `names` limits the properties to
    those names. A value of no selector type appears as `Opaque(value)`. The columns
    of AMQP fields (`properties.subject`, ...) are the `headers` (see `Layout`).

    Slow (Python objects per row): meant for a few rows, not for filtering.
    """
    _check_data(data)
    return _row_messages(data, layout, names)


def cache_clear() -> None:
    """Forget the cached plans (one per filter, schema and layout; shared with the
    Spark fallback and the index: `msgfilter.backends.arrow.plans`)."""
    clear_plans()
