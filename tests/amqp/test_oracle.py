"""amqp-sql agrees with RabbitMQ 4.2's own evaluator on every generated case
(tests/amqp/data/sql_cases.json: the text, the message, RabbitMQ's answer)."""

from __future__ import annotations

import pytest

import msgfilter
from msgfilter import EvaluationFailure, FilterError

from .cases import load, message

DATA = load("sql_cases.json")
MESSAGES = [message(m) for m in DATA["messages"]]
_ANSWER = {True: "true", False: "false", None: "unknown"}


def _answer(text: str, index: int) -> str:
    try:
        f = msgfilter.compile(text, "amqp-sql")
    except FilterError:
        return "error"
    m = MESSAGES[index]
    outcome = f.outcome(m)  # type: ignore[attr-defined]
    if isinstance(outcome, EvaluationFailure):
        assert f.matches(m) is False
        return "failure"
    assert f.evaluate(m) is outcome
    assert f.matches(m) is (outcome is True)
    return _ANSWER[outcome]


def test_the_data_names_the_rabbitmq_commit() -> None:
    assert DATA["rabbitmq_version"] == "v4.2.9"
    assert len(DATA["rabbitmq_commit"]) == 40


@pytest.mark.parametrize("chunk", range(8))
def test_agrees_with_rabbitmq(chunk: int) -> None:
    cases = DATA["cases"][chunk::8]
    wrong = [
        (text, index, expected, got)
        for text, index, expected in cases
        if (got := _answer(text, index)) != expected
    ]
    assert not wrong, wrong[:20]


UNIT = load("unit_suite_cases.json")


def test_agrees_with_rabbitmqs_unit_suite() -> None:
    """The assertions of RabbitMQ's own amqp_filter_sql_unit_SUITE, as facts."""
    props = {"app_props": UNIT["app_props"], "none": {}}
    wrong = []
    for text, which, expected in UNIT["cases"]:
        try:
            f = msgfilter.compile(text, "amqp-sql")
        except FilterError:
            got = "error"
        else:
            got = "true" if f.matches(props[which]) else "false"
        if got != expected:
            wrong.append((text, which, expected, got))
    assert not wrong, wrong
