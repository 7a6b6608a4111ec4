"""Java's parsing of number text: `Integer/Long/Short/Byte.valueOf` (= `parseInt` & co.),
`Double.valueOf`/`Float.valueOf` (FloatingDecimal) and `Boolean.valueOf`.

Where Java throws NumberFormatException these raise `JavaNumberFormatError`. The rules,
checked against a Java 17 JVM by tests/data/java (JavaTables.java):

- integers: the text is read as UTF-16 units; an optional `+`/`-`, then one or more
  digits as `Character.digit(c, 10)` reads them: any Unicode decimal digit (category Nd)
  of the BMP, so Arabic-Indic U+0663 is 3, but a digit above U+FFFF (U+1D7D7) is two
  surrogates and no digit. No whitespace, no `_`, no `0x`; leading zeros are fine; the
  value must fit the type.
- floating point: characters <= U+0020 are trimmed at both ends (not U+00A0), then an
  optional sign and `NaN`, `Infinity` (exact case, no suffix), a decimal `1`, `1.`, `.5`,
  `1e5`, `1.5E-3` or a hexadecimal `0x1.8p1` (binary exponent required), with an
  optional `f`/`F`/`d`/`D` after a decimal or hexadecimal number. ASCII digits only.
  Values round once, to nearest and ties to even: `Float.valueOf` rounds the decimal
  itself to float32, not the double nearest to it.
- `Boolean.valueOf`: "true" in any case is true, everything else false.

The regular-expression texts at the end (`*_RE2`) say the same acceptance in RE2 syntax,
for backends that test whole columns; `tests/java/test_java_numbers.py` checks they agree.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction
from typing import Final

from .arith import float32_from_bits, float32_raw_bits, to_float32
from .strings import JAVA_WHITESPACE


class JavaNumberFormatError(ValueError):
    """Java would throw NumberFormatException for this text."""


#: The code points of the zero digits of every run of ten decimal digits that Java 17's
#: `Character.digit(c, 10)` accepts in the BMP (Unicode 13; tests/data/java/digits.json).
#: Every Java digit is one of these plus 0..9.
DIGIT_ZEROS: Final = (
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6,
    0xD66, 0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0,
    0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0,
    0xA9F0, 0xAA50, 0xABF0, 0xFF10,
)

# Every Java digit as the ASCII digit of the same value.
_TO_ASCII: Final = {chr(zero + n): str(n) for zero in DIGIT_ZEROS for n in range(10)}

#: Bits of Java's integral types by name.
INTEGER_BITS: Final = {"byte": 8, "short": 16, "int": 32, "long": 64}


def java_digit(ch: str) -> int:
    """`Character.digit(ch, 10)` for one character: its value, or -1."""
    ascii_digit = _TO_ASCII.get(ch)
    return -1 if ascii_digit is None else int(ascii_digit)


# --- integers --------------------------------------------------------------------------

# The common case: ASCII digits, few enough that int() needs no guard.
_plain_integer: Final = re.compile(r"[+-]?[0-9]{1,20}").fullmatch
_RANGES: Final = {bits: (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) for bits in (8, 16, 32, 64)}


def parse_integer(text: str, bits: int = 32) -> int:
    """`Integer.parseInt(text)` (bits 32), `Long.parseLong` (64), `Short` (16), `Byte` (8)."""
    if _plain_integer(text) is None:
        text = _normalized(text)
    value = int(text)
    low, high = _RANGES[bits]
    if low <= value <= high:
        return value
    raise JavaNumberFormatError(f"out of range: {_quoted(text)}")


def _quoted(text: str) -> str:
    """`text` for an error message: a long text is cut, as a message is built per value."""
    return repr(text) if len(text) <= 40 else repr(text[:40]) + "..."


def _normalized(text: str) -> str:
    """`text` with Java's non-ASCII digits spelled in ASCII and leading zeros dropped, or
    the error Java raises."""
    sign = text[:1] if text[:1] in ("+", "-") else ""
    body = text[len(sign):]
    if not body:
        raise JavaNumberFormatError(f"not a number: {_quoted(text)}")
    try:
        digits = "".join([_TO_ASCII[ch] for ch in body])
    except KeyError:
        raise JavaNumberFormatError(f"not a number: {_quoted(text)}") from None
    # Leading zeros are legal in any number; without them the length bounds the value,
    # and int() is never handed thousands of digits.
    digits = digits.lstrip("0") or "0"
    if len(digits) > 20:
        raise JavaNumberFormatError(f"out of range: {_quoted(text)}")
    return sign + digits


def parse_int(text: str) -> int:
    """`Integer.valueOf(text)` / `Integer.parseInt(text)`."""
    return parse_integer(text, 32)


def parse_long(text: str) -> int:
    """`Long.valueOf(text)` / `Long.parseLong(text)`."""
    return parse_integer(text, 64)


def parse_short(text: str) -> int:
    """`Short.valueOf(text)` / `Short.parseShort(text)`."""
    return parse_integer(text, 16)


def parse_byte(text: str) -> int:
    """`Byte.valueOf(text)` / `Byte.parseByte(text)`."""
    return parse_integer(text, 8)


# --- floating point --------------------------------------------------------------------

# The pieces of FloatingDecimal's grammar, in the syntax Python's re and RE2 share. Each
# alternative consumes its digits in one way only, so a failing match never backtracks
# over a run of digits more than once.
_DECIMAL_BODY: Final = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_HEX_BODY: Final = (
    r"0[xX](?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+"
)
_FLOATING_BODY: Final = (
    rf"[+-]?(?:NaN|Infinity|(?:{_DECIMAL_BODY}|{_HEX_BODY})[fFdD]?)"
)
_FLOATING: Final = re.compile(_FLOATING_BODY)


def _floating_body(text: str) -> str:
    """The trimmed `text` without its suffix, or the error FloatingDecimal raises."""
    body = text.strip(JAVA_WHITESPACE)
    if _FLOATING.fullmatch(body) is None:
        raise JavaNumberFormatError(f"not a number: {_quoted(text)}")
    # Only a suffix ends in one of these letters: a hexadecimal number ends in its
    # decimal exponent.
    return body[:-1] if body[-1] in "fFdD" else body


def parse_double(text: str) -> float:
    """`Double.valueOf(text)` / `Double.parseDouble(text)`."""
    return _double(_floating_body(text))


def _double(body: str) -> float:
    """The double of an accepted, trimmed, unsuffixed text."""
    if "x" in body or "X" in body:
        try:
            return float.fromhex(body)
        except OverflowError:
            return -math.inf if body[0] == "-" else math.inf
    # Python reads the rest alike, NaN and Infinity included (the grammar has been checked),
    # but keeps the sign of "-NaN": Java's NaN is the one canonical NaN.
    value = float(body)
    return value if value == value else math.nan


def parse_float(text: str) -> float:
    """`Float.valueOf(text)` / `Float.parseFloat(text)`: a float32 value, as a double."""
    body = _floating_body(text)
    return _round_float32(_double(body), body)


def _round_float32(d: float, body: str) -> float:
    """The float32 nearest to the number `body`, whose nearest double is `d`.

    Rounding the text to a double and then to float32 rounds twice; the two differ only
    when the double lands exactly halfway between two float32 values, and then the exact
    value of the text decides.
    """
    f = to_float32(d)
    if f == d or d != d or math.isinf(d):
        return f
    g = _next_float32(f, d)
    overflow = math.isinf(f) or math.isinf(g)
    middle = math.copysign(_F32_OVERFLOW_TIE, d) if overflow else (f + g) / 2
    if middle != d:
        return f
    exact = _exact(body)
    if exact == Fraction(d):
        return f
    return max(f, g) if exact > Fraction(d) else min(f, g)


#: Halfway between the largest float and 2**128: from here on Java rounds to infinity.
_F32_OVERFLOW_TIE: Final = 2.0**128 - 2.0**103
_F32_MAX: Final = 3.4028234663852886e38
_F32_MIN_SUBNORMAL: Final = 2.0**-149


def _next_float32(f: float, toward: float) -> float:
    """The float32 next to the float32 `f` in the direction of `toward`."""
    if math.isinf(f):
        return math.copysign(_F32_MAX, f)
    if f == 0.0:
        return math.copysign(_F32_MIN_SUBNORMAL, toward)
    up = abs(toward) > abs(f)
    bits = float32_raw_bits(f)
    return float32_from_bits(bits + (1 if up else -1))


def _exact(body: str) -> Fraction:
    """The exact value of an accepted finite decimal or hexadecimal number text."""
    sign = -1 if body[0] == "-" else 1
    unsigned = body.lstrip("+-")
    if unsigned[1:2] not in ("x", "X"):
        return sign * Fraction(Decimal(unsigned))
    mantissa, _, exponent = unsigned[2:].lower().partition("p")
    whole, _, frac = mantissa.partition(".")
    digits = int(whole + frac or "0", 16)
    return sign * Fraction(digits) * Fraction(2) ** (int(exponent) - 4 * len(frac))


def parse_boolean(text: str) -> bool:
    """`Boolean.valueOf(text)` / `Boolean.parseBoolean`: never fails."""
    return len(text) == 4 and text.lower() == "true"


# --- the same acceptance for RE2 (pyarrow, Spark's regexp uses Java but takes this too) ---

#: A Java integer's text when every character is ASCII.
INTEGER_ASCII_RE2: Final = r"\A[+-]?[0-9]+\z"
#: The character class of Java's digits (`Character.digit(c, 10) != -1`), for RE2.
JAVA_DIGIT_CLASS_RE2: Final = "[" + "".join(
    rf"\x{{{zero:X}}}-\x{{{zero + 9:X}}}" for zero in DIGIT_ZEROS
) + "]"
#: A Java integer's text, any characters: non-ASCII digits are accepted digit by digit
#: (their value is `java_digit`); the range check is separate.
INTEGER_RE2: Final = rf"\A[+-]?{JAVA_DIGIT_CLASS_RE2}+\z"
#: Double.valueOf's acceptance. A text with any character above U+007F is never a
#: Double: the trimmed characters are ASCII and the grammar is ASCII.
DOUBLE_RE2: Final = rf"\A[\x00-\x20]*{_FLOATING_BODY}[\x00-\x20]*\z"
#: Double.valueOf's acceptance once trimmed (no surrounding whitespace).
DOUBLE_BODY_RE2: Final = rf"\A{_FLOATING_BODY}\z"
