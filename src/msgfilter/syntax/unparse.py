"""AST -> canonical text that parses back to an equal tree (in the same dialect)."""

from __future__ import annotations

import math
import re

from . import nodes as n
from .grammar import Grammar

# Binding strength of each level of the grammar (selector.lark), loosest first.
_OR, _AND, _NOT, _EQUALITY, _RELATIONAL, _ADDITIVE, _MULTIPLICATIVE, _UNARY, _PRIMARY = range(
    1, 10
)


def quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


_PLAIN = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def name_text(name: str, dialect: Grammar) -> str:
    """How an identifier is written: bare where it reads back as itself, else (where the
    dialect quotes identifiers) in double quotes, each `"` doubled."""
    if not dialect.quoted_identifiers:
        return name
    if _PLAIN.fullmatch(name) and name.upper() not in dialect.keywords:
        return name
    return '"' + name.replace('"', '""') + '"'


def _approx(value: float) -> str:
    if math.isinf(value):
        # No literal spells infinity; one past the largest double reads as it (J11).
        return "1E309" if value > 0 else "-1E309"
    return repr(value)


def unparse(node: n.Expr, dialect: Grammar) -> str:
    """Canonical text of `node`: single spaces, keywords in capitals, the fewest
    parentheses the grammar needs."""
    return _text(node, dialect)[0]


def _text(node: n.Expr, d: Grammar) -> tuple[str, int]:
    def at(child: n.Expr, level: int) -> str:
        text, own = _text(child, d)
        return f"({text})" if own < level else text

    negated = "NOT " if getattr(node, "negated", False) else ""
    match node:
        case n.StringLit(value=value):
            return quote(value), _PRIMARY
        case n.ExactLit(value=value):
            return str(value), _UNARY if value < 0 else _PRIMARY
        case n.ApproxLit(value=value):
            text = _approx(value)
            return text, _UNARY if text.startswith("-") else _PRIMARY
        case n.BoolLit(value=value):
            return ("TRUE" if value else "FALSE"), _PRIMARY
        case n.NullLit():
            return "NULL", _PRIMARY
        case n.Ident(name=name):
            return name_text(name, d), _PRIMARY
        case n.Negate(operand=operand):
            inner = at(operand, _UNARY)
            return ("- " if inner.startswith("-") else "-") + inner, _UNARY
        case n.Arith(op=op, left=left, right=right):
            level = _ADDITIVE if op in ("+", "-") else _MULTIPLICATIVE
            return f"{at(left, level)} {op} {at(right, level + 1)}", level
        case n.Compare(op=op, left=left, right=right):
            level = _EQUALITY if op in ("=", "<>") else _RELATIONAL
            return f"{at(left, level)} {op} {at(right, level + 1)}", level
        case n.Between(operand=operand, low=low, high=high):
            return (
                f"{at(operand, _RELATIONAL)} {negated}BETWEEN "
                f"{at(low, _ADDITIVE)} AND {at(high, _ADDITIVE)}",
                _RELATIONAL,
            )
        case n.In(operand=operand, items=items):
            listed = ", ".join(quote(item) for item in items)
            return f"{at(operand, _RELATIONAL)} {negated}IN ({listed})", _RELATIONAL
        case n.Like(operand=operand, pattern=pattern, escape=escape):
            tail = "" if escape is None else f" ESCAPE {quote(escape)}"
            return f"{at(operand, _RELATIONAL)} {negated}LIKE {quote(pattern)}{tail}", _RELATIONAL
        case n.StringTest(op=op, operand=operand, value=value):
            return f"{at(operand, _RELATIONAL)} {negated}{op} {quote(value)}", _RELATIONAL
        case n.IsNull(operand=operand):
            return f"{at(operand, _EQUALITY)} IS {negated}NULL", _EQUALITY
        case n.Not(operand=operand):
            if d.not_over_equality:
                # Its operand runs on to the right like a loose NOT's: parenthesised as one.
                return f"NOT {at(operand, _EQUALITY)}", _NOT
            if d.tight_not:
                return f"NOT {at(operand, _UNARY)}", _UNARY
            return f"NOT {at(operand, _NOT)}", _NOT
        case n.And(operands=operands):
            return " AND ".join(at(o, _AND + 1) for o in operands), _AND
        case n.Or(operands=operands):
            return " OR ".join(at(o, _OR + 1) for o in operands), _OR
        case n.Call(name=name, args=args):
            return f"{name}({', '.join(at(a, _UNARY) for a in args)})", _PRIMARY
        case n.XQuery(query=query):
            return f"XQUERY {quote(query)}", _UNARY
    raise TypeError(f"cannot unparse {type(node).__name__}")  # pragma: no cover
