"""The entry point: a checked tree -> a plan over tables of one schema, lowered by the
table of the filter's value model."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeAlias

import pyarrow as pa

from ...layout import DEFAULT_LAYOUT, Layout
from ...semantics.model import ValueModel
from ...syntax import nodes as n
from ..python import compile_function
from . import amqp, jms, rocketmq
from .columns import check_layout
from .compiler import Compiler, Evaluation, Lowering, Unsupported
from .parts import TRUE, Datum
from .rows import answer_marked

Plan: TypeAlias = Callable[[Any], pa.BooleanArray]

#: Value model -> its lowering table, built once.
LOWERINGS: dict[ValueModel, Lowering] = {
    ValueModel.JMS: jms.LOWERING,
    ValueModel.ROCKETMQ: rocketmq.LOWERING,
    ValueModel.AMQP: amqp.LOWERING,
}

#: The value models no table lowers, and why: their filters run row by row.
ROW_BY_ROW: dict[ValueModel, str] = {
    ValueModel.ACTIVEMQ: "ActiveMQ's Java types and conversion ladder have no kernels",
    ValueModel.QPID: "Qpid's Java types and conversion ladder have no kernels",
    ValueModel.ARTEMIS: "Artemis's Java types, conversion ladder and header names have no kernels",
    ValueModel.AMQP_PROPERTY: "a property filter is not a selector: backends/arrow/"
    "amqp_properties.py lowers it",
    ValueModel.ROCKETMQ_TAG: "a tag filter is not a selector",
    ValueModel.PULSAR_TAG: "a tag filter is not a selector",
}


def _finish(result: Datum, length: int) -> pa.BooleanArray:
    if isinstance(result, pa.Scalar):
        value = result.as_py()
        if value is None:
            return pa.nulls(length, pa.bool_())
        return pa.repeat(pa.scalar(bool(value), pa.bool_()), length)
    if isinstance(result, pa.ChunkedArray):
        result = result.combine_chunks()
    if result.type != pa.bool_():  # pragma: no cover - conditions are bool by construction
        result = result.cast(pa.bool_())
    return result


#: Node class -> the texts it holds that must become Arrow strings.
_TEXTS: dict[type[n.Node], Callable[[Any], tuple[str, ...]]] = {
    n.StringLit: lambda node: (node.value,),
    n.In: lambda node: node.items,
    n.Like: lambda node: (node.pattern, node.escape or ""),
    n.StringTest: lambda node: (node.value,),
}


def _check_texts(tree: n.Expr) -> None:
    """Unsupported when a literal holds a lone surrogate: it is no UTF-8 text, so no
    Arrow string can hold it (a Python message can)."""
    stack: list[n.Node] = [tree]
    while stack:
        node = stack.pop()
        stack.extend(n.children(node))
        texts = _TEXTS.get(type(node))
        if texts is None:
            continue
        for text in texts(node):
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                raise Unsupported("a string literal holds a lone surrogate") from None


def compile_arrow(
    tree: n.Expr | None, model: ValueModel, schema: pa.Schema, layout: Layout = DEFAULT_LAYOUT
) -> Plan:
    """A function from a Table or RecordBatch of `schema` to a BooleanArray, one
    entry per row: TRUE, FALSE or null (UNKNOWN). None is the empty selector (TRUE).

    Raises LayoutError when the table's properties column is not a map, and
    Unsupported for a selector only the per-message backend can evaluate. Rows a
    kernel marks as beyond it (`Evaluation.redo`: amqp-sql's integers beyond a long,
    its failing float arithmetic) are answered by the per-message evaluator.
    """
    check_layout(schema, layout)
    lowering = LOWERINGS.get(model)
    if lowering is None:
        raise Unsupported(f"the {model.value} value model is evaluated row by row: "
                          + ROW_BY_ROW.get(model, "no kernel lowering"))
    if tree is None:
        return lambda data: pa.repeat(TRUE, data.num_rows)
    _check_texts(tree)
    cond = lowering.finish(Compiler(schema, layout, lowering).cond(tree))
    checked = tree

    @functools.cache
    def evaluator() -> Callable[[Any], bool | None]:
        # The per-message evaluator, for the rows a kernel marks: built on first need.
        return compile_function(checked, model, "tri")[0]

    def plan(data: Any) -> pa.BooleanArray:
        ev = Evaluation(data)
        result = _finish(cond(ev), data.num_rows)
        if ev.redo:
            result = answer_marked(result, ev.redo, data, layout, evaluator())
        return result

    return plan
