"""The `rocketmq` dialect's rules, each as RocketMQ's own filter shows it.

The samples of answers RocketMQ's filter gave (tests/data/rocketmq) run against every
backend in tests/test_conformance.py: whether the selector compiles, and whether the
message is delivered (RocketMQ delivers only when the evaluation returns Boolean.TRUE;
null, FALSE and a throw all filter the message out).
"""

from __future__ import annotations

import pytest

import msgfilter
from msgfilter.errors import FilterError

from conformance import rocketmq_sample


def test_the_sample_exercises_every_answer() -> None:
    answers = {case["answer"].split(":")[0] for case in rocketmq_sample("cases-seed9.jsonl")}
    assert answers == {"parse-error", "true", "false", "null", "throw"}


@pytest.mark.parametrize(
    ("selector", "properties", "delivered"),
    [
        # Unary minus is a runtime negation in RocketMQ: the literal checks see `5`.
        ("a BETWEEN 10 AND -5", {"a": "0"}, False),
        ("a NOT BETWEEN 10 AND -5", {"a": "0"}, True),
        ("a > -'x'", {"a": "1"}, False),
        ("TRUE = -5", {}, False),
        # -2147483648 is Long 2147483648 negated: the property is read by Long.valueOf.
        ("a > -2147483648", {"a": "5000000000"}, True),
        ("a > -2147483647", {"a": "5000000000"}, False),
        # A `--` with no line end is two minus signs ...
        ("a = --5", {"a": "5"}, True),
        ("--a = 5", {"a": "5"}, False),  # -(-a) of a string is NULL
        ("a = -5", {"a": "-5"}, True),
        ("a IS NULL -- x", {}, True),
        # ... and where they cannot continue the expression the text ends there.
        ("a = 5 -- note", {"a": "5"}, True),
        ("a = 5 -- note\n", {"a": "5"}, True),
        # AND inside OR evaluates its right operand after a NULL left one, and a throw
        # there aborts the whole expression.
        ("(missing = 1 AND a > 1) OR b = 'x'", {"a": "abc", "b": "x"}, False),
        ("a BETWEEN -missing AND b OR TRUE", {"a": "1", "b": "q"}, False),
    ],
)
def test_rocketmq_rules(selector: str, properties: dict[str, str], delivered: bool) -> None:
    assert msgfilter.compile(selector, "rocketmq").matches(properties) is delivered


@pytest.mark.parametrize(
    "selector",
    [
        "-9223372036854775808 < a", "a = -(9223372036854775808)", "-a", "a = 1 AND --", "--",
        "a = 1 OR --",
    ],
)
def test_rocketmq_refuses(selector: str) -> None:
    with pytest.raises(FilterError):
        msgfilter.compile(selector, "rocketmq")
