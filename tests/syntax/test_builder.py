"""syntax/builder.py (through syntax/parser.py): tokens -> AST nodes with spans."""

from __future__ import annotations

import pytest

from msgfilter import FilterLimitError, Limits
from msgfilter.dialects import get
from msgfilter.limits import DEFAULT_LIMITS
from msgfilter.syntax import nodes as n
from msgfilter.syntax.parser import parse


def tree(text: str, dialect: str = "jms", limits: Limits = DEFAULT_LIMITS) -> n.Expr:
    grammar = get(dialect).grammar
    assert grammar is not None
    built = parse(text, grammar, limits)
    assert built is not None
    return built


def test_precedence_and_flat_chains() -> None:
    a, b, c, d = (n.Ident(x) for x in "abcd")
    assert tree("a OR b AND c OR d") == n.Or((a, n.And((b, c)), d))
    assert tree("a AND b AND c AND d") == n.And((a, b, c, d))


def test_arithmetic_binds_tighter_than_comparison() -> None:
    assert tree("a + 2 * b > 3") == n.Compare(
        ">", n.Arith("+", n.Ident("a"), n.Arith("*", n.ExactLit(2), n.Ident("b"))),
        n.ExactLit(3),
    )


def test_loose_not_in_jms_tight_not_in_activemq() -> None:
    assert tree("NOT a = 1") == n.Not(n.Compare("=", n.Ident("a"), n.ExactLit(1)))
    assert tree("NOT a = 1", "activemq") == n.Compare("=", n.Not(n.Ident("a")), n.ExactLit(1))


def test_the_builder_never_folds_signs() -> None:
    # Folding is a value rule (semantics.fold), so every dialect's tree keeps the sign.
    for dialect in ("jms", "rocketmq", "activemq"):
        assert tree("a = -5", dialect) == n.Compare(
            "=", n.Ident("a"), n.Negate(n.ExactLit(5))
        )
    assert tree("a = +5") == n.Compare("=", n.Ident("a"), n.ExactLit(5))


def test_literals_are_decoded() -> None:
    found = tree("s IN ('it''s', '') AND t = 0x1F AND u = 017 AND v = 1.5")
    assert isinstance(found, n.And)
    assert found.operands[0] == n.In(False, n.Ident("s"), ("it's", ""))
    assert found.operands[1] == n.Compare("=", n.Ident("t"), n.ExactLit(31))
    assert found.operands[2] == n.Compare("=", n.Ident("u"), n.ExactLit(15))
    assert found.operands[3] == n.Compare("=", n.Ident("v"), n.ApproxLit(1.5))


def test_spans_and_the_pattern_position() -> None:
    text = "x = 1 AND name NOT LIKE 'a\\_%' ESCAPE '\\'"
    found = tree(text)
    assert isinstance(found, n.And)
    like = found.operands[1]
    assert isinstance(like, n.Like) and like.negated
    assert text[like.span[0]:like.span[1]] == "name NOT LIKE 'a\\_%' ESCAPE '\\'"
    assert text[like.pattern_at:].startswith("'a\\_%'")
    assert (like.pattern, like.escape) == ("a\\_%", "\\")


def test_spans_take_no_part_in_equality() -> None:
    assert tree("a=1") == tree("  ( a  =  1 )  ")


def test_between_and_in_carry_their_negation() -> None:
    assert tree("a NOT BETWEEN 1 AND 2") == n.Between(
        True, n.Ident("a"), n.ExactLit(1), n.ExactLit(2)
    )
    assert tree("a NOT IN ('x')") == n.In(True, n.Ident("a"), ("x",))


def test_depth_is_capped_and_sign_runs_over_literals_do_not_nest() -> None:
    limits = Limits(max_depth=8)
    with pytest.raises(FilterLimitError):
        tree("a = " + "-(" * 8 + "b" + ")" * 8, "jms", limits)
    # A run of signs over a literal folds into one signed literal in JMS: not nesting.
    assert isinstance(tree("a = " + "- " * 50 + "1", "jms", limits), n.Compare)
    # In RocketMQ every sign is a runtime negation: the run nests.
    with pytest.raises(FilterLimitError):
        tree("a = " + "- " * 50 + "1", "rocketmq", limits)
