"""Checked AST -> a native pyspark `Column`, so that Catalyst evaluates a filter over a
DataFrame without running Python per row.

Types are static. Every identifier resolves once, against the DataFrame's schema and
the `Layout` (the Arrow backend's record, same rules), to one column or map lookup, and
that column's Spark type gives the value its selector type for the whole frame (the type
classes of `msgfilter.layout`):

    byte short int long -> L (Java long)     float double -> D (Java double)
    string char varchar -> S                 boolean      -> B
    void (NullType)     -> N (always NULL)   anything else -> O (no selector type)

Each node then lowers to a Spark expression for the rule of its operand types (J21-J39),
decided while lowering rather than per row. The result is a boolean Column that is
NULL where the selector is UNKNOWN: Spark's AND, OR and NOT are SQL's three-valued
logic, which is the spec's (J39), so `df.where(column)` keeps exactly the messages that
`Filter.matches` accepts.

Where Spark's own operators differ from the dialect the lowering corrects them:

* NaN: Spark orders NaN above every number and makes NaN = NaN TRUE; J26 wants every
  comparison with NaN FALSE except `<>`. A test for NaN guards only the operand whose
  NaN Spark would get wrong for that operator.
* Long arithmetic wraps at 64 bits (J23). With ANSI mode on, Spark raises on overflow;
  `try_add` and friends give NULL instead, and only then the result is recomputed
  exactly as a decimal and wrapped, so the common case costs one native add.
* Division: long / long truncates and a zero divisor is NULL (J30); MIN / -1 is MIN.
  Double division by a zero is IEEE (±Infinity or NaN), where Spark gives NULL or
  raises. Divisors are tested before dividing, inside CASE, which Spark evaluates
  lazily, so ANSI mode never sees a zero.
* Strings order by UTF-16 code units (J27); Spark orders by code points, so ordering
  comparisons of strings compare their UTF-16BE encodings as binary.
* LIKE patterns are rewritten into Spark's LIKE with backslash escapes (Spark's `_`
  is one code point and both wildcards match line breaks, as J36 wants).

Constant subexpressions are computed here, with the per-message value rules, and enter
Spark as literals: Spark's constant folding never meets a division by zero.

What Spark cannot express runs in Python through an Arrow UDF, transparently:

* `'text' + d` with `d` a double needs Java's `Double.toString` (J31): that one value
  goes through a small Arrow UDF; the rest of the selector stays native.
* Value models without a native table (see `lowering.TABLES`), values whose selector
  type changes from row to row (a `TAGS` read from string map values or from a tags
  column of another type), and text Spark strings cannot hold (lone surrogates)
  evaluate the whole filter in an Arrow UDF (`udf_column`): each batch by the Arrow
  backend's kernels, or by `Filter.evaluate` once per distinct tuple of the values read
  where no kernel gives the per-message answer (the activemq value model).

No byte of user text reaches Spark SQL text: identifiers become quoted column
references, literals become `F.lit` values.

The modules, by job:

    schema.py     identifiers resolved against a schema (msgfilter.layout' rules)
    values.py     lowered values and the J19-J37 rules as Spark expressions
    compiler.py   dispatch on node class through a model's table; BETWEEN once
    jms.py        the JMS value model's table
    tags.py       RocketMQ and Pulsar tag filters as Columns
    fallback.py   what runs in Python, in Arrow UDFs: whole batches, Arrow kernels
    rowwise.py    the fallback's Python path, once per distinct tuple of values read
    java_rows.py  the Java class of each Arrow number type (activemq in Python)
    lowering.py   lower(): a filter -> a Column, by its value model
"""

from __future__ import annotations

from ...layout import DEFAULT_LAYOUT, Layout, LayoutError
from .errors import NotNativeError
from .fallback import message_dicts, udf_column
from .lowering import NOT_NATIVE, TABLES, Lowered, lower
from .schema import column_ref
from .tags import TAG_LOWERINGS

__all__ = [
    "DEFAULT_LAYOUT",
    "NOT_NATIVE",
    "TABLES",
    "TAG_LOWERINGS",
    "Layout",
    "LayoutError",
    "Lowered",
    "NotNativeError",
    "column_ref",
    "lower",
    "message_dicts",
    "udf_column",
]
