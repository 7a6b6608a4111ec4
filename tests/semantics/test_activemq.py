"""The `activemq` dialect reproduces ActiveMQ 5.17, quirks and Java types included.

Three sources of truth: the shared corpus and examples (recorded answers, checked against
every backend in tests/test_conformance.py), and a fresh corpus generated and answered by
the real ActiveMQ selector code on every run (a new seed each time, printed on failure so
that the run can be reproduced).
"""

from __future__ import annotations

import json
import os
import pickle
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

import msgfilter
from msgfilter import EvaluationFailure, jtypes

from conformance import SHARED, activemq_answer, activemq_message_of, load, oracle_answer

ORACLE = SHARED / "tools" / "activemq-oracle"


def _mismatches(
    cases: list[dict[str, Any]], answers: dict[int, tuple[object, object]]
) -> list[str]:
    wrong = []
    for case in cases:
        expected = answers[case["id"]]
        got = activemq_answer(case["selector"], activemq_message_of(case))
        if got != expected:
            wrong.append(f"{case['id']}: {case['selector']!r} ActiveMQ {expected}, we {got}")
    return wrong


def _java_available() -> str | None:
    if shutil.which("java") is None or shutil.which("javac") is None:
        return "Java 17 (java, javac) is not installed"
    if not ORACLE.is_dir():
        return f"the oracle is not at {ORACLE}"
    return None


@pytest.mark.oracle
@pytest.mark.skipif(_java_available() is not None, reason=str(_java_available()))
def test_fresh_corpus_from_the_real_activemq() -> None:
    seed = int(os.environ.get("MSGFILTER_ORACLE_SEED", random.randrange(2**31)))
    count = int(os.environ.get("MSGFILTER_ORACLE_CASES", "3000"))
    print(f"oracle corpus seed {seed}, {count} cases "
          f"(rerun with MSGFILTER_ORACLE_SEED={seed})")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "corpus.jsonl"
        run = subprocess.run(
            ["bash", str(ORACLE / "make-corpus.sh"), str(seed), str(count), str(out)],
            capture_output=True, text=True, timeout=600,
        )
        if run.returncode != 0:
            pytest.skip(f"the oracle could not run here: {run.stderr.strip()[-500:]}")
        cases = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    answers = {c["id"]: (c["expect"], c["value"]) for c in cases}
    assert len(cases) == count
    wrong = _mismatches(cases, answers)
    assert wrong == [], f"seed {seed}: " + "\n".join(wrong[:20])


# -- behaviours, each as ActiveMQ shows it (activemq-selectors.md) -------------------------


def outcome(text: str, message: dict[str, object] | None = None) -> object:
    return msgfilter.compile(text, "activemq").outcome(message or {})  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "message", "expected"),
    [
        ("1 = a", {}, False),
        ("a = 1", {}, None),
        ("a = b", {}, True),
        ("'x' <> a", {}, True),
        ("s <> 1", {"s": "1"}, True),
        ("1 = s", {"s": jtypes.Short(1)}, False),
        ("s = 1", {"s": jtypes.Short(1)}, True),
        ("f = 1.1", {"f": jtypes.Float(1.1)}, False),
        ("i = 16777217", {"i": jtypes.Float(16777216)}, True),
        ("2147483647 + 1 < 0", {}, True),
        ("a * 2 = -2", {"a": jtypes.Int(2147483647)}, True),
        ("a * 2 = 4294967294", {"a": 2147483647}, True),  # a plain int is a Java long
        ("7 / 2 = 3.5", {}, True),
        ("x / 0 > 1", {"x": 5}, True),
        ("0.0/0 = 0.0/0", {}, True),
        ("0.0/0 > 1", {}, True),
        ("-0.0 = 0.0", {}, False),
        ("9223372036854775808 > 0", {}, False),
        ("9223372036854775808 + 0 = 0", {}, True),
        ("99999999999999999999 + 0 = 1661992959", {}, True),
        ("-9223372036854775808 < 0", {}, True),
        ("NOT a = b", {}, True),
        ("NOT a LIKE 'x'", {"a": 1}, False),
        ("a IN ('x')", {"a": 1}, None),
        ("'a' + 1 = 'a1'", {}, True),
        ("'a' + 1.5 = 'a1.5'", {}, True),
        ("a % 2 = 1", {"a": jtypes.Int(7)}, True),
        ("a LIKE 'x€€' ESCAPE '€'", {"a": "x ac"}, True),
        ("a LIKE 'x€€' ESCAPE '€'", {"a": "x€"}, False),
        ("REGEX('a.*', s)", {"s": "xab"}, True),
        ("INLIST(SPLIT('a,b', ','), s)", {"s": "b"}, True),
        ("INLIST(MAKELIST('a', 'b'), s)", {"s": "c"}, False),
        ("REPLACE(s, 'a', 'b') = 'bbc'", {"s": "abc"}, True),
        ("XQUERY '//a'", {}, False),
        ("convert_string_expressions:s = 1", {"s": "1"}, True),
        ("convert_string_expressions:s = 1", {"s": "x"}, False),
        ("a = 1 /* note */", {"a": 1}, True),
        ("a = 1 -- c", {"a": 1}, False),
        ("JMSPriority = 4", {"JMSPriority": 4}, True),
    ],
)
def test_activemq_behaviour(text: str, message: dict[str, object], expected: object) -> None:
    assert outcome(text, message) is expected


@pytest.mark.parametrize(
    ("text", "message", "java_class"),
    [
        ("1 + s = 2", {"s": "1"}, "java.lang.RuntimeException"),
        ("1.5 = f", {"f": jtypes.Float(1.5)}, "java.lang.ClassCastException"),
        ("b + 1 = 2", {"b": True}, "java.lang.RuntimeException"),
        ("-b = -1", {"b": jtypes.Byte(1)}, "java.lang.RuntimeException"),
        ("INLIST(s, 'a')", {"s": "a"}, "java.lang.ClassCastException"),
    ],
)
def test_evaluation_errors_are_outcomes_not_exceptions(
    text: str, message: dict[str, object], java_class: str
) -> None:
    f = msgfilter.compile(text, "activemq")
    result = f.outcome(message)  # type: ignore[attr-defined]
    assert isinstance(result, EvaluationFailure)
    assert result.java_class == java_class
    assert not result
    assert f.matches(message) is False
    assert f.evaluate(message) is None


def test_matches_short_circuits_on_unknown_but_evaluate_does_not() -> None:
    f = msgfilter.compile("a = 1 AND b + 1 = 2", "activemq")
    message = {"b": True}
    assert f.match_outcome(message) is False  # type: ignore[attr-defined]
    assert isinstance(f.outcome(message), EvaluationFailure)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "text",
    ["", "ü = 1", "xpath = 1", "NOT a > 1", "TRUE = 1", "a = NULL", "'abc'", "a + 1",
     "regex('a', s)", "REGEX('a')", "MAKELIST() IS NULL", "a LIKE 'x' ESCAPE '😀'",
     "a LIKE 'x\t\t.' ESCAPE '\t'", "XPATH '//a'", "0x8000000000000000 > 0", "08 = 8"],
)
def test_parse_errors(text: str) -> None:
    with pytest.raises(msgfilter.FilterError):
        msgfilter.compile(text, "activemq")


def test_jtypes_wrap_and_round_like_java() -> None:
    assert jtypes.Int(2**31) == -(2**31)
    assert jtypes.Byte(200) == -56
    assert jtypes.Short(-32769) == 32767
    assert jtypes.Float(1.1) != 1.1 and jtypes.Float(1.1) == pytest.approx(1.1)
    assert jtypes.Float(16777217) == 16777216.0
    assert jtypes.java("int", 5) == 5 and type(jtypes.java("int", 5)) is jtypes.Int
    assert pickle.loads(pickle.dumps(jtypes.Float(1.1))) == jtypes.Float(1.1)
    assert type(pickle.loads(pickle.dumps(jtypes.Short(3)))) is jtypes.Short
    with pytest.raises(ValueError):
        jtypes.java("char", 1)


def test_prefix_round_trips_and_counts_in_equality() -> None:
    plain = msgfilter.compile("s = 1", "activemq")
    converted = msgfilter.compile("convert_string_expressions:s = 1", "activemq")
    assert plain != converted
    assert str(converted) == "convert_string_expressions:s = 1"
    assert msgfilter.compile(str(converted), "activemq") == converted
    with pytest.raises(msgfilter.FilterSyntaxError) as caught:
        msgfilter.compile("convert_string_expressions:s = = 1", "activemq")
    assert caught.value.offset == len("convert_string_expressions:s = ")
    assert "convert_string_expressions:" in str(caught.value)


def test_jms_dialect_refuses_activemq_extensions() -> None:
    for text in ["a % 2 = 1", "REGEX('a', s)", "XQUERY '//a'", "a = /* c */ 1"]:
        with pytest.raises(msgfilter.FilterError):
            msgfilter.compile(text)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-v"]))


def test_unparse_round_trips_on_the_corpus() -> None:
    for case in load("activemq-corpus-seed1.jsonl"):
        if case["expect"] == "error" and case.get("phase") == "parse":
            continue
        f = msgfilter.compile(case["selector"], "activemq")
        again = msgfilter.compile(str(f), "activemq")
        assert again == f, case["id"]
        message = activemq_message_of(case)
        assert again.outcome(message) == f.outcome(message), case["id"]  # type: ignore[attr-defined]


def test_regex_matches_the_tostring_of_every_java_value_as_activemq_does() -> None:
    # ActiveMQ 5.17's own answers (tests/data/activemq/README.md).

    data = Path(__file__).parents[1] / "data" / "activemq"
    lines = (data / "regex-tostring.jsonl").read_text(encoding="utf-8").splitlines()
    cases = [json.loads(line) for line in lines]
    expected = (data / "regex-tostring.expected.jsonl").read_text(encoding="utf-8")
    answers = {a["id"]: a for a in map(json.loads, expected.splitlines())}
    assert len(cases) > 600
    wrong = [
        (c["selector"], c["properties"])
        for c in cases
        if activemq_answer(c["selector"], activemq_message_of(c)) != oracle_answer(answers[c["id"]])
    ]
    assert wrong == []


@pytest.mark.parametrize(
    ("text", "message", "expected"),
    [
        ("REGEX('[0-9]*', id)", {"id": 1870414179}, True),
        ("REGEX('^1870414179$', id)", {"id": jtypes.Long(1870414179)}, True),
        ("REGEX('^1\\.1$', f)", {"f": jtypes.Float(1.1)}, True),
        ("REGEX('^1\\.0E10$', d)", {"d": 1e10}, True),
        ("REGEX('^true$', b)", {"b": True}, True),
        ("REGEX('^-3$', b)", {"b": jtypes.Byte(-3)}, True),
        ("REGEX('^\\[a, 1\\]$', MAKELIST('a', 1))", {}, True),
        # A NULL pattern is FALSE before the candidate is read (here it would throw).
        ("REGEX(nope, -b)", {"b": jtypes.Byte(1)}, False),
    ],
)
def test_regex_reads_non_strings_by_their_tostring(
    text: str, message: dict[str, object], expected: object
) -> None:
    assert outcome(text, message) is expected


def test_function_arguments_are_unary_expressions() -> None:
    with pytest.raises(msgfilter.FilterSyntaxError):
        msgfilter.compile("REGEX('x', 1 + 2)", "activemq")
    assert outcome("REGEX('^3$', (1 + 2))") is True


# What ActiveMQ 5.17.2 answers when arithmetic meets a value that is no number, read from
# the ERROR frame of a failed STOMP send (tests/testing/test_live_activemq.py asks the
# live broker the same): the left operand is checked first, with its own message.
ARITHMETIC_FAILURES = [
    ("a - 1 = 0", {"a": "x"}, "Cannot call minus operation on: x and: 1"),
    ("1 - a = 0", {"a": "x"}, "Cannot convert value: x into a number"),
    ("a * a = 0", {"a": "x"}, "Cannot call multiply operation on: x and: x"),
    ("'x' * 2 = 0", {}, "Cannot call multiply operation on: x and: 2"),
    ("2 % a = 0", {"a": "x"}, "Cannot convert value: x into a number"),
    ("(a = 'x') - 1 = 0", {"a": "x"}, "Cannot call minus operation on: true and: 1"),
    ("1 - (a = 'x') = 0", {"a": "x"}, "Cannot convert value: true into a number"),
]


@pytest.mark.parametrize(("text", "message", "reason"), ARITHMETIC_FAILURES)
def test_arithmetic_failures_say_what_activemq_says(text, message, reason):  # type: ignore[no-untyped-def]
    got = msgfilter.compile(text, "activemq").match_outcome(message)
    assert isinstance(got, EvaluationFailure)
    assert got.message == reason
