"""The `rocketmq` dialect against answers RocketMQ's own filter gave (tests/data/rocketmq).

Every case must agree: whether the selector compiles, and whether the message is delivered
(RocketMQ delivers only when the evaluation returns Boolean.TRUE; null, FALSE and a throw
all filter the message out).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import msgfilter
from msgfilter.errors import FilterError

DATA = Path(__file__).parent / "data" / "rocketmq"
SAMPLES = {"cases-seed9.jsonl": 4500, "conversions-seed2.jsonl": 4000}


def _cases(name: str = "cases-seed9.jsonl") -> list[dict[str, Any]]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines()]


def _ours(selector: str, properties: dict[str, str]) -> str:
    try:
        f = msgfilter.compile(selector, "rocketmq")
    except FilterError:
        return "parse-error"
    return "true" if f.matches(properties) else "not delivered"


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_every_case_agrees_with_rocketmq(sample: str) -> None:
    cases = _cases(sample)
    assert len(cases) == SAMPLES[sample]
    wrong = []
    for case in cases:
        want = case["answer"] if case["answer"] in ("parse-error", "true") else "not delivered"
        got = _ours(case["selector"], case["properties"])
        if got != want:
            wrong.append((case["selector"], case["properties"], case["answer"], got))
    assert wrong == []


def test_the_sample_exercises_every_answer() -> None:
    answers = {case["answer"].split(":")[0] for case in _cases()}
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
