"""The lowering machinery: one pass over a tree that dispatches on node class through a
value model's table, BETWEEN through the model's own comparison, and IS NULL for the
models that throw."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeAlias

from pyspark.sql import Column

from ...layout import BOOLEAN, NULL
from ...syntax import nodes as n
from ..between import between_rule
from .errors import Fallback
from .schema import Schema
from .throws import finish
from .values import V, as_condition, truth

#: A node handler: (lowering, node, lowered children) -> the node's lowered value.
Handler: TypeAlias = Callable[["Lowering", Any, list[V]], V]


@dataclass(frozen=True, slots=True)
class Table:
    """How one value model lowers to Spark expressions."""

    #: Node class -> handler.
    handlers: Mapping[type[n.Node], Handler]
    #: Node classes the model's grammars build (`dialects.node_kinds`) that have no native
    #: form, and why: the whole filter then runs in the per-message Arrow UDF. What no
    #: grammar of the model builds is not listed: the grammar says it.
    unsupported: Mapping[type[n.Node], str]
    #: `a op b` of two lowered values.
    compare: Callable[[str, V, V], V]
    #: AND (True) or OR (False) of lowered values as conditions.
    combine: Callable[[bool, Sequence[V]], V]
    #: A lowered value where a condition stands (the answer at the root).
    condition: Callable[[V], Column] = as_condition


class Lowering:
    """One filter's lowering over one schema: the identifiers read and the parts that
    run in Python (`udf_parts`)."""

    def __init__(self, schema: Schema, text: str, table: Table) -> None:
        self.schema = schema
        self.text = text
        self.table = table
        self.idents: dict[str, V] = {}
        self.udf_parts: list[tuple[str, str]] = []

    def source(self, node: n.Node) -> str:
        start, end = node.span
        return self.text[start:end] if end > start else type(node).__name__

    def read(self, name: str) -> V:
        found = self.idents.get(name)
        if found is None:
            found = self.idents[name] = self.schema.resolve(name)
        return found

    def run(self, root: n.Expr) -> Column:
        handlers = self.table.handlers
        # Post-order with an explicit stack: trees may nest 256 levels.
        done: dict[int, V] = {}
        stack: list[tuple[n.Expr, bool]] = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if id(node) in done:
                continue
            kids = n.children(node)
            if kids and not expanded:
                stack.append((node, True))
                stack.extend((kid, False) for kid in reversed(kids))
                continue
            handler = handlers.get(type(node))
            if handler is None:
                raise Fallback(self.table.unsupported.get(
                    type(node), f"{type(node).__name__} has no native Spark form"
                ))
            done[id(node)] = handler(self, node, [done[id(kid)] for kid in kids])
        answer = done[id(root)]
        return finish(self.table.condition(answer), answer.error, answer.absorbed)


def between(lw: Lowering, node: n.Between, kids: list[V]) -> V:
    """J33 through the model's comparison and AND / OR (backends/between.py)."""
    e, low, high = kids
    rule = between_rule(node.negated)
    compare = lw.table.compare
    return lw.table.combine(
        rule.conjunction, (compare(rule.low_op, e, low), compare(rule.high_op, e, high))
    )


def is_null(lw: Lowering, node: n.IsNull, kids: list[V]) -> V:
    """IS [NOT] NULL in a model whose evaluation can throw (throws.py): the operand's
    throw stays with the answer; a constant folds only where nothing threw."""
    x = kids[0]
    if x.error is None and (x.is_const or x.kind == NULL):
        return truth((x.kind == NULL or x.const is None) != node.negated)
    test = x.col.isNotNull() if node.negated else x.col.isNull()
    return V(test, BOOLEAN, error=x.error)


def _and(lw: Lowering, node: n.And, kids: list[V]) -> V:
    return lw.table.combine(True, kids)


def _or(lw: Lowering, node: n.Or, kids: list[V]) -> V:
    return lw.table.combine(False, kids)


#: The literal node classes: each table lowers all of them with one handler of its own.
LITERALS: tuple[type[n.Node], ...] = (n.StringLit, n.ExactLit, n.ApproxLit, n.BoolLit, n.NullLit)

#: The parent of every value model's table, which extends it with its own handlers (as
#: the Python backend's tables extend theirs): AND and OR through the table's `combine`,
#: BETWEEN through its `compare` and `combine`, IS NULL for models whose reads can throw.
PARENT: Mapping[type[n.Node], Handler] = MappingProxyType(
    {n.And: _and, n.Or: _or, n.Between: between, n.IsNull: is_null}
)
