"""The `rocketmq` dialect: RocketMQ's SQL92 filter, as brokers.md A.2 and its errata say."""

from __future__ import annotations

import pickle

import pytest

import msgfilter
from msgfilter import FilterSyntaxError, FilterTypeError, Message
from msgfilter.semantics import rocketmq as rq


def evaluate(text: str, properties: dict[str, object] | Message) -> bool | None:
    return msgfilter.compile(text, "rocketmq").evaluate(properties)


@pytest.mark.parametrize(
    ("text", "properties", "expected"),
    [
        # A.2: string properties converted to the literal's type; failures undelivered.
        ("a = 3", {"a": "3"}, True),
        ("a = 3", {"a": "3.0"}, None),
        ("a = 3", {"a": "abc"}, None),
        ("a = 3.0", {"a": "3"}, True),
        ("a > 3", {"a": "5000000000"}, None),
        ("a > 3", {"a": "3.5"}, None),
        ("a > 3.0", {"a": "3.5"}, True),
        ("a > 5000000000", {"a": "6000000000"}, True),
        ("a = FALSE", {"a": "abc"}, True),
        ("a = TRUE", {"a": "TrUe"}, True),
        ("TRUE = a", {"a": "true"}, None),
        ("a = +3", {"a": "+3"}, True),
        ("a = 3", {"a": " 3"}, None),
        ("a = 3.0", {"a": " 3 "}, True),
        ("a = 3.0", {"a": "3d"}, True),
        ("a = 3", {"a": "٣"}, True),
        ("a = 'x'", {"a": "x"}, True),
        ("a = 'x'", {"a": "X"}, False),
        ("a = b", {"a": "1", "b": "1.0"}, False),
        ("a > b", {"a": "2", "b": "1.5"}, True),
        ("a > b", {"a": "x", "b": "1.5"}, None),
        # A.2: an exception anywhere aborts the whole evaluation, left to right.
        ("a = 1 OR b = 2", {"a": "abc", "b": "2"}, None),
        ("b = 2 OR a = 1", {"a": "abc", "b": "2"}, True),
        ("b = 3 AND a = 1", {"a": "abc", "b": "2"}, False),
        # Errata: a missing property on the right of = / <> is FALSE, on the left UNKNOWN.
        ("a = 5", {}, None),
        ("5 = a", {}, False),
        ("5 <> a", {}, True),
        ("'x' <> a", {}, True),
        ("a <> 5", {}, None),
        ("a = b", {}, True),
        ("a > 5", {}, None),
        ("5 < a", {}, None),
        ("a IN ('x')", {}, None),
        ("a NOT IN ('x')", {}, None),
        ("a IS NULL", {}, True),
        ("a IS NOT NULL", {}, False),
        # The CONTAINS family is FALSE for missing values and empty search strings.
        ("a CONTAINS 'x'", {}, False),
        ("a NOT CONTAINS 'x'", {}, False),
        ("NOT (a CONTAINS 'x')", {}, True),
        ("a CONTAINS 'x'", {"a": "yxy"}, True),
        ("a NOT CONTAINS 'x'", {"a": "yy"}, True),
        ("a CONTAINS ''", {"a": "yy"}, False),
        ("a NOT CONTAINS ''", {"a": "yy"}, False),
        ("a STARTSWITH 'ab'", {"a": "abc"}, True),
        ("a NOT STARTSWITH 'ab'", {"a": "abc"}, False),
        ("a ENDSWITH 'bc'", {"a": "abc"}, True),
        ("a NOT ENDSWITH 'x'", {"a": "abc"}, True),
        # Errata: 3L is an Integer; NaN and -0.0 in Double.compareTo order.
        ("a > 3L", {"a": "5000000000"}, None),
        ("a > 3.0", {"a": "NaN"}, True),
        ("a = 0.0", {"a": "NaN"}, False),
        ("a < 0.0", {"a": "-0.0"}, True),
        # NOT is a tight prefix: NOT a IS NULL is (NOT a) IS NULL.
        ("NOT a IS NULL", {}, True),
        ("NOT a IS NULL", {"a": "x"}, False),
        ("NOT a = 1", {"a": "x"}, False),
        # A bare property is cast to Boolean: strings are FALSE.
        ("a", {"a": "true"}, False),
        ("a", {}, None),
        ("-a > 1", {"a": "5"}, None),
        ("a BETWEEN 0 AND 3", {"a": "2"}, True),
        ("a NOT BETWEEN 0 AND 3", {"a": "5"}, True),
        ("a NOT BETWEEN 5 AND 1", {"a": "3"}, True),
        ("a IN ('1', '2')", {"a": "2"}, True),
        ("a IN ('1', '2')", {"a": 2}, True),
        ("a = 0.0", {"a": "0"}, True),
    ],
)
def test_evaluation(text: str, properties: dict[str, object], expected: bool | None) -> None:
    f = msgfilter.compile(text, "rocketmq")
    assert f.evaluate(properties) is expected
    assert f.matches(properties) is (expected is True)


def test_tags_is_the_message_tag() -> None:
    f = msgfilter.compile(
        "(TAGS is not null and TAGS in ('TagA', 'TagB')) and (a is not null and a between 0 and 3)",
        "rocketmq",
    )
    assert f.matches(Message(properties={"a": "2"}, tags="TagA"))
    assert not f.matches(Message(properties={"a": "2"}, tags="TagC"))
    assert not f.matches(Message(properties={"a": "7"}, tags="TagB"))


def test_non_string_values_are_read_as_their_java_text() -> None:
    assert evaluate("a = 3", {"a": 3}) is True
    assert evaluate("a = 3", {"a": 3.0}) is None
    assert evaluate("a = TRUE", {"a": True}) is True
    assert evaluate("a = 'x'", {"a": b"x"}) is False


@pytest.mark.parametrize(
    ("text", "error", "offset"),
    [
        ("a = 1 foo bar", FilterSyntaxError, 6),  # RocketMQ ignores trailing text; we refuse
        ("a LIKE 'x%'", FilterSyntaxError, 2),
        ("a + 1 > 2", FilterSyntaxError, 2),
        ("a * 2 > 2", FilterSyntaxError, 2),
        ("a > 007", FilterSyntaxError, 4),
        ("a = 0x1F", FilterSyntaxError, 4),
        ("x >= 0l AND y < 5", FilterSyntaxError, 5),
        ("a != 1", FilterSyntaxError, 2),
        ("a contains 123", FilterSyntaxError, 11),
        ("a IN (1, 2)", FilterSyntaxError, 6),
        ("über = 1", FilterSyntaxError, 0),
        ("NOT a > 1", FilterTypeError, 0),
        ("a > 'x'", FilterTypeError, 4),
        ("a > TRUE", FilterTypeError, 4),
        ("a = NULL", FilterTypeError, 4),
        ("TRUE = 1", FilterTypeError, 0),
        ("a BETWEEN 5 AND 1", FilterTypeError, 10),
        ("1a = 'x'", FilterSyntaxError, 1),
        ("a > 1.5e400", FilterTypeError, 4),
        ("", FilterSyntaxError, 0),
        ("a = 1 AND", FilterSyntaxError, 9),
        ("'abc'", FilterTypeError, 0),
    ],
)
def test_compile_errors(text: str, error: type[Exception], offset: int) -> None:
    with pytest.raises(error) as caught:
        msgfilter.compile(text, "rocketmq")
    assert caught.value.offset == offset  # type: ignore[attr-defined]


@pytest.mark.parametrize("zero", ["0.0", "0.", ".0", "0.00", "0E0", "1e-400"])
def test_zero_literals_are_accepted(zero: str) -> None:
    # RocketMQ rejects every zero-valued float literal (a bug); we accept them.
    assert evaluate(f"a > {zero}", {"a": "1"}) is True


def test_comments_are_skipped() -> None:
    assert evaluate("a = 1 /* note */ AND b = 2", {"a": "1", "b": "2"}) is True
    assert evaluate("a = 1 -- trailing note", {"a": "1"}) is True
    assert evaluate("a = 1 -- note\nAND b = 2", {"a": "1", "b": "3"}) is False


def test_round_trip_and_pickle() -> None:
    for text in [
        "NOT a = 1", "a NOT CONTAINS 'x''y'", "-a > -5", "a BETWEEN -1 AND 2.5",
        "(a = 1 OR b IS NULL) AND TAGS IN ('A', 'B')", "NOT (a = 1 AND b = 2)",
    ]:
        f = msgfilter.compile(text, "rocketmq")
        assert msgfilter.compile(str(f), "rocketmq") == f, text
        assert pickle.loads(pickle.dumps(f)) == f
        assert f.dialect == "rocketmq"


def test_java_number_parsing() -> None:
    assert rq.parse_double("0x1.8p1") == 3.0
    assert rq.parse_double("\t1e3f ") == 1000.0
    assert rq.parse_double("-Infinity") == float("-inf")
    for bad in ("1_0", "abc", "0x10", "", "1e", "∞"):
        with pytest.raises(rq.Undelivered):
            rq.parse_double(bad)


def test_matches_never_skips_an_operand_the_broker_would_evaluate() -> None:
    # `y = 1` throws after `x = 1` is UNKNOWN: the broker does not deliver the message.
    f = msgfilter.compile("NOT ((x = 1 OR y = 1) AND z = 1)", "rocketmq")
    message = {"y": "abc", "z": "2"}
    assert f.evaluate(message) is None
    assert f.matches(message) is False


def test_zero_and_negative_zero_are_different_literals() -> None:
    assert evaluate("a = 0.0 OR a = -0.0", {"a": "-0.0"}) is True
