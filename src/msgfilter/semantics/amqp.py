"""The `amqp` value model: RabbitMQ 4.2's SQL filter expressions (`amqp-sql`) at run time.

Rules read from RabbitMQ's `rabbit_amqp_filter_sql.erl` (v4.2.9, docs/amqp.md names the
commit), as total functions over message values:

- a value is None (absent), a bool, an int (unbounded), a finite float, a `str` or
  `bytes`: AMQP strings and binaries are both Erlang binaries to the evaluator, so a
  `str` stands for its UTF-8 bytes (`'abc' = 0x616263` is TRUE). Two `str` compare as
  they are: code point order is UTF-8's byte order; a `str` meets `bytes` as its bytes;
- `=` is Erlang's `==` (an int equals a float of its value, a boolean equals only a
  boolean); `< <= > >=` order two numbers or two binaries (bytewise) and are FALSE for any
  other pair; any comparison with an absent operand is UNKNOWN;
- `+ - *` of two ints are exact, with a float they are float operations; `/` converts both
  operands to floats first and is UNKNOWN for a zero divisor; `%` is Erlang's `rem` (the
  sign of the dividend) on two ints only; a float result beyond the double range raises
  in RabbitMQ (`badarith`): here `Overflow`, which the evaluators answer as a failure;
- AND, OR and NOT are three-valued with anything that is not a boolean as UNKNOWN.
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from ..errors import EvaluationFailure, FilterSyntaxError
from ..layout import Opaque
from ..message import Message, as_mapping
from ..syntax import nodes as n
from .like import LikePattern, Segment, compile_segments

#: What `header.priority` reads when the message has none (RabbitMQ's default).
DEFAULT_PRIORITY = 4


class Overflow(ArithmeticError):
    """A float result (or an int converted to a float) beyond the double range: Erlang
    raises `badarith` there, and RabbitMQ's evaluation of the message fails."""


def value_of(raw: object) -> Any:
    """A message value as the evaluator sees it (None for what RabbitMQ cannot hold:
    complex values, NaN and infinities, naive datetimes)."""
    kind = type(raw)
    if kind is str or kind is int or kind is bool or kind is bytes:
        return raw
    if kind is float:
        return raw if math.isfinite(raw) else None  # type: ignore[arg-type]
    return _other_value(raw)


def _other_value(raw: object) -> Any:
    if isinstance(raw, Opaque):
        # A table's value of no selector type (msgfilter.layout): AMQP has its type.
        return value_of(raw.value)
    if isinstance(raw, bool | int):
        return bool(raw) if isinstance(raw, bool) else int(raw)
    if isinstance(raw, float):
        return float(raw) if math.isfinite(raw) else None
    if isinstance(raw, str):
        return str(raw)
    if isinstance(raw, bytes | bytearray | memoryview):
        return bytes(raw)
    if isinstance(raw, datetime):
        # An AMQP timestamp: milliseconds since the epoch (a naive datetime says no zone).
        if raw.tzinfo is None:
            return None
        return (raw - _EPOCH) // _MILLISECOND
    if isinstance(raw, uuid.UUID):
        return raw.bytes
    return None


def as_bytes(value: str | bytes) -> bytes:
    """A string or binary as the bytes RabbitMQ holds."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    return value


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MILLISECOND = timedelta(milliseconds=1)


def _application(message: Any) -> Mapping[str, object]:
    # A Message's application properties are its properties alone (its headers are the
    # AMQP fields); anything else reads as `as_mapping` reads it.
    if isinstance(message, Message):
        return message.property_dict
    return as_mapping(message)


def _fields(message: Any) -> Mapping[str, object]:
    # Only a Message has header and properties fields: a mapping is application properties.
    if isinstance(message, Message):
        return message.header_dict
    return _EMPTY


_EMPTY: Mapping[str, object] = {}


def raw_app(message: Any, name: str) -> object:
    """The application property `name` of `message` as given (see `value_of`)."""
    return _application(message).get(name)


def app(message: Any, name: str) -> Any:
    """The application property `name` of `message` (a bare or `a.` name)."""
    raw: object = (
        message.get(name) if type(message) is dict else _application(message).get(name)
    )
    kind = type(raw)
    if kind is str or kind is int or kind is bool or kind is bytes or raw is None:
        return raw
    return value_of(raw)


def field(message: Any, name: str) -> Any:
    """The header or properties field `name` of `message` (`h.`/`p.` names)."""
    found = value_of(_fields(message).get(name))
    if found is None and name == "priority":
        return DEFAULT_PRIORITY
    return found


def application_properties(message: Any) -> Mapping[str, object]:
    """The application properties of `message` as given (property filters read them)."""
    return _application(message)


def fields(message: Any) -> Mapping[str, object]:
    """The header and properties fields of `message` as given (underscore spec names)."""
    return _fields(message)


def is_number(value: object) -> bool:
    kind = type(value)
    return kind is int or kind is float


def condition(value: object) -> bool | None:
    """A value where a condition stands: only a boolean is TRUE or FALSE."""
    return value if value is True or value is False else None


def not3(value: object) -> bool | None:
    if value is True:
        return False
    if value is False:
        return True
    return None


_TEXT = (str, bytes)


def eq(left: object, right: object) -> bool:
    """Erlang's `==` on two present values."""
    lk, rk = type(left), type(right)
    if lk is rk:
        return left == right
    if lk is bool or rk is bool:
        return False
    if lk in _TEXT or rk in _TEXT:
        if lk in _TEXT and rk in _TEXT:
            return as_bytes(left) == as_bytes(right)  # type: ignore[arg-type]
        return False
    return left == right


def compare(op: str, left: Any, right: Any) -> bool | None:
    """`= <> < <= > >=`: UNKNOWN with an absent operand; ordering other than number to
    number or binary to binary is FALSE."""
    if left is None or right is None:
        return None
    if op == "=":
        return eq(left, right)
    if op == "<>":
        return not eq(left, right)
    lk, rk = type(left), type(right)
    if lk in _TEXT and rk in _TEXT:
        if lk is not rk:
            left, right = as_bytes(left), as_bytes(right)
    elif not (is_number(left) and is_number(right)):
        return False
    if op == "<":
        return bool(left < right)
    if op == "<=":
        return bool(left <= right)
    if op == ">":
        return bool(left > right)
    return bool(left >= right)


def in_first(value: object) -> bool | None:
    """The left operand of IN: UNKNOWN when absent (then no item is read)."""
    return None if value is None else True


def member(value: object, item: object) -> bool:
    """One IN item against the (present) left operand: Erlang's `==`."""
    return item is not None and eq(value, item)


def failure(error: BaseException) -> EvaluationFailure:
    """The outcome where RabbitMQ's evaluation raises (Erlang's `badarith`)."""
    return EvaluationFailure("erlang:badarith", str(error))


def _float(value: Any) -> float:
    try:
        return float(value)
    except OverflowError:
        raise Overflow("an integer beyond the double range") from None


def _finite(result: float) -> float:
    if math.isinf(result) or math.isnan(result):
        raise Overflow("a float result beyond the double range")
    return result


def arith(op: str, left: Any, right: Any) -> Any:
    """`+ - * / %` of two values; UNKNOWN unless both are numbers (`%`: ints), or for a
    zero divisor."""
    if not (is_number(left) and is_number(right)):
        return None
    both_int = type(left) is int and type(right) is int
    if op == "%":
        if not both_int or right == 0:
            return None
        remainder = abs(left) % abs(right)
        return -remainder if left < 0 else remainder
    if op == "/":
        if right == 0:
            return None
        return _finite(_float(left) / _float(right))
    if both_int:
        if op == "+":
            return left + right
        if op == "-":
            return left - right
        return left * right
    a, b = _float(left), _float(right)
    if op == "+":
        return _finite(a + b)
    if op == "-":
        return _finite(a - b)
    return _finite(a * b)


def negate(value: Any) -> Any:
    return -value if is_number(value) else None


def plus(value: Any) -> Any:
    return value if is_number(value) else None


def utc() -> int:
    """`UTC()`: the current time in milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


# -- LIKE -------------------------------------------------------------------------------


class PatternError(ValueError):
    """A LIKE pattern RabbitMQ refuses: an escape at its end, a control character."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


def is_control(ch: str) -> bool:
    code = ord(ch)
    return code < 32 or code == 127


@dataclass(frozen=True, slots=True)
class LikeMatcher:
    """A compiled LIKE pattern: `__call__(value)` is TRUE, FALSE or UNKNOWN.

    RabbitMQ matches a pattern without `_` and with at most one `%` bytewise (exact,
    prefix, suffix, or both); any other pattern through a PCRE regex anchored by `^...$`
    on the value as UTF-8 text, where `%` and `_` never match a line feed and `$` also
    matches before a final line feed, and a value that is not UTF-8 is UNKNOWN."""

    #: "exact", "prefix", "suffix", "both" or "regex".
    kind: str
    head_text: str
    tail_text: str
    text_match: Callable[[str], bool] | None
    head: bytes = b""
    tail: bytes = b""
    #: The pattern between its `%`s (`_` as None): what a regex pattern matches.
    segments: tuple[Segment, ...] = ()

    def __call__(self, value: object) -> bool | None:
        kind = self.kind
        if type(value) is str:
            if kind == "exact":
                return value == self.head_text
            if kind == "prefix":
                return value.startswith(self.head_text)
            if kind == "suffix":
                return value.endswith(self.tail_text)
            text = value
        elif isinstance(value, bytes):
            if kind == "exact":
                return value == self.head
            if kind == "prefix":
                return value.startswith(self.head)
            if kind == "suffix":
                return value.endswith(self.tail)
            if kind == "both":
                return (
                    len(value) >= len(self.head) + len(self.tail)
                    and value.startswith(self.head)
                    and value.endswith(self.tail)
                )
            try:
                text = value.decode("utf-8")
            except UnicodeDecodeError:
                return None
        else:
            return None
        if kind == "both":
            # Prefix and suffix may not overlap: counted in code points, as in bytes.
            return (
                len(text) >= len(self.head_text) + len(self.tail_text)
                and text.startswith(self.head_text)
                and text.endswith(self.tail_text)
            )
        if text.endswith("\n"):
            text = text[:-1]
        # The pattern holds no control character, so nothing can match a line feed.
        if "\n" in text:
            return False
        assert self.text_match is not None
        return self.text_match(text)


def compile_like(pattern: str, escape: str | None) -> LikeMatcher:
    """RabbitMQ's reading of a LIKE pattern (`transform_pattern`); PatternError with the
    offset in the pattern where it refuses one."""
    segments: list[Segment] = []
    current: list[str | None] = []
    percents = 0
    underscore = False
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == escape:
            if i + 1 >= n:
                raise PatternError("an escape character ends the LIKE pattern", i)
            ch = pattern[i + 1]
            if is_control(ch):
                raise PatternError("a control character in the LIKE pattern", i + 1)
            current.append(ch)
            i += 2
            continue
        if ch == "%":
            percents += 1
            segments.append(tuple(current))
            current = []
        elif ch == "_":
            underscore = True
            current.append(None)
        elif is_control(ch):
            raise PatternError("a control character in the LIKE pattern", i)
        else:
            current.append(ch)
        i += 1
    segments.append(tuple(current))
    if not underscore and percents <= 1:
        head = "".join(segments[0])  # type: ignore[arg-type]
        tail = "".join(segments[1]) if percents else ""  # type: ignore[arg-type]
        kind = "exact" if percents == 0 else (
            "prefix" if not tail else "suffix" if not head else "both"
        )
        return LikeMatcher(kind, head, tail, None, head.encode(), tail.encode())
    pattern_segments = tuple(segments)
    return LikeMatcher(
        "regex", "", "", compile_segments(LikePattern(pattern_segments)),
        segments=pattern_segments,
    )


def like(value: object, matcher: LikeMatcher) -> bool | None:
    return matcher(value)


def check(tree: Any, text: str) -> None:
    """RabbitMQ's checks after parsing (`transform_ast`): every LIKE pattern compiles;
    FilterSyntaxError at the pattern it refuses. No typing rule: RabbitMQ has none."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, n.Like):
            try:
                compile_like(node.pattern, node.escape)
            except PatternError as error:
                raise FilterSyntaxError(str(error), text, node.pattern_at) from None
        stack.extend(n.children(node))
