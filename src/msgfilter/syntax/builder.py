"""Reductions of the LALR parse -> AST nodes.

The builder runs inside the parser (lark calls it on each reduction, bottom-up), so no
step of building recurses: a tree's depth is known as it grows and is capped there.
Literal text is decoded here; unary plus disappears (it changes nothing, J19) and unary
minus stays a `Negate` node (semantics.fold folds signed literals where the dialect has them).
"""

from __future__ import annotations

from typing import Any, cast

from lark import Token, Transformer

from ..java import utf16_length
from ..limits import Limits
from . import nodes as n
from .grammar import Grammar


class BuildError(Exception):
    """A rule broken while building, at an offset; the parser adds the text."""

    def __init__(self, message: str, offset: int, kind: str = "syntax") -> None:
        super().__init__(message)
        self.message, self.offset, self.kind = message, offset, kind


def _span(*parts: n.Node | Token) -> n.Span:
    starts, ends = [], []
    for part in parts:
        if isinstance(part, Token):
            starts.append(part.start_pos or 0)
            ends.append(part.end_pos or 0)
        else:
            starts.append(part.span[0])
            ends.append(part.span[1])
    return (min(starts), max(ends))


def _length(text: str, dialect: Grammar) -> int:
    # ActiveMQ counts UTF-16 code units (String.length); the spec counts characters.
    return utf16_length(text) if dialect.escape_utf16 else len(text)


def decode_string(token: Token) -> str:
    return token[1:-1].replace("''", "'")


def decode_identifier(token: Token) -> str:
    """The name an IDENT token spells: a quoted identifier loses its quotes and each
    doubled quote inside stands for one."""
    text = str(token)
    if text.startswith('"'):
        return text[1:-1].replace('""', '"')
    return text


def decode_exact(text: str) -> int:
    digits = text.rstrip("lL")
    if digits[:2] in ("0x", "0X"):
        return int(digits, 16)
    if len(digits) > 1 and digits[0] == "0":
        return int(digits, 8)
    return int(digits)


class _Chain:
    """An AND or OR chain still being read: mutable, never seen outside the builder."""

    __slots__ = ("depth", "end", "kind", "operands", "start")

    def __init__(self, kind: type[n.And] | type[n.Or], first: n.Expr) -> None:
        self.kind, self.depth = kind, 1
        self.operands: list[n.Expr] = []
        self.start, self.end = first.span
        self._extend(first)

    def _extend(self, node: n.Expr) -> None:
        parts = node.operands if isinstance(node, self.kind) else (node,)
        self.operands.extend(parts)
        self.depth = max(self.depth, 1 + max(p.depth for p in parts))

    def add(self, node: n.Expr, builder: Builder) -> None:
        self._extend(node)
        self.end = max(self.end, node.span[1])
        if self.depth > builder.limits.max_depth:
            raise BuildError(
                f"expression nests deeper than {builder.limits.max_depth}", node.span[0], "limit"
            )

    def node(self) -> n.Expr:
        return self.kind(tuple(self.operands), span=(self.start, self.end), depth=self.depth)


def _is_chain(value: Any, kind: type[n.And] | type[n.Or]) -> bool:
    return isinstance(value, _Chain) and value.kind is kind


def _finish(value: Any) -> Any:
    return value.node() if isinstance(value, _Chain) else value


class Builder(Transformer[Token, n.Expr | None]):
    """Lark callbacks, one per grammar alias."""

    def __init__(self, dialect: Grammar, limits: Limits) -> None:
        super().__init__()
        self.dialect = dialect
        self.limits = limits

    # -- helpers --------------------------------------------------------------------

    def _deep(self, *operands: n.Expr) -> int:
        depth = 1 + max(o.depth for o in operands)
        if depth > self.limits.max_depth:
            raise BuildError(
                f"expression nests deeper than {self.limits.max_depth}",
                operands[0].span[0],
                "limit",
            )
        return depth

    # -- start ----------------------------------------------------------------------

    def start(self, children: list[Any]) -> n.Expr | None:
        return _finish(children[0]) if children else None

    # -- literals and names --------------------------------------------------------------

    def string(self, c: list[Token]) -> n.Expr:
        return n.StringLit(decode_string(c[0]), span=_span(c[0]))

    def exact(self, c: list[Token]) -> n.Expr:
        return n.ExactLit(decode_exact(c[0]), span=_span(c[0]))

    def approx(self, c: list[Token]) -> n.Expr:
        return n.ApproxLit(float(c[0]), span=_span(c[0]))

    def true(self, c: list[Token]) -> n.Expr:
        return n.BoolLit(True, span=_span(c[0]))

    def false(self, c: list[Token]) -> n.Expr:
        return n.BoolLit(False, span=_span(c[0]))

    def null(self, c: list[Token]) -> n.Expr:
        return n.NullLit(span=_span(c[0]))

    def ident(self, c: list[Token]) -> n.Expr:
        return n.Ident(decode_identifier(c[0]), span=_span(c[0]))

    def parens(self, c: list[Any]) -> n.Expr:
        node: n.Expr = _finish(c[1])
        return node

    def not_kw(self, c: list[Token]) -> Token:
        return c[0]

    # -- operators ----------------------------------------------------------------------

    def plus(self, c: list[Any]) -> n.Expr:
        node: n.Expr = c[1]
        return node

    def minus(self, c: list[Any]) -> n.Expr:
        sign, operand = c
        span = _span(sign, operand)
        # Always a node: whether a sign folds into its literal is a value rule of the
        # dialect, decided by the checker (semantics.check), not by the grammar. A run of
        # signs over a literal that will fold does not count as nesting.
        if self.dialect.fold_negation and (
            isinstance(operand, n.ExactLit | n.ApproxLit)
            or (isinstance(operand, n.Negate) and operand.depth == 1)
        ):
            return n.Negate(operand, span=span, depth=1)
        return n.Negate(operand, span=span, depth=self._deep(operand))

    def arith(self, c: list[Any]) -> n.Expr:
        left, op, right = c
        if not self.dialect.arithmetic:
            raise BuildError(f"the {self.dialect.name} dialect has no arithmetic", op.start_pos)
        return n.Arith(
            cast(n.ArithOp, str(op)), left, right,
            span=_span(left, right), depth=self._deep(left, right),
        )

    def compare(self, c: list[Any]) -> n.Expr:
        left, op, right = c
        return n.Compare(
            cast(n.CompareOp, str(op)), left, right,
            span=_span(left, right), depth=self._deep(left, right),
        )

    def is_null(self, c: list[Any]) -> n.Expr:
        return n.IsNull(False, c[0], span=_span(c[0], c[-1]), depth=self._deep(c[0]))

    def is_not_null(self, c: list[Any]) -> n.Expr:
        return n.IsNull(True, c[0], span=_span(c[0], c[-1]), depth=self._deep(c[0]))

    def not_(self, c: list[Any]) -> n.Expr:
        keyword, operand = c
        return n.Not(operand, span=_span(keyword, operand), depth=self._deep(operand))

    def and_(self, c: list[Any]) -> _Chain:
        return self._junction(n.And, c[0], _finish(c[2]))

    def or_(self, c: list[Any]) -> _Chain:
        return self._junction(n.Or, _finish(c[0]) if not _is_chain(c[0], n.Or) else c[0],
                              _finish(c[2]))

    def _junction(self, kind: type[n.And] | type[n.Or], left: Any, right: n.Expr) -> _Chain:
        # AND and OR are associative in three-valued logic too: chains flatten, so a long
        # list of alternatives is one wide node, not a deep one. The grammar is left
        # recursive, so a chain grows on the left: it is kept mutable while it grows
        # (amortised O(1) a term) and frozen into a node where something else takes it.
        chain = left if _is_chain(left, kind) else _Chain(kind, left)
        chain.add(right, self)
        return chain

    # -- predicates ---------------------------------------------------------------------

    @staticmethod
    def _negated(c: list[Any]) -> bool:
        return any(isinstance(t, Token) and t.type in ("NOT", "TNOT", "ENOT") for t in c[1:3])

    def like(self, c: list[Any]) -> n.Expr:
        operand = c[0]
        strings = [t for t in c if isinstance(t, Token) and t.type == "STRING"]
        pattern = decode_string(strings[0])
        escape = decode_string(strings[1]) if len(strings) > 1 else None
        if escape is not None and _length(escape, self.dialect) != 1:
            raise BuildError("the ESCAPE character must be exactly one character",
                             strings[1].start_pos or 0, "type")
        return n.Like(
            self._negated(c), operand, pattern, escape,
            span=_span(operand, c[-1]), depth=self._deep(operand),
            pattern_at=strings[0].start_pos or 0,
        )

    def between(self, c: list[Any]) -> n.Expr:
        operand, low, high = (x for x in c if not isinstance(x, Token))
        return n.Between(
            self._negated(c), operand, low, high,
            span=_span(operand, high), depth=self._deep(operand, low, high),
        )

    def in_(self, c: list[Any]) -> n.Expr:
        operand = c[0]
        items = [t for t in c if isinstance(t, Token) and t.type == "STRING"]
        if len(items) > self.limits.max_in_items:
            raise BuildError(
                f"IN list longer than {self.limits.max_in_items} items",
                items[self.limits.max_in_items].start_pos or 0,
                "limit",
            )
        return n.In(
            self._negated(c), operand, tuple(decode_string(t) for t in items),
            span=_span(operand, c[-1]), depth=self._deep(operand),
        )

    def call(self, c: list[Any]) -> n.Expr:
        name = c[0]
        if not self.dialect.functions:
            raise BuildError(
                f"function calls are not part of the {self.dialect.name} dialect",
                name.start_pos or 0,
            )
        if str(name).startswith('"'):
            raise BuildError("a quoted identifier does not name a function", name.start_pos or 0)
        args = tuple(x for x in c[2:] if not isinstance(x, Token))
        arity = n.FUNCTION_ARITY.get(str(name), -1)
        if arity == -1:
            raise BuildError(f"unknown function {str(name)!r}", name.start_pos or 0, "type")
        if (arity is not None and len(args) != arity) or not args:
            raise BuildError(f"{name} takes {arity} arguments", name.start_pos or 0, "type")
        span = _span(name, c[-1])
        return n.Call(str(name), args, span=span, depth=self._deep(*args) if args else 1)

    def xpath(self, c: list[Token]) -> n.Expr:
        raise BuildError(
            "XPATH selectors evaluate the message body, which msgfilter does not see",
            c[0].start_pos or 0,
            "type",
        )

    def xquery(self, c: list[Token]) -> n.Expr:
        return n.XQuery(decode_string(c[1]), span=_span(c[0], c[1]))

    def string_test(self, c: list[Any]) -> n.Expr:
        operand, value = c[0], c[-1]
        op = next(t for t in c if isinstance(t, Token) and t.type in n.STRING_TESTS)
        return n.StringTest(
            cast(n.StringTestOp, op.type), self._negated(c), operand, decode_string(value),
            span=_span(operand, value), depth=self._deep(operand),
        )
