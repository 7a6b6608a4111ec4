"""Value rules of the `jms` dialect at run time (J21-J32), as total functions.

Every function here accepts any Python objects and never raises: a type it cannot use
gives NULL (None) for arithmetic or UNKNOWN/FALSE for comparisons, as J32 and J40 say.
Types are tested by exact class because `bool` is a subclass of `int`.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from decimal import ROUND_HALF_EVEN, Context, Decimal
from typing import Any

_LONG_MIN = -(2**63)
_LONG_MAX = 2**63 - 1
_TWO64 = 2**64


def wrap(value: int) -> int:
    """An arbitrary int reduced to a Java long (two's complement wrap-around)."""
    if _LONG_MIN <= value <= _LONG_MAX:
        return value
    return ((value - _LONG_MIN) % _TWO64) + _LONG_MIN


def to_double(value: Any) -> float:
    """Java's widening of a long to a double (nearest, ties to even); never raises."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


# -- comparisons ------------------------------------------------------------------------


def utf16_key(text: str) -> bytes:
    """A sort key giving Java's String.compareTo order (UTF-16 code units)."""
    return text.encode("utf-16-be", "surrogatepass")


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
        if b == 0:
            return None
        q = abs(a) // abs(b)
        return wrap(q if (a < 0) == (b < 0) else -q)
    if (ta is int or ta is float) and (tb is int or tb is float):
        return ieee_div(to_double(a), to_double(b))
    return None


def java_double_compare(x: float, y: float) -> int:
    """Double.compare: numeric order, with -0.0 below 0.0 and NaN above everything and
    equal to itself (the order of Double.compareTo and Double.equals)."""
    if x < y:
        return -1
    if x > y:
        return 1
    a, b = double_bits(x), double_bits(y)
    return (a > b) - (a < b)


def double_bits(value: float) -> int:
    """Double.doubleToLongBits: the bits as a signed long, every NaN the canonical one."""
    if value != value:
        return 0x7FF8000000000000
    return int(struct.unpack(">q", struct.pack(">d", value))[0])


def ieee_div(x: float, y: float) -> float:
    if y != 0.0:
        return x / y
    if x != x or x == 0.0:
        return math.nan
    return math.copysign(math.inf, x) * math.copysign(1.0, y)


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


def java_double_text(x: float) -> str:
    """Double.toString as Java 19+ writes it (shortest digits that read back)."""
    if x != x:
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sign = "-" if x < 0 else ""
    digits, exponent = _shortest(abs(x))
    # `exponent` is the power of ten of the first digit.
    if 1e-3 <= abs(x) < 1e7:
        if exponent >= 0:
            whole = digits[: exponent + 1].ljust(exponent + 1, "0")
            frac = digits[exponent + 1 :] or "0"
        else:
            whole = "0"
            frac = "0" * (-exponent - 1) + digits
        return f"{sign}{whole}.{frac}"
    frac = digits[1:] or "0"
    return f"{sign}{digits[0]}.{frac}E{exponent}"


def _shortest(x: float) -> tuple[str, int]:
    _, digit_tuple, exp = Decimal(repr(x)).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    exponent = len(digit_tuple) + int(exp) - 1
    if len(digits) == 1:
        # Java picks the closest decimal of one or two digits where the shortest has one.
        two = Context(prec=2, rounding=ROUND_HALF_EVEN).plus(Decimal(x))
        _, two_digits, two_exp = two.as_tuple()
        text = "".join(map(str, two_digits))
        exponent = len(two_digits) + int(two_exp) - 1
        digits = text.rstrip("0") or "0"
        if len(text) == 2 and text[1] != "0":
            digits = text
    return digits, exponent
