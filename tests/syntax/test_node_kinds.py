"""`Grammar.node_kinds`, the one statement of which node classes a grammar builds, agrees
with what the parser builds: for every SQL dialect and every node class, a text holding
that class parses to a tree holding it exactly when the grammar says it builds it."""

from __future__ import annotations

import pytest

from msgfilter import FilterError, dialects
from msgfilter.limits import DEFAULT_LIMITS
from msgfilter.semantics.model import ValueModel
from msgfilter.syntax import nodes as n
from msgfilter.syntax.grammar import Grammar
from msgfilter.syntax.parser import parse

#: One text per node class, holding it.
SAMPLES: dict[type[n.Node], str] = {
    n.StringLit: "a = 'x'",
    n.ExactLit: "a = 1",
    n.ApproxLit: "a = 1.5",
    n.BoolLit: "a = TRUE",
    n.NullLit: "a = NULL",
    n.Ident: "a = b",
    n.Negate: "-a = 1",
    n.Arith: "a + 1 = 2",
    n.Compare: "a < 1",
    n.Between: "a BETWEEN 1 AND 2",
    n.In: "a IN ('x', 'y')",
    n.Like: "a LIKE 'x%'",
    n.StringTest: "a CONTAINS 'x'",
    n.IsNull: "a IS NULL",
    n.Not: "NOT a = 1",
    n.And: "a = 1 AND b = 2",
    n.Or: "a = 1 OR b = 2",
    n.Call: "REGEX(a, 'x')",
    n.XQuery: "XQUERY '/a'",
    # amqp-sql's own (tests/amqp/test_amqp_sql.py checks its NODE_KINDS).
    n.BinaryLit: "a IN (0x41)",
    n.Field: "p.subject = 'x'",
    n.InList: "a IN (1, 2)",
}

SQL = [d for d in dialects.all_dialects() if d.grammar is not None]


def _kinds(tree: n.Node) -> set[type[n.Node]]:
    found, stack = set(), [tree]
    while stack:
        node = stack.pop()
        found.add(type(node))
        stack.extend(n.children(node))
    return found


def test_every_node_class_has_a_sample() -> None:
    assert set(SAMPLES) == set(n.NODE_TYPES)


@pytest.mark.parametrize("dialect", SQL, ids=lambda d: d.name)
def test_the_grammar_builds_exactly_the_kinds_it_declares(dialect: dialects.Dialect) -> None:
    grammar = dialect.grammar
    assert grammar is not None
    kinds = grammar.node_kinds()
    for kind, text in SAMPLES.items():
        if kind in kinds:
            tree = parse(text, grammar, DEFAULT_LIMITS)
            assert tree is not None and kind in _kinds(tree), (kind, text)
            assert _kinds(tree) <= kinds, text
        else:
            with pytest.raises(FilterError):
                parse(text, grammar, DEFAULT_LIMITS)


def test_the_switches_decide_the_kinds() -> None:
    words = frozenset({"NOT", "AND", "OR", "IS", "NULL"})
    bare = Grammar(name="bare", keywords=words, arithmetic=False)
    assert bare.node_kinds() == {
        n.StringLit, n.ExactLit, n.ApproxLit, n.Ident, n.Negate, n.Compare, n.NullLit,
        n.Not, n.And, n.Or, n.IsNull,
    }
    for kind in bare.node_kinds():
        tree = parse(SAMPLES[kind], bare, DEFAULT_LIMITS)
        assert tree is not None and kind in _kinds(tree)
    full = Grammar(name="full", keywords=words | {"LIKE", "XQUERY", "STARTSWITH"}, functions=True)
    added = {n.Arith, n.Like, n.XQuery, n.StringTest, n.Call}
    assert full.node_kinds() - bare.node_kinds() == added


def test_a_models_kinds_are_its_dialects_kinds() -> None:
    rocketmq = dialects.get("rocketmq").grammar
    assert rocketmq is not None
    assert dialects.node_kinds(ValueModel.ROCKETMQ) == rocketmq.node_kinds()
    assert n.XQuery in dialects.node_kinds(ValueModel.ARTEMIS)
    assert n.Call not in dialects.node_kinds(ValueModel.ARTEMIS)
    assert dialects.node_kinds(ValueModel.ROCKETMQ_TAG) == frozenset()
