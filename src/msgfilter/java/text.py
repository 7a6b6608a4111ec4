"""Java 17's `Double.toString` and `Float.toString`.

Up to Java 18 both print through FloatingDecimal's `dtoa`, which is not always the shortest
text that reads back (it may print more digits than needed, or a trailing zero).
This module follows that algorithm's rules step by step (the digit loop with its symmetric
stopping test, the shortcut for values that are integers below 2**63, the rounding of the
last digit and the carry that keeps trailing zeros), so the text is the JVM's own; the
tests compare it with a Java 17 table (tests/data/java/tostring.jsonl).
Java 19 and later print the shortest text instead (JDK-4511638): `shortest_double_text`,
the `jms` dialect's rule for string concatenation (J31), checked against a Java 25 table
(tests/data/java/tostring-java25.jsonl).
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_EVEN, Context, Decimal
from typing import Final

from .arith import double_from_bits, double_raw_bits, float32_raw_bits, wrap

# Approximately ceil(log2(5**i)), as FloatingDecimal sizes its numbers.
_N_5_BITS: Final = (
    0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42, 45, 47, 49,
    52, 54, 56, 59, 61,
)
# How many low decimal digits of 2**p are beyond a double's precision.
_INSIGNIFICANT_FOR_POW2: Final = (
    0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7,
    8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14,
    15, 15, 15, 15, 16, 16, 16, 17, 17, 17, 18, 18, 18, 19,
)
_EXP_SHIFT: Final = 52
_SIGNIFICAND_MASK: Final = (1 << 52) - 1
_EXP_ONE_BITS: Final = 1023 << 52


def double_text(x: float) -> str:
    """`Double.toString(x)` as Java 17 writes it."""
    bits = double_raw_bits(x)
    negative = bits >> 63 == 1
    fraction = bits & _SIGNIFICAND_MASK
    exponent = (bits >> 52) & 0x7FF
    if exponent == 0x7FF:
        return _special(fraction, negative)
    if exponent == 0:
        if fraction == 0:
            return "-0.0" if negative else "0.0"
        leading = 64 - fraction.bit_length()
        shift = leading - (63 - _EXP_SHIFT)
        fraction <<= shift
        exponent = 1 - shift
        significant = 64 - leading
    else:
        fraction |= 1 << _EXP_SHIFT
        significant = _EXP_SHIFT + 1
    digits, dec_exponent = _dtoa(exponent - 1023, fraction, significant)
    return _layout(negative, digits, dec_exponent)


def float_text(x: float) -> str:
    """`Float.toString(x)` as Java 17 writes it; `x` is a float32 value (rounded if not)."""
    bits = float32_raw_bits(x)
    negative = bits >> 31 == 1
    fraction = bits & 0x7FFFFF
    exponent = (bits >> 23) & 0xFF
    if exponent == 0xFF:
        return _special(fraction, negative)
    if exponent == 0:
        if fraction == 0:
            return "-0.0" if negative else "0.0"
        leading = 32 - fraction.bit_length()
        shift = leading - (31 - 23)
        fraction <<= shift
        exponent = 1 - shift
        significant = 32 - leading
    else:
        fraction |= 1 << 23
        significant = 24
    digits, dec_exponent = _dtoa(exponent - 127, fraction << (_EXP_SHIFT - 23), significant)
    return _layout(negative, digits, dec_exponent)


def value_text(value: object) -> str:
    """`String.valueOf(value)`: the `toString()` of a selector value, as Java 17 writes it.

    `str` is a String, `bool` a Boolean (`true`/`false`), None `null`, an `int` any of
    Byte/Short/Integer/Long/BigDecimal (all decimal, no grouping: an integral BigDecimal
    has scale 0, so no exponent), a `float` a Double unless its class says it is a Java
    `float` (`java_name == "float"`, as `msgfilter.java.types.Float` does: Float.toString),
    and a list a `java.util.List` (`[a, b]`, each item by this same rule)."""
    if type(value) is str:
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        if getattr(type(value), "java_name", "double") == "float":
            return float_text(float(value))
        return double_text(float(value))
    if isinstance(value, list):
        return "[" + ", ".join(value_text(item) for item in value) + "]"
    return str(value)


def _special(fraction: int, negative: bool) -> str:
    if fraction:
        return "NaN"
    return "-Infinity" if negative else "Infinity"


def _estimate_exponent(fraction: int, bin_exp: int) -> int:
    """FloatingDecimal's estimate of floor(log10(value)), computed in doubles as it is."""
    d2 = double_from_bits(_EXP_ONE_BITS | (fraction & _SIGNIFICAND_MASK))
    d = (d2 - 1.5) * 0.289529654 + 0.176091259 + float(bin_exp) * 0.301029995663981
    return math.floor(d)


def _dtoa(bin_exp: int, fraction: int, significant: int) -> tuple[list[int], int]:
    """The digits and decimal exponent (value = 0.d1d2... * 10**exponent) Java prints.

    `fraction` holds the significand with its top bit at bit 52, `bin_exp` is the binary
    exponent of that bit, `significant` the precision of the type (24 or 53, less for
    subnormals).
    """
    tail_zeros = (fraction & -fraction).bit_length() - 1
    fract_bits = _EXP_SHIFT + 1 - tail_zeros
    tiny_bits = max(0, fract_bits - bin_exp - 1)
    if -21 <= bin_exp <= 62 and tiny_bits == 0:
        # An integer below 2**63: its digits, less those beyond the type's precision.
        insignificant = 0
        if bin_exp > significant:
            p = bin_exp - significant - 1
            insignificant = _INSIGNIFICANT_FOR_POW2[p] if 1 < p < 64 else 0
        if bin_exp >= _EXP_SHIFT:
            value = fraction << (bin_exp - _EXP_SHIFT)
        else:
            value = fraction >> (_EXP_SHIFT - bin_exp)
        return _long_digits(value, insignificant)

    dec_exp = _estimate_exponent(fraction, bin_exp)
    b5 = max(0, -dec_exp)
    b2 = b5 + tiny_bits + bin_exp
    s5 = max(0, dec_exp)
    s2 = s5 + tiny_bits
    m5 = b5
    m2 = b2 - significant
    fraction >>= tail_zeros
    b2 -= fract_bits - 1
    common = min(b2, s2)
    b2 -= common
    s2 -= common
    m2 -= common
    if fract_bits == 1:
        # Below a power of two the next smaller value is half as far away.
        m2 -= 1
    if m2 < 0:
        b2 -= m2
        s2 -= m2
        m2 = 0
    b_bits = fract_bits + b2 + (_N_5_BITS[b5] if b5 < len(_N_5_BITS) else b5 * 3)
    ten_s_bits = s2 + 1 + (_N_5_BITS[s5 + 1] if s5 + 1 < len(_N_5_BITS) else (s5 + 1) * 3)
    b = (fraction * 5**b5) << b2
    s = 5**s5 << s2
    m = 5**m5 << m2
    tens = s * 10
    digits: list[int] = []
    if b_bits < 64 and ten_s_bits < 64:
        # Java does this in int (or long) arithmetic; its overflows are part of the answer.
        width = 32 if b_bits < 32 and ten_s_bits < 32 else 64
        q, b = divmod(b, s)
        b *= 10
        m = wrap(m * 10, width)
        low = b < m
        high = wrap(b + m, width) > tens
        if q == 0 and not high:
            dec_exp -= 1
        else:
            digits.append(q)
        if dec_exp < -3 or dec_exp >= 8:
            low = high = False
        while not low and not high:
            q, b = divmod(b, s)
            b *= 10
            m = wrap(m * 10, width)
            if m > 0:
                low = b < m
                high = wrap(b + m, width) > tens
            else:
                low = high = True
            digits.append(q)
        difference = wrap(wrap(b << 1, width) - tens, width)
    else:
        m *= 10
        q, b = divmod(b, s)
        b *= 10
        low = b < m
        high = b + m >= tens
        if q == 0 and not high:
            dec_exp -= 1
        else:
            digits.append(q)
        if dec_exp < -3 or dec_exp >= 8:
            low = high = False
        while not low and not high:
            q, b = divmod(b, s)
            b *= 10
            m *= 10
            low = b < m
            high = b + m >= tens
            digits.append(q)
        difference = (2 * b > tens) - (2 * b < tens) if high and low else 0
    dec_exponent = dec_exp + 1
    if high and (not low or difference > 0 or (difference == 0 and digits[-1] & 1)):
        dec_exponent += _round_up(digits)
    return digits, dec_exponent


def _round_up(digits: list[int]) -> int:
    """Add one to the last digit, carrying; 1 when the carry leaves the first digit (the
    zeros the carry left behind stay, as Java keeps them)."""
    i = len(digits) - 1
    while digits[i] == 9 and i > 0:
        digits[i] = 0
        i -= 1
    if digits[i] == 9:
        digits[0] = 1
        return 1
    digits[i] += 1
    return 0


def _long_digits(value: int, insignificant: int) -> tuple[list[int], int]:
    """FloatingDecimal's digits of an integer value, rounding off `insignificant` digits."""
    dec_exponent = 0
    if insignificant:
        pow10 = 10**insignificant
        value, residue = divmod(value, pow10)
        dec_exponent = insignificant
        if residue >= pow10 >> 1:
            value += 1
    text = str(value)
    dec_exponent += len(text)
    return [int(c) for c in text.rstrip("0")], dec_exponent


def _layout(negative: bool, digits: list[int], dec_exponent: int) -> str:
    """FloatingDecimal's layout: plain from 10**-3 up to 10**7, else `d.dddE<n>`."""
    text = "".join(map(str, digits))
    sign = "-" if negative else ""
    n = len(text)
    if 0 < dec_exponent < 8:
        if n <= dec_exponent:
            return f"{sign}{text}{'0' * (dec_exponent - n)}.0"
        return f"{sign}{text[:dec_exponent]}.{text[dec_exponent:]}"
    if -3 < dec_exponent <= 0:
        return f"{sign}0.{'0' * -dec_exponent}{text}"
    return f"{sign}{text[0]}.{text[1:] or '0'}E{dec_exponent - 1}"


def shortest_double_text(x: float) -> str:
    """`Double.toString(x)` as Java 19 and later write it: the shortest digits that read
    back as `x` (the closest of them to `x`), at least two where the shortest has one
    (the closest decimal of one or two digits: `4.9E-324`), in the layout of Java 17."""
    if x != x or math.isinf(x) or x == 0.0:
        return double_text(x)
    digits, exponent = _shortest_digits(abs(x))
    return _layout(x < 0, digits, exponent + 1)


_TWO_DIGITS: Final = Context(prec=2, rounding=ROUND_HALF_EVEN)


def _shortest_digits(x: float) -> tuple[list[int], int]:
    """The digits and the power of ten of the first one of a positive finite double."""
    # Python's repr is the shortest text that reads back, the closest one when several.
    _, digit_tuple, exp = Decimal(repr(x)).as_tuple()
    exponent = len(digit_tuple) + int(exp) - 1
    digits = list(digit_tuple)
    while len(digits) > 1 and digits[-1] == 0:
        digits.pop()
    if len(digits) == 1:
        # The closest decimal of two digits also reads back; Java keeps it unless it ends
        # in 0.
        _, two, two_exp = _TWO_DIGITS.plus(Decimal(x)).as_tuple()
        exponent = len(two) + int(two_exp) - 1
        digits = list(two) if len(two) == 2 and two[1] != 0 else [two[0]]
    return digits, exponent
