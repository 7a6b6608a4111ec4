"""Filters over Spark DataFrames, as native Column expressions.

    >>> import msgfilter, msgfilter.spark as ms
    >>> f = msgfilter.compile("color = 'red' AND weight > 2.5")
    >>> matched = ms.where(df, f)                  # doctest: +SKIP
    >>> df.select(ms.to_column(f, df).alias("ok"))  # doctest: +SKIP
    >>> print(ms.explain(f, df))                   # doctest: +SKIP

`to_column` gives a boolean Column, NULL where the selector is UNKNOWN, that Catalyst
evaluates like any other expression: no Python runs per row. Identifiers resolve against
the DataFrame's schema by the rules of `Layout` (the same record and rules as
`msgfilter.arrow`): a top-level column of that name, else the entry of that name in the
`properties` map column, and `TAGS` / `KEYS` from the tags / keys columns. The column's
Spark type decides the selector type of the value for the whole frame. The answers are
`filter.evaluate(message)`'s for each row seen as a message; docs/spark.md has the
rules, what falls back to Python and the measured speed. Needs the `spark` extra.
"""

from __future__ import annotations

from dataclasses import dataclass

try:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql import types as T
except ImportError as error:  # pragma: no cover - depends on the installation
    raise ImportError("msgfilter.spark needs pyspark: pip install 'msgfilter[spark]'") from error

from . import dialects
from .backends.spark import NotNativeError, lower, udf_column
from .engine import compile as _compile
from .filter import Filter
from .layout import DEFAULT_LAYOUT, Layout, LayoutError

__all__ = [
    "DEFAULT_LAYOUT",
    "Explanation",
    "Layout",
    "LayoutError",
    "NotNativeError",
    "explain",
    "filter_udf",
    "to_column",
    "where",
]

Schema = T.StructType | DataFrame


def _as_filter(expression: Filter | str, dialect: str) -> Filter:
    if isinstance(expression, Filter):
        return expression
    return _compile(expression, dialect)


def _schema(schema: Schema) -> T.StructType:
    if isinstance(schema, DataFrame):
        return schema.schema
    if isinstance(schema, T.StructType):
        return schema
    raise TypeError(f"expected a DataFrame or a StructType, not {type(schema).__name__}")


def to_column(
    expression: Filter | str,
    schema: Schema,
    layout: Layout = DEFAULT_LAYOUT,
    *,
    dialect: str = dialects.DEFAULT,
    fallback: bool = True,
) -> Column:
    """The filter as a boolean Column over DataFrames of `schema` (a DataFrame or its
    StructType): TRUE, FALSE or NULL (UNKNOWN) per row, as `expression.evaluate` gives
    for the row's message.

    The schema is needed up front because column types decide the selector's semantics
    (a string column compared with a number is FALSE, J24). Parts Spark cannot express
    run in an Arrow UDF (see `explain`); with `fallback=False` they raise
    `NotNativeError` instead. `expression` is a compiled Filter or the text of one in
    `dialect`. Raises LayoutError when the properties column is not a map<string, ...>;
    never because of the values in the rows.
    """
    f = _as_filter(expression, dialect)
    lowered = lower(f, _schema(schema), layout)
    if not fallback and not lowered.native:
        parts = "; ".join(f"{part}: {why}" for part, why in lowered.udf_parts)
        raise NotNativeError(f"{f!r} is not fully native on this schema ({parts})")
    return lowered.column


def where(
    df: DataFrame,
    expression: Filter | str,
    layout: Layout = DEFAULT_LAYOUT,
    *,
    dialect: str = dialects.DEFAULT,
) -> DataFrame:
    """The rows of `df` the filter matches (TRUE; FALSE and UNKNOWN rows are dropped)."""
    return df.where(to_column(expression, df, layout, dialect=dialect))


def filter_udf(
    expression: Filter | str,
    schema: Schema,
    layout: Layout = DEFAULT_LAYOUT,
    *,
    dialect: str = dialects.DEFAULT,
) -> Column:
    """The filter as a Column computed in an Arrow UDF: the explicit, always-available
    fallback (slower than `to_column`, same answers).

    The columns the filter can read travel to the UDF as one struct; each Arrow batch
    is evaluated whole by the Arrow backend's kernels, and where none give the
    per-message answer (the activemq dialect), by `filter.evaluate` once per distinct
    tuple of the values read (docs/spark.md). The filter reaches the executors pickled
    as its text and is rebuilt there through the compile cache.
    """
    f = _as_filter(expression, dialect)
    return udf_column(f, _schema(schema), layout)


@dataclass(frozen=True, slots=True)
class Explanation:
    """How a filter runs on a schema: where each identifier is read from and which
    parts, if any, run in Python."""

    filter: Filter
    #: True when Catalyst evaluates the whole filter (no Python per row).
    native: bool
    #: (identifier, where its value comes from) in name order.
    bindings: tuple[tuple[str, str], ...]
    #: (part of the expression, why it runs in an Arrow UDF); "*" is the whole filter.
    udf_parts: tuple[tuple[str, str], ...]

    def __str__(self) -> str:
        lines = [f"{self.filter.dialect}: {self.filter.text}"]
        for name, where_from in self.bindings:
            lines.append(f"  {name} <- {where_from}")
        if self.native:
            lines.append("  native: every part is a Spark expression (no Python per row)")
        for part, why in self.udf_parts:
            what = "the whole filter" if part == "*" else repr(part)
            lines.append(f"  Arrow UDF: {what} ({why})")
        return "\n".join(lines)


def explain(
    expression: Filter | str,
    schema: Schema,
    layout: Layout = DEFAULT_LAYOUT,
    *,
    dialect: str = dialects.DEFAULT,
) -> Explanation:
    """Which parts of the filter are native Spark expressions on `schema` and which run
    in an Arrow UDF, and where each identifier is read from. `str()` of the result is a
    readable account."""
    f = _as_filter(expression, dialect)
    lowered = lower(f, _schema(schema), layout)
    return Explanation(f, lowered.native, lowered.bindings, lowered.udf_parts)

