"""amqp-sql's arithmetic as Columns, exact to RabbitMQ 4.2's rules (`semantics.amqp.arith`).

RabbitMQ's integers are unbounded, so an integer value carries the least and greatest
values it can take (`V.limits`: a column's type gives them, each operation widens them)
and is computed in a long where those fit, in a decimal(38, 0) where they do not (every
value is then exact), and the filter falls back to the UDF beyond 10**38. The rest:

- `+ - *` with a double, and `/` always, are double operations on the operands converted
  to doubles (a long as Java's `(double)` rounds it, as Python's `float` does);
- `/` by zero and `%` by zero are UNKNOWN; `%` of two integers has the dividend's sign
  (Java's `%` and a decimal's remainder are Erlang's `rem`), of anything else UNKNOWN;
- a double result beyond the double range (an infinity) makes RabbitMQ's evaluation fail
  (`badarith`): the value's `error` (throws.py) is TRUE in those rows;
- any operand that is not a number makes the result UNKNOWN.

Spark never meets a division by zero or an overflow here, so ANSI mode changes nothing."""

from __future__ import annotations

import math
from decimal import Decimal

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ...layout import DOUBLE, LONG, NULL
from ...semantics import amqp
from .errors import Fallback
from .throws import or_errors
from .values import V, const, null

_LONG = (-(2**63), 2**63 - 1)
_DECIMAL_MAX = 10**38 - 1
_EXACT = T.DecimalType(38, 0)



def constant(value: object) -> V:
    """A value known while lowering; an integer beyond a long as a decimal(38, 0)."""
    if type(value) is int and not _fits_long((value, value)):
        if abs(value) > _DECIMAL_MAX:
            raise Fallback("an integer beyond 10**38 (RabbitMQ's integers are unbounded)")
        return V(F.lit(Decimal(value)).cast(_EXACT), LONG, value)
    return const(value)


def limits(x: V) -> tuple[int, int]:
    """The least and greatest values of an integer (LONG) value."""
    if x.is_const:
        return x.const, x.const
    return x.limits or _LONG


def _fits_long(span: tuple[int, int]) -> bool:
    return _LONG[0] <= span[0] and span[1] <= _LONG[1]


def _exact(x: V) -> Column:
    """An integer value's Column as a decimal(38, 0): every value exact."""
    return x.col if not _fits_long(limits(x)) else x.col.cast(_EXACT)


def _integer(col: Column, span: tuple[int, int], error: Column | None) -> V:
    if max(-span[0], span[1]) > _DECIMAL_MAX:
        raise Fallback("an integer result beyond 10**38 (RabbitMQ's integers are unbounded)")
    return V(col, LONG, error=error, limits=span)


def _double(x: V) -> Column:
    return x.col if x.kind == DOUBLE else x.col.cast(T.DoubleType())


def _checked(result: Column, error: Column | None) -> V:
    # A finite double operation whose result is infinite overflowed: badarith.
    return V(result, DOUBLE, error=or_errors(error, F.abs(result) == F.lit(math.inf)))


_RANGE = {
    "+": lambda a, b: (a[0] + b[0], a[1] + b[1]),
    "-": lambda a, b: (a[0] - b[1], a[1] - b[0]),
}


def _product(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    ends = [x * y for x in a for y in b]
    return min(ends), max(ends)


def _remainder(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    # |a rem b| < |b| and <= |a|, with a's sign.
    size = min(max(-a[0], a[1]), max(-b[0], b[1], 1) - 1)
    return (-size if a[0] < 0 else 0), (size if a[1] > 0 else 0)


def _integers(op: str, a: V, b: V, error: Column | None) -> V:
    sa, sb = limits(a), limits(b)
    if op == "%":
        span = _remainder(sa, sb)
        divisor = F.when(b.col != F.lit(0), b.col)
    else:
        span = _product(sa, sb) if op == "*" else _RANGE[op](sa, sb)
        divisor = b.col
    if _fits_long(sa) and _fits_long(sb) and _fits_long(span):
        x, y = a.col, divisor
    else:
        x, y = _exact(a), (divisor if not _fits_long(sb) else divisor.cast(_EXACT))
    result = {"+": x + y, "-": x - y, "*": x * y, "%": x % y}[op]
    if _fits_long(span) and not (_fits_long(sa) and _fits_long(sb)):
        result = result.cast(T.LongType())
    return _integer(result, span, error)


def arith(op: str, a: V, b: V) -> V:
    """`a op b` as RabbitMQ computes it (see the module's notes)."""
    if a.is_const and b.is_const:
        try:
            return constant(amqp.arith(op, a.const, b.const))
        except amqp.Overflow:
            raise Fallback("a constant part overflows the double range") from None
    error = or_errors(a.error, b.error)
    numbers = a.kind in (LONG, DOUBLE) and b.kind in (LONG, DOUBLE)
    both_long = a.kind == b.kind == LONG
    if not numbers or (op == "%" and not both_long) or (a.is_const and a.const is None) or (
        b.is_const and b.const is None
    ):
        return V(null(NULL).col, NULL, error=error)
    if op == "/" or not both_long:
        x, y = _double(a), _double(b)
        if op == "/":
            return _checked(x / F.when(y != F.lit(0.0), y), error)
        return _checked({"+": x + y, "-": x - y, "*": x * y}[op], error)
    return _integers(op, a, b, error)


def negate(x: V) -> V:
    """`-x`: a number's negation, anything else UNKNOWN."""
    if x.is_const:
        return constant(amqp.negate(x.const))
    if x.kind == DOUBLE:
        return V(-x.col, DOUBLE, error=x.error)
    if x.kind != LONG:
        return V(null(NULL).col, NULL, error=x.error)
    low, high = limits(x)
    span = (-high, -low)
    if _fits_long(span) and _fits_long((low, high)):
        return _integer(-x.col, span, x.error)
    result = -_exact(x)
    return _integer(result.cast(T.LongType()) if _fits_long(span) else result, span, x.error)
