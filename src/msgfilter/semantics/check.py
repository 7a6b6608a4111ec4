"""Static checks on a built AST (J10, J18, J20, J27, J28, J34): the dialect's type errors.

The checked tree is what every backend consumes. The walk uses an explicit stack: trees
are bounded in depth, but nothing here needs the call stack.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..errors import FilterTypeError
from ..syntax import nodes as n
from ..syntax.grammar import Grammar
from .activemq_like import PatternError, amq_like
from .fold import fold_signs
from .model import ValueModel
from .qpid import qpid_like

#: The models whose LIKE compiles to a Java regex when the selector is parsed: a pattern
#: whose regex does not compile is a selector the broker rejects.
_REGEX_LIKE: dict[ValueModel, Callable[[str, str | None], object]] = {
    ValueModel.ACTIVEMQ: amq_like, ValueModel.QPID: qpid_like,
}


def _is_condition_operand(node: n.Expr) -> bool:
    """J20: conditions, TRUE/FALSE/NULL and bare identifiers may stand as conditions."""
    return n.is_condition(node) or isinstance(node, (n.BoolLit, n.NullLit, n.Ident))


def pattern_check(
    dialect: Grammar, model: ValueModel | None
) -> Callable[[str, str | None], object] | None:
    """What compiles a LIKE pattern when the selector is parsed, raising `PatternError`
    for one the broker refuses; None where patterns are not checked."""
    if model is not None:
        return _REGEX_LIKE.get(model)
    return amq_like if dialect.escape_utf16 else None


def check(
    tree: n.Expr, text: str, dialect: Grammar, model: ValueModel | None = None
) -> n.Expr:
    """The checked tree: signed literals folded where the dialect has them, then every
    static rule applied; FilterTypeError at the first rule it breaks. Without `model`,
    LIKE patterns are checked as ActiveMQ's where the dialect counts UTF-16 units."""

    def fail(message: str, node: n.Node) -> FilterTypeError:
        return FilterTypeError(message, text, node.span[0])

    like_regex = pattern_check(dialect, model)
    if dialect.fold_negation:
        tree = fold_signs(tree)
    if not _is_condition_operand(tree):
        raise fail("the expression is not a condition (it has no TRUE/FALSE value)", tree)
    stack: list[n.Expr] = [tree]
    while stack:
        node = stack.pop()
        stack.extend(n.children(node))
        if (
            isinstance(node, n.ExactLit)
            and dialect.max_exact is not None
            and node.value > dialect.max_exact
        ):
            raise fail("number out of range (larger than a long)", node)
        if isinstance(node, n.ApproxLit) and dialect.finite_literals and math.isinf(node.value):
            raise fail("number out of range (larger than a double)", node)
        if isinstance(node, (n.Not, n.And, n.Or)):
            for operand in n.children(node):
                if not _is_condition_operand(operand):
                    raise fail("operand is not a condition", operand)
        elif isinstance(node, n.Compare):
            _check_compared(node.op, (node.left, node.right), fail)
            if dialect.boolean_literal_check:
                _check_activemq_equality(node, fail)
        elif isinstance(node, n.Between):
            _check_compared("BETWEEN", (node.operand, node.low, node.high), fail)
            if dialect.between_bounds_check and not node.negated:
                _check_bounds(node, fail)
        elif isinstance(node, n.In) and not isinstance(node.operand, n.Ident):
            raise fail("the left operand of IN must be an identifier", node.operand)
        elif isinstance(node, n.Like) and like_regex is not None:
            _check_pattern(node, text, like_regex)
    return tree


Fail = Callable[[str, n.Node], FilterTypeError]


def _check_activemq_equality(node: n.Compare, fail: Fail) -> None:
    # ActiveMQ refuses a boolean constant on the left of = / <> with another constant
    # of another kind on the right (`TRUE = 1`), though it accepts `1 = TRUE`.
    if node.op in ("=", "<>") and isinstance(node.left, n.BoolLit) and isinstance(
        node.right, (n.StringLit, n.ExactLit, n.ApproxLit)
    ):
        raise fail("a boolean literal cannot be compared with a non-boolean literal", node.left)


def _check_pattern(
    node: n.Like, text: str, like_regex: Callable[[str, str | None], object]
) -> None:
    # ActiveMQ and Qpid compile the pattern into a Java regex when they parse the
    # selector, and some escapes make that regex invalid: the selector does not compile.
    try:
        like_regex(node.pattern, node.escape)
    except PatternError as error:
        raise FilterTypeError(f"invalid LIKE pattern: {error}", text, node.pattern_at) from None


def _check_bounds(node: n.Between, fail: Fail) -> None:
    numeric = (n.ExactLit, n.ApproxLit)
    low, high = node.low, node.high
    if isinstance(low, numeric) and isinstance(high, numeric) and low.value > high.value:
        raise fail("the lower bound of BETWEEN is greater than the upper bound", node.low)


def _check_compared(
    op: str, operands: tuple[n.Expr, ...], fail: Fail
) -> None:
    for operand in operands:
        if isinstance(operand, n.NullLit):
            raise fail("NULL cannot be compared; use IS NULL or IS NOT NULL", operand)
    if op in ("=", "<>"):
        return
    for operand in operands:
        if n.is_condition(operand):
            raise fail(f"a condition cannot be an operand of {op}", operand)
        if isinstance(operand, (n.StringLit, n.BoolLit)):
            raise fail(f"a string or boolean literal cannot be an operand of {op}", operand)
