"""The `artemis` value model's handlers: the `activemq` model's (ActiveMQ's evaluation
order, laziness and Java types), with Artemis's header identifiers and its conversions
(`semantics.activemq` with `artemis=True`, `semantics.artemis`)."""

from __future__ import annotations

from ...semantics.artemis import HEADER_NAMES
from ...syntax import nodes as n
from .activemq import HANDLERS as ACTIVEMQ_HANDLERS
from .activemq import amq_handlers, amq_lazy
from .generator import Generator, Handlers
from .jms import VALUE_ONLY


def _ident_value(g: Generator, node: n.Ident) -> str:
    if node.name in HEADER_NAMES:
        # A header field may sit under its JMS name: the whole mapping is read.
        return f"_arprop(m, {g.const(node.name)})"
    # Other names are properties; a plain int is a Long whatever the name.
    return f"_aprop({g.bind(node)[0]}, '')"


def _compare_tri(g: Generator, node: n.Compare) -> str:
    convert = "True" if g.convert_strings else "False"
    if node.op in ("=", "<>"):
        helper = "_aeq" if node.op == "=" else "_ane"
        return f"{helper}({g.value(node.left)}, {g.value(node.right)}, {convert}, True)"
    op = g.const(node.op)
    return amq_lazy(
        g, node.left, node.right, lambda t, r: f"_aord({op}, {t}, {r}, {convert}, True)"
    )


def _arith_value(g: Generator, node: n.Arith) -> str:
    op = g.const(node.op)
    convert = "True" if g.convert_strings else "False"
    u = g.temp()
    # The last argument: Artemis reads both operands with asNumber (see `arith`).
    return amq_lazy(
        g, node.left, node.right,
        lambda t, r: f"(None if ({u} := {r}) is None else "
        f"_aarith({op}, {t}, {u}, {convert}, True))",
    )


HANDLERS: dict[type[n.Node], Handlers] = {
    **ACTIVEMQ_HANDLERS,
    n.Ident: amq_handlers(lambda g, node: f"_acond({_ident_value(g, node)})", _ident_value),
    n.Compare: amq_handlers(_compare_tri),
    n.Arith: {"value": _arith_value, **VALUE_ONLY},
}
