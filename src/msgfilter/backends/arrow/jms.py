"""The JMS value model's lowering table (J1-J41): node class -> kernels over parts."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import pyarrow.compute as pc

from ...layout import BOOLEAN
from ...syntax import nodes as n
from .compiler import Compiler, Evaluation, Handler, Lowering, between
from .like import in_test, like_test, string_test
from .parts import Datum, Parts, as_condition, present
from .values import arithmetic, compare, literal_parts, negate

ValueFn = Callable[[Evaluation], Parts]
CondFn = Callable[[Evaluation], Datum]


def _combine(conjunction: bool, results: Sequence[Datum]) -> Datum:
    kernel = pc.and_kleene if conjunction else pc.or_kleene
    return functools.reduce(kernel, results)


def _value_as_condition(c: Compiler, node: n.Expr) -> CondFn:
    value = c.value(node)
    return lambda ev: as_condition(value(ev))


def _condition_as_value(c: Compiler, node: n.Expr) -> ValueFn:
    cond = c.cond(node)
    return lambda ev: {BOOLEAN: cond(ev)}


def _literal_value(c: Compiler, node: n.Expr) -> ValueFn:
    parts = literal_parts(node)
    return lambda ev: parts


def _ident_value(c: Compiler, node: n.Ident) -> ValueFn:
    return c.read(node.name)


def _negate_value(c: Compiler, node: n.Negate) -> ValueFn:
    operand = c.value(node.operand)
    return lambda ev: negate(operand(ev))


def _arith_value(c: Compiler, node: n.Arith) -> ValueFn:
    left, right, op = c.value(node.left), c.value(node.right), node.op
    return lambda ev: arithmetic(op, left(ev), right(ev))


def _compare_cond(c: Compiler, node: n.Compare) -> CondFn:
    # Through the table's comparison: a table extending this one keeps the handler.
    left, right, op, rule = c.value(node.left), c.value(node.right), node.op, c.lowering.compare
    return lambda ev: rule(op, left(ev), right(ev))


def negated(negated: bool, cond: CondFn) -> CondFn:
    """`cond`, inverted for NOT IN / NOT LIKE."""
    return (lambda ev: pc.invert(cond(ev))) if negated else cond


def _in_cond(c: Compiler, node: n.In) -> CondFn:
    operand, test = c.value(node.operand), in_test(node.items)
    return negated(node.negated, lambda ev: string_test(operand(ev), test))


def _like_cond(c: Compiler, node: n.Like) -> CondFn:
    operand, test = c.value(node.operand), like_test(node.pattern, node.escape)
    return negated(node.negated, lambda ev: string_test(operand(ev), test))


def _is_null_cond(c: Compiler, node: n.IsNull) -> CondFn:
    operand = c.value(node.operand)
    if node.negated:
        return lambda ev: present(operand(ev))
    return lambda ev: pc.invert(present(operand(ev)))


def _not_cond(c: Compiler, node: n.Not) -> CondFn:
    operand = c.cond(node.operand)
    return lambda ev: pc.invert(operand(ev))


def _and_cond(c: Compiler, node: n.And) -> CondFn:
    operands = [c.cond(o) for o in node.operands]
    return lambda ev: functools.reduce(pc.and_kleene, [o(ev) for o in operands])


def _or_cond(c: Compiler, node: n.Or) -> CondFn:
    operands = [c.cond(o) for o in node.operands]
    return lambda ev: functools.reduce(pc.or_kleene, [o(ev) for o in operands])


#: Node class -> (value handler, condition handler).
HANDLERS: dict[type[n.Node], tuple[Handler, Handler]] = {
    n.StringLit: (_literal_value, _value_as_condition),
    n.ExactLit: (_literal_value, _value_as_condition),
    n.ApproxLit: (_literal_value, _value_as_condition),
    n.BoolLit: (_literal_value, _value_as_condition),
    n.NullLit: (_literal_value, _value_as_condition),
    n.Ident: (_ident_value, _value_as_condition),
    n.Negate: (_negate_value, _value_as_condition),
    n.Arith: (_arith_value, _value_as_condition),
    n.Compare: (_condition_as_value, _compare_cond),
    n.Between: (_condition_as_value, between),
    n.In: (_condition_as_value, _in_cond),
    n.Like: (_condition_as_value, _like_cond),
    n.IsNull: (_condition_as_value, _is_null_cond),
    n.Not: (_condition_as_value, _not_cond),
    n.And: (_condition_as_value, _and_cond),
    n.Or: (_condition_as_value, _or_cond),
}

#: The kernels cover every node kind the jms grammars build (`dialects.node_kinds`).
LOWERING = Lowering(HANDLERS, {}, compare, _combine, finish=lambda cond: cond)
