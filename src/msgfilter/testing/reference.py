"""A slow, simple reference evaluator for the `jms` dialect, read off jms-selectors.md.

It exists to be an oracle for the real engine, so it is built to be easy to check against
the rules rather than fast:

* its own lexer (J3-J14), a recursive-descent parser with one function per level of the
  J16 grammar, static checks applied as each node is built (J10, J17-J20, J27, J28, J34,
  J35), and a tree-walking interpreter (J21-J40);
* it imports nothing from msgfilter's pipeline (`syntax`, `semantics`, `backends`,
  `dialects`, `selector`): only the public error classes, `Limits` and `Message`;
* it raises a `FilterError` for exactly the texts `msgfilter.compile` rejects (J41 plus
  the size limits of `Limits`), though not always the same subclass or offset.

    >>> from msgfilter.testing import reference_evaluate
    >>> reference_evaluate("a BETWEEN 1 AND 5", {"a": 5})
    True
    >>> reference_evaluate("a NOT IN ('x')", {}) is None
    True

Where the rules leave a Python value's type open, one reading is chosen: values are
typed by exact class, so a subclass (an `IntEnum`, a `StrEnum`, numpy's float64) is of
no selector type (J21), like `bytes` or an `object()`; so is an `int` outside the Java
long range, which is not a Java long.
"""

from __future__ import annotations

import math
import sys
import threading
import unicodedata
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Context, Decimal
from typing import Any

from ..errors import FilterError, FilterLimitError, FilterSyntaxError, FilterTypeError
from ..limits import Limits
from ..message import Message

__all__ = ["ReferenceFilter", "reference_evaluate", "reference_filter"]

LONG_MIN = -(2**63)
LONG_MAX = 2**63 - 1

# --------------------------------------------------------------------------------------
# Lexical structure (J3-J14)
# --------------------------------------------------------------------------------------

WHITESPACE = frozenset(" \t\n\r\f")
KEYWORDS = frozenset(
    {"NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE", "NULL", "TRUE", "FALSE"}
)
# Two-character operators first: the longest token wins (J4).
OPERATORS = ("<>", "<=", ">=", "=", "<", ">", "+", "-", "*", "/", "(", ")", ",")
DIGITS = frozenset("0123456789")
HEX_DIGITS = frozenset("0123456789abcdefABCDEF")

# Character.isJavaIdentifierStart: letters, letter numbers, currency symbols, connectors.
_START_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Sc", "Pc"})
# Character.isJavaIdentifierPart adds digits, combining marks and format characters.
_PART_CATEGORIES = _START_CATEGORIES | {"Nd", "Mn", "Mc", "Cf"}


def is_identifier_start(ch: str) -> bool:
    """J13: may `ch` begin an identifier?"""
    return unicodedata.category(ch) in _START_CATEGORIES


def is_identifier_part(ch: str) -> bool:
    """J13: may `ch` continue an identifier?"""
    code = ord(ch)
    # Character.isIdentifierIgnorable's control characters.
    if code <= 0x08 or 0x0E <= code <= 0x1B or 0x7F <= code <= 0x9F:
        return True
    return unicodedata.category(ch) in _PART_CATEGORIES


@dataclass(frozen=True, slots=True)
class Token:
    """One token: `kind` is IDENT, STRING, EXACT, APPROX, OP, a keyword, or END."""

    kind: str
    text: str
    start: int
    value: object = None


def tokenize(text: str, limits: Limits | None = None) -> list[Token]:
    """The tokens of `text` followed by an END token; FilterError for a lexical error,
    FilterLimitError for text too long or parentheses nested too deep."""
    limits = limits or Limits()
    if len(text) > limits.max_length:
        raise FilterLimitError("expression too long", text, limits.max_length)
    tokens: list[Token] = []
    i, n, depth = 0, len(text), 0
    while i < n:
        ch = text[i]
        if ch in WHITESPACE:
            i += 1
        elif is_identifier_start(ch):
            j = i + 1
            while j < n and is_identifier_part(text[j]):
                j += 1
            word = text[i:j]
            # J6: keywords are recognised by ASCII letters only, in any case.
            keyword = word.upper() if word.isascii() else ""
            kind = keyword if keyword in KEYWORDS else "IDENT"
            tokens.append(Token(kind, word, i, word))
            i = j
        elif ch in DIGITS or (ch == "." and i + 1 < n and text[i + 1] in DIGITS):
            token = _number(text, i)
            tokens.append(token)
            i += len(token.text)
        elif ch == "'":
            token = _string(text, i)
            tokens.append(token)
            i += len(token.text)
        else:
            op = next((o for o in OPERATORS if text.startswith(o, i)), None)
            if op is None:
                raise FilterSyntaxError(f"no token starts with {ch!r}", text, i)
            if op == "(":
                depth += 1
                if depth > limits.max_depth:
                    raise FilterLimitError("parentheses nest too deep", text, i)
            elif op == ")":
                depth -= 1
            tokens.append(Token("OP", op, i, op))
            i += len(op)
    tokens.append(Token("END", "", n))
    return tokens


def _digits_end(text: str, i: int, allowed: frozenset[str] = DIGITS) -> int:
    while i < len(text) and text[i] in allowed:
        i += 1
    return i


def _exponent_end(text: str, i: int) -> int | None:
    """End of an exponent `e[+-]digits` starting at `i`, or None if there is none."""
    if i >= len(text) or text[i] not in "eE":
        return None
    j = i + 1
    if j < len(text) and text[j] in "+-":
        j += 1
    end = _digits_end(text, j)
    return end if end > j else None


def _number(text: str, i: int) -> Token:
    """The longest numeric literal at `i` (J9, J11), validated (J9, J10)."""
    whole_end = _digits_end(text, i)
    # Hexadecimal: 0x or 0X and at least one hex digit.
    if (
        text[i] == "0"
        and whole_end == i + 1
        and text[i + 1 : i + 2] in ("x", "X")
        and text[i + 2 : i + 3] in HEX_DIGITS
    ):
        end = _digits_end(text, i + 2, HEX_DIGITS)
        literal = text[i:end]
        value = int(literal[2:], 16)
        if value > LONG_MAX:
            raise FilterSyntaxError("hexadecimal literal out of range", text, i)
        return Token("EXACT", literal, i, value)
    # Approximate: digits '.' [digits] [exp] | '.' digits [exp] | digits exp.
    if whole_end < len(text) and text[whole_end] == ".":
        fraction_end = _digits_end(text, whole_end + 1)
        end = _exponent_end(text, fraction_end) or fraction_end
        return _approximate(text, i, end)
    exponent_end = _exponent_end(text, whole_end)
    if exponent_end is not None:
        return _approximate(text, i, exponent_end)
    # Exact: decimal, 0 or octal, with an L suffix on decimals only.
    digits = text[i:whole_end]
    suffixed = whole_end < len(text) and text[whole_end] in "lL"
    literal = text[i : whole_end + (1 if suffixed else 0)]
    if digits.startswith("0") and len(digits) > 1:
        if suffixed or any(d in "89" for d in digits):
            raise FilterSyntaxError("malformed octal literal", text, i)
        value = int(digits, 8)
        if value > LONG_MAX:
            raise FilterSyntaxError("octal literal out of range", text, i)
        return Token("EXACT", literal, i, value)
    if digits == "0" and suffixed:
        raise FilterSyntaxError("0 takes no L suffix", text, i)
    # 2**63 has 19 digits; longer numbers are out of range without converting them.
    if len(digits) > 19 or int(digits) > LONG_MAX + 1:
        raise FilterSyntaxError("exact literal out of range", text, i)
    # 2**63 itself is only allowed after a unary minus (J10): the parser checks that.
    return Token("EXACT", literal, i, int(digits))


def _approximate(text: str, start: int, end: int) -> Token:
    literal = text[start:end]
    # float() reads the decimal value correctly rounded, to infinity or zero if out of
    # range (J11).
    return Token("APPROX", literal, start, float(literal))


def _string(text: str, i: int) -> Token:
    """A string literal at `i` (J8): quotes doubled inside, no other escapes."""
    j = i + 1
    while True:
        close = text.find("'", j)
        if close < 0:
            raise FilterSyntaxError("string literal not closed", text, i)
        if text.startswith("''", close):
            j = close + 2
            continue
        literal = text[i : close + 1]
        return Token("STRING", literal, i, literal[1:-1].replace("''", "'"))


# --------------------------------------------------------------------------------------
# The tree
# --------------------------------------------------------------------------------------

CONDITION_KINDS = frozenset({"compare", "between", "in", "like", "is_null", "not", "and", "or"})
ORDERING = frozenset({"<", "<=", ">", ">="})


@dataclass(frozen=True, slots=True)
class Node:
    """A node of the reference tree.

    kind: literal (value; `literal_type` string, exact, approximate, boolean or null),
    ident (name), negate, arith (op), compare (op), between, in (items), like
    (pattern, escape), is_null, not, and, or. `negated` marks the NOT forms. `start`
    is the offset of the node's first character; `depth` its nesting depth.
    """

    kind: str
    start: int
    operands: tuple[Node, ...] = ()
    op: str = ""
    value: object = None
    literal_type: str = ""
    negated: bool = False
    items: tuple[str, ...] = ()
    pattern: str = ""
    escape: str | None = None
    depth: int = 1

    @property
    def is_condition(self) -> bool:
        """A comparison, LIKE, BETWEEN, IN, IS NULL, NOT, AND or OR (J18)."""
        return self.kind in CONDITION_KINDS

    def usable_as_condition(self) -> bool:
        """J20: a condition, TRUE, FALSE, NULL, or an identifier."""
        if self.is_condition or self.kind == "ident":
            return True
        return self.kind == "literal" and self.literal_type in ("boolean", "null")


def walk(node: Node) -> Iterator[Node]:
    """Every node of the tree, parents before children (without recursion)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.operands))


# --------------------------------------------------------------------------------------
# The parser (J16, J17) with the static checks of J10, J18, J20, J27, J28, J34, J35
# --------------------------------------------------------------------------------------


class _Parser:
    def __init__(self, text: str, limits: Limits) -> None:
        self.text = text
        self.limits = limits
        self.tokens = tokenize(text, limits)
        self.pos = 0

    # -- token helpers -------------------------------------------------------------------

    @property
    def token(self) -> Token:
        return self.tokens[self.pos]

    def at(self, kind: str, text: str | None = None) -> bool:
        token = self.token
        return token.kind == kind and (text is None or token.text == text)

    def take(self) -> Token:
        token = self.token
        self.pos += 1
        return token

    def expect(self, kind: str, text: str | None = None) -> Token:
        if not self.at(kind, text):
            self.fail_here(f"expected {text or kind}")
        return self.take()

    def fail_here(self, message: str) -> None:
        token = self.token
        what = "the end" if token.kind == "END" else repr(token.text)
        raise FilterSyntaxError(f"{message}, found {what}", self.text, token.start)

    def type_error(self, message: str, node: Node) -> FilterTypeError:
        return FilterTypeError(message, self.text, node.start)

    # -- node building (depth limit and checks) -------------------------------------------

    def node(
        self,
        kind: str,
        start: int,
        operands: tuple[Node, ...],
        *,
        op: str = "",
        negated: bool = False,
        items: tuple[str, ...] = (),
        pattern: str = "",
        escape: str | None = None,
    ) -> Node:
        """A node over `operands`, refused if it nests deeper than the limit."""
        depth = 1 + max(o.depth for o in operands)
        if depth > self.limits.max_depth:
            raise FilterLimitError("expression nests too deep", self.text, start)
        return Node(
            kind, start, operands, op=op, negated=negated, items=items, pattern=pattern,
            escape=escape, depth=depth,
        )

    def condition(self, node: Node) -> Node:
        if not node.usable_as_condition():
            raise self.type_error("not a condition (J20)", node)
        return node

    def compared(self, op: str, operands: tuple[Node, ...]) -> None:
        for operand in operands:
            if operand.kind == "literal" and operand.literal_type == "null":
                raise self.type_error("NULL cannot be compared (J28)", operand)
        if op in ("=", "<>"):
            return
        for operand in operands:
            if operand.is_condition:
                raise self.type_error(f"a condition as an operand of {op} (J18)", operand)
            if operand.kind == "literal" and operand.literal_type in ("string", "boolean"):
                raise self.type_error(f"a string or boolean literal in {op} (J27)", operand)

    # -- grammar ---------------------------------------------------------------------------

    def selector(self) -> Node | None:
        if self.at("END"):
            return None  # J2: empty or blank
        tree = self.or_expr()
        if not self.at("END"):
            self.fail_here("expected the end of the selector")
        self.condition(tree)
        # J10: 9223372036854775808 survives only where no unary minus consumed it.
        for node in walk(tree):
            if isinstance(node.value, int) and node.value > LONG_MAX:
                raise self.type_error("exact literal out of range (J10)", node)
        return tree

    def or_expr(self) -> Node:
        parts = [self.and_expr()]
        while self.at("OR"):
            self.take()
            parts.append(self.and_expr())
        return self.junction("or", parts)

    def and_expr(self) -> Node:
        parts = [self.not_expr()]
        while self.at("AND"):
            self.take()
            parts.append(self.not_expr())
        return self.junction("and", parts)

    def junction(self, kind: str, parts: list[Node]) -> Node:
        if len(parts) == 1:
            return parts[0]
        # AND and OR are associative, also in three-valued logic: a chain, with any
        # parenthesised chain of the same operator inside it, is one node (the engine
        # does the same, so the nesting-depth limit counts it as one level).
        operands: list[Node] = []
        for part in parts:
            self.condition(part)
            operands.extend(part.operands if part.kind == kind else (part,))
        return self.node(kind, parts[0].start, tuple(operands))

    def not_expr(self) -> Node:
        # J17: NOT applies to a whole comparison. A loop, not recursion, so that a long
        # run of NOTs reaches the depth limit rather than Python's recursion limit.
        starts: list[int] = []
        while self.at("NOT"):
            starts.append(self.take().start)
        node = self.equality()
        for start in reversed(starts):
            node = self.node("not", start, (self.condition(node),))
        return node

    def equality(self) -> Node:
        left = self.relational()
        while True:
            if self.at("OP", "=") or self.at("OP", "<>"):
                op = self.take().text
                right = self.relational()
                self.compared(op, (left, right))
                left = self.node("compare", left.start, (left, right), op=op)
            elif self.at("IS"):
                self.take()
                negated = self.at("NOT")
                if negated:
                    self.take()
                self.expect("NULL")
                left = self.node("is_null", left.start, (left,), negated=negated)
            else:
                return left

    def relational(self) -> Node:
        left = self.additive()
        while True:
            if self.token.kind == "OP" and self.token.text in ORDERING:
                op = self.take().text
                right = self.additive()
                self.compared(op, (left, right))
                left = self.node("compare", left.start, (left, right), op=op)
                continue
            negated = self.at("NOT")
            if negated:
                self.take()
            if self.at("LIKE"):
                left = self.like(left, negated)
            elif self.at("BETWEEN"):
                left = self.between(left, negated)
            elif self.at("IN"):
                left = self.in_list(left, negated)
            elif negated:
                self.fail_here("expected LIKE, BETWEEN or IN after NOT")
            else:
                return left

    def like(self, operand: Node, negated: bool) -> Node:
        self.take()
        pattern = self.expect("STRING")
        escape: Token | None = None
        if self.at("ESCAPE"):
            self.take()
            escape = self.expect("STRING")
        node = self.node(
            "like",
            operand.start,
            (operand,),
            negated=negated,
            pattern=str(pattern.value),
            escape=None if escape is None else str(escape.value),
        )
        # J35: exactly one character, that is one code point.
        if escape is not None and len(str(escape.value)) != 1:
            raise FilterTypeError("ESCAPE must be one character (J35)", self.text, escape.start)
        return node

    def between(self, operand: Node, negated: bool) -> Node:
        self.take()
        low = self.additive()
        self.expect("AND")
        high = self.additive()
        self.compared("BETWEEN", (operand, low, high))
        return self.node("between", operand.start, (operand, low, high), negated=negated)

    def in_list(self, operand: Node, negated: bool) -> Node:
        self.take()
        self.expect("OP", "(")
        items = [self.expect("STRING")]
        while self.at("OP", ","):
            self.take()
            items.append(self.expect("STRING"))
        self.expect("OP", ")")
        if len(items) > self.limits.max_in_items:
            raise FilterLimitError("IN list too long", self.text, items[-1].start)
        if operand.kind != "ident":
            raise self.type_error("the left operand of IN must be an identifier (J34)", operand)
        return self.node(
            "in", operand.start, (operand,), negated=negated,
            items=tuple(str(t.value) for t in items),
        )

    def additive(self) -> Node:
        left = self.multiplicative()
        while self.at("OP", "+") or self.at("OP", "-"):
            op = self.take().text
            right = self.multiplicative()
            left = self.node("arith", left.start, (left, right), op=op)
        return left

    def multiplicative(self) -> Node:
        left = self.unary()
        while self.at("OP", "*") or self.at("OP", "/"):
            op = self.take().text
            right = self.unary()
            left = self.node("arith", left.start, (left, right), op=op)
        return left

    def unary(self) -> Node:
        # A loop, so that `- - - ... 1` of any length costs no recursion.
        signs: list[Token] = []
        while self.at("OP", "+") or self.at("OP", "-"):
            signs.append(self.take())
        node = self.primary()
        for sign in reversed(signs):
            if sign.text == "+":
                continue  # J19: unary plus changes nothing, for every check too
            if node.kind == "literal" and node.literal_type in ("exact", "approximate"):
                # J19, J27: a minus before a numeric literal makes a signed literal; for
                # 9223372036854775808 that is Long.MIN_VALUE (J10).
                value = node.value
                assert isinstance(value, int | float)
                signed = wrap(-value) if isinstance(value, int) else -value
                node = Node("literal", sign.start, value=signed, literal_type=node.literal_type)
            else:
                node = self.node("negate", sign.start, (node,))
        return node

    def primary(self) -> Node:
        token = self.token
        if token.kind == "OP" and token.text == "(":
            self.take()
            inner = self.or_expr()
            self.expect("OP", ")")
            return inner  # parentheses only group
        literal_types = {"STRING": "string", "EXACT": "exact", "APPROX": "approximate"}
        if token.kind in literal_types:
            self.take()
            return Node("literal", token.start, value=token.value,
                        literal_type=literal_types[token.kind])
        if token.kind in ("TRUE", "FALSE"):
            self.take()
            return Node("literal", token.start, value=token.kind == "TRUE",
                        literal_type="boolean")
        if token.kind == "NULL":
            self.take()
            return Node("literal", token.start, value=None, literal_type="null")
        if token.kind == "IDENT":
            self.take()
            return Node("ident", token.start, value=token.text)
        self.fail_here("expected an operand")
        raise AssertionError("unreachable")  # pragma: no cover


# --------------------------------------------------------------------------------------
# Values (J21-J32)
# --------------------------------------------------------------------------------------


def wrap(value: int) -> int:
    """`value` as a Java long: two's complement wrap-around (J23)."""
    return (value - LONG_MIN) % 2**64 + LONG_MIN


def type_of(value: object) -> str | None:
    """J21: 'string', 'boolean', 'long', 'double', or None for NULL or no selector type.

    Exact classes: `bool` is an `int` in Python, and a subclass (an `IntEnum`, a
    `StrEnum`) is none of the four Java types, so it has no selector type.
    """
    cls = type(value)
    if cls is str:
        return "string"
    if cls is bool:
        return "boolean"
    if cls is int:
        assert isinstance(value, int)
        return "long" if LONG_MIN <= value <= LONG_MAX else None
    if cls is float:
        return "double"
    return None


def compare(op: str, left: object, right: object) -> bool | None:
    """J24-J27: UNKNOWN with a NULL, FALSE for unlike types."""
    if left is None or right is None:
        return None
    kinds = (type_of(left), type_of(right))
    a: Any
    b: Any
    if kinds == ("long", "long"):
        a, b = _long(left), _long(right)
    elif set(kinds) <= {"long", "double"} and None not in kinds:
        # J22: a long with a double compares as two doubles (the long's nearest double).
        a, b = _double(left), _double(right)
    elif kinds == ("string", "string"):
        # J27: Java's String.compareTo orders by UTF-16 code units.
        a, b = utf16_units(str(left)), utf16_units(str(right))
    elif kinds == ("boolean", "boolean"):
        a, b = bool(left), bool(right)
    else:
        return False
    # Python's float comparisons are IEEE's (J26): NaN is unordered, -0.0 == 0.0.
    if op == "=":
        return bool(a == b)
    if op == "<>":
        return bool(a != b)
    if op == "<":
        return bool(a < b)
    if op == "<=":
        return bool(a <= b)
    if op == ">":
        return bool(a > b)
    return bool(a >= b)


def _long(value: object) -> int:
    assert isinstance(value, int)
    return value


def _double(value: object) -> float:
    assert isinstance(value, int | float)
    return float(value)


def utf16_units(text: str) -> tuple[int, ...]:
    data = text.encode("utf-16-be", "surrogatepass")
    return tuple(int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data), 2))


def arithmetic(op: str, left: object, right: object) -> object:
    """J29-J32: NULL for NULL operands and for type errors; never raises."""
    if left is None or right is None:
        return None
    kinds = (type_of(left), type_of(right))
    if op == "+" and kinds[0] == "string":
        # J31: concatenation with the right operand's text.
        text = java_text(right)
        return None if text is None else str(left) + text
    if kinds == ("long", "long"):
        return _long_arithmetic(op, _long(left), _long(right))
    if set(kinds) <= {"long", "double"} and None not in kinds:
        return _double_arithmetic(op, _double(left), _double(right))
    return None


def _long_arithmetic(op: str, a: int, b: int) -> int | None:
    """J23, J30: exact results wrapped to 64 bits; integer division truncates."""
    if op == "+":
        return wrap(a + b)
    if op == "-":
        return wrap(a - b)
    if op == "*":
        return wrap(a * b)
    if b == 0:
        return None  # J30: long division by zero
    quotient = abs(a) // abs(b)  # toward zero, as Java
    return wrap(quotient if (a < 0) == (b < 0) else -quotient)


def _double_arithmetic(op: str, x: float, y: float) -> float:
    """IEEE 754 double arithmetic (J29, J30): overflow is infinite, never an error."""
    if op == "+":
        return x + y
    if op == "-":
        return x - y
    if op == "*":
        return x * y
    if y == 0.0:
        # Python refuses to divide by zero; IEEE gives NaN or a signed infinity.
        if math.isnan(x) or x == 0.0:
            return math.nan
        return math.copysign(math.inf, x) * math.copysign(1.0, y)
    return x / y


def negate(value: object) -> object:
    """J19: minus of a number; NULL for anything else."""
    kind = type_of(value)
    if kind == "long":
        return wrap(-_long(value))
    if kind == "double":
        return -_double(value)
    return None


def java_text(value: object) -> str | None:
    """J31: the text Java's string concatenation gives a value; None for NULL and for
    values of no selector type."""
    kind = type_of(value)
    if kind == "string":
        return str(value)
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "long":
        return str(value)
    if kind == "double":
        return java_double_text(_double(value))
    return None


def java_double_text(x: float) -> str:
    """Double.toString of Java 19 and later, as J31 describes it."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sign = "-" if x < 0 else ""
    magnitude = abs(x)
    digits, exponent = _shortest_digits(magnitude)
    # The value is digits[0].digits[1:] * 10**exponent.
    if 1e-3 <= magnitude < 1e7:
        if exponent >= 0:
            whole = digits[: exponent + 1].ljust(exponent + 1, "0")
            fraction = digits[exponent + 1 :] or "0"
        else:
            whole, fraction = "0", "0" * (-exponent - 1) + digits
        return f"{sign}{whole}.{fraction}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


def _shortest_digits(x: float) -> tuple[str, int]:
    """Significant digits (no trailing zeros) and decimal exponent of the first one."""
    shortest = Decimal(repr(x))  # repr: the shortest digits that read back as x
    digits, exponent = _digits_of(shortest)
    if len(digits) == 1:
        # J31: with a one-digit shortest form, the closest decimal of one or two digits
        # that still reads back as x.
        two = Context(prec=2, rounding=ROUND_HALF_EVEN).plus(Decimal(x))
        if float(two) == x:
            digits, exponent = _digits_of(two)
    return digits, exponent


def _digits_of(number: Decimal) -> tuple[str, int]:
    _, digit_tuple, exp = number.as_tuple()
    text = "".join(map(str, digit_tuple))
    exponent = len(text) + int(exp) - 1
    stripped = text.lstrip("0")
    exponent -= len(text) - len(stripped)
    return stripped.rstrip("0") or "0", exponent


def like_matches(text: str, pattern: str, escape: str | None) -> bool:
    """J36: does `text` match the LIKE `pattern` (code points, whole string)?

    Simulates the pattern as a set of reachable positions in `text`: simple, and
    linear in len(pattern) * len(text).
    """
    any_one, any_run = object(), object()
    elements: list[object] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        follows = pattern[i + 1] if i + 1 < len(pattern) else None
        if escape is not None and ch == escape and follows in ("_", "%", escape):
            elements.append(follows)  # escaped: the next character, literally
            i += 2
            continue
        elements.append(any_one if ch == "_" else any_run if ch == "%" else ch)
        i += 1
    positions = {0}
    for element in elements:
        if element is any_run:
            positions = set(range(min(positions), len(text) + 1)) if positions else set()
        elif element is any_one:
            positions = {p + 1 for p in positions if p < len(text)}
        else:
            positions = {p + 1 for p in positions if p < len(text) and text[p] == element}
        if not positions:
            return False
    return len(text) in positions


# --------------------------------------------------------------------------------------
# The interpreter (J33-J40)
# --------------------------------------------------------------------------------------


def lookup(message: object, name: str) -> object:
    """J15: the value a message has under `name` (None when it has none).

    A `Message` shows its properties, then its headers over them, then its tag as
    `TAGS` and its keys as `KEYS` where no property has that name.
    """
    if isinstance(message, Message):
        if name in message.headers:
            return message.headers[name]
        if name in message.properties:
            return message.properties[name]
        if name == "TAGS":
            return message.tags
        if name == "KEYS" and message.keys:
            return " ".join(message.keys)
        return None
    if isinstance(message, Mapping):
        return message.get(name)
    return None


def value_of(node: Node, message: object) -> object:
    """The value of an operand: a Python value, or None for NULL."""
    kind = node.kind
    if kind == "literal":
        return node.value
    if kind == "ident":
        return lookup(message, str(node.value))
    if kind == "negate":
        return negate(value_of(node.operands[0], message))
    if kind == "arith":
        left, right = (value_of(o, message) for o in node.operands)
        return arithmetic(node.op, left, right)
    # A condition used as a value (an operand of = or IS NULL): UNKNOWN is NULL.
    return truth_of(node, message)


def truth_of(node: Node, message: object) -> bool | None:
    """The three-valued result of a node used as a condition (J39)."""
    kind = node.kind
    if kind in ("literal", "ident"):
        value = value_of(node, message)
        if value is None:
            return None
        # J39: a boolean is itself, any other value FALSE (bool has no subclasses).
        return value if isinstance(value, bool) else False
    if kind == "compare":
        left, right = (value_of(o, message) for o in node.operands)
        return compare(node.op, left, right)
    if kind == "between":
        e, low, high = (value_of(o, message) for o in node.operands)
        if node.negated:  # J33: e < low OR e > high
            return or_([compare("<", e, low), compare(">", e, high)])
        return and_([compare(">=", e, low), compare("<=", e, high)])
    if kind == "in":
        value = value_of(node.operands[0], message)
        if value is None:
            return None
        found = type(value) is str and value in node.items  # J34: non-strings never equal
        return not found if node.negated else found
    if kind == "like":
        value = value_of(node.operands[0], message)
        if value is None:
            return None
        hit = type(value) is str and like_matches(value, node.pattern, node.escape)  # J37
        return not hit if node.negated else hit
    if kind == "is_null":
        is_null = value_of(node.operands[0], message) is None  # J38
        return not is_null if node.negated else is_null
    if kind == "not":
        inner = truth_of(node.operands[0], message)
        return None if inner is None else not inner
    if kind == "and":
        return and_([truth_of(o, message) for o in node.operands])
    if kind == "or":
        return or_([truth_of(o, message) for o in node.operands])
    raise AssertionError(f"{kind} is not a condition")  # the parser prevents this


def and_(values: list[bool | None]) -> bool | None:
    """The AND table of J39 over any number of operands."""
    if any(v is False for v in values):
        return False
    return None if any(v is None for v in values) else True


def or_(values: list[bool | None]) -> bool | None:
    """The OR table of J39 over any number of operands."""
    if any(v is True for v in values):
        return True
    return None if any(v is None for v in values) else False


# --------------------------------------------------------------------------------------
# Public entry points
# --------------------------------------------------------------------------------------

_room_lock = threading.Lock()
_room_users = 0
_room_saved = 0


@contextmanager
def _recursion_room(limits: Limits) -> Iterator[None]:
    """Room on the Python stack for a tree `limits.max_depth` deep.

    The parser and interpreter recurse (they are written to be read), about ten frames
    per level of parentheses; the limit goes back when the last user leaves.
    """
    global _room_users, _room_saved
    needed = 16 * limits.max_depth + 3000
    with _room_lock:
        if _room_users == 0:
            _room_saved = sys.getrecursionlimit()
        _room_users += 1
        if sys.getrecursionlimit() < needed:
            sys.setrecursionlimit(needed)
    try:
        yield
    finally:
        with _room_lock:
            _room_users -= 1
            if _room_users == 0:
                sys.setrecursionlimit(_room_saved)


class ReferenceFilter:
    """A selector parsed and checked by the reference; `evaluate()` walks the tree."""

    __slots__ = ("limits", "text", "tree")

    def __init__(self, text: str, limits: Limits | None = None) -> None:
        if not isinstance(text, str):
            raise FilterError(f"a selector is text, not {type(text).__name__}")
        self.text = text
        self.limits = limits or Limits()
        with _recursion_room(self.limits):
            self.tree = _Parser(text, self.limits).selector()

    @property
    def identifiers(self) -> frozenset[str]:
        """The names the selector reads."""
        if self.tree is None:
            return frozenset()
        return frozenset(str(n.value) for n in walk(self.tree) if n.kind == "ident")

    def evaluate(self, message: object) -> bool | None:
        """TRUE, FALSE or None (UNKNOWN) for `message` (a mapping or a `Message`)."""
        if self.tree is None:
            return True  # J2
        with _recursion_room(self.limits):
            return truth_of(self.tree, message)

    def matches(self, message: object) -> bool:
        """True only when the selector is TRUE for `message` (J1)."""
        return self.evaluate(message) is True


def reference_filter(
    text: str, dialect: str = "jms", *, limits: Limits | None = None
) -> ReferenceFilter:
    """Parse and check `text` once, to evaluate it against many messages.

    Raises `FilterError` (a subclass with a position for bad text) exactly when
    `msgfilter.compile(text, dialect)` does. Only the `jms` dialect is supported.
    """
    if dialect != "jms":
        raise FilterError(f"the reference evaluator does not support dialect {dialect!r}")
    return ReferenceFilter(text, limits)


def reference_evaluate(
    text: str, message: object, dialect: str = "jms", *, limits: Limits | None = None
) -> bool | None:
    """TRUE, FALSE or None (UNKNOWN): `text` evaluated against `message` by the rules of
    jms-selectors.md, independently of the compiled engine.

    `message` is a mapping of names to values or a `msgfilter.Message`. Raises
    `FilterError` exactly when `msgfilter.compile(text, dialect)` does.
    """
    return reference_filter(text, dialect, limits=limits).evaluate(message)
