"""Lowered values and the rules over them (J19-J37) as Spark expressions, with Spark's
departures from the dialect corrected (NaN, 64-bit wrap-around, division, UTF-16 order).

A lowered value `V` has one selector kind for the whole frame (`msgfilter.layout`): the
rule for an operator is picked while lowering, never per row. A value known while
lowering (a constant) is computed here with the per-message value rules and enters Spark
as a literal, so Spark's constant folding never meets a division by zero.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from functools import reduce
from typing import Any

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ...layout import BOOLEAN, DOUBLE, LONG, NULL, NUMERIC, OTHER, STRING
from ...semantics import values as v
from ...semantics.like import parse_like

_LONG_MIN = -(2**63)
# Wide enough for the exact product of two longs (|x| <= 2**126 < 10**38).
_EXACT = T.DecimalType(38, 0)

NOT_CONST: Any = object()


@dataclass(frozen=True, slots=True, eq=False)
class V:
    """A lowered value: its Column, selector kind and, when known here, its value."""

    col: Column
    kind: str
    const: Any = NOT_CONST
    # The value can be NaN (a double column or double arithmetic): comparisons need a guard.
    may_nan: bool = False
    # In a model whose evaluation can throw (throws.py): TRUE in the rows where computing
    # this value threw; None where it never does.
    error: Column | None = None
    # `col` is NULL wherever `error` is TRUE (a throw already reads as UNKNOWN there), so
    # the answer needs no second test of `error` (throws.finish).
    absorbed: bool = False
    # An integer value's least and greatest values where the model tracks them (amqp-sql's
    # exact arithmetic: amqp_arith.py); None: any long.
    limits: tuple[int, int] | None = None

    @property
    def is_const(self) -> bool:
        return self.const is not NOT_CONST

    @property
    def never_null(self) -> bool:
        return self.is_const and self.const is not None


def _kind_of(value: object) -> str:
    cls = type(value)
    if value is None:
        return NULL
    if cls is bool:
        return BOOLEAN
    if cls is int:
        return LONG
    if cls is float:
        return DOUBLE
    if cls is str:
        return STRING
    return OTHER  # pragma: no cover - constants are always of a selector type


#: The Spark type of each kind's values.
SPARK_TYPES: dict[str, T.DataType] = {
    LONG: T.LongType(), DOUBLE: T.DoubleType(), STRING: T.StringType(),
    BOOLEAN: T.BooleanType(), NULL: T.NullType(),
}


def const(value: object) -> V:
    """A value known while lowering, as a typed Spark literal."""
    kind = _kind_of(value)
    if value is None:
        return V(F.lit(None), NULL, None)
    if kind == LONG:
        return V(F.lit(value).cast(T.LongType()), LONG, value)
    if kind == DOUBLE:
        return V(F.lit(value), DOUBLE, value, may_nan=math.isnan(value))  # type: ignore[arg-type]
    return V(F.lit(value), kind, value)


def null(kind: str) -> V:
    """NULL of a known type: its type still decides nothing, but Spark wants one."""
    return V(F.lit(None).cast(SPARK_TYPES.get(kind, T.NullType())), NULL, None)


def null_bool() -> Column:
    return F.lit(None).cast(T.BooleanType())


def truth(value: bool | None) -> V:
    """A known condition."""
    if value is None:
        return V(null_bool(), BOOLEAN, None)
    return V(F.lit(value), BOOLEAN, value)


def known_truth(conjunction: bool, truths: list[bool | None]) -> V:
    """AND (True) or OR (False) of known conditions, by SQL's three-valued tables."""
    deciding = not conjunction
    if deciding in truths:
        return truth(deciding)
    return truth(None if None in truths else conjunction)


def present(*values: V) -> Column | None:
    """TRUE where none of `values` is NULL; None when that is known already."""
    tests = [x.col.isNotNull() for x in values if not x.never_null]
    return reduce(operator.and_, tests) if tests else None


def unless_null(result: Column, *values: V) -> Column:
    """`result` where every value is present, NULL (UNKNOWN) elsewhere."""
    found = present(*values)
    return result if found is None else F.when(found, result)


def as_condition(x: V) -> Column:
    """A value where a condition is required (J39): booleans as they are, NULL as
    UNKNOWN, anything else FALSE."""
    if x.is_const:
        return truth(v.as_condition(x.const)).col
    if x.kind == BOOLEAN:
        return x.col
    if x.kind == NULL:
        return null_bool()
    return F.when(x.col.isNotNull(), F.lit(False))


# -- arithmetic --------------------------------------------------------------------------


def as_double(x: V) -> V:
    if x.kind == DOUBLE:
        return x
    if x.is_const:
        return const(v.to_double(x.const))
    return V(x.col.cast(T.DoubleType()), DOUBLE)


def negate(x: V) -> V:
    if x.is_const:
        return const(v.negate(x.const))
    if x.kind == LONG:
        # -MIN overflows (and raises under ANSI); Java wraps it to MIN.
        return V(F.when(x.col == _LONG_MIN, F.lit(_LONG_MIN)).otherwise(-x.col), LONG)
    if x.kind == DOUBLE:
        return V(-x.col, DOUBLE, may_nan=x.may_nan)
    return null(NULL)


_TRY = {"+": F.try_add, "-": F.try_subtract, "*": F.try_multiply}
_EXACT_OP = {"+": operator.add, "-": operator.sub, "*": operator.mul}
_DOUBLE_OP: dict[str, Callable[[Column, Column], Column]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul,
}


def long_arith(op: str, a: V, b: V) -> V:
    if op == "/":
        return _long_divide(a, b)
    quick = _TRY[op](a.col, b.col)
    exact = _EXACT_OP[op](a.col.cast(_EXACT), b.col.cast(_EXACT))
    two63, two64 = F.lit(Decimal(2**63)), F.lit(Decimal(2**64))
    wrapped = (F.pmod(exact + two63, two64) - two63).cast(T.LongType())
    # try_* is NULL on overflow: only then take the exact, wrapped result.
    overflow = quick.isNull()
    found = present(a, b)
    if found is not None:
        overflow = overflow & found
    return V(F.when(overflow, wrapped).otherwise(quick), LONG)


def _long_divide(a: V, b: V) -> V:
    def div(x: Column, y: Column) -> Column:
        # Spark's `div` truncates toward zero, as Java's long division.
        return F.call_function("div", x, y)

    if b.is_const:
        if b.const == 0:
            return null(LONG)
        if b.const == -1:
            return negate(a)
        return V(div(a.col, b.col), LONG)
    return V(
        F.when(b.col == 0, F.lit(None).cast(T.LongType()))
        .when(b.col == -1, negate(a).col)
        .otherwise(div(a.col, b.col)),
        LONG,
    )


def double_arith(op: str, a: V, b: V) -> V:
    x, y = as_double(a), as_double(b)
    if op == "/":
        return _double_divide(x, y)
    return V(_DOUBLE_OP[op](x.col, y.col), DOUBLE, may_nan=True)


def _double_divide(a: V, b: V) -> V:
    nan, inf = F.lit(math.nan), F.lit(math.inf)
    minus_inf = F.lit(-math.inf)

    def by_zero(negative_zero: Column | bool) -> Column:
        # IEEE: 0/0 and NaN/0 are NaN, otherwise an infinity signed by both signs.
        if isinstance(negative_zero, bool):
            pos, neg = (minus_inf, inf) if negative_zero else (inf, minus_inf)
        else:
            pos = F.when(negative_zero, minus_inf).otherwise(inf)
            neg = F.when(negative_zero, inf).otherwise(minus_inf)
        return (
            F.when(F.isnan(a.col) | (a.col == 0.0), nan)
            .when(a.col > 0.0, pos)
            .when(a.col < 0.0, neg)
        )

    if b.is_const:
        if b.const == 0.0:
            return V(by_zero(math.copysign(1.0, b.const) < 0), DOUBLE, may_nan=True)
        return V(a.col / b.col, DOUBLE, may_nan=True)
    # The sign of a zero divisor. Spark's arithmetic and atan2 normalise -0.0, but its
    # text keeps the sign (only zeros reach this test).
    negative_zero = b.col.cast(T.StringType()).startswith("-")
    return V(
        F.when(b.col == 0.0, by_zero(negative_zero)).otherwise(a.col / b.col),
        DOUBLE, may_nan=True,
    )


# -- comparisons ---------------------------------------------------------------------------

_SPARK_CMP: dict[str, Callable[[Column, Column], Column]] = {
    "=": operator.eq, "<>": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def _nan_guard(op: str, x: V, y: V) -> Column | None:
    """Where Spark's NaN rules (NaN = NaN, NaN above every number) give the wrong
    answer for `x op y`: the rows needing J26's answer instead. None: nowhere."""

    def nan(z: V) -> Column | None:
        if not z.may_nan:
            return None
        if z.is_const:
            return F.lit(True)
        return F.isnan(z.col)

    nx, ny = nan(x), nan(y)
    if op in ("=", "<>"):
        # Spark is right unless both are NaN.
        return None if nx is None or ny is None else nx & ny
    if op in (">", ">="):
        # NaN on the left is "greater" in Spark; NaN on the right is already FALSE.
        return nx
    return ny


def _compare_numbers(op: str, a: V, b: V) -> Column:
    if a.kind == LONG and b.kind == LONG:
        return _SPARK_CMP[op](a.col, b.col)
    x, y = as_double(a), as_double(b)
    result = _SPARK_CMP[op](x.col, y.col)
    guard = _nan_guard(op, x, y)
    if guard is None:
        return result
    if op in ("=", "<>"):
        answer = F.lit(op == "<>")  # both NaN, so both present
    else:
        # One side is NaN; the other may still be NULL (UNKNOWN).
        answer = unless_null(F.lit(False), y if op in (">", ">=") else x)
    return F.when(guard, answer).otherwise(result)


def _utf16(col: Column) -> Column:
    # UTF-16BE bytes compare as unsigned bytes in code-unit order (Java's compareTo).
    return F.encode(col, "UTF-16BE")


def compare(op: str, a: V, b: V) -> V:
    """J24-J27: like types compare, unlike ones are FALSE, a NULL makes it UNKNOWN."""
    if a.is_const and b.is_const:
        return truth(v.compare(op, a.const, b.const))
    if NULL in (a.kind, b.kind):
        return truth(None)
    if a.kind in NUMERIC and b.kind in NUMERIC:
        return V(_compare_numbers(op, a, b), BOOLEAN)
    if a.kind == b.kind == STRING:
        if op in ("=", "<>"):
            return V(_SPARK_CMP[op](a.col, b.col), BOOLEAN)
        return V(_SPARK_CMP[op](_utf16(a.col), _utf16(b.col)), BOOLEAN)
    if a.kind == b.kind == BOOLEAN:
        return V(_SPARK_CMP[op](a.col, b.col), BOOLEAN)
    # Unlike types, or a value of no selector type: FALSE unless a side is NULL (J24).
    return V(unless_null(F.lit(False), a, b), BOOLEAN)


def like_pattern(pattern: str, escape: str | None) -> str:
    """A selector LIKE pattern (J36) as a Spark LIKE pattern with backslash escapes."""
    special = ("\\", "%", "_")
    return "%".join(
        "".join("_" if ch is None else ("\\" + ch if ch in special else ch) for ch in segment)
        for segment in parse_like(pattern, escape).segments
    )
