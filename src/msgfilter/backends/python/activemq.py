"""The `activemq` value model's handlers: ActiveMQ Classic 5.17 with exact Java types
(`semantics.activemq`), its evaluation order and laziness, failures as outcomes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...java.types import Double
from ...semantics import activemq as amq
from ...semantics.activemq_like import amq_like, java_regex
from ...syntax import nodes as n
from .generator import Generator, Handlers
from .jms import (
    HANDLERS as JMS_HANDLERS,
)
from .jms import (
    LITERAL,
    VALUE_ONLY,
    and_tri,
    and_truth,
    is_null_tri,
    lit_value,
    or_tri,
    or_truth,
)

# -- the activemq model: ActiveMQ 5.17 with Java types ------------------------------------
# Operands are evaluated in ActiveMQ's order and as lazily as it does: arithmetic and
# `< <= > >=` skip their right operand when the left one is NULL, `=` evaluates both.
# `matches` follows BooleanExpression.matches (AND and OR short-circuit on "not TRUE"),
# everything else evaluate(); an exception is the outcome "error".


def _amq_literal_value(g: Generator, node: n.Expr) -> str:
    if isinstance(node, n.ExactLit):
        return g.lit(node, amq.literal_exact)
    if isinstance(node, n.ApproxLit):
        return g.lit(node, Double)
    return lit_value(g, node)


def _amq_ident_value(g: Generator, node: n.Ident) -> str:
    return f"_aprop({g.bind(node)[0]}, {g.const(node.name)})"


def _amq_ident_tri(g: Generator, node: n.Ident) -> str:
    return f"_acond({_amq_ident_value(g, node)})"


def amq_lazy(g: Generator, left: n.Expr, right: n.Expr, call: Callable[[str, str], str]) -> str:
    t = g.temp()
    return f"(None if ({t} := {g.value(left)}) is None else {call(t, g.value(right))})"


def _amq_arith_value(g: Generator, node: n.Arith) -> str:
    op = g.const(node.op)
    u = g.temp()
    return amq_lazy(
        g, node.left, node.right,
        lambda t, r: f"(None if ({u} := {r}) is None else _aarith({op}, {t}, {u}))",
    )


def _amq_negate_value(g: Generator, node: n.Negate) -> str:
    return f"_aneg({g.value(node.operand)})"


def _amq_compare_tri(g: Generator, node: n.Compare) -> str:
    convert = "True" if g.convert_strings else "False"
    if node.op in ("=", "<>"):
        helper = "_aeq" if node.op == "=" else "_ane"
        return f"{helper}({g.value(node.left)}, {g.value(node.right)}, {convert})"
    op = g.const(node.op)
    return amq_lazy(
        g, node.left, node.right, lambda t, r: f"_aord({op}, {t}, {r}, {convert})"
    )


def _amq_in_tri(g: Generator, node: n.In) -> str:
    items = g.lit(node, frozenset)
    return f"_ain({g.value(node.operand)}, {items}, {node.negated})"


def _amq_like_tri(g: Generator, node: n.Like) -> str:
    matcher = g.lit(node, _amq_like)
    test = f"_alike({g.value(node.operand)}, {matcher})"
    if not node.negated:
        return test
    t = g.temp()
    return f"(None if ({t} := {test}) is None else not {t})"


def _amq_like(pattern_escape: tuple[str, str | None]) -> object:
    return amq_like(*pattern_escape)


def _amq_call_value(g: Generator, node: n.Call) -> str:
    regex = g.const(java_regex)
    if node.name == "REGEX":
        # regexMatchFunction reads its candidate only once the pattern is not NULL.
        t = g.temp()
        pattern, target = (g.value(a) for a in node.args)
        return (f"(False if ({t} := {pattern}) is None "
                f"else _acall('REGEX', [{t}, {target}], {regex}))")
    args = ", ".join(g.value(a) for a in node.args)
    return f"_acall({g.const(node.name)}, [{args}], {regex})"


def _amq_call_tri(g: Generator, node: n.Call) -> str:
    return f"_acond({_amq_call_value(g, node)})"


def _amq_not_tri(g: Generator, node: n.Not) -> str:
    t = g.temp()
    return f"(None if ({t} := {g.tri(node.operand)}) is None else not {t})"


def amq_handlers(
    tri: Callable[[Generator, Any], str], value: Callable[[Generator, Any], str] | None = None
) -> Handlers:
    return {
        "truth": lambda g, node: f"({tri(g, node)} is True)",
        "falsity": lambda g, node: f"({tri(g, node)} is False)",
        "tri": tri,
        "value": value or tri,
    }


_AMQ_LITERAL: Handlers = {**LITERAL, "value": _amq_literal_value}

HANDLERS: dict[type[n.Node], Handlers] = {
    **JMS_HANDLERS,
    n.ExactLit: _AMQ_LITERAL, n.ApproxLit: _AMQ_LITERAL,
    n.Ident: amq_handlers(_amq_ident_tri, _amq_ident_value),
    n.Negate: {"value": _amq_negate_value, **VALUE_ONLY},
    n.Arith: {"value": _amq_arith_value, **VALUE_ONLY},
    n.Compare: amq_handlers(_amq_compare_tri),
    n.In: amq_handlers(_amq_in_tri),
    n.Like: amq_handlers(_amq_like_tri),
    n.IsNull: amq_handlers(is_null_tri),
    n.Not: amq_handlers(_amq_not_tri),
    n.And: {**amq_handlers(and_tri), "truth": and_truth},
    n.Or: {**amq_handlers(or_tri), "truth": or_truth},
    n.Call: amq_handlers(_amq_call_tri, _amq_call_value),
    n.XQuery: amq_handlers(lambda g, node: "False"),
}
