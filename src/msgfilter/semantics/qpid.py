"""Value rules of the `qpid` dialect: Qpid Broker-J's selector evaluation (its
org.apache.qpid.server.filter package, docs/qpid.md), with the Java types of
`msgfilter.java.types`.

Qpid's filter code began as ActiveMQ's, so the Java value rules it shares with ActiveMQ
(literal classes, arithmetic, negation, text) are `semantics.activemq`'s; this module
holds where Qpid answers otherwise:

- `=` with exactly one NULL operand is FALSE (not UNKNOWN), and two NULLs are equal;
- comparisons convert a Float and a Double to double both ways, and never convert strings;
- AND answers its first operand that is not TRUE, OR its first TRUE operand, else the
  last operand's value (`NULL OR FALSE` is FALSE, `NULL AND FALSE` is NULL);
- LIKE collapses runs of `%` before it reads escapes, and an escape escapes any character;
- the headers are read as Qpid's JMSMessagePropertyExpression reads them (`header`).

Where Qpid throws, these functions raise `activemq.JavaException`; the generated evaluator
turns that into the outcome "error".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ..java.types import (
    BigDecimal,
    Byte,
    Double,
    Float,
    Int,
    JavaFloating,
    JavaInteger,
    Long,
    Short,
)
from . import activemq as amq
from .activemq_like import PatternError, regex_segments
from .like import compile_segments

#: The exception Qpid's expressions throw while evaluating.
SELECTOR_EXCEPTION = "org.apache.qpid.server.filter.SelectorParsingException"

# -- headers -------------------------------------------------------------------------------

#: The Java class of each numeric header (JMSPriority is a byte widened to an Integer).
_HEADER_TYPES: dict[str, type] = {"JMSPriority": Int, "JMSTimestamp": Long, "JMSExpiration": Long}

#: What a message that does not carry a header shows: Qpid reads these headers as Java
#: primitives, so they are never NULL (an AMQP 1.0 message's defaults).
HEADER_DEFAULTS: dict[str, Any] = {
    "JMSPriority": Int(4), "JMSTimestamp": Long(0), "JMSExpiration": Long(0),
    "JMSRedelivered": False, "JMSDeliveryMode": "NON_PERSISTENT",
}

#: Names Qpid reads from another header: AMQMessageID is JMSMessageID.
ALIASES: dict[str, str] = {"AMQMessageID": "JMSMessageID"}

#: Names that are always NULL: Qpid's JMSDestination expression returns null.
ALWAYS_NULL: frozenset[str] = frozenset({"JMSDestination"})

_DELIVERY_MODES = {1: "NON_PERSISTENT", 2: "PERSISTENT"}

#: Every name whose selector value is not simply the message's value under that name.
RESOLVED: frozenset[str] = frozenset(
    {*HEADER_DEFAULTS, *ALIASES, *ALWAYS_NULL}
)


def header(value: Any, name: str) -> Any:
    """A message value under `name` as Qpid's selector sees it: a header's default where
    the message has none, JMSDeliveryMode as the string PERSISTENT / NON_PERSISTENT (a
    JMS DeliveryMode number is mapped), and plain Python numbers as a JMS client would set
    them (`activemq.prop`, with Qpid's header classes)."""
    if value is None:
        return HEADER_DEFAULTS.get(name)
    cls = type(value)
    if name == "JMSDeliveryMode":
        if cls is bool:
            return "PERSISTENT" if value else "NON_PERSISTENT"
        if isinstance(value, int):
            return _DELIVERY_MODES.get(int(value), value)
        return value
    kind = _HEADER_TYPES.get(name)
    if kind is not None and (cls is int or isinstance(value, JavaInteger)):
        # Qpid reads these as primitives: the priority a byte widened to an Integer,
        # timestamp and expiration longs, whatever number the caller gave.
        return Int(Byte(int(value))) if kind is Int else kind(int(value))
    if cls is int:
        return Long(value)
    return amq.prop(value, name)


# -- comparisons ------------------------------------------------------------------------------

# ComparisonExpression.compare's ladder: the class a left operand of class L and a right
# operand of class R are both brought to; absent pairs answer FALSE.
_LADDER: dict[tuple[type, type], type] = {
    (Byte, Short): Short, (Byte, Int): Int, (Byte, Long): Long,
    (Byte, Float): Float, (Byte, Double): Double,
    (Short, Int): Int, (Short, Long): Long, (Short, Float): Float, (Short, Double): Double,
    (Int, Long): Long, (Int, Float): Float, (Int, Double): Double,
    (Long, Int): Long, (Long, Float): Float, (Long, Double): Double,
    (Float, Int): Float, (Float, Long): Float, (Float, Double): Double,
    (Double, Int): Double, (Double, Long): Double, (Double, Float): Double,
}


def compare(left: Any, right: Any) -> int | None:
    """compareTo after Qpid's conversions; None where it answers FALSE outright."""
    lc, rc = type(left), type(right)
    if lc is not rc:
        target = _LADDER.get((lc, rc))
        if target is None:
            return None
        left, right = target(left), target(right)
    return amq.compare_to(left, right)


def eq(left: Any, right: Any) -> bool:
    """EqualExpression: one NULL operand is FALSE, two are equal; equals() first, then
    compare()."""
    if left is None or right is None:
        return left is right
    if amq.java_equals(left, right):
        return True
    return compare(left, right) == 0


def ordering(op: str, left: Any, right: Any) -> bool | None:
    """`<`, `<=`, `>`, `>=` once the left operand is known to be non-NULL."""
    if right is None:
        return None
    c = compare(left, right)
    if c is None:
        return False
    return {"<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op]


# -- arithmetic ------------------------------------------------------------------------------

_OP_NAMES = {"+": "plus", "-": "minus", "*": "multiply", "/": "divide", "%": "mod"}
_NUMBERS = (JavaInteger, BigDecimal, JavaFloating)


def _thrown(message: str) -> amq.JavaException:
    return amq.JavaException(SELECTOR_EXCEPTION, message)


def arith(op: str, left: Any, right: Any) -> Any:
    """ArithmeticExpression once both operands are known to be non-NULL: `+` joins a
    String left operand with the right one's text; otherwise the left operand must be a
    number (else "Cannot call ... operation") and the right one too (else "Cannot
    convert value")."""
    if op == "+" and type(left) is str:
        return left + amq.java_str(right)
    if not isinstance(left, _NUMBERS):
        raise _thrown(f"Cannot call {_OP_NAMES[op]} operation on: {amq.java_str(left)} "
                      f"and: {amq.java_str(right)}")
    if not isinstance(right, _NUMBERS):
        raise _thrown(f"Cannot convert value: {amq.java_str(right)} into a number")
    return amq.arith(op, left, right)


def negate(value: Any) -> Any:
    """NegativeExpression: NULL and non-numbers are NULL; a Byte or Short throws."""
    try:
        return amq.negate(value)
    except amq.JavaException as error:
        raise _thrown(error.message) from None


# -- LIKE ----------------------------------------------------------------------------------------

_CONTROL = frozenset(".\\[]^$?*+{}|():&<>=!")
_REPEATED_WILDCARDS = re.compile("%{2,}")


def qpid_like_regex(pattern: str, escape: str | None) -> str:
    """The Java regex text (without its \\A \\z anchors) Qpid's LikeExpression builds:
    runs of `%` collapse to one first; the escape character makes the next UTF-16 unit
    `\\x` + its hex code, whatever it is, and a trailing escape ends the pattern."""
    if "%%" in pattern:
        pattern = _REPEATED_WILDCARDS.sub("%", pattern)
    units = pattern.encode("utf-16-le", "surrogatepass")
    chars = [units[i:i + 2].decode("utf-16-le", "surrogatepass") for i in range(0, len(units), 2)]
    out: list[str] = []
    i = 0
    while i < len(chars):
        ch = chars[i]
        if ch == escape:
            i += 1
            if i >= len(chars):
                break
            out.append("\\x" + format(ord(chars[i]), "x"))
        elif ch == "%":
            out.append(".*?")
        elif ch == "_":
            out.append(".")
        elif ch in _CONTROL:
            out.append("\\x" + format(ord(ch), "x"))
        else:
            out.append(ch)
        i += 1
    return "".join(out).encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


@lru_cache(maxsize=1024)
def qpid_like(pattern: str, escape: str | None) -> Callable[[str], bool]:
    """Qpid's LIKE matcher for `pattern`; PatternError where its regex does not compile
    (the selector is then rejected)."""
    return compile_segments(regex_segments(qpid_like_regex(pattern, escape)))


__all__ = [
    "ALIASES", "ALWAYS_NULL", "HEADER_DEFAULTS", "RESOLVED", "SELECTOR_EXCEPTION",
    "PatternError", "arith", "compare", "eq", "header", "negate", "ordering", "qpid_like",
    "qpid_like_regex",
]
