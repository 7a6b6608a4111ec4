"""The `rocketmq` value model's handlers: string properties converted to the literal's
type, evaluation aborted where the broker throws (`semantics.rocketmq`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...syntax import nodes as n
from .generator import Generator, Handlers, condition, falsity_from_tri, truth_from_tri
from .jms import AND, OR, VALUE_ONLY
from .jms import HANDLERS as JMS_HANDLERS

# -- the rocketmq model: string properties converted to the literal's type ---------------
# Every operation is a call into semantics/rocketmq.py, whose conversions may raise
# `Undelivered` as the broker throws; the generated function's handler turns that into
# "not delivered" for the whole message, as the broker does.

_RMQ_COMPARE = {"=": "_req", "<>": "_rne", "<": "_rlt", "<=": "_rle", ">": "_rgt", ">=": "_rge"}


def _rmq_ident_value(g: Generator, node: n.Ident) -> str:
    return f"_rprop({g.bind(node)[0]})"


def _rmq_ident_tri(g: Generator, node: n.Ident) -> str:
    # A bare property is cast to Boolean: a string (every property) is FALSE.
    return f"_cond(_rprop({g.bind(node)[0]}))"


def _rmq_compare_tri(g: Generator, node: n.Compare) -> str:
    return f"{_RMQ_COMPARE[node.op]}({g.value(node.left)}, {g.value(node.right)})"


def _rmq_in_tri(g: Generator, node: n.In) -> str:
    items = g.lit(node, frozenset)
    return f"_rin({g.value(node.operand)}, {items}, {node.negated})"


def _rmq_string_test_tri(g: Generator, node: n.StringTest) -> str:
    op, text = g.const(node.op), g.lit(node)
    return f"_rtest({op}, {node.negated}, {g.value(node.operand)}, {text})"


def _rmq_negate_value(g: Generator, node: n.Negate) -> str:
    return f"_rneg({g.value(node.operand)})"


def _from_tri(tri: Callable[[Generator, Any], str]) -> Handlers:
    return condition(
        lambda g, node: f"({tri(g, node)} is True)",
        lambda g, node: f"({tri(g, node)} is False)",
        tri,
    )


def _tri_tests(handlers: Handlers) -> Handlers:
    """Handlers whose TRUE and FALSE tests evaluate the node fully, in the broker's order.

    Where evaluation can abort (RocketMQ's throws), a test that stops early would skip an
    operand that throws. OR's TRUE test stops only at a TRUE operand, as the broker does.
    AND's stops at the first operand that is not TRUE, which is safe only for the whole
    expression's AND ("not TRUE" is "not delivered" there, throw or not): `TOP` keeps it
    for that node alone."""
    tri = handlers["tri"]
    return {
        **handlers,
        "falsity": lambda g, node: f"({tri(g, node)} is False)",
        **({} if handlers is OR else {
            "truth": lambda g, node: f"({tri(g, node)} is True)",
        }),
    }


HANDLERS: dict[type[n.Node], Handlers] = {
    **JMS_HANDLERS,
    n.Not: _tri_tests(JMS_HANDLERS[n.Not]),
    n.And: _tri_tests(JMS_HANDLERS[n.And]),
    n.Or: _tri_tests(JMS_HANDLERS[n.Or]),
    n.Ident: {"value": _rmq_ident_value, "truth": truth_from_tri,
              "falsity": falsity_from_tri, "tri": _rmq_ident_tri},
    n.Negate: {"value": _rmq_negate_value, **VALUE_ONLY},
    n.Compare: _from_tri(_rmq_compare_tri),
    n.In: _from_tri(_rmq_in_tri),
    n.StringTest: _from_tri(_rmq_string_test_tri),
}

#: Handlers for the node at the top of the tree where they differ from `HANDLERS`.
TOP: dict[type[n.Node], Handlers] = {n.And: AND}
