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

# One expression per node class that a grammar may leave out: compiling it in a dialect
# whose grammar has no such syntax must fail, which is why a table may lack its handlers.
NEEDS_SYNTAX: dict[type[nodes.Node], str] = {
    nodes.Arith: "a + 1 = 2",
    nodes.Like: "a LIKE 'x%'",
    nodes.StringTest: "a CONTAINS 'x'",
    nodes.Call: "REGEX(a, 'x')",
    nodes.XQuery: "XQUERY '/a'",
    nodes.BinaryLit: "a = 0x41",
    nodes.Field: "p.subject = 'x'",
    nodes.InList: "a IN (1, 2)",
}
# What amqp-sql's grammar lacks that the selector grammars have.
NEEDS_SYNTAX_AMQP: dict[type[nodes.Node], str] = {
    **NEEDS_SYNTAX,
    nodes.NullLit: "a = NULL",
    nodes.Between: "a BETWEEN 1 AND 2",
    nodes.In: "a IN ('x')",
    nodes.Call: "UTC() > 0",
}


@pytest.mark.parametrize("model", list(backend.TABLES), ids=lambda m: m.value)
def test_every_node_class_is_handled_or_deliberately_absent(model: ValueModel) -> None:
    table = backend.TABLES[model]
    assert set(table.handlers).isdisjoint(table.absent)
    assert set(table.handlers) | table.absent == set(nodes.NODE_TYPES)
    for handlers in table.handlers.values():
        assert set(handlers) == {"value", "truth", "falsity", "tri"}
    # Absent means "the grammar cannot build it", never "not written yet".
    assert table.absent <= set(NEEDS_SYNTAX_AMQP if model is ValueModel.AMQP else NEEDS_SYNTAX)


def test_every_sql_dialect_has_a_table() -> None:
    assert {d.model for d in SQL_DIALECTS} == set(backend.TABLES)
    # Only the jms model takes the equality-first shortcut.
    assert [m for m, t in backend.TABLES.items() if t.optimistic] == [ValueModel.JMS]


@pytest.mark.parametrize("dialect", SQL_DIALECTS, ids=lambda d: d.name)
def test_absent_node_classes_are_outside_the_dialects_grammar(dialect: dialects.Dialect) -> None:
    table = backend.TABLES[dialect.model]
    amqp = dialect.model is ValueModel.AMQP
    for node_type, text in (NEEDS_SYNTAX_AMQP if amqp else NEEDS_SYNTAX).items():
        if node_type in table.absent:
            # The text fails, or (`0x41` is a number in jms) builds no such node.
            try:
                f = msgfilter.compile(text, dialect.name)
            except msgfilter.FilterError:
                continue
            assert not any(isinstance(x, node_type) for x in _walk(f.tree))  # type: ignore[attr-defined]
        else:
            f = msgfilter.compile(text, dialect.name)
            assert any(isinstance(x, node_type) for x in _walk(f.tree))  # type: ignore[attr-defined]


def _walk(tree: nodes.Expr) -> list[nodes.Expr]:
    found, stack = [], [tree]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(nodes.children(node))
    return found


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
