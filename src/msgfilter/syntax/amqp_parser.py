"""The amqp-sql parser: RabbitMQ 4.2's `rabbit_amqp_sql_parser.yrl` over `amqp_lexer`
tokens, building the shared frozen nodes (with spans).

The grammar, as yecc reads it: OR below AND below NOT; a comparison (`= <> != < <= > >=`,
not chained), `[NOT] LIKE 'pattern' [ESCAPE 'c']` (a string literal pattern, a one
character escape), `[NOT] IN (e1, ...)` (any value expressions) or a bare value
expression; `IS [NOT] NULL` after an identifier only; `+ -` below `* / %`, all left
associative; a unary sign only before a primary (`--5` is an error, `-(-5)` is not);
primaries are parenthesised conditions, literals, identifiers and `UTC()`. There is no
static typing: `'a' + 1` and `5 AND TRUE` are valid and UNKNOWN at run time.

Operators are read with explicit stacks, so nesting costs the stack a few frames a level
(RabbitMQ's 200-token limit bounds it anyway).
"""

from __future__ import annotations

from ..errors import FilterSyntaxError
from . import nodes as n
from .amqp_lexer import Token, tokenize

#: The node classes this grammar builds: the one statement of it (the registry's
#: `Dialect.kinds`; tests/amqp/test_amqp_sql.py checks it against the parser).
NODE_KINDS: frozenset[type[n.Node]] = frozenset({
    n.StringLit, n.ExactLit, n.ApproxLit, n.BinaryLit, n.BoolLit, n.Ident, n.Field,
    n.Negate, n.Arith, n.Call, n.Compare, n.InList, n.Like, n.IsNull, n.Not, n.And, n.Or,
})

_COMPARISONS = frozenset({"=", "<>", "<", "<=", ">", ">="})
_ARITH_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "%": 2}
_LOGIC_PRECEDENCE = {"OR": 1, "AND": 2}
_NAMES = {
    "INT": "a number", "FLOAT": "a number", "STRING": "a string", "BINARY": "a binary",
    "BOOL": "a boolean", "IDENT": "an identifier", "FIELD": "a field name",
}


def parse(text: str) -> n.Expr:
    """The tree of an amqp-sql expression; FilterSyntaxError (or FilterLimitError) with
    the position of the fault."""
    return _Parser(text, tokenize(text)).selector()


def _span(first: n.Node, last: n.Node, depth: int) -> dict[str, object]:
    return {"span": (first.span[0], last.span[1]), "depth": depth}


class _Parser:
    def __init__(self, text: str, tokens: list[Token]) -> None:
        self.text = text
        self.tokens = tokens
        self.pos = 0

    # -- token access -------------------------------------------------------------------

    def peek(self, ahead: int = 0) -> Token | None:
        at = self.pos + ahead
        return self.tokens[at] if at < len(self.tokens) else None

    def kind(self, ahead: int = 0) -> str:
        token = self.peek(ahead)
        return "EOF" if token is None else token.kind

    def take(self) -> Token:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def fail(self, expected: tuple[str, ...]) -> FilterSyntaxError:
        token = self.peek()
        if token is None:
            return FilterSyntaxError(
                "unexpected end of expression", self.text, len(self.text), expected
            )
        shown = self.text[token.start : token.end]
        return FilterSyntaxError(f"unexpected {shown!r}", self.text, token.start, expected)

    def expect(self, kind: str, expected: str) -> Token:
        if self.kind() != kind:
            raise self.fail((expected,))
        return self.take()

    # -- the grammar --------------------------------------------------------------------

    def selector(self) -> n.Expr:
        tree = self.condition()
        if self.pos != len(self.tokens):
            raise self.fail(("AND", "OR", "the end of the expression"))
        return tree

    def condition(self) -> n.Expr:
        """logical_expr: NOT (tightest), AND, OR, by operator precedence."""
        operands: list[n.Expr] = []
        operators: list[str] = []
        while True:
            nots: list[Token] = []
            while self.kind() == "NOT":
                nots.append(self.take())
            operand = self.comparison()
            for token in reversed(nots):
                operand = n.Not(
                    operand, span=(token.start, operand.span[1]), depth=operand.depth + 1
                )
            operands.append(operand)
            op = self.kind()
            if op not in _LOGIC_PRECEDENCE:
                break
            self.take()
            while operators and _LOGIC_PRECEDENCE[operators[-1]] >= _LOGIC_PRECEDENCE[op]:
                self._reduce_logic(operands, operators.pop())
            operators.append(op)
        while operators:
            self._reduce_logic(operands, operators.pop())
        return operands[0]

    @staticmethod
    def _reduce_logic(operands: list[n.Expr], op: str) -> None:
        right = operands.pop()
        left = operands.pop()
        cls = n.And if op == "AND" else n.Or
        # AND and OR chains flatten: evaluated left to right, stopping at the first
        # FALSE (AND) or TRUE (OR), which is what the nested Erlang evaluation does.
        parts = (
            *(left.operands if isinstance(left, cls) else (left,)),
            *(right.operands if isinstance(right, cls) else (right,)),
        )
        depth = max(p.depth for p in parts) + 1
        operands.append(cls(parts, **_span(left, right, depth)))  # type: ignore[arg-type]

    def comparison(self) -> n.Expr:
        if self.kind() in ("IDENT", "FIELD") and self.kind(1) == "IS":
            name = self.primary()
            is_token = self.take()
            negated = self.kind() == "NOT"
            if negated:
                self.take()
            null = self.expect("NULL", "NULL")
            del is_token
            return n.IsNull(
                negated, name, span=(name.span[0], null.end), depth=name.depth + 1
            )
        left = self.arith()
        kind = self.kind()
        if kind in _COMPARISONS:
            self.take()
            right = self.arith()
            return n.Compare(
                kind, left, right, **_span(left, right, max(left.depth, right.depth) + 1)  # type: ignore[arg-type]
            )
        negated = False
        if kind == "NOT" and self.kind(1) in ("LIKE", "IN"):
            self.take()
            negated = True
            kind = self.kind()
        if kind == "LIKE":
            self.take()
            pattern = self.expect("STRING", "a string literal pattern")
            escape: str | None = None
            end = pattern.end
            if self.kind() == "ESCAPE":
                self.take()
                token = self.expect("STRING", "a string literal escape character")
                escape = str(token.value)
                if len(escape) != 1:
                    raise FilterSyntaxError(
                        "ESCAPE must be a single-character string literal", self.text,
                        token.start,
                    )
                end = token.end
            return n.Like(
                negated, left, str(pattern.value), escape, pattern_at=pattern.start,
                span=(left.span[0], end), depth=left.depth + 1,
            )
        if kind == "IN":
            self.take()
            self.expect("(", "(")
            items = [self.arith()]
            while self.kind() == ",":
                self.take()
                items.append(self.arith())
            close = self.expect(")", ", or )")
            depth = max(x.depth for x in (left, *items)) + 1
            return n.InList(
                negated, left, tuple(items), span=(left.span[0], close.end), depth=depth
            )
        if negated:
            raise self.fail(("LIKE", "IN"))
        return left

    def arith(self) -> n.Expr:
        """additive_expr: `+ -` below `* / %`, left associative."""
        operands = [self.unary()]
        operators: list[str] = []
        while self.kind() in _ARITH_PRECEDENCE:
            op = self.take().kind
            while operators and _ARITH_PRECEDENCE[operators[-1]] >= _ARITH_PRECEDENCE[op]:
                self._reduce_arith(operands, operators.pop())
            operators.append(op)
            operands.append(self.unary())
        while operators:
            self._reduce_arith(operands, operators.pop())
        return operands[0]

    @staticmethod
    def _reduce_arith(operands: list[n.Expr], op: str) -> None:
        right = operands.pop()
        left = operands.pop()
        depth = max(left.depth, right.depth) + 1
        operands.append(n.Arith(op, left, right, **_span(left, right, depth)))  # type: ignore[arg-type]

    def unary(self) -> n.Expr:
        kind = self.kind()
        if kind not in ("+", "-"):
            return self.primary()
        sign = self.take()
        operand = self.primary()
        span = (sign.start, operand.span[1])
        negated = n.Negate(operand, span=span, depth=operand.depth + 1)
        if kind == "-":
            return negated
        # Unary plus keeps a number and makes anything else UNKNOWN: so does -(-x).
        return n.Negate(negated, span=span, depth=operand.depth + 2)

    def primary(self) -> n.Expr:
        token = self.peek()
        if token is None:
            raise self.fail(("an expression",))
        kind = token.kind
        if kind == "(":
            self.take()
            inner = self.condition()
            close = self.expect(")", ")")
            # Parentheses make no node: the inner node keeps its own span.
            del close
            return inner
        self.take()
        at = {"span": (token.start, token.end)}
        if kind == "INT":
            return n.ExactLit(token.value, **at)  # type: ignore[arg-type]
        if kind == "FLOAT":
            return n.ApproxLit(token.value, **at)  # type: ignore[arg-type]
        if kind == "STRING":
            return n.StringLit(token.value, **at)  # type: ignore[arg-type]
        if kind == "BINARY":
            return n.BinaryLit(token.value, **at)  # type: ignore[arg-type]
        if kind == "BOOL":
            return n.BoolLit(token.value, **at)  # type: ignore[arg-type]
        if kind == "IDENT":
            return n.Ident(token.value, **at)  # type: ignore[arg-type]
        if kind == "FIELD":
            return n.Field(token.value, **at)  # type: ignore[arg-type]
        if kind == "UTC":
            self.expect("(", "(")
            close = self.expect(")", ")")
            return n.Call("UTC", (), span=(token.start, close.end))
        self.pos -= 1
        raise self.fail(("an expression",))
