"""The `qpid` value model's handlers: Qpid Broker-J's evaluation (`semantics.qpid`) on the
activemq model's Java values, its evaluation order and laziness, failures as outcomes.

Qpid's `matches` is `evaluate(...) == TRUE` (no separate short-circuit rules), so every
condition is generated once, three-valued, and `truth` tests it for TRUE."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...semantics import qpid
from ...syntax import nodes as n
from . import activemq
from .generator import Generator, Handlers
from .jms import is_null_tri


def _ident_value(g: Generator, node: n.Ident) -> str:
    # Names Qpid resolves itself (JMSDestination, AMQMessageID) are settled here, once.
    if node.name in qpid.ALWAYS_NULL:
        return "None"
    read = n.Ident(qpid.ALIASES.get(node.name, node.name), span=node.span)
    return f"_qhdr({g.bind(read)[0]}, {g.const(read.name)})"


def _ident_tri(g: Generator, node: n.Ident) -> str:
    return f"_acond({_ident_value(g, node)})"


def _arith_value(g: Generator, node: n.Arith) -> str:
    op = g.const(node.op)
    u = g.temp()
    # Arithmetic and `< <= > >=` do not evaluate their right operand after a NULL left one.
    return activemq.amq_lazy(
        g, node.left, node.right,
        lambda t, r: f"(None if ({u} := {r}) is None else _qarith({op}, {t}, {u}))",
    )


def _negate_value(g: Generator, node: n.Negate) -> str:
    return f"_qneg({g.value(node.operand)})"


def _compare_tri(g: Generator, node: n.Compare) -> str:
    if node.op in ("=", "<>"):
        # EqualExpression evaluates both operands; `<>` is NOT of it.
        test = f"_qeq({g.value(node.left)}, {g.value(node.right)})"
        return test if node.op == "=" else f"(not {test})"
    op = g.const(node.op)
    return activemq.amq_lazy(g, node.left, node.right, lambda t, r: f"_qord({op}, {t}, {r})")


def _between_tri(g: Generator, node: n.Between) -> str:
    # createBetween: (v >= low) AND (v <= high); NOT BETWEEN: (v < low) OR (v > high).
    e = node.operand
    if node.negated:
        return _or_tri(g, n.Or((n.Compare("<", e, node.low), n.Compare(">", e, node.high))))
    return _and_tri(g, n.And((n.Compare(">=", e, node.low), n.Compare("<=", e, node.high))))


def _qpid_like(pattern_escape: tuple[str, str | None]) -> object:
    return qpid.qpid_like(*pattern_escape)


def _like_tri(g: Generator, node: n.Like) -> str:
    matcher = g.lit(node, _qpid_like)
    test = f"_alike({g.value(node.operand)}, {matcher})"
    if not node.negated:
        return test
    t = g.temp()
    return f"(None if ({t} := {test}) is None else not {t})"


def _and_tri(g: Generator, node: n.And) -> str:
    # Left-associative AndExpression: the first operand that is not TRUE is the answer
    # (NULL AND FALSE is NULL); the rest are not evaluated.
    *first, last = node.operands
    out = g.tri(last)
    for operand in reversed(first):
        t = g.temp()
        out = f"({t} if ({t} := {g.tri(operand)}) is not True else {out})"
    return out


def _or_tri(g: Generator, node: n.Or) -> str:
    # Left-associative OrExpression: TRUE at the first TRUE operand, else the last
    # operand's value (NULL OR FALSE is FALSE).
    *first, last = node.operands
    out = g.tri(last)
    for operand in reversed(first):
        out = f"(True if {g.tri(operand)} is True else {out})"
    return out


def _q(tri: Callable[[Generator, Any], str], value: Callable[[Generator, Any], str] | None = None
       ) -> Handlers:
    return {
        "truth": lambda g, node: f"({tri(g, node)} is True)",
        "falsity": lambda g, node: f"({tri(g, node)} is False)",
        "tri": tri,
        "value": value or tri,
    }


HANDLERS: dict[type[n.Node], Handlers] = {
    **activemq.HANDLERS,
    n.Ident: _q(_ident_tri, _ident_value),
    n.Negate: {**activemq.HANDLERS[n.Negate], "value": _negate_value},
    n.Arith: {**activemq.HANDLERS[n.Arith], "value": _arith_value},
    n.Compare: _q(_compare_tri),
    n.Between: _q(_between_tri),
    n.Like: _q(_like_tri),
    n.IsNull: _q(is_null_tri),
    n.And: _q(_and_tri),
    n.Or: _q(_or_tri),
}
