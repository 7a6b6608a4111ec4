"""msgfilter.java.numbers against what a Java 17 JVM answers (tests/data/java/parse.jsonl)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from java_tables import digits, parse_rows
from msgfilter import java

INTEGER_PARSERS: dict[str, Callable[[str], int]] = {
    "int": java.parse_int, "long": java.parse_long,
    "short": java.parse_short, "byte": java.parse_byte,
}


def _answer(parse: Callable[[str], object], text: str) -> object:
    try:
        return parse(text)
    except java.JavaNumberFormatError:
        return None


def test_the_table_is_large_and_covers_the_hard_cases() -> None:
    texts = {row["in"] for row in parse_rows()}
    assert len(texts) > 1500
    for case in ("", "+", "-", ".", "e5", "1e", "0x", "Infinityf", "\U0001d7d7", "\u0663",
                 " 1", "\u00a01", "0x1.8p1", "NaN", "-9223372036854775809"):
        assert case in texts


@pytest.mark.parametrize("kind", sorted(INTEGER_PARSERS))
def test_integers_as_java_valueof(kind: str) -> None:
    parse = INTEGER_PARSERS[kind]
    wrong = [(row["in"], row[kind], got) for row in parse_rows()
             if (got := _answer(parse, row["in"])) != row[kind]]
    assert wrong == []


def _bits(parse: Callable[[str], float], bits_of: Callable[[float], int], text: str) -> str | None:
    try:
        return f"{bits_of(parse(text)):x}"
    except java.JavaNumberFormatError:
        return None


def test_doubles_as_java_valueof() -> None:
    wrong = [(row["in"], row["double"], got) for row in parse_rows()
             if (got := _bits(java.parse_double, java.double_raw_bits, row["in"])) != row["double"]]
    assert wrong == []


def test_floats_as_java_valueof_rounding_once() -> None:
    wrong = [(row["in"], row["float"], got) for row in parse_rows()
             if (got := _bits(java.parse_float, java.float32_raw_bits, row["in"])) != row["float"]]
    assert wrong == []


def test_booleans_as_java_valueof() -> None:
    wrong = [row["in"] for row in parse_rows()
             if java.parse_boolean(row["in"]) != row["bool"]]
    assert wrong == []


def test_java_digits_are_the_jvm_table() -> None:
    table = digits()
    assert len(table) == 370  # 37 runs of ten in Java 17's BMP (Unicode 13)
    ours = {code: java.java_digit(chr(code)) for code in range(0x10000)}
    assert {code: value for code, value in ours.items() if value != -1} == table
    assert java.java_digit("\U0001d7d7") == -1  # above the BMP: two surrogates in Java


def test_a_digit_above_the_bmp_is_no_java_digit() -> None:
    with pytest.raises(java.JavaNumberFormatError):
        java.parse_int("\U0001d7d7")
    assert java.parse_int("-\u0663\u0660") == -30


def test_thousands_of_leading_zeros_are_fine() -> None:
    assert java.parse_long("0" * 5000 + "7") == 7
    assert java.parse_int("-" + "0" * 5000) == 0
    with pytest.raises(java.JavaNumberFormatError):
        java.parse_long("1" * 5000)
    assert java.parse_double("0" * 5000 + "1e-5000") == 0.0


def test_a_long_failing_text_is_rejected_quickly() -> None:
    # The grammar's alternatives never rescan a run of digits: no quadratic backtracking.
    for text in ("1" * 200_000 + "x", "0x" + "1" * 200_000 + "x", "." + "1" * 200_000 + "e"):
        with pytest.raises(java.JavaNumberFormatError):
            java.parse_double(text)


def _integer_shape(text: str) -> bool:
    body = text[1:] if text[:1] in ("+", "-") else text
    return bool(body) and all(java.java_digit(ch) != -1 for ch in body)


def test_re2_patterns_accept_what_the_parsers_accept() -> None:
    pc = pytest.importorskip("pyarrow.compute")
    pa = pytest.importorskip("pyarrow")
    texts = [row["in"] for row in parse_rows()]
    # Arrow's strings are UTF-8: a lone surrogate cannot be one.
    texts = [t for t in texts if not any(0xD800 <= ord(c) <= 0xDFFF for c in t)]
    column = pa.array(texts, pa.string())

    def accepted(pattern: str) -> list[bool]:
        result: list[bool] = pc.match_substring_regex(column, pattern).to_pylist()
        return result

    doubles = [_answer(java.parse_double, t) is not None for t in texts]
    assert accepted(java.DOUBLE_RE2) == doubles
    trimmed = [t.strip(java.JAVA_WHITESPACE) for t in texts]
    assert pc.match_substring_regex(pa.array(trimmed), java.DOUBLE_BODY_RE2).to_pylist() == doubles
    # Integers: the pattern is the grammar; the range check is separate.
    shapes = [_integer_shape(t) for t in texts]
    assert accepted(java.INTEGER_RE2) == shapes
    ascii_shapes = [s and t.isascii() for s, t in zip(shapes, texts, strict=True)]
    assert accepted(java.INTEGER_ASCII_RE2) == ascii_shapes
