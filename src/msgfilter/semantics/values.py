"""Value rules of the `jms` dialect at run time (J21-J32), as total functions.

Every function here accepts any Python objects and never raises: a type it cannot use
gives NULL (None) for arithmetic or UNKNOWN/FALSE for comparisons, as J32 and J40 say.
Types are tested by exact class because `bool` is a subclass of `int`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import java

# Java's conversions, named as the evaluators and backends use them (one implementation,
# in msgfilter.java).
wrap = java.wrap
to_double = java.to_double
utf16_key = java.utf16_key
java_double_compare = java.double_compare
double_bits = java.double_bits
ieee_div = java.ieee_div
#: J31: the `jms` dialect writes a double with the shortest digits (Java 19+).
java_double_text = java.shortest_double_text


# -- comparisons ------------------------------------------------------------------------


def compare(op: str, left: Any, right: Any) -> bool | None:
    """`left op right` under J24-J27: UNKNOWN with a NULL, FALSE for unlike types."""
    if left is None or right is None:
        return None
    lt, rt = type(left), type(right)
    if (lt is int or lt is float) and (rt is int or rt is float):
        if lt is not rt:
            left, right = to_double(left), to_double(right)
        return bool(_ORDER[op](left, right))
    if lt is str and rt is str:
        if op in ("=", "<>"):
            return bool(_ORDER[op](left, right))
        return bool(_ORDER[op](utf16_key(left), utf16_key(right)))
    if lt is bool and rt is bool:
        return bool(_ORDER[op](left, right))
    return False


_ORDER: dict[str, Callable[[Any, Any], bool]] = {
    "=": lambda a, b: a == b,
    "<>": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def cmp_eq(a: Any, b: Any) -> bool | None:
    return compare("=", a, b)


def cmp_ne(a: Any, b: Any) -> bool | None:
    return compare("<>", a, b)


def cmp_lt(a: Any, b: Any) -> bool | None:
    return compare("<", a, b)


def cmp_le(a: Any, b: Any) -> bool | None:
    return compare("<=", a, b)


def cmp_gt(a: Any, b: Any) -> bool | None:
    return compare(">", a, b)


def cmp_ge(a: Any, b: Any) -> bool | None:
    return compare(">=", a, b)


def as_condition(value: Any) -> bool | None:
    """A value used where a condition is required (J39)."""
    if value is None:
        return None
    return value if type(value) is bool else False


# -- arithmetic -------------------------------------------------------------------------


def add(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return wrap(a + b)
    if ta is str:
        text = java_text(b)
        return None if text is None else a + text
    if (ta is int or ta is float) and (tb is int or tb is float):
        return to_double(a) + to_double(b)
    return None


def sub(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return wrap(a - b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        return to_double(a) - to_double(b)
    return None


def mul(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return wrap(a * b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        return to_double(a) * to_double(b)
    return None


def div(a: Any, b: Any) -> Any:
    """J30: long / long truncates toward zero (a zero divisor is NULL); else IEEE."""
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return java.long_div(a, b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        return ieee_div(to_double(a), to_double(b))
    return None


def negate(a: Any) -> Any:
    ta = type(a)
    if ta is int:
        return wrap(-a)
    if ta is float:
        return -a
    return None


ARITHMETIC: dict[str, Callable[[Any, Any], Any]] = {"+": add, "-": sub, "*": mul, "/": div}


# -- text of values (string concatenation, J31) -------------------------------------------


def java_text(value: Any) -> str | None:
    """The text Java's string concatenation writes for a selector value."""
    cls = type(value)
    if cls is str:
        text: str = value
        return text
    if cls is bool:
        return "true" if value else "false"
    if cls is int:
        return str(value)
    if cls is float:
        return java_double_text(value)
    return None
