"""The selector AST: frozen, slotted dataclasses.

Every node carries `span`, the (start, end) offsets of its text, which takes no part in
equality or hashing: two filters are equal when their trees are, wherever the text put
its spaces and parentheses. `depth` (also outside equality) is the node's nesting depth,
kept so that the builder can refuse over-deep trees without recursing.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Literal as L
from typing import TypeAlias

Span: TypeAlias = tuple[int, int]

ArithOp: TypeAlias = L["+", "-", "*", "/", "%"]
CompareOp: TypeAlias = L["=", "<>", "<", "<=", ">", ">="]
StringTestOp: TypeAlias = L["CONTAINS", "STARTSWITH", "ENDSWITH"]


@dataclass(frozen=True, slots=True)
class Node:
    span: Span = field(default=(0, 0), compare=False, repr=False, kw_only=True)
    depth: int = field(default=1, compare=False, repr=False, kw_only=True)


# -- literals and names ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StringLit(Node):
    value: str


@dataclass(frozen=True, slots=True)
class ExactLit(Node):
    """An exact numeric literal (a Java long; RocketMQ: int or long by its value)."""

    value: int


@dataclass(frozen=True, slots=True, eq=False)
class ApproxLit(Node):
    """An approximate numeric literal (a Java double)."""

    value: float

    # Literals compare by their bits: 0.0 and -0.0 are equal floats, different literals.
    def __eq__(self, other: object) -> bool:
        if type(other) is not ApproxLit:
            return NotImplemented
        return _bits(self.value) == _bits(other.value)

    def __hash__(self) -> int:
        return hash((ApproxLit, _bits(self.value)))


def _bits(value: float) -> bytes:
    return struct.pack(">d", value)


@dataclass(frozen=True, slots=True)
class BinaryLit(Node):
    """An AMQP binary constant `0x4142` (amqp-sql)."""

    value: bytes


@dataclass(frozen=True, slots=True)
class BoolLit(Node):
    value: bool


@dataclass(frozen=True, slots=True)
class NullLit(Node):
    pass


@dataclass(frozen=True, slots=True)
class Ident(Node):
    name: str


@dataclass(frozen=True, slots=True)
class Field(Node):
    """An AMQP header or properties field (`header.priority`, `p.subject`; amqp-sql), by
    its spec name with underscores: not an application property of that name."""

    name: str


# -- value expressions -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Negate(Node):
    """Unary minus of anything but a numeric literal (those fold into the literal)."""

    operand: Expr


@dataclass(frozen=True, slots=True)
class Arith(Node):
    op: ArithOp
    left: Expr
    right: Expr


# -- conditions ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Compare(Node):
    op: CompareOp
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Between(Node):
    negated: bool
    operand: Expr
    low: Expr
    high: Expr


@dataclass(frozen=True, slots=True)
class In(Node):
    negated: bool
    operand: Expr
    items: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class InList(Node):
    """amqp-sql's `[NOT] IN (e1, e2, ...)`: items are any value expressions."""

    negated: bool
    operand: Expr
    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Like(Node):
    negated: bool
    operand: Expr
    pattern: str
    escape: str | None
    #: Where the pattern's string literal starts, for errors about the pattern.
    pattern_at: int = field(default=0, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class StringTest(Node):
    """RocketMQ's `[NOT] CONTAINS | STARTSWITH | ENDSWITH 'literal'`."""

    op: StringTestOp
    negated: bool
    operand: Expr
    value: str


@dataclass(frozen=True, slots=True)
class IsNull(Node):
    negated: bool
    operand: Expr


@dataclass(frozen=True, slots=True)
class Not(Node):
    operand: Expr


@dataclass(frozen=True, slots=True)
class And(Node):
    """Conjunction of two or more operands (chains are flattened: AND is associative)."""

    operands: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Or(Node):
    """Disjunction of two or more operands (flattened like And)."""

    operands: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Call(Node):
    """An ActiveMQ function call: REGEX, INLIST, SPLIT, MAKELIST or REPLACE."""

    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class XQuery(Node):
    """ActiveMQ's `XQUERY '...'`: a condition on the message body, FALSE without one."""

    query: str


Literal: TypeAlias = StringLit | ExactLit | ApproxLit | BoolLit | NullLit | BinaryLit
Expr: TypeAlias = (
    StringLit | ExactLit | ApproxLit | BoolLit | NullLit | BinaryLit | Ident | Field | Negate
    | Arith | Compare | Between | In | InList | Like | StringTest | IsNull | Not | And | Or
    | Call | XQuery
)

#: Every node class; each backend must handle each of them (a test checks it).
NODE_TYPES: tuple[type[Node], ...] = (
    StringLit, ExactLit, ApproxLit, BoolLit, NullLit, Ident, Negate, Arith,
    Compare, Between, In, Like, StringTest, IsNull, Not, And, Or, Call, XQuery,
    BinaryLit, Field, InList,
)

#: The node classes only the amqp-sql grammar builds (`syntax.amqp_parser`).
AMQP_ONLY: frozenset[type[Node]] = frozenset({BinaryLit, Field, InList})

#: Nodes whose value is a condition (TRUE, FALSE or UNKNOWN) by construction.
CONDITIONS: tuple[type[Node], ...] = (
    Compare, Between, In, InList, Like, StringTest, IsNull, Not, And, Or, XQuery,
)

#: ActiveMQ functions whose result is a condition, and each function's argument count
#: (None: any number).
BOOLEAN_FUNCTIONS: frozenset[str] = frozenset({"REGEX", "INLIST"})
FUNCTION_ARITY: dict[str, int | None] = {
    "REGEX": 2, "INLIST": 2, "SPLIT": 2, "MAKELIST": None, "REPLACE": 3,
}



def is_condition(node: Node) -> bool:
    """A node whose value is TRUE, FALSE or UNKNOWN by construction."""
    return isinstance(node, CONDITIONS) or (
        isinstance(node, Call) and node.name in BOOLEAN_FUNCTIONS
    )


def children(node: Node) -> tuple[Expr, ...]:
    """The direct sub-expressions of `node`, left to right."""
    # Dispatch on the class, decided once per class: every pass over a tree (check, fold,
    # the shape analysis, generation) calls this for each node.
    cls = type(node)
    kind = _CHILD_KIND.get(cls)
    if kind is None:
        kind = _CHILD_KIND[cls] = _child_kind(node)
    if kind == 0:
        return ()
    if kind == 1:
        return (node.operand,)  # type: ignore[attr-defined]
    if kind == 2:
        return (node.left, node.right)  # type: ignore[attr-defined]
    if kind == 3:
        return (node.operand, node.low, node.high)  # type: ignore[attr-defined]
    if kind == 4:
        return node.operands  # type: ignore[attr-defined,no-any-return]
    if kind == 5:
        return node.args  # type: ignore[attr-defined,no-any-return]
    return (node.operand, *node.items)  # type: ignore[attr-defined]


_CHILD_KIND: dict[type, int] = {}


def _child_kind(node: Node) -> int:
    if isinstance(node, Negate | Not | In | Like | StringTest | IsNull):
        return 1
    if isinstance(node, Arith | Compare):
        return 2
    if isinstance(node, Between):
        return 3
    if isinstance(node, And | Or):
        return 4
    if isinstance(node, Call):
        return 5
    if isinstance(node, InList):
        return 6
    return 0


def identifiers(node: Node) -> frozenset[str]:
    """The names `node` reads, without recursion (trees may be deep)."""
    names: set[str] = set()
    stack: list[Node] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Ident):
            names.add(current.name)
        stack.extend(children(current))
    return frozenset(names)

STRING_TESTS: frozenset[str] = frozenset({"CONTAINS", "STARTSWITH", "ENDSWITH"})
