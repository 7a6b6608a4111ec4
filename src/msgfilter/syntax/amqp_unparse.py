"""Canonical amqp-sql text of a tree: it parses back to an equal tree, with no more
parentheses than the precedences need (so it stays within RabbitMQ's token limit)."""

from __future__ import annotations

import re

from . import nodes as n
from .amqp_lexer import HEADER_FIELDS, RESERVED

_REGULAR = re.compile(r"[a-zA-Z][a-zA-Z0-9_]*")
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "%": 2}
_ATOMS = (n.StringLit, n.ExactLit, n.ApproxLit, n.BinaryLit, n.BoolLit, n.Ident, n.Field, n.Call)


def unparse(tree: n.Expr) -> str:
    return _cond(tree)


def _name(name: str) -> str:
    if _REGULAR.fullmatch(name) and name.lower() not in RESERVED:
        return name
    return "[" + name.replace("[", "[[").replace("]", "]]") + "]"


def _float(value: float) -> str:
    text = repr(value)
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    if "." not in mantissa:
        mantissa += ".0"
    return f"{mantissa}E{int(exponent)}"


def _atom(node: n.Expr) -> str:
    if isinstance(node, n.StringLit):
        return "'" + node.value.replace("'", "''") + "'"
    if isinstance(node, n.ExactLit):
        return str(node.value)
    if isinstance(node, n.ApproxLit):
        return _float(node.value)
    if isinstance(node, n.BinaryLit):
        return "0x" + node.value.hex().upper()
    if isinstance(node, n.BoolLit):
        return "TRUE" if node.value else "FALSE"
    if isinstance(node, n.Ident):
        return _name(node.name)
    if isinstance(node, n.Field):
        section = "header" if node.name in HEADER_FIELDS else "properties"
        return f"{section}.{node.name}"
    return "UTC()"


def _primary(node: n.Expr) -> str:
    return _atom(node) if isinstance(node, _ATOMS) else f"({_cond(node)})"


def _value(node: n.Expr) -> str:
    """An additive_expr."""
    if isinstance(node, n.Negate):
        inner = node.operand
        if isinstance(inner, n.Negate):
            # -(-x) is what `+x` parses to.
            return "+" + _primary(inner.operand)
        return "-" + _primary(inner)
    if isinstance(node, n.Arith):
        prec = _PRECEDENCE[node.op]
        left, right = _value(node.left), _value(node.right)
        if isinstance(node.left, n.Arith) and _PRECEDENCE[node.left.op] < prec:
            left = f"({left})"
        if isinstance(node.right, n.Arith) and _PRECEDENCE[node.right.op] <= prec:
            right = f"({right})"
        return f"{left} {node.op} {right}"
    return _primary(node)


def _cond(node: n.Expr) -> str:
    if isinstance(node, n.Or):
        return " OR ".join(_cond(x) if not isinstance(x, n.Or) else f"({_cond(x)})"
                           for x in node.operands)
    if isinstance(node, n.And):
        return " AND ".join(f"({_cond(x)})" if isinstance(x, n.Or | n.And) else _cond(x)
                            for x in node.operands)
    if isinstance(node, n.Not):
        inner = node.operand
        text = _cond(inner)
        return f"NOT ({text})" if isinstance(inner, n.Or | n.And) else f"NOT {text}"
    if isinstance(node, n.Compare):
        return f"{_value(node.left)} {node.op} {_value(node.right)}"
    if isinstance(node, n.Like):
        text = f"{_value(node.operand)} {'NOT ' if node.negated else ''}LIKE "
        text += "'" + node.pattern.replace("'", "''") + "'"
        if node.escape is not None:
            text += " ESCAPE '" + node.escape.replace("'", "''") + "'"
        return text
    if isinstance(node, n.InList):
        items = ", ".join(_value(x) for x in node.items)
        return f"{_value(node.operand)} {'NOT ' if node.negated else ''}IN ({items})"
    if isinstance(node, n.IsNull):
        return f"{_atom(node.operand)} IS {'NOT ' if node.negated else ''}NULL"
    return _value(node)
