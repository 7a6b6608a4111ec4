"""syntax/parser.py: text -> AST through the lexer and lark, as each grammar reads it:
empty texts, RocketMQ's `--` without a line end, and errors that name what the grammar
expected at the fault."""

from __future__ import annotations

import pytest

from msgfilter import FilterSyntaxError, dialects
from msgfilter.limits import DEFAULT_LIMITS
from msgfilter.syntax import nodes as n
from msgfilter.syntax.grammar import Grammar
from msgfilter.syntax.parser import parse


def grammar(dialect: str) -> Grammar:
    found = dialects.get(dialect).grammar
    assert found is not None
    return found


def tree(text: str, dialect: str = "jms") -> n.Expr | None:
    return parse(text, grammar(dialect), DEFAULT_LIMITS)


def error(text: str, dialect: str = "jms") -> FilterSyntaxError:
    with pytest.raises(FilterSyntaxError) as caught:
        parse(text, grammar(dialect), DEFAULT_LIMITS)
    return caught.value


a_is_1 = n.Compare("=", n.Ident("a"), n.ExactLit(1))


@pytest.mark.parametrize(("text", "dialect"), [
    ("", "jms"), ("  \t\n", "jms"), ("/* only a comment */", "activemq"),
    ("-- a comment\n", "qpid"),
])
def test_a_text_without_tokens_is_no_tree(text: str, dialect: str) -> None:
    assert tree(text, dialect) is None


def test_a_dangling_double_minus_ends_a_rocketmq_text() -> None:
    # Without a line end `--` is two minus signs; where they cannot continue the
    # expression, RocketMQ reads the text before them.
    assert tree("a = 1 -- note", "rocketmq") == a_is_1
    assert tree("a = --5", "rocketmq") == n.Compare(
        "=", n.Ident("a"), n.Negate(n.Negate(n.ExactLit(5)))
    )
    # With a line end it is a comment.
    assert tree("a = 1 --\n AND b = 2", "rocketmq") == n.And(
        (a_is_1, n.Compare("=", n.Ident("b"), n.ExactLit(2)))
    )
    # Where they can continue it, they are two minus signs.
    assert tree("-- note", "rocketmq") == n.Negate(n.Negate(n.Ident("note")))


@pytest.mark.parametrize("dialect", ["jms", "activemq"])
def test_double_minus_without_a_line_end_is_arithmetic_elsewhere(dialect: str) -> None:
    # jms has no comments; activemq's `--` comment needs its line end.
    assert tree("a = 1 -- b", dialect) == n.Compare(
        "=", n.Ident("a"), n.Arith("-", n.ExactLit(1), n.Negate(n.Ident("b")))
    )
    # And where the signs cannot continue the text, it is an error, not its end.
    assert error("a = 1 --", dialect).offset == len("a = 1 --")


@pytest.mark.parametrize(("dialect", "words", "not_words"), [
    ("jms", {"BETWEEN", "LIKE", "IN"}, {"CONTAINS"}),
    ("activemq", {"BETWEEN", "LIKE", "IN"}, {"CONTAINS"}),
    ("rocketmq", {"BETWEEN", "IN", "CONTAINS", "STARTSWITH", "ENDSWITH"}, {"LIKE"}),
])
def test_expected_words_are_the_grammars(
    dialect: str, words: set[str], not_words: set[str]
) -> None:
    found = error("a NOT 1", dialect)
    assert found.offset == len("a NOT ")
    assert set(found.expected) == words
    assert not set(found.expected) & not_words


def test_an_unfinished_text_expects_an_operand_at_its_end() -> None:
    found = error("a = 1 AND")
    assert found.offset == len("a = 1 AND")
    assert {"an identifier", "NOT", "'('"} <= set(found.expected)
