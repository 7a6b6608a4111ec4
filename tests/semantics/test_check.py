"""semantics/check.py and semantics/fold.py: the checked tree every backend consumes."""

from __future__ import annotations

import pytest

from msgfilter import FilterTypeError
from msgfilter.dialects import get
from msgfilter.limits import DEFAULT_LIMITS
from msgfilter.semantics.check import check
from msgfilter.semantics.fold import fold_signs
from msgfilter.syntax import nodes as n
from msgfilter.syntax.parser import parse


def checked(text: str, dialect: str = "jms") -> n.Expr:
    grammar = get(dialect).grammar
    assert grammar is not None
    built = parse(text, grammar, DEFAULT_LIMITS)
    assert built is not None
    return check(built, text, grammar)


def type_error(text: str, dialect: str = "jms") -> FilterTypeError:
    with pytest.raises(FilterTypeError) as caught:
        checked(text, dialect)
    return caught.value


def test_jms_folds_signed_literals() -> None:
    assert checked("a = -5") == n.Compare("=", n.Ident("a"), n.ExactLit(-5))
    assert checked("a = - -2.5") == n.Compare("=", n.Ident("a"), n.ApproxLit(2.5))
    assert checked("a = -9223372036854775808") == n.Compare(
        "=", n.Ident("a"), n.ExactLit(-(2**63))
    )
    # Long arithmetic wraps: the minimum negated is still the minimum.
    assert checked("a = - -9223372036854775808") == n.Compare(
        "=", n.Ident("a"), n.ExactLit(-(2**63))
    )
    assert checked("a = -b") == n.Compare("=", n.Ident("a"), n.Negate(n.Ident("b")))


@pytest.mark.parametrize("dialect", ["rocketmq", "activemq"])
def test_rocketmq_and_activemq_keep_runtime_negation(dialect: str) -> None:
    assert checked("a = -5", dialect) == n.Compare("=", n.Ident("a"), n.Negate(n.ExactLit(5)))


def test_fold_signs_returns_the_same_tree_when_nothing_folds() -> None:
    tree = n.And((n.Compare("=", n.Ident("a"), n.ExactLit(1)), n.IsNull(False, n.Ident("b"))))
    assert fold_signs(tree) is tree


@pytest.mark.parametrize(
    ("text", "dialect", "offset"),
    [
        ("a > 'x'", "jms", 4),
        ("a = NULL", "jms", 4),
        ("(a = 1) > 2", "jms", 1),
        ("a + 1", "jms", 0),
        ("9223372036854775808 = a", "jms", 0),
        # RocketMQ: the positive literal overflows before any sign applies.
        ("a = -9223372036854775808", "rocketmq", 5),
        ("a BETWEEN 5 AND 1", "rocketmq", 10),
        ("TRUE = 1", "rocketmq", 0),
        ("a > 1.5e400", "rocketmq", 4),
        # ActiveMQ escapes as `\\x` + hex: a tab gives `\\x9`, an invalid Java regex.
        ("a LIKE 'x\t\t' ESCAPE '\t'", "activemq", 7),
    ],
)
def test_type_errors_point_at_the_fault(text: str, dialect: str, offset: int) -> None:
    assert type_error(text, dialect).offset == offset


@pytest.mark.parametrize(
    "text",
    [
        # RocketMQ's literal checks see only plain literals: a negated one passes them.
        "a BETWEEN 10 AND -5",
        "a NOT BETWEEN 5 AND 1",
        "a > -'x'",
        "TRUE = -5",
        "a = -NULL",
        "a = -9223372036854775807",
    ],
)
def test_rocketmq_accepts(text: str) -> None:
    assert checked(text, "rocketmq") is not None
