"""The machinery every value model's lowering shares: one evaluation's state, the compiler
that dispatches on node class through the model's table, and BETWEEN through the model's
own comparison."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import pyarrow as pa

from ...layout import Layout
from ...syntax import nodes as n
from ..between import between_rule
from .columns import decomposer, resolver
from .parts import Datum, Parts


class Unsupported(NotImplementedError):
    """A selector the kernels cannot evaluate; callers evaluate it row by row."""


class Evaluation:
    """The data of one evaluation, the identifier values already read from it, other
    values computed once per evaluation (`once`), and the rows a kernel could not answer
    exactly (`redo`: each a bool datum, TRUE for such a row), which the plan answers per
    message."""

    __slots__ = ("data", "once", "redo", "values")

    def __init__(self, data: Any) -> None:
        self.data = data
        self.values: dict[str, Parts] = {}
        self.once: dict[object, Any] = {}
        self.redo: list[Datum] = []


#: A compiled node: what it computes over one evaluation (its value or condition; in a
#: model whose evaluation can throw, paired with the rows where it threw).
Compiled: TypeAlias = Callable[[Evaluation], Any]
#: A node handler: (compiler, node) -> the compiled node.
Handler: TypeAlias = Callable[[Any, Any], Compiled]


@dataclass(frozen=True, slots=True)
class Lowering:
    """How one value model lowers to kernels."""

    #: Node class -> (value handler, condition handler).
    handlers: Mapping[type[n.Node], tuple[Handler, Handler]]
    #: Node classes the model's grammars build (`dialects.node_kinds`) but the kernels do
    #: not, and why: a selector holding one runs row by row. What no grammar of the model
    #: builds is not listed: the grammar says it (`Grammar.node_kinds`).
    unsupported: Mapping[type[n.Node], str]
    #: `a op b` of two computed values: the computed condition.
    compare: Callable[[str, Any, Any], Any]
    #: AND (True) or OR (False) of computed conditions, left to right.
    combine: Callable[[bool, Sequence[Any]], Any]
    #: The compiled root condition -> a function giving the bool datum of the answer.
    finish: Callable[[Compiled], Callable[[Evaluation], Datum]]
    #: An Arrow type -> the function splitting its columns into parts (map values
    #: included): the layout's type table, unless the model reads types its own way.
    split: Callable[[pa.DataType], Callable[[Datum], Parts]] = decomposer


class Compiler:
    """Compiles nodes for one schema and layout by one model's table."""

    __slots__ = ("handlers", "layout", "lowering", "schema")

    def __init__(self, schema: pa.Schema, layout: Layout, lowering: Lowering) -> None:
        self.schema = schema
        self.layout = layout
        self.lowering = lowering
        self.handlers = lowering.handlers

    def value(self, node: n.Expr) -> Compiled:
        found = self.handlers.get(type(node))
        if found is None:
            raise self._unsupported(node)
        return found[0](self, node)

    def cond(self, node: n.Expr) -> Compiled:
        found = self.handlers.get(type(node))
        if found is None:
            raise self._unsupported(node)
        return found[1](self, node)

    def _unsupported(self, node: n.Node) -> Unsupported:
        why = self.lowering.unsupported.get(type(node), "no kernel lowering")
        return Unsupported(f"{type(node).__name__} is evaluated row by row: {why}")

    def read(self, name: str) -> Callable[[Evaluation], Parts]:
        """The value of identifier `name`, read once per evaluation."""
        reader = resolver(name, self.schema, self.layout, self.lowering.split)

        def read(ev: Evaluation) -> Parts:
            found = ev.values.get(name)
            if found is None:
                found = ev.values[name] = reader(ev.data)
            return found

        return read


def between(c: Compiler, node: n.Between) -> Compiled:
    """J33 through the model's comparison and AND / OR (backends/between.py); the
    operand is computed once."""
    conjunction, low_op, high_op = between_rule(node.negated)
    operand, low, high = c.value(node.operand), c.value(node.low), c.value(node.high)
    compare, combine = c.lowering.compare, c.lowering.combine

    def run(ev: Evaluation) -> Any:
        e = operand(ev)
        return combine(conjunction, (compare(low_op, e, low(ev)), compare(high_op, e, high(ev))))

    return run
