"""Value rules of the `rocketmq` dialect (RocketMQ's SQL92 filter, brokers.md A.2 and errata).

RocketMQ carries properties as strings and converts a string to the type of the value it
meets (`Integer.valueOf`, `Long.valueOf`, `Double.valueOf`, `Boolean.valueOf`). A failed
conversion throws in the broker, which aborts the whole evaluation and leaves the message
undelivered: here it raises `Undelivered`, which the generated evaluator turns into FALSE
for `matches` and UNKNOWN for `evaluate` — never into an exception for the caller.

Runtime values: property values are `str` (other Python values are first written as Java
would write them), literals are `str`, `int` (a Java Integer when it fits in 32 bits,
else a Long), `float` (Double) and `bool`; None is NULL.
"""

from __future__ import annotations

from typing import Any

from .. import java
from .values import java_text


class Undelivered(Exception):
    """The broker would throw here: the message is not delivered."""


_INT32 = 2**31 - 1
_INT64 = 2**63 - 1


def prop(value: Any) -> Any:
    """A message value as RocketMQ sees it: a string, or None when absent."""
    if value is None or type(value) is str:
        return value
    text = java_text(value)
    # A value with no Java text (bytes, lists, ...) stays as it is: unlike everything.
    return value if text is None else text


def parse_rocketmq_integer(text: str, bound: int) -> int:
    """Integer.valueOf (`bound` 2**31-1) or Long.valueOf (2**63-1) of a property."""
    try:
        return java.parse_integer(text, 32 if bound == _INT32 else 64)
    except java.JavaNumberFormatError as error:
        raise Undelivered(str(error)) from None


def parse_double(text: str) -> float:
    """Double.valueOf of a property: trims characters <= U+0020, accepts NaN, Infinity,
    hex, suffixes."""
    try:
        return java.parse_double(text)
    except java.JavaNumberFormatError as error:
        raise Undelivered(str(error)) from None


def _convert(text: str, like: Any) -> Any:
    """`text` converted to the type of `like`, as ComparisonExpression.compare does."""
    kind = type(like)
    if kind is bool:
        return java.parse_boolean(text)
    if kind is int:
        return parse_rocketmq_integer(text, _INT32 if -_INT32 <= like <= _INT32 else _INT64)
    if kind is float:
        return parse_double(text)
    raise Undelivered("incomparable")


def _order(left: Any, right: Any) -> int:
    """compareTo of two values of one Java type (Double's order for doubles)."""
    if type(left) is float or type(right) is float:
        return java.double_compare(float(left), float(right))
    return int((left > right) - (left < right))


def _unified(left: Any, right: Any) -> tuple[Any, Any] | None:
    """The two values brought to one type, or None when RocketMQ answers FALSE."""
    lt, rt = type(left), type(right)
    if lt is rt:
        return left, right
    if lt is bool:
        if rt is str:
            # The broker casts the Boolean to String here and throws.
            raise Undelivered("ClassCastException")
        return None
    if lt is str:
        if rt in (bool, int, float):
            return _convert(left, right), right
        return None
    if lt in (int, float):
        if rt is str:
            return left, _convert(right, left)
        if rt in (int, float):
            return left, right
        return None
    return None


def eq(left: Any, right: Any) -> bool | None:
    if left is None or right is None:
        # Asymmetric, as the broker: NULL on the left is UNKNOWN, on the right FALSE.
        if left is None and right is None:
            return True
        return None if left is None else False
    if type(left) is type(right) and left == right and type(left) is not float:
        return True
    pair = _unified(left, right)
    if pair is None:
        return False
    return _order(*pair) == 0


def ne(left: Any, right: Any) -> bool | None:
    result = eq(left, right)
    return None if result is None else not result


def _ordering(left: Any, right: Any) -> int | None:
    if left is None or right is None:
        return None
    if type(left) is str and type(right) is str:
        # Two strings are ordered as numbers, or the broker throws.
        return _order(parse_double(left), parse_double(right))
    pair = _unified(left, right)
    if pair is None:
        raise Undelivered("incomparable")
    return _order(*pair)


def lt(left: Any, right: Any) -> bool | None:
    c = _ordering(left, right)
    return None if c is None else c < 0


def le(left: Any, right: Any) -> bool | None:
    c = _ordering(left, right)
    return None if c is None else c <= 0


def gt(left: Any, right: Any) -> bool | None:
    c = _ordering(left, right)
    return None if c is None else c > 0


def ge(left: Any, right: Any) -> bool | None:
    c = _ordering(left, right)
    return None if c is None else c >= 0


def in_list(value: Any, items: frozenset[str], negated: bool) -> bool | None:
    """InExpression: NULL and non-strings are UNKNOWN for IN and NOT IN alike."""
    if value is None or type(value) is not str:
        return None
    return (value in items) != negated


def string_test(op: str, negated: bool, value: Any, text: str) -> bool:
    """CONTAINS / STARTSWITH / ENDSWITH: FALSE for NULL, non-strings and an empty
    search string, in the NOT forms too."""
    if type(value) is not str or not text:
        return False
    if op == "CONTAINS":
        hit = text in value
    elif op == "STARTSWITH":
        hit = value.startswith(text)
    else:
        hit = value.endswith(text)
    return hit != negated


def negate(value: Any) -> Any:
    if type(value) is int:
        return -value
    if type(value) is float:
        return -value
    return None
