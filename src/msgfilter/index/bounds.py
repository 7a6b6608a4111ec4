"""Numeric bounds: the interval in double space that a comparison with a numeric
literal stands for, per value model, and how a message's value is read against it.

A bound is exact when the interval says exactly what the comparison says for every
message value (see `jms_bound`, `rocketmq_bound`); otherwise it is wide and only prunes.
Its name says how the look-up reads the message's value (`ident_of`, the marks below):
the model's default, or another way the comparison needs.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from .. import java
from ..syntax import nodes as n
from . import canonical as c

#: A bound's name is its identifier, or, where the look-up must read the value another
#: way than the model's default, one of these marks and the identifier (no identifier
#: starts with a control character): "the identifier is present" (a bound any value
#: admits), and a RocketMQ string read as the literal's Java type would read it,
#: `Integer.valueOf`, `Long.valueOf` or `Double.valueOf`.
PRESENCE, AS_INT, AS_LONG, AS_DOUBLE = "\0", "\1", "\2", "\3"
#: A JMS value under a negated comparison, where a present value that is not a number
#: (or NaN) makes the comparison FALSE and so its NOT TRUE: read as -inf (for
#: `NOT (x > 3)`, TRUE at or below 3) or +inf (for `NOT (x < 3)`).
LOW_ELSE, HIGH_ELSE = "\4", "\5"
_MARKS = (PRESENCE, AS_INT, AS_LONG, AS_DOUBLE, LOW_ELSE, HIGH_ELSE)


def ident_of(name: str) -> str:
    """The identifier a bound's name reads."""
    return name[1:] if name[:1] in _MARKS else name


class Bound(NamedTuple):
    """The number `ident` holds, as a double, lies in [low, high]. (`ident` is the
    bound's name: see `ident_of`.)"""

    ident: str
    low: float
    high: float


def rocketmq_bound(op: str, lit: n.Expr) -> tuple[str, float, float, bool] | None:
    """(mark, low, high, exact) for RocketMQ's `x op lit` with a numeric literal (its
    sign kept as a Negate). An integer literal converts the property with
    `Integer.valueOf` when it lies within +-(2**31-1), else `Long.valueOf`
    (`semantics.rocketmq`); the interval is exact below 2**53 in magnitude, as for JMS
    longs. A double literal converts with `Double.valueOf` and compares with
    `Double.compare`, where NaN is above everything (read as +inf) and -0.0 below 0.0:
    exact for a finite literal other than zero."""
    negate = isinstance(lit, n.Negate)
    if isinstance(lit, n.Negate):
        lit = lit.operand
    if isinstance(lit, n.ExactLit):
        literal = -lit.value if negate else lit.value
        mark = AS_INT if -_INT32 <= literal <= _INT32 else AS_LONG
        value = java.to_double(literal)
        exact = abs(literal) < c.EXACT_IN_DOUBLE
    elif isinstance(lit, n.ApproxLit) and lit.value == lit.value:
        mark = AS_DOUBLE
        value = -lit.value if negate else float(lit.value)
        exact = math.isfinite(value) and value != 0.0
    else:
        return None
    if op in (">", ">="):
        low = math.nextafter(value, math.inf) if op == ">" and exact else value
        return mark, low, math.inf, exact
    high = math.nextafter(value, -math.inf) if op == "<" and exact else value
    return mark, -math.inf, high, exact


_INT32 = 2**31 - 1


def jms_bound(op: str, lit: n.Expr) -> tuple[float, float, bool] | None:
    """[low, high] in double space for `x op lit`, and whether it is exact: a message int
    or float is inside exactly when the comparison is TRUE. It is, for a long literal
    below 2**53 in magnitude (every such long is a double, and the double of a long is
    monotonic) and a finite double literal; strict comparisons take the next double."""
    if isinstance(lit, n.ExactLit):
        value = java.to_double(lit.value)
        exact = abs(lit.value) < c.EXACT_IN_DOUBLE
    elif isinstance(lit, n.ApproxLit) and lit.value == lit.value:
        value = float(lit.value)
        exact = math.isfinite(value)
    else:
        return None
    if op in (">", ">="):
        low = math.nextafter(value, math.inf) if op == ">" and exact else value
        return low, math.inf, exact
    high = math.nextafter(value, -math.inf) if op == "<" and exact else value
    return -math.inf, high, exact


__all__ = [
    "AS_DOUBLE", "AS_INT", "AS_LONG", "HIGH_ELSE", "LOW_ELSE", "PRESENCE", "Bound", "ident_of",
    "jms_bound", "rocketmq_bound",
]
