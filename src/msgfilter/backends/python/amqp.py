"""The `amqp` value model's handlers: RabbitMQ 4.2's SQL filter evaluation
(`semantics.amqp`), generated three-valued for every node as its `eval0` is.

Every condition is generated once, three-valued; `truth` and `falsity` test it. AND and OR
chains are flat: evaluated left to right, AND stopping at its first FALSE operand and OR
at its first TRUE one, as RabbitMQ's nested `and`/`or` clauses do."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...semantics import amqp
from ...syntax import nodes as n
from .generator import Generator, Handlers


def _q(tri: Callable[[Generator, Any], str], value: Callable[[Generator, Any], str] | None = None
       ) -> Handlers:
    """A node's handlers from its three-valued form (and its value, where that differs
    from the condition it makes: a value standing as a condition is TRUE only as True)."""
    if value is None:
        return {
            "truth": lambda g, node: f"({tri(g, node)} is True)",
            "falsity": lambda g, node: f"({tri(g, node)} is False)",
            "tri": tri,
            "value": tri,
        }
    return {
        "truth": lambda g, node: f"({value(g, node)} is True)",
        "falsity": lambda g, node: f"({value(g, node)} is False)",
        "tri": lambda g, node: f"_mqcond({value(g, node)})",
        "value": value,
    }


def _const(g: Generator, node: Any) -> str:
    return g.const(node.value)


def _string(g: Generator, node: n.StringLit) -> str:
    # A str stands for its UTF-8 bytes (semantics.amqp compares it so).
    return g.const(node.value)


def _bool(g: Generator, node: n.BoolLit) -> str:
    return "True" if node.value else "False"


def _app(g: Generator, node: n.Ident) -> str:
    return f"_mqapp(m, {g.const(node.name)})"


def _field(g: Generator, node: n.Field) -> str:
    return f"_mqfield(m, {g.const(node.name)})"


def _negate(g: Generator, node: n.Negate) -> str:
    return f"_mqneg({g.value(node.operand)})"


def _arith(g: Generator, node: n.Arith) -> str:
    return f"_mqarith({g.const(node.op)}, {g.value(node.left)}, {g.value(node.right)})"


def _call(g: Generator, node: n.Call) -> str:
    # The grammar's only function is UTC().
    return "_mqutc()"


_PY_OPS = {"=": "==", "<>": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def _compare(g: Generator, node: n.Compare) -> str:
    op = g.const(node.op)
    right = node.right
    if isinstance(right, n.StringLit | n.ExactLit | n.ApproxLit):
        # Against a literal, the common case (a value of the literal's kind) is tested
        # inline; any other value goes through the full rule.
        t = g.temp()
        if isinstance(right, n.StringLit):
            same = f"type({t}) is str"
        else:
            # A float read as given may be NaN or infinite (absent to RabbitMQ): `t - t`
            # is 0.0 only for a finite one.
            same = f"(type({t}) is int or (type({t}) is float and {t} - {t} == 0.0))"
        k = g.value(right)
        fast = f"{t} {_PY_OPS[node.op]} {k}"
        left = node.left
        if isinstance(left, n.Ident):
            # Read as given (a dict inline); anything but the literal's kind is then
            # read as RabbitMQ holds it (`_mqv`: NaN absent, a datetime in ms, ...).
            name = g.const(left.name)
            read = f"(m.get({name}) if type(m) is dict else _mqraw(m, {name}))"
            slow = f"_mqcmp({op}, _mqv({t}), {k})"
        else:
            read, slow = g.value(left), f"_mqcmp({op}, {t}, {k})"
        return f"(None if ({t} := {read}) is None else (({fast}) if {same} else {slow}))"
    return f"_mqcmp({op}, {g.value(node.left)}, {g.value(right)})"


def _in_list(g: Generator, node: n.InList) -> str:
    t = g.temp()
    strings = [item.value for item in node.items if isinstance(item, n.StringLit)]
    if isinstance(node.operand, n.Ident) and len(strings) == len(node.items):
        # Strings only against a name: a str value is looked up in a frozenset; any
        # other value is read as RabbitMQ holds it and compared item by item.
        name = g.const(node.operand.name)
        texts = g.const(frozenset(strings))
        read = f"(m.get({name}) if type(m) is dict else _mqraw(m, {name}))"
        items = " or ".join(f"_mqmember(_mqv({t}), {g.value(i)})" for i in node.items)
        test = (
            f"(None if ({t} := {read}) is None else (({t} in {texts}) if type({t}) is str"
            f" else (None if _mqv({t}) is None else ({items}))))"
        )
        return f"_mqnot({test})" if node.negated else test
    # The items are read in order until one equals the operand (lists:any).
    items = " or ".join(f"_mqmember({t}, {g.value(item)})" for item in node.items)
    test = f"(None if ({t} := {g.value(node.operand)}) is None else ({items}))"
    return f"_mqnot({test})" if node.negated else test


def _like(g: Generator, node: n.Like) -> str:
    matcher = g.const(amqp.compile_like(node.pattern, node.escape), ("amqp-like", node))
    test = f"{matcher}({g.value(node.operand)})"
    return f"_mqnot({test})" if node.negated else test


def _is_null(g: Generator, node: n.IsNull) -> str:
    test = f"({g.value(node.operand)} is None)"
    return f"(not {test})" if node.negated else test


def _not(g: Generator, node: n.Not) -> str:
    # A chain of NOTs is generated as one: NOT NOT x is x's condition (NOT answers only
    # TRUE, FALSE or UNKNOWN), so the generated source stays flat however long the chain.
    count, inner = 1, node.operand
    while isinstance(inner, n.Not):
        count, inner = count + 1, inner.operand
    tri = g.tri(inner)
    return f"_mqnot({tri})" if count % 2 else tri


def _junction(g: Generator, node: n.And | n.Or) -> str:
    # AND stops at its first FALSE operand and is TRUE when all are; OR the other way.
    stop = "False" if isinstance(node, n.And) else "True"
    every = "True" if stop == "False" else "False"
    temps = [g.temp() for _ in node.operands]
    pairs = zip(temps, node.operands, strict=True)
    stops = " or ".join(f"({t} := {g.tri(operand)}) is {stop}" for t, operand in pairs)
    all_of = " and ".join(f"{t} is {every}" for t in temps)
    return f"({stop} if {stops} else ({every} if {all_of} else None))"


HANDLERS: dict[type[n.Node], Handlers] = {
    n.StringLit: _q(_string, _string),
    n.ExactLit: _q(_const, _const),
    n.ApproxLit: _q(_const, _const),
    n.BinaryLit: _q(_const, _const),
    n.BoolLit: _q(_bool, _bool),
    n.Ident: _q(_app, _app),
    n.Field: _q(_field, _field),
    n.Negate: _q(_negate, _negate),
    n.Arith: _q(_arith, _arith),
    n.Call: _q(_call, _call),
    n.Compare: _q(_compare),
    n.InList: _q(_in_list),
    n.Like: _q(_like),
    n.IsNull: _q(_is_null),
    n.Not: _q(_not),
    n.And: _q(_junction),
    n.Or: _q(_junction),
}
