"""The generated-code backend: complete, injection-free, total."""

from __future__ import annotations

import math

import pytest

import msgfilter
from msgfilter import dialects
from msgfilter.backends import python as backend
from msgfilter.semantics.model import ValueModel
from msgfilter.syntax import nodes

SQL_DIALECTS = [d for d in dialects.all_dialects() if d.sql]


@pytest.mark.parametrize("model", list(backend.TABLES), ids=lambda m: m.value)
def test_every_node_class_the_models_grammars_build_is_handled(model: ValueModel) -> None:
    # Which classes those are is the grammars' fact (tests/syntax/test_node_kinds.py).
    table = backend.TABLES[model]
    assert dialects.node_kinds(model) <= set(table.handlers)
    for handlers in table.handlers.values():
        assert set(handlers) == {"value", "truth", "falsity", "tri"}


def test_every_sql_dialect_has_a_table() -> None:
    assert {d.model for d in SQL_DIALECTS} == set(backend.TABLES)
    # Only the jms model takes the equality-first shortcut.
    assert [m for m, t in backend.TABLES.items() if t.optimistic] == [ValueModel.JMS]


def test_a_node_outside_the_model_is_refused() -> None:
    tree = nodes.StringTest("CONTAINS", False, nodes.Ident("a"), "x")
    with pytest.raises(NotImplementedError, match="StringTest"):
        backend.compile_function(tree, ValueModel.JMS, "truth")


HOSTILE = [
    "__import__('os').system('echo pwned')",
    "'); import os; ('",
    "\\",
    "\\'",
    "\x00",
    "line1\nline2\r\n",
    '"""',
    "{K0}",
    "m.get",
]


@pytest.mark.parametrize("payload", HOSTILE)
def test_user_text_never_reaches_the_generated_source(payload: str) -> None:
    def selector(value: str) -> str:
        v = value.replace("'", "''")
        return f"s = '{v}' OR s LIKE '%{v}%' OR s IN ('{v}') OR s + '{v}' = t"

    f = msgfilter.compile(selector(payload))
    # The source depends on the expression's shape only: a payload of plain letters with
    # the same LIKE wildcards gives the very same text, whatever the payload holds.
    plain = "".join(c if c in "%_" else "x" for c in payload)
    assert f.source == msgfilter.compile(selector(plain)).source  # type: ignore[attr-defined]
    assert "pwned" not in f.source and "import" not in f.source  # type: ignore[attr-defined]
    assert f.matches({"s": payload})
    # `s = ...`, LIKE and IN are FALSE for "other"; `s + ... = t` is UNKNOWN (t is missing).
    assert f.evaluate({"s": "other"}) is None
    assert f.evaluate({"s": "other", "t": "other" + payload}) is True


def test_identifiers_with_odd_characters_are_data() -> None:
    name = "ünïcödé_$x"
    f = msgfilter.compile(f"{name} = 1 AND {name}2 IS NULL")
    assert name not in f.source  # type: ignore[attr-defined]
    assert f.matches({name: 1})


ODD_VALUES = [
    None, True, False, 0, -1, 2**63 - 1, -(2**63), 2**70, -(2**2000), 1.5, -0.0, math.nan,
    math.inf, -math.inf, "", "x", "\U0001f600", "\ud83d", b"bytes", [1], {"k": 1}, object(),
    1 + 2j, frozenset(), type, Exception("x"),
]

SELECTORS = [
    "a = b", "a <> b", "a < b", "a >= b", "a + b > 0", "a - b = 1", "a * b <> 2", "a / b = 1",
    "-a < 0", "a BETWEEN b AND 10", "a NOT BETWEEN 1 AND b", "a IN ('x')", "a NOT IN ('x')",
    "a LIKE 'x%'", "a NOT LIKE '_'", "a IS NULL", "a + 'x' = b", "'p' + a = b", "a", "NOT a",
    "a AND b", "a OR b", "(a = 1) = b", "a = 1.5", "a < 9223372036854775807", "a > 'x' + b",
]


@pytest.mark.parametrize("text", SELECTORS)
def test_evaluation_is_total_over_odd_values(text: str) -> None:
    f = msgfilter.compile(text)
    for a in ODD_VALUES:
        for b in ODD_VALUES:
            message = {"a": a, "b": b}
            value = f.evaluate(message)
            assert value in (True, False, None)
            assert f.matches(message) is (value is True)


def test_matches_and_evaluate_agree_on_the_corpus() -> None:
    from conformance import load, message_of

    for case in load("activemq-corpus-seed1.jsonl"):
        if case["spec"] == "error":
            continue
        f = msgfilter.compile(case["selector"])
        message = message_of(case)
        assert f.matches(message) is (f.evaluate(message) is True), case["id"]


def test_like_is_linear_time() -> None:
    f = msgfilter.compile("s LIKE '%a%a%a%a%a%a%a%b'")
    assert f.evaluate({"s": "a" * 100_000}) is False
    assert f.evaluate({"s": "a" * 100_000 + "b"}) is True
