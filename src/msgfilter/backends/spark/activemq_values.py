"""ActiveMQ's Java values as Spark expressions: each lowered value has one Java class for
the whole frame (its `V.kind`), and the rules of `semantics.activemq` (the comparison
ladder, `compareTo`, Int / Long / Double arithmetic, the throws) are picked per class
pair while lowering, never per row.

The Java class of a column is its Spark type's: byte, short, int, long, float and double
are Byte, Short, Integer, Long, Float and Double; string is String, boolean Boolean. A
value known while lowering (a constant) keeps the class `semantics.activemq` gives it
(an exact literal is an Integer when it fits, else a Long or a BigDecimal).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ... import java
from ...java.types import BigDecimal, Byte, Double, Float, Int, Long, Short
from ...layout import BOOLEAN, NULL, OTHER, STRING
from ...semantics import activemq as amq
from .throws import or_errors
from .values import NOT_CONST, V, null, present, truth

# The Java classes, as lowered values' kinds (`tables`' own letters for the others).
BYTE, SHORT, INT, LONG, FLOAT, DOUBLE = "Byte", "Short", "Integer", "Long", "Float", "Double"
BIG_DECIMAL = "BigDecimal"

INTEGRAL = (BYTE, SHORT, INT, LONG)
FLOATING = (FLOAT, DOUBLE)
#: The classes of column values that are numbers (a BigDecimal is only ever a constant).
NUMBERS = (*INTEGRAL, *FLOATING)

_SPARK: dict[str, T.DataType] = {
    BYTE: T.ByteType(), SHORT: T.ShortType(), INT: T.IntegerType(), LONG: T.LongType(),
    FLOAT: T.FloatType(), DOUBLE: T.DoubleType(),
}
_JAVA: dict[str, type] = {
    BYTE: Byte, SHORT: Short, INT: Int, LONG: Long, FLOAT: Float, DOUBLE: Double,
}
_BY_SPARK: tuple[tuple[type[T.DataType], str], ...] = (
    (T.ByteType, BYTE), (T.ShortType, SHORT), (T.IntegerType, INT), (T.LongType, LONG),
    (T.FloatType, FLOAT), (T.DoubleType, DOUBLE),
)
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_LONG_MIN = -(2**63)


def class_of(value: object) -> str:
    """The kind of a value known while lowering."""
    if value is None:
        return NULL
    cls = type(value)
    if cls is bool:
        return BOOLEAN
    if cls is str:
        return STRING
    if cls is BigDecimal:
        return BIG_DECIMAL
    for kind, wrapper in _JAVA.items():
        if cls is wrapper:
            return kind
    return OTHER  # a list (SPLIT, MAKELIST): calls are not lowered


def java_typed(col: Column, dtype: T.DataType) -> V:
    """A column's values with the Java class of its Spark type (schema.Typer)."""
    from .schema import typed

    for spark_type, kind in _BY_SPARK:
        if isinstance(dtype, spark_type):
            return V(col, kind, may_nan=kind in FLOATING)
    found = typed(col, dtype)  # strings (collations), booleans, NULL, no selector type
    return V(found.col, found.kind)


def const(value: Any) -> V:
    """A Java value known while lowering, as a Spark literal of its class."""
    kind = class_of(value)
    if kind == NULL:
        return null(NULL)
    if kind in _SPARK:
        number = float(value) if kind in FLOATING else int(value)
        return V(F.lit(number).cast(_SPARK[kind]), kind, value)
    if kind == BIG_DECIMAL:
        # Never read as a column: it compares with nothing else and enters arithmetic
        # as its low bits, a constant again.
        return V(F.lit(str(value)), kind, value)
    return V(F.lit(value), kind, value)


def thrown(*errors: Column | None) -> V:
    """A value whose evaluation throws in every row it is computed in (after `errors`,
    where its operands threw first)."""
    return V(null(NULL).col, NULL, error=or_errors(*errors, F.lit(True)))


def fold(compute: Callable[[], Any], *operands: V) -> V:
    """A constant computed with the per-message rules: a Java exception is a throw."""
    try:
        return const(compute())
    except amq.JavaException:
        return thrown(*(x.error for x in operands))


def when_present(condition: Column, *values: V) -> Column:
    """`condition` restricted to the rows where every one of `values` is non-NULL."""
    found = present(*values)
    return condition if found is None else found & condition


def errors_if(error: Column | None, *values: V) -> Column | None:
    """An operand's throws, counted only where `values` (evaluated before) are non-NULL."""
    if error is None:
        return None
    return when_present(error, *values)


# -- the comparison ladder ----------------------------------------------------------------------

#: What `compare` does with a (left class, right class) pair.
SAME, FALSE, THROW, PARSE_LEFT, PARSE_RIGHT = "same", "false", "throw", "parse-left", "parse-right"
_WIDER = {
    BYTE: (SHORT, INT, LONG, FLOAT, DOUBLE), SHORT: (INT, LONG, FLOAT, DOUBLE),
    INT: (LONG, FLOAT, DOUBLE),
}


def ladder(lc: str, rc: str, convert: bool) -> tuple[str, str | None]:
    """ComparisonExpression's conversions for classes (lc, rc), as `amq._unify`: (what
    happens, the class both sides are compared as)."""
    if lc == rc:
        return SAME, lc
    if lc == BOOLEAN:
        return (THROW, None) if convert and rc == STRING else (FALSE, None)
    if rc in _WIDER.get(lc, ()):
        return SAME, rc
    if lc == LONG and rc in (INT, FLOAT, DOUBLE):
        return SAME, LONG if rc == INT else rc
    if lc == FLOAT and rc in (INT, LONG, DOUBLE):
        return SAME, FLOAT if rc != DOUBLE else DOUBLE
    if lc == DOUBLE and rc in (INT, LONG, FLOAT):
        return (THROW, None) if rc == FLOAT else (SAME, DOUBLE)
    if lc == STRING and convert and rc in (BOOLEAN, *NUMBERS):
        return PARSE_LEFT, rc
    if convert and rc == STRING and lc in NUMBERS:
        return PARSE_RIGHT, lc
    return FALSE, None


def as_class(x: V, kind: str) -> Column:
    """A number's column converted to `kind` for comparing, as Java converts it: integral
    classes as longs, float and double as doubles (a float's value exactly)."""
    if kind in INTEGRAL:
        return x.col.cast(T.LongType())
    if kind == FLOAT and x.kind in INTEGRAL:
        # Rounded to a float through a double: as jtypes.Float rounds a long, and exact for
        # the narrower classes. (Spark's optimiser would drop the float of a cast from int
        # through float to double, taking the float's precision for a widening.)
        return x.col.cast(T.DoubleType()).cast(T.FloatType()).cast(T.DoubleType())
    return x.col.cast(T.DoubleType())


_SPARK_CMP: dict[str, Callable[[Column, Column], Column]] = {
    "=": Column.__eq__, "<": Column.__lt__, "<=": Column.__le__,
    ">": Column.__gt__, ">=": Column.__ge__,
}


def _zero_rank(x: V) -> Column | int:
    """0 for -0.0, 1 for 0.0 (only zeros reach this): Double.compareTo's order of zeros.
    Spark's comparisons see them equal; its text keeps the sign."""
    if x.is_const:
        return 0 if math.copysign(1.0, float(x.const)) < 0 else 1
    return F.when(x.col.cast(T.StringType()).startswith("-"), F.lit(0)).otherwise(F.lit(1))


def _double_order(op: str, x: V, y: V) -> Column:
    """`x op y` by Double.compareTo for doubles x and y: Spark already orders NaN above
    everything and equal to itself; only zeros of opposite signs need their sign."""
    base = _SPARK_CMP[op](x.col, y.col)
    zeros = []
    for z in (x, y):
        if z.is_const:
            if float(z.const) != 0.0:
                return base
        else:
            zeros.append(z.col == 0.0)
    rx, ry = _zero_rank(x), _zero_rank(y)
    on_zeros = _SPARK_CMP[op](F.lit(rx) if isinstance(rx, int) else rx,
                              F.lit(ry) if isinstance(ry, int) else ry)
    both = zeros[0] if len(zeros) == 1 else zeros[0] & zeros[1]
    return F.when(both, on_zeros).otherwise(base)


def order(op: str, a: V, b: V, kind: str) -> Column:
    """compareTo(a, b) `op` 0, for non-NULL a and b both converted to class `kind`."""
    if kind in NUMBERS:
        x = V(as_class(a, kind), kind, a.const if a.is_const else NOT_CONST)
        y = V(as_class(b, kind), kind, b.const if b.is_const else NOT_CONST)
        if kind in INTEGRAL:
            return _SPARK_CMP[op](x.col, y.col)
        return _double_order(op, x, y)
    if kind == STRING and op != "=":
        # compareTo orders by UTF-16 code units; Spark by code points.
        return _SPARK_CMP[op](F.encode(a.col, "UTF-16BE"), F.encode(b.col, "UTF-16BE"))
    return _SPARK_CMP[op](a.col, b.col)  # strings (=), booleans (FALSE < TRUE)


def _java_boolean(text: V) -> V:
    """Boolean.valueOf(text): "true" in any letter case, anything else false."""
    if text.is_const:
        return const(text.const.lower() == "true")
    return V(F.lower(text.col) == F.lit("true"), BOOLEAN)


def compared(op: str, a: V, b: V, convert: bool) -> tuple[Column, bool] | None:
    """compare(a, b) `op` 0 for non-NULL a and b after the ladder, and whether it throws
    instead (where both are present); None: ActiveMQ answers FALSE outright."""
    step, kind = ladder(a.kind, b.kind, convert)
    if step == THROW:
        return F.lit(False), True
    if step == FALSE or kind is None:
        return None
    if step in (PARSE_LEFT, PARSE_RIGHT):
        text, other = (a, b) if step == PARSE_LEFT else (b, a)
        parsed = _parsed(text, kind)
        if parsed is None:
            return None
        a, b = (parsed, other) if step == PARSE_LEFT else (other, parsed)
    return order(op, a, b, kind), False


class NotNative(Exception):
    """A rule Spark cannot express exactly here (the lowering falls back)."""


def _parsed(text: V, kind: str) -> V | None:
    """The string `text` as class `kind` (convert_string_expressions); None: it is not
    one, which compares FALSE."""
    if kind == BOOLEAN:
        return _java_boolean(text)
    if not text.is_const:
        raise NotNative(
            "convert_string_expressions reads a string property as a number with Java's "
            "valueOf rules, which run in Python"
        )
    cls = _JAVA[kind]
    try:
        if kind == FLOAT:
            return const(Float(java.parse_float(text.const)))
        if kind == DOUBLE:
            return const(Double(java.parse_double(text.const)))
        return const(cls(java.parse_integer(text.const, cls.bits)))  # type: ignore[attr-defined]
    except java.JavaNumberFormatError:
        return None


# -- equality and order with NULL ---------------------------------------------------------------


def equal(a: V, b: V, convert: bool) -> V:
    """EqualExpression: NULL = x is UNKNOWN, x = NULL FALSE, NULL = NULL TRUE; then
    equals(), then compareTo() after the ladder. Both sides are evaluated."""
    error = or_errors(a.error, b.error)
    if a.is_const and b.is_const:
        return fold_truth(lambda: amq.eq(a.const, b.const, convert), error)
    if a.kind == NULL:
        result = F.when(b.col.isNull(), F.lit(True)) if not b.never_null else None
        return V(truth(None).col if result is None else result, BOOLEAN, error=error)
    if b.kind == NULL:
        return V(a.col.isNull(), BOOLEAN, error=error)
    found = compared("=", a, b, convert)
    if found is None:
        both = F.lit(False)
        throws = False
    else:
        both, throws = found
    if throws:
        error = or_errors(error, when_present(F.lit(True), a, b))
    result = both
    if not b.never_null:
        result = F.when(b.col.isNull(), a.col.isNull()).otherwise(result)
    if not a.never_null:
        result = F.when(a.col.isNull() & b.col.isNotNull(), truth(None).col).otherwise(result)
    return V(result, BOOLEAN, error=error)


def ordered(op: str, a: V, b: V, convert: bool) -> V:
    """`< <= > >=`: UNKNOWN with a NULL side (the right one is not evaluated when the left
    one is NULL), FALSE where the ladder says so, compareTo otherwise."""
    if a.kind == NULL:
        return V(truth(None).col, BOOLEAN, error=a.error)
    error = or_errors(a.error, errors_if(b.error, a))
    if a.is_const and b.is_const:
        return fold_truth(lambda: amq.ordering(op, a.const, b.const, convert), error)
    if b.kind == NULL:
        return V(truth(None).col, BOOLEAN, error=error)
    found = compared(op, a, b, convert)
    if found is None:
        return V(_unless_null(F.lit(False), a, b), BOOLEAN, error=error)
    result, throws = found
    if throws:
        error = or_errors(error, when_present(F.lit(True), a, b))
    return V(_unless_null(result, a, b), BOOLEAN, error=error)


def _unless_null(result: Column, *values: V) -> Column:
    found = present(*values)
    return result if found is None else F.when(found, result)


def fold_truth(compute: Callable[[], bool | None], error: Column | None) -> V:
    """A condition known while lowering (operands' throws still count)."""
    try:
        answer = truth(compute())
    except amq.JavaException:
        return thrown(error)
    return answer if error is None else V(answer.col, BOOLEAN, error=error)


# -- arithmetic ---------------------------------------------------------------------------------


def negate(x: V) -> V:
    """UnaryExpression: numbers negate (Integer and Long wrap), Byte and Short throw,
    anything else is NULL."""
    if x.is_const:
        return fold(lambda: amq.negate(x.const), x)
    if x.kind in (BYTE, SHORT):
        return V(null(NULL).col, NULL, error=or_errors(x.error, when_present(F.lit(True), x)))
    if x.kind in (INT, LONG):
        low = _INT_MIN if x.kind == INT else _LONG_MIN
        # -MIN overflows (and raises under ANSI); Java wraps it to MIN.
        col = F.when(x.col == low, x.col).otherwise(-x.col)
        return V(col, x.kind, error=x.error)
    if x.kind in FLOATING:
        return V(-x.col, x.kind, may_nan=True, error=x.error)
    return V(null(NULL).col, NULL, error=x.error)


def as_double(x: V) -> V:
    """doubleValue(), as a Double (a BigDecimal constant's too)."""
    if x.is_const:
        return const(Double(float(x.const)))
    return V(x.col.cast(T.DoubleType()), DOUBLE, may_nan=True)


def as_integral(x: V, kind: str) -> V:
    """intValue() or longValue() (a BigDecimal constant keeps its low bits), as a long
    column."""
    if x.is_const:
        value = _JAVA[kind](int(x.const))
        return V(F.lit(int(value)).cast(T.LongType()), LONG, value)
    return V(x.col.cast(T.LongType()), LONG)


def wrap_int(col: Column) -> Column:
    """A long within +-2**62 wrapped to 32 bits, as Java's int arithmetic gives it."""
    in_range = (col >= _INT_MIN) & (col <= _INT_MAX)
    wrapped = F.pmod(col + F.lit(2**31), F.lit(2**32)) - F.lit(2**31)
    return F.when(in_range, col).otherwise(wrapped).cast(T.IntegerType())
