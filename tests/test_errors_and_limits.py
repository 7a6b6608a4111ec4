"""Errors point at the fault; limits stop hostile input without a crash."""

from __future__ import annotations

import pickle

import pytest

import msgfilter
from msgfilter import FilterLimitError, FilterSyntaxError, FilterTypeError, Limits


def error_of(text: str, dialect: str = "jms") -> msgfilter.FilterPositionError:
    with pytest.raises(msgfilter.FilterPositionError) as caught:
        msgfilter.compile(text, dialect)
    return caught.value


def test_syntax_error_has_position_expected_words_and_caret() -> None:
    error = error_of("a = = 1")
    assert isinstance(error, FilterSyntaxError)
    assert isinstance(error, ValueError)
    assert (error.offset, error.line, error.column) == (4, 1, 5)
    assert "an identifier" in error.expected and "'('" in error.expected
    assert str(error).splitlines()[1:] == ["  a = = 1", "      ^"]


def test_end_of_input_puts_the_caret_after_the_last_character() -> None:
    error = error_of("(a = 1")
    assert error.offset == len("(a = 1")
    assert "')'" in error.expected
    assert str(error).splitlines()[-1] == "  " + " " * 6 + "^"


def test_position_on_a_later_line() -> None:
    error = error_of("a = 1 AND\n  b >> 2")
    assert (error.line, error.column) == (2, 6)
    assert str(error).splitlines()[1:] == ["    b >> 2", "       ^"]


@pytest.mark.parametrize(
    ("text", "offset", "words"),
    [
        ("a != 1", 2, "'!'"),
        ("a = \"x\"", 4, "'\"'"),
        ("a = 'abc", 4, "unterminated string"),
        ("a = 08", 4, "octal"),
        ("a = 0L", 4, "0 takes no L"),
        ("a = 9223372036854775809", 4, "out of range"),
        ("a = 0x8000000000000000", 4, "out of range"),
        ("a.b = 1", 1, "'.'"),
        ("a = 1 b", 6, "identifier 'b'"),
        ("escape = 1", 0, "ESCAPE"),
    ],
)
def test_lexical_and_grammar_errors(text: str, offset: int, words: str) -> None:
    error = error_of(text)
    assert isinstance(error, FilterSyntaxError)
    assert error.offset == offset
    assert words in str(error)


@pytest.mark.parametrize(
    ("text", "offset"),
    [
        ("a + 1", 0),
        ("a = NULL", 4),
        ("s > 'a'", 4),
        ("TRUE > FALSE", 0),
        ("(a = 1) > 0", 1),
        ("'x' IN ('x')", 0),
        ("a LIKE 'x' ESCAPE 'ab'", 18),
        ("9223372036854775808 > 0", 0),
        ("NOT 1", 4),
    ],
)
def test_type_errors_point_at_the_operand(text: str, offset: int) -> None:
    error = error_of(text)
    assert isinstance(error, FilterTypeError)
    assert error.offset == offset


def test_errors_pickle() -> None:
    error = error_of("a = = 1")
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), str(copy), copy.expected) == (type(error), str(error), error.expected)


def test_100000_nested_parentheses_is_a_limit_error_not_a_recursion_error() -> None:
    text = "(" * 100_000 + "a = 1" + ")" * 100_000
    error = error_of(text)
    assert isinstance(error, FilterLimitError)
    assert error.offset == 256


def test_deep_unary_chains_are_capped() -> None:
    error = error_of("NOT " * 5000 + "a")
    assert isinstance(error, FilterLimitError)
    error = error_of("- " * 5000 + "a > 1")
    assert isinstance(error, FilterLimitError)


def test_nesting_up_to_the_limit_compiles_and_evaluates() -> None:
    text = "(" * 255 + "a = 1" + ")" * 255
    assert msgfilter.compile(text).matches({"a": 1})
    deep = "NOT " * 250 + "a"
    selector = msgfilter.compile(deep)
    assert selector.evaluate({"a": True}) is True
    assert msgfilter.compile(str(selector)) == selector
    arithmetic = "a" + " + 1" * 250 + " = 250"
    assert msgfilter.compile(arithmetic).matches({"a": 0})


def test_long_or_chains_are_wide_not_deep() -> None:
    text = " OR ".join(f"a = {i}" for i in range(5000))
    selector = msgfilter.compile(text)
    assert selector.matches({"a": 4999})
    assert not selector.matches({"a": 5000})
    assert selector.evaluate({}) is None


def test_text_length_limit() -> None:
    limits = Limits(max_length=100)
    error = error_of_limits("a = '" + "x" * 200 + "'", limits)
    assert isinstance(error, FilterLimitError)
    assert msgfilter.compile("a = 1", limits=limits).matches({"a": 1})


def test_in_list_limit() -> None:
    limits = Limits(max_in_items=3)
    error = error_of_limits("a IN ('1', '2', '3', '4')", limits)
    assert isinstance(error, FilterLimitError)
    assert error.offset == len("a IN ('1', '2', '3', ")


def test_custom_depth_limit() -> None:
    error = error_of_limits("((((a = 1))))", Limits(max_depth=3))
    assert isinstance(error, FilterLimitError)


def error_of_limits(text: str, limits: Limits) -> msgfilter.FilterPositionError:
    with pytest.raises(msgfilter.FilterPositionError) as caught:
        msgfilter.compile(text, limits=limits)
    return caught.value


def test_long_lines_are_shown_around_the_fault() -> None:
    text = "a = 1 AND " * 200 + "b = = 2"
    lines = str(error_of(text)).splitlines()
    assert len(lines[1]) < 120
    assert lines[2].index("^") - lines[1].index("= = 2") in (2, 3)


def test_failures_are_not_cached() -> None:
    msgfilter.purge()
    for _ in range(2):
        with pytest.raises(FilterSyntaxError):
            msgfilter.compile("a = = 1")
    assert msgfilter.cache_info().currsize == 0


def test_unknown_dialect_and_non_text() -> None:
    with pytest.raises(msgfilter.FilterError, match="unknown dialect"):
        msgfilter.compile("a = 1", "nope")
    with pytest.raises(msgfilter.FilterError, match="text"):
        msgfilter.compile(b"a = 1")  # type: ignore[arg-type]
