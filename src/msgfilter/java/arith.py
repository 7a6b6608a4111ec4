"""Java's arithmetic on primitive values: int/long wrap-around, float32 rounding, the bits
and order of doubles, and IEEE division by zero.

Python's int is unbounded and its float is a double; these functions give the answers a
Java `int`, `long`, `float` or `double` expression would give.
"""

from __future__ import annotations

import math
import struct
from typing import Any

_LONG_MIN = -(2**63)
_LONG_MAX = 2**63 - 1
_TWO64 = 2**64
_F32 = struct.Struct(">f")
_I32 = struct.Struct(">i")
_F64 = struct.Struct(">d")
_I64 = struct.Struct(">q")
#: Double.doubleToLongBits of every NaN.
CANONICAL_NAN_BITS = 0x7FF8000000000000


def wrap(value: int, bits: int = 64) -> int:
    """`value` reduced to a Java integer of `bits` bits (two's complement wrap-around):
    64 is a long, 32 an int, 16 a short, 8 a byte."""
    if bits == 64:
        if _LONG_MIN <= value <= _LONG_MAX:
            return value
        return ((value - _LONG_MIN) % _TWO64) + _LONG_MIN
    half = 1 << (bits - 1)
    return ((value + half) % (1 << bits)) - half


def to_double(value: Any) -> float:
    """Java's widening of a long (or any int) to a double: nearest, ties to even; an int
    beyond the double range is an infinity. Never raises."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def to_float32(value: float) -> float:
    """The nearest Java float (IEEE binary32, ties to even) of a double, as a double;
    beyond the float range an infinity, as Java's `(float)` cast."""
    try:
        return float(_F32.unpack(_F32.pack(value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


def double_bits(value: float) -> int:
    """Double.doubleToLongBits: the bits as a signed long, every NaN the canonical one."""
    if value != value:
        return CANONICAL_NAN_BITS
    return int(_I64.unpack(_F64.pack(value))[0])


def double_raw_bits(value: float) -> int:
    """Double.doubleToRawLongBits as an unsigned 64-bit number (NaN payloads kept)."""
    return int(_I64.unpack(_F64.pack(value))[0]) & 0xFFFFFFFFFFFFFFFF


def double_from_bits(bits: int) -> float:
    """Double.longBitsToDouble of a 64-bit pattern (signed or unsigned)."""
    return float(_F64.unpack(_I64.pack(wrap(bits)))[0])


def float32_raw_bits(value: float) -> int:
    """Float.floatToRawIntBits of a float32 value, as an unsigned 32-bit number."""
    return int(_I32.unpack(_F32.pack(value))[0]) & 0xFFFFFFFF


def float32_from_bits(bits: int) -> float:
    """Float.intBitsToFloat of a 32-bit pattern, widened to a double."""
    return float(_F32.unpack(_I32.pack(wrap(bits, 32)))[0])


def double_compare(x: float, y: float) -> int:
    """Double.compare: numeric order, with -0.0 below 0.0 and NaN above everything and
    equal to itself (the order of Double.compareTo and Double.equals)."""
    if x < y:
        return -1
    if x > y:
        return 1
    a, b = double_bits(x), double_bits(y)
    return (a > b) - (a < b)


def ieee_div(x: float, y: float) -> float:
    """`x / y` for doubles as Java divides: a zero divisor gives an infinity or NaN."""
    if y != 0.0:
        return x / y
    if x != x or x == 0.0:
        return math.nan
    return math.copysign(math.inf, x) * math.copysign(1.0, y)


def long_div(x: int, y: int) -> int | None:
    """`x / y` for longs: truncated toward zero, wrapped; None for a zero divisor (where
    Java throws ArithmeticException)."""
    if y == 0:
        return None
    q = abs(x) // abs(y)
    return wrap(q if (x < 0) == (y < 0) else -q)
