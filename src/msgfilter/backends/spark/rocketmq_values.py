"""RocketMQ's Java conversions of string properties and its `compareTo` order as Spark
expressions (semantics/rocketmq.py is the rule, backends/arrow/coercion.py its kernels).

Spark's `cast` accepts other texts than Java's valueOf (it trims spaces, truncates "1.5"
to a long outside ANSI mode, reads "inf" and "nan", knows no Unicode digits), so Java's
grammar (msgfilter.java's patterns; Java's `rlike` reads them as RE2 does) decides which
texts convert, and only those are cast: a `try_cast` that fails costs Spark a caught
exception per row (tens of microseconds, a hundred times the cast), which is what a
property that is not a number, compared with a number, would otherwise cost on every row.

- integers: `INTEGER_ASCII_RE2`, and `INTEGER_RE2` (every Java digit) only for texts
  holding a non-ASCII character; the value is `try_cast` of the text to a long (exact,
  NULL beyond the 64-bit range), Java's Unicode digits, which the cast refuses, first
  spelled in ASCII by `translate`; the Integer range is compared.
- doubles: `DOUBLE_RE2`; Spark casts a string to a double with the JVM's `Double.valueOf`
  of the whole text (Java's trim, `d`/`f` suffix, hexadecimal `0x1.8p1`, `NaN`,
  `Infinity`, decimal texts correctly rounded), so where the grammar accepts, `try_cast`
  is the value the broker computes (Spark reads its own words, "inf", "nan", only where
  Java's parser throws).

Each conversion is written once per comparison and read by both the comparison and its
error; the AND / OR form of throws.py lets Spark's subexpression elimination compute a
conversion that several comparisons share once per row. A conversion is never a CASE
with one non-constant branch: the optimizer would push each comparison with a literal
into it, and each would convert again (to_double).

A value of a double column is a property written as Java writes a double; only its
number is needed for every conversion (Double.valueOf(Double.toString(d)) is d), so such
a value keeps its double (kind `DOUBLE_TEXT`) and is written as text only where text is
compared.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ... import java
from ...java.numbers import DIGIT_ZEROS
from ...layout import BOOLEAN, DOUBLE, LONG, STRING
from ...semantics import values as v
from .schema import typed
from .values import V

#: The kind of a property read from a double (or float) column: its double value, whose
#: Java text (Double.toString) is the property RocketMQ sees.
DOUBLE_TEXT = "double-text"
#: Kinds holding a property's text (or a value whose text is known exactly).
TEXTS = (STRING, DOUBLE_TEXT)

INT_MAX = 2**31 - 1
LONG_MAX = 2**63 - 1

# Java's non-ASCII decimal digits and the ASCII digit of each, for `translate`.
_JAVA_DIGITS = "".join(chr(z + d) for z in DIGIT_ZEROS if z != 0x30 for d in range(10))
_ASCII_DIGITS = "0123456789" * (len(DIGIT_ZEROS) - 1)

_CMP: dict[str, Callable[[Column, Column], Column]] = {
    "=": operator.eq, "<>": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def property_typed(col: Column, dtype: T.DataType) -> V:
    """A column's values as RocketMQ's properties (schema.Typer): strings as they are,
    integers and booleans as the text Java writes, doubles as DOUBLE_TEXT; a type with no
    Java text stays OTHER (unlike every value)."""
    found = typed(col, dtype)
    if found.kind == LONG:
        return V(found.col.cast(T.StringType()), STRING)
    if found.kind == BOOLEAN:
        return V(F.when(found.col, F.lit("true")).when(~found.col, F.lit("false")), STRING)
    if found.kind == DOUBLE:
        return V(found.col, DOUBLE_TEXT, may_nan=True)
    return V(found.col, found.kind, found.const)


def long_bound(value: int) -> int:
    """The range of the type a string is read as to meet the integer `value`: Integer
    when it fits in 32 bits (-2**31 is a negated Long 2**31), else Long."""
    return INT_MAX if -INT_MAX <= value <= INT_MAX else LONG_MAX


def to_long(x: V, bound: int) -> tuple[Column, Column]:
    """Integer.valueOf (bound 2**31-1) or Long.valueOf of a text value: (the values,
    TRUE where it throws). Where it throws the value is left as it falls: a throw makes
    the answer UNKNOWN or is ignored with its operand (throws.py), so it is never read, and
    each expression is written once."""
    if x.kind == DOUBLE_TEXT:
        # A double's text always has a '.', an 'E', "NaN" or "Infinity": never an integer.
        return F.lit(None).cast(T.LongType()), x.col.isNotNull()
    s = x.col
    # Java's grammar decides before any cast (a failed `try_cast` costs an exception):
    # ASCII digits by a cheap pattern; the class of every Java digit costs a test per
    # range and character, so only a text holding a non-ASCII character (more bytes
    # than characters) meets it, its digits spelled in ASCII by `translate` for the cast.
    wide = F.octet_length(s) > F.length(s)
    value = (
        F.when(s.rlike(java.INTEGER_ASCII_RE2), s.try_cast(T.LongType()))
        .when(wide & s.rlike(java.INTEGER_RE2),
              F.translate(s, _JAVA_DIGITS, _ASCII_DIGITS).try_cast(T.LongType()))
    )
    # try_cast is NULL beyond the 64-bit range, and exact within it.
    fits = value.isNotNull() if bound == LONG_MAX else value.between(-bound - 1, bound)
    return value, s.isNotNull() & ~F.coalesce(fits, F.lit(False))


def to_double(x: V) -> tuple[Column, Column | None]:
    """Double.valueOf of a text value: (the values, TRUE where it throws; the value there
    is never read, as to_long's)."""
    if x.kind == DOUBLE_TEXT:
        return x.col, None
    s = x.col
    # Java's grammar first, as for integers: then Spark's cast is Java's Double.valueOf
    # of the same text (see above) and never fails, and a text Java refuses costs no
    # exception. A NULL text matches nothing and does not throw.
    grammar = s.rlike(java.DOUBLE_RE2)
    # One cast of a CASE, not a CASE of a cast: Spark's optimizer pushes a comparison
    # with a literal into the branches of a CASE that has one non-constant branch, so each
    # comparison would cast again, out of reach of subexpression elimination. The ELSE
    # branch is a text the cast reads without an exception ("0"; NULL where the text is
    # NULL) and not a constant, so nothing is pushed: the cast is one shared
    # subexpression per row, read by every comparison of this property.
    text = F.when(grammar, s).otherwise(F.concat(F.lit("0"), F.left(s, F.lit(0))))
    return text.try_cast(T.DoubleType()), s.isNotNull() & ~grammar


def to_boolean(x: V) -> Column:
    """Boolean.valueOf: "true" in any case (a double's text never is)."""
    if x.kind == DOUBLE_TEXT:
        return F.when(x.col.isNotNull(), F.lit(False))
    return (F.length(x.col) == 4) & (F.lower(x.col) == F.lit("true"))


def _negative_zero(col: Column) -> Column:
    # Spark compares -0.0 equal to 0.0; its text keeps the sign (only zeros reach this).
    return col.cast(T.StringType()).startswith("-")


def compare_doubles(op: str, x: Column, y: Column, y_const: object = None) -> Column:
    """`x op y` by Double.compareTo: Spark already puts NaN above every number and equal
    to itself; -0.0 is below 0.0."""
    result = _CMP[op](x, y)
    if isinstance(y_const, float) and y_const != 0.0:
        return result
    signs = _CMP[op](
        F.when(_negative_zero(x), F.lit(0)).otherwise(F.lit(1)),
        F.when(_negative_zero(y), F.lit(0)).otherwise(F.lit(1)),
    )
    return F.when((x == 0.0) & (y == 0.0), signs).otherwise(result)


def double_text_equals(x: V, text: str) -> Column:
    """Double.toString(x) equals `text`: `text` is the Java text of one double, and x is
    that double by compareTo (every double has one text; every NaN is "NaN")."""
    try:
        d = java.parse_double(text)
    except java.JavaNumberFormatError:
        d = None
    if d is None or v.java_double_text(d) != text:
        return F.when(x.col.isNotNull(), F.lit(False))
    return compare_doubles("=", x.col, F.lit(d), d)
