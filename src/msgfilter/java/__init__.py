"""Java's value rules, once: every dialect and backend takes them from here.

- `numbers`: parsing number text as `Integer/Long/Short/Byte/Float/Double/Boolean.valueOf`
  (and the RE2 texts of the same acceptance, for column-wise backends);
- `text`: `Double.toString` and `Float.toString` as Java 17 prints them, the
  shortest-digits `Double.toString` of Java 19+, and `String.valueOf` of any selector value;
- `arith`: int/long wrap-around, float32 rounding, double bits, `Double.compare`, IEEE
  division;
- `strings`: `String.hashCode`, `String.compareTo` (UTF-16) order, `String.length`,
  `String.trim`, `getBytes(UTF_8)`.

Nothing here depends on the rest of msgfilter.
"""

from __future__ import annotations

from .arith import (
    CANONICAL_NAN_BITS,
    double_bits,
    double_compare,
    double_from_bits,
    double_raw_bits,
    float32_from_bits,
    float32_raw_bits,
    ieee_div,
    long_div,
    to_double,
    to_float32,
    wrap,
)
from .numbers import (
    DIGIT_ZEROS,
    DOUBLE_BODY_RE2,
    DOUBLE_RE2,
    INTEGER_ASCII_RE2,
    INTEGER_BITS,
    INTEGER_RE2,
    JAVA_DIGIT_CLASS_RE2,
    JavaNumberFormatError,
    java_digit,
    parse_boolean,
    parse_byte,
    parse_double,
    parse_float,
    parse_int,
    parse_integer,
    parse_long,
    parse_short,
)
from .strings import (
    JAVA_WHITESPACE,
    java_trim,
    string_hash,
    utf8_bytes,
    utf16_key,
    utf16_length,
    utf16_units,
)
from .text import double_text, float_text, shortest_double_text, value_text

__all__ = [
    "CANONICAL_NAN_BITS",
    "DIGIT_ZEROS",
    "DOUBLE_BODY_RE2",
    "DOUBLE_RE2",
    "INTEGER_ASCII_RE2",
    "INTEGER_BITS",
    "INTEGER_RE2",
    "JAVA_DIGIT_CLASS_RE2",
    "JAVA_WHITESPACE",
    "JavaNumberFormatError",
    "double_bits",
    "double_compare",
    "double_from_bits",
    "double_raw_bits",
    "double_text",
    "float32_from_bits",
    "float32_raw_bits",
    "float_text",
    "ieee_div",
    "java_digit",
    "java_trim",
    "long_div",
    "parse_boolean",
    "parse_byte",
    "parse_double",
    "parse_float",
    "parse_int",
    "parse_integer",
    "parse_long",
    "parse_short",
    "shortest_double_text",
    "string_hash",
    "to_double",
    "to_float32",
    "utf8_bytes",
    "utf16_key",
    "utf16_length",
    "utf16_units",
    "value_text",
    "wrap",
]
