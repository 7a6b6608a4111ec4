"""The JMS value model's lowering table: node class -> Spark expression for the rule of
its operand kinds (J21-J39), decided while lowering rather than per row."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from functools import reduce

from pyspark.sql import functions as F
from pyspark.sql import types as T

from ...layout import BOOLEAN, DOUBLE, LONG, NULL, NUMERIC, STRING
from ...semantics import values as v
from ...semantics.like import compile_like
from ...syntax import nodes as n
from .compiler import LITERALS, PARENT, Handler, Lowering, Table
from .fallback import double_text_udf
from .values import (
    V,
    as_condition,
    compare,
    const,
    double_arith,
    known_truth,
    like_pattern,
    long_arith,
    negate,
    null,
    truth,
    unless_null,
)


def _combine(conjunction: bool, kids: Sequence[V]) -> V:
    values = list(kids)
    if all(x.is_const for x in values):
        truths = [v.as_condition(x.const) for x in values]
        return known_truth(conjunction, truths)
    # Spark's AND / OR are SQL's three-valued ones, the spec's tables (J39).
    combine = operator.and_ if conjunction else operator.or_
    return V(reduce(combine, [as_condition(x) for x in values]), BOOLEAN)


def _literal(lw: Lowering, node: n.Expr, kids: list[V]) -> V:
    if isinstance(node, n.NullLit):
        return null(NULL)
    return const(node.value)  # type: ignore[union-attr]


def _ident(lw: Lowering, node: n.Ident, kids: list[V]) -> V:
    return lw.read(node.name)


def _negate(lw: Lowering, node: n.Negate, kids: list[V]) -> V:
    return negate(kids[0])


def _text_of(lw: Lowering, node: n.Expr, x: V) -> V | None:
    """The right operand of a string `+` as Java writes it (J31); None: NULL."""
    if x.is_const:
        text = v.java_text(x.const)
        return None if text is None else const(text)
    if x.kind == STRING:
        return x
    if x.kind in (LONG, BOOLEAN):
        # Spark writes longs in decimal and booleans as true/false, as Java does.
        return V(x.col.cast(T.StringType()), STRING)
    if x.kind == DOUBLE:
        lw.udf_parts.append((lw.source(node), "a double written as text (Java's Double.toString)"))
        return V(double_text_udf()(x.col), STRING)
    return None


def _arith(lw: Lowering, node: n.Arith, kids: list[V]) -> V:
    a, b = kids
    op = node.op
    if a.is_const and b.is_const:
        return const(v.ARITHMETIC[op](a.const, b.const))
    if op == "+" and a.kind == STRING:
        text = _text_of(lw, node.right, b)
        if text is None:
            return null(STRING)
        if a.is_const and a.const == "":
            return text
        return V(F.concat(a.col, text.col), STRING)
    if a.kind in NUMERIC and b.kind in NUMERIC:
        if a.kind == LONG and b.kind == LONG:
            return long_arith(op, a, b)
        return double_arith(op, a, b)
    # J32: arithmetic on a string, boolean, NULL or other value is NULL.
    return null(NULL)


def _compare(lw: Lowering, node: n.Compare, kids: list[V]) -> V:
    return compare(node.op, kids[0], kids[1])


def _in(lw: Lowering, node: n.In, kids: list[V]) -> V:
    x = kids[0]
    if x.kind == NULL:
        return truth(None)
    if x.kind != STRING:
        # J34: a non-string value is FALSE for IN and TRUE for NOT IN.
        return V(unless_null(F.lit(node.negated), x), BOOLEAN)
    hit = x.col.isin(*node.items)
    return V(~hit if node.negated else hit, BOOLEAN)


def _like(lw: Lowering, node: n.Like, kids: list[V]) -> V:
    x = kids[0]
    if x.is_const:
        if x.kind == STRING:
            matched = compile_like(node.pattern, node.escape)(x.const)
            return truth(matched != node.negated)
        return truth(None if x.const is None else node.negated)
    if x.kind == NULL:
        return truth(None)
    if x.kind != STRING:
        # J37: LIKE on a non-string is FALSE, NOT LIKE TRUE.
        return V(unless_null(F.lit(node.negated), x), BOOLEAN)
    hit = x.col.like(like_pattern(node.pattern, node.escape))
    return V(~hit if node.negated else hit, BOOLEAN)


def _is_null(lw: Lowering, node: n.IsNull, kids: list[V]) -> V:
    x = kids[0]
    if x.is_const or x.kind == NULL:
        return truth((x.const is None) != node.negated)
    return V(x.col.isNotNull() if node.negated else x.col.isNull(), BOOLEAN)


def _not(lw: Lowering, node: n.Not, kids: list[V]) -> V:
    x = kids[0]
    if x.is_const:
        value = v.as_condition(x.const)
        return truth(None if value is None else not value)
    return V(~as_condition(x), BOOLEAN)


#: Node class -> handler: the parent table (AND, OR, BETWEEN) and the JMS model's own.
HANDLERS: dict[type[n.Node], Handler] = {
    **PARENT,
    **dict.fromkeys(LITERALS, _literal),
    n.Ident: _ident,
    n.Negate: _negate,
    n.Arith: _arith,
    n.Compare: _compare,
    n.In: _in,
    n.Like: _like,
    n.IsNull: _is_null,
    n.Not: _not,
}

#: Every node kind the jms grammars build has a native form (`dialects.node_kinds`).
TABLE = Table(HANDLERS, {}, compare, _combine)
