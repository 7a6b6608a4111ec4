"""The reference evaluator (msgfilter.testing.reference) against the law: the conformance
corpus's `spec` answers, the examples of jms-selectors.md, and rules checked one by one."""

from __future__ import annotations

import math
import sys
from typing import Any

import pytest

import msgfilter
from msgfilter import FilterError, FilterLimitError, FilterPositionError, Limits, Message
from msgfilter.testing import reference_evaluate, reference_filter
from msgfilter.testing.reference import java_double_text, like_matches, tokenize

from conformance import load, message_of

CORPUS = load("activemq-corpus-seed1.jsonl")


def answer(text: str, message: Any = None) -> bool | str | None:
    try:
        return reference_evaluate(text, {} if message is None else message)
    except FilterError:
        return "error"


def test_reference_gives_spec_on_the_whole_corpus() -> None:
    wrong = [
        (case["id"], case["selector"], answer(case["selector"], message_of(case)), case["spec"])
        for case in CORPUS
    ]
    wrong = [w for w in wrong if w[2] != w[3]]
    assert len(CORPUS) == 3000
    assert wrong == []


def test_reference_gives_every_example_of_the_spec() -> None:
    spec_examples = pytest.importorskip("spec_examples")
    examples = spec_examples.examples()
    assert len(examples) > 150
    wrong = [(str(e), answer(e.selector, e.message)) for e in examples]
    assert [w for w, e in zip(wrong, examples, strict=True) if w[1] != e.expected] == []


# Examples the spec gives in prose, and edges it states without an example.
PROSE = [
    ("a\t=\n1", {"a": 1}, True),  # J3: tab and line feed separate tokens
    ("a\r=\f1", {"a": 1}, True),  # J3: carriage return, form feed
    ("a\u00a0= 1", {"a": 1}, "error"),  # J3: no-break space is not whitespace
    ("a =\u20031", {"a": 1}, "error"),  # J3: em space
    ("a =\v1", {"a": 1}, "error"),  # J3: vertical tab is not in the set either
    (".5OR a", {"a": True}, "error"),  # J4: `.5` then OR: a number is not a condition
    ("a=.5OR a", {"a": 0.5}, True),
    ("1AND", {}, "error"),
    ("a = 1 --\n", {}, "error"),  # J5: two minus signs, then nothing
    ("a = 1 - -1", {"a": 2}, True),
    ("a / *", {}, "error"),
    ("a = 00", {"a": 0}, True),  # J9: octal zero
    ("a = 010L", {}, "error"),
    ("a = 0x1FL", {}, "error"),
    ("a = 1_000", {}, "error"),
    ("a = 0b1", {}, "error"),
    ("a = 09.5", {"a": 9.5}, True),
    ("a = 08e1", {"a": 80}, True),  # digits with an exponent: approximate (J11)
    ("a = 0x7FFFFFFFFFFFFFFF", {"a": 2**63 - 1}, True),
    ("a = 0777777777777777777777", {"a": 2**63 - 1}, True),
    ("a = 01000000000000000000000", {}, "error"),  # octal 2**63: J10
    ("a = -01000000000000000000000", {}, "error"),
    ("a = -(9223372036854775808)", {"a": -(2**63)}, True),  # J10: parentheses allowed
    ("a = -+9223372036854775808", {"a": -(2**63)}, True),  # J19: plus changes nothing
    ("a = +9223372036854775808", {}, "error"),
    ("a = 9223372036854775808L", {}, "error"),
    ("a = -9223372036854775808L", {"a": -(2**63)}, True),
    ("a = 9223372036854775809", {}, "error"),
    ("a = -9223372036854775809", {}, "error"),
    ("a = " + "1" * 5000, {}, "error"),
    ("a = 1e", {}, "error"),
    ("a = 1.e2", {"a": 100}, True),
    ("a = .e2", {}, "error"),
    ("1e-400 = 0", {}, True),  # J11: too small is zero
    ("-1e400 < -1e308", {}, True),
    ("ın = 1", {"ın": 1}, True),  # J6: dotless i, not a keyword
    ("ＡＮＤ = 1", {"ＡＮＤ": 1}, True),
    ("a\x01b = 1", {"a\x01b": 1}, True),  # J13: an ignorable control inside a name
    ("\x01a = 1", {}, "error"),  # ... but it cannot start one
    ("a\u0301 = 1", {"a\u0301": 1}, True),  # combining mark
    ("١ = 1", {}, "error"),  # an Arabic-Indic digit cannot start a name
    ("x١ = 1", {"x١": 1}, True),
    ("Ⅻ = 1", {"Ⅻ": 1}, True),  # a letter number starts a name
    ("€ = 1", {"€": 1}, True),  # a currency symbol too
    ("NOT NOT a", {"a": True}, True),
    ("NOT (NOT a) = FALSE", {"a": True}, False),
    ("- NOT a = 1", {}, "error"),
    ("+(a = 1)", {"a": 1}, True),  # J19, J20: unary plus of a condition is that condition
    ("-(a = 1) IS NULL", {"a": 1}, True),
    ("+NULL = 1", {}, "error"),  # J28 through unary plus
    ("-NULL = 1", {}, None),
    ("(NULL) IS NULL", {}, True),
    ("NULL IN ('x')", {}, "error"),
    ("+a IN ('x')", {"a": "x"}, True),
    ("(+a) NOT IN ('x')", {"a": "y"}, True),
    ("-a IN ('x')", {}, "error"),
    ("('x') > 1", {}, "error"),  # J27 through parentheses
    ("-'x' > 1", {}, None),  # a negated string is NULL, not a literal
    ("+'x' > 1", {}, "error"),
    ("a LIKE 'x' ESCAPE '😀'", {"a": "x"}, True),
    ("a LIKE 'x' ESCAPE 'a\u0301'", {}, "error"),  # two code points
    ("a LIKE 'x' ESCAPE ''''", {"a": "x"}, True),  # the escape is a quote
    ("a LIKE '''%' ESCAPE ''''", {"a": "%"}, True),  # the quote escapes the %
    ("a LIKE 'a''''b' ESCAPE ''''", {"a": "a'b"}, True),
    ("a LIKE '%\n%'", {"a": "x\ny"}, True),
    ("a BETWEEN 1 AND 2 BETWEEN 3 AND 4", {}, "error"),
    ("a IS NULL = TRUE", {}, True),
    ("a IS NULL < 1", {}, "error"),
    ("(a = 1) = (b = 1)", {}, None),
    ("a = b = c", {"a": 1, "b": 1, "c": True}, True),
    ("'a' + 1e7 = 'a1.0E7'", {}, True),
    ("'a' + 1234567.0 = 'a1234567.0'", {}, True),
    ("'a' + 0.001 = 'a0.001'", {}, True),
    ("'a' + 1e-4 = 'a1.0E-4'", {}, True),
    ("'a' + (0.0 / 0) = 'aNaN'", {}, True),
    ("'a' + -0.0 = 'a-0.0'", {}, True),
    ("'a' + b = 'a'", {"b": b"x"}, None),  # J32: no selector type is NULL
    ("'' + 9223372036854775807 = '9223372036854775807'", {}, True),
    ("a = 1", {"a": 2**64 + 1}, False),  # an int beyond a long has no selector type
]


@pytest.mark.parametrize(("text", "message", "expected"), PROSE)
def test_reference_on_stated_rules(text: str, message: dict[str, object], expected: Any) -> None:
    assert answer(text, message) == expected


@pytest.mark.parametrize(("text", "message", "expected"), PROSE)
def test_compiled_on_stated_rules(text: str, message: dict[str, object], expected: Any) -> None:
    try:
        got: Any = msgfilter.compile(text).evaluate(message)
    except FilterError:
        got = "error"
    assert got == expected


JAVA_DOUBLES = [
    (1.0, "1.0"), (100.0, "100.0"), (1.5, "1.5"), (0.001, "0.001"), (1e-4, "1.0E-4"),
    (1e7, "1.0E7"), (1234567.0, "1234567.0"), (1e20, "1.0E20"), (-2.5e-8, "-2.5E-8"),
    (5e-324, "4.9E-324"), (1e-323, "9.9E-324"), (1e23, "1.0E23"), (0.1, "0.1"),
    (-0.0, "-0.0"), (0.0, "0.0"), (math.inf, "Infinity"), (-math.inf, "-Infinity"),
    (math.nan, "NaN"), (1.7976931348623157e308, "1.7976931348623157E308"),
    (9999999.999999998, "9999999.999999998"), (123.456, "123.456"), (2e-3, "0.002"),
]


@pytest.mark.parametrize(("value", "text"), JAVA_DOUBLES)
def test_java_double_text(value: float, text: str) -> None:
    assert java_double_text(value) == text


LIKES = [
    ("12993", "12%3", None, True), ("1234", "12%3", None, False), ("loose", "l_se", None, False),
    ("_foo", "\\_%", "\\", True), ("😀", "_", None, True), ("", "%", None, True),
    ("abc", "a.c", None, False), ("x!y", "x!y", "!", True), ("x%", "x%%", "%", True),
    ("xyz", "x%", "%", True), ("x€", "x€€", "€", True), ("abc", "A%", None, False),
    ("a\nb", "a_b", None, True), ("ab", "%%%b", None, True), ("ba", "%b", None, False),
    ("aXbXc", "a%b%c", None, True), ("abc", "abc!", "!", False), ("abc!", "abc!", "!", True),
    ("", "", None, True), ("a", "", None, False), ("", "_", None, False),
]


@pytest.mark.parametrize(("text", "pattern", "escape", "expected"), LIKES)
def test_like_matching(text: str, pattern: str, escape: str | None, expected: bool) -> None:
    assert like_matches(text, pattern, escape) is expected


def test_tokens_take_the_longest_match() -> None:
    texts = [t.text for t in tokenize("a<>b<=c>=d<e1.5e3AND.5OR'it''s'0x1Fl 1LIKE")]
    assert texts == [
        "a", "<>", "b", "<=", "c", ">=", "d", "<", "e1", ".5e3", "AND", ".5", "OR",
        "'it''s'", "0x1F", "l", "1L", "IKE", "",
    ]


def test_errors_carry_positions_inside_the_text() -> None:
    for text in ("a = = 1", "(a = 1", "a = 'x", "a ! 1", "a LIKE 'x' ESCAPE 'ab'", "1"):
        with pytest.raises(FilterPositionError) as caught:
            reference_filter(text)
        assert 0 <= caught.value.offset <= len(text)


def test_text_must_be_a_string() -> None:
    with pytest.raises(FilterError):
        reference_evaluate(b"a = 1", {})  # type: ignore[arg-type]
    with pytest.raises(FilterError):
        reference_filter("a = 1", "rocketmq-tag")


def test_empty_and_blank_selectors_match_everything() -> None:
    for text in ("", "   ", "\t\r\n\f"):
        assert reference_evaluate(text, {}) is True
        assert reference_filter(text).identifiers == frozenset()


def test_messages_as_message_objects() -> None:
    message = Message(
        properties={"a": 1, "JMSType": "p"}, headers={"JMSType": "h"}, tags="T", keys=["k", "l"]
    )
    assert reference_evaluate("a = 1 AND JMSType = 'h'", message) is True
    assert reference_evaluate("TAGS = 'T' AND KEYS = 'k l'", message) is True
    assert reference_evaluate("TAGS IS NULL", Message()) is True
    assert reference_evaluate("KEYS IS NULL", Message()) is True
    assert reference_evaluate("a IS NULL", object()) is True  # not a message: no names


def test_limits_are_the_engines() -> None:
    limits = Limits(max_length=30, max_depth=3, max_in_items=2)
    with pytest.raises(FilterLimitError):
        reference_filter("a = 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'", limits=limits)
    with pytest.raises(FilterLimitError):
        reference_filter("((((a))))", limits=limits)
    with pytest.raises(FilterLimitError):
        reference_filter("a IN ('x','y','z')", limits=limits)
    with pytest.raises(FilterLimitError):
        reference_filter("NOT NOT NOT a", limits=limits)
    assert reference_filter("NOT NOT a", limits=limits).evaluate({"a": True}) is True
    # Chains of AND count as one level, also through parentheses; the engine agrees.
    chain = "a AND (b AND (c AND d))"
    assert reference_filter(chain, limits=limits).evaluate({}) is None
    assert msgfilter.compile(chain, limits=limits).evaluate({}) is None
    for text in ("((((a))))", "NOT NOT NOT a", "a IN ('x','y','z')"):
        with pytest.raises(FilterLimitError):
            msgfilter.compile(text, limits=limits)


def test_deep_input_leaves_the_recursion_limit_as_it_was() -> None:
    before = sys.getrecursionlimit()
    text = "(" * 256 + "a" + ")" * 256
    assert reference_evaluate(text, {"a": True}) is True
    assert reference_evaluate("NOT " * 255 + "a", {"a": True}) is False
    assert sys.getrecursionlimit() == before


def test_identifiers_are_listed() -> None:
    assert reference_filter("a = b OR c IN ('x') OR 'a' LIKE 'b'").identifiers == {"a", "b", "c"}
