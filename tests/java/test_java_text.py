"""msgfilter.java.text against a Java 17 JVM's Double.toString and Float.toString
(tests/data/java/tostring.jsonl: edge cases, powers, random bit patterns and decimals)."""

from __future__ import annotations

import math

import pytest

from java_tables import rows
from msgfilter import java


def test_every_double_prints_as_the_jvm_prints_it() -> None:
    table = [row for row in rows("tostring.jsonl") if "d" in row]
    assert len(table) > 2000
    wrong = [(row["s"], java.double_text(java.double_from_bits(int(row["d"], 16))))
             for row in table
             if java.double_text(java.double_from_bits(int(row["d"], 16))) != row["s"]]
    assert wrong == []


def test_every_float_prints_as_the_jvm_prints_it() -> None:
    table = [row for row in rows("tostring.jsonl") if "f" in row]
    assert len(table) > 1000
    wrong = [(row["s"], java.float_text(java.float32_from_bits(int(row["f"], 16))))
             for row in table
             if java.float_text(java.float32_from_bits(int(row["f"], 16))) != row["s"]]
    assert wrong == []


@pytest.mark.parametrize(("value", "text"), [
    (1e23, "9.999999999999999E22"),  # not the shortest ("1.0E23" reads back too)
    (2e-3, "0.002"),
    (9.999999999999999e22, "9.999999999999999E22"),
    (1e7, "1.0E7"),
    (1234567.0, "1234567.0"),
    (0.001, "0.001"),
    (5e-324, "4.9E-324"),
    (1.7976931348623157e308, "1.7976931348623157E308"),
    (-0.0, "-0.0"),
    (math.inf, "Infinity"),
    (-math.inf, "-Infinity"),
    (math.nan, "NaN"),
])
def test_double_text_examples(value: float, text: str) -> None:
    expected = {row["s"] for row in rows("tostring.jsonl")
                if "d" in row and java.double_from_bits(int(row["d"], 16)) == value}
    assert java.double_text(value) == text
    # Where the JVM table has the value, it agrees with the example.
    assert expected <= {text, "-0.0", "0.0"}


@pytest.mark.parametrize(("value", "text"), [
    (1.0e10, "1.0E10"),
    (3.4028234663852886e38, "3.4028235E38"),
    (1.401298464324817e-45, "1.4E-45"),
    (1.1754943508222875e-38, "1.17549435E-38"),  # more digits than the shortest
    (0.1, "0.1"),
])
def test_float_text_examples(value: float, text: str) -> None:
    assert java.float_text(value) == text


def test_the_shortest_digits_are_java_19s() -> None:
    table = rows("tostring-java25.jsonl")
    assert len(table) > 2000
    wrong = [(row["s"], java.shortest_double_text(java.double_from_bits(int(row["d"], 16))))
             for row in table
             if java.shortest_double_text(java.double_from_bits(int(row["d"], 16))) != row["s"]]
    assert wrong == []
    assert java.shortest_double_text(1e23) == "1.0E23"
    assert java.shortest_double_text(5e-324) == "4.9E-324"
    assert java.shortest_double_text(1e-323) == "9.9E-324"
