"""msgfilter.java.strings and .arith: String.hashCode/trim/compareTo against a Java 17 JVM
(tests/data/java/strings.jsonl), and the arithmetic of Java's primitive types."""

from __future__ import annotations

import math

from java_tables import rows
from msgfilter import java


def test_hash_trim_and_order_as_the_jvm() -> None:
    table = rows("strings.jsonl")
    assert len(table) > 300
    for row in table:
        text, other = row["s"], row["other"]
        assert java.string_hash(text) == row["hash"], text
        assert java.java_trim(text) == row["trim"], text
        key, other_key = java.utf16_key(text), java.utf16_key(other)
        assert (key > other_key) - (key < other_key) == row["cmp"], (text, other)


def test_a_supplementary_character_sorts_below_the_top_of_the_bmp() -> None:
    assert java.utf16_key("\U0001d7d7") < java.utf16_key("\uffff")
    assert java.string_hash("\U0001d7d7") == 31 * 0xD835 + 0xDFD7


def test_wrap_around() -> None:
    assert java.wrap(2**63) == -(2**63)
    assert java.wrap(-(2**63) - 1) == 2**63 - 1
    assert java.wrap(2**31, 32) == -(2**31)
    assert java.wrap(255, 8) == -1
    assert java.wrap(70000, 16) == 70000 - 65536


def test_float32_rounding_and_bits() -> None:
    assert java.to_float32(0.1) == 0.10000000149011612
    assert java.to_float32(1e39) == math.inf
    assert java.to_float32(-1e39) == -math.inf
    assert java.float32_raw_bits(java.to_float32(1.0)) == 0x3F800000
    assert java.double_bits(math.nan) == java.CANONICAL_NAN_BITS
    assert java.double_bits(-0.0) == -(2**63)
    assert java.double_from_bits(java.double_raw_bits(-2.5)) == -2.5


def test_double_compare_and_division() -> None:
    assert java.double_compare(-0.0, 0.0) == -1
    assert java.double_compare(math.nan, math.inf) == 1
    assert java.double_compare(math.nan, math.nan) == 0
    assert java.ieee_div(1.0, -0.0) == -math.inf
    assert math.isnan(java.ieee_div(0.0, 0.0))
    assert java.long_div(-7, 2) == -3
    assert java.long_div(-(2**63), -1) == -(2**63)
    assert java.long_div(1, 0) is None
    assert java.to_double(2**1100) == math.inf
