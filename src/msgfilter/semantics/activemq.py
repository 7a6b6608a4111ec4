"""Value rules of the `activemq` dialect: ActiveMQ Classic 5.17's selector evaluation,
reproduced with its Java types (activemq-selectors.md and its examples).

Every runtime value is a Java value: `str` (String), `bool` (Boolean), the `jtypes`
wrappers (Byte, Short, Int, Long, BigDecimal, Float, Double), a `list` (what SPLIT and
MAKELIST return), or None for NULL. Where ActiveMQ throws, these functions raise
`JavaException`; the generated evaluator turns that into the outcome "error".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .. import java
from ..errors import EvaluationFailure
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

_HEADER_TYPES: dict[str, type] = {
    "JMSPriority": Int, "JMSTimestamp": Long, "JMSExpiration": Long,
    "JMSXDeliveryCount": Int, "JMSXGroupSeq": Int,
    "JMSActiveMQBrokerInTime": Long, "JMSActiveMQBrokerOutTime": Long,
}


class JavaException(Exception):
    """An exception ActiveMQ throws while evaluating; `java_class` names it."""

    def __init__(self, java_class: str, message: str) -> None:
        super().__init__(f"{java_class}: {message}")
        self.java_class = java_class
        self.message = message


def _runtime(message: str) -> JavaException:
    return JavaException("java.lang.RuntimeException", message)


def _class_cast(message: str) -> JavaException:
    return JavaException("java.lang.ClassCastException", message)


# -- message values -------------------------------------------------------------------------


def prop(value: Any, name: str) -> Any:
    """A message value as the Java value a JMS client would have set."""
    cls = type(value)
    if value is None or cls is str or cls is bool or isinstance(value, (JavaInteger, BigDecimal,
                                                                         JavaFloating)):
        return value
    if cls is int:
        return _HEADER_TYPES.get(name, Long)(value)
    if cls is float:
        return Double(value)
    return value


def literal_exact(value: int) -> Any:
    """ConstantExpression.createFromDecimal/Hex/Octal: Integer if the long value fits in
    32 bits, else Long, and a decimal beyond the long range a BigDecimal — whose own long
    value decides (low 64 bits)."""
    if -(2**63) <= value < 2**63:
        return Int(value) if -(2**31) <= value < 2**31 else Long(value)
    low = Long(value)
    return Int(value) if -(2**31) <= low < 2**31 else BigDecimal(value)


# -- Java type classification --------------------------------------------------------------

_NUMBER_CLASSES = (Byte, Short, Int, Long, BigDecimal, Float, Double)


def _is_number(value: Any) -> bool:
    return type(value) in _NUMBER_CLASSES


def compare_to(left: Any, right: Any) -> int:
    """Comparable.compareTo of two values of one Java class."""
    if type(left) is not type(right):
        raise _class_cast(
            f"class {_java_class(right)} cannot be cast to class {_java_class(left)}"
        )
    if isinstance(left, float):
        return java.double_compare(float(left), float(right))
    if type(left) is str:
        ka, kb = java.utf16_key(left), java.utf16_key(right)
        return int(ka > kb) - int(ka < kb)
    return int((left > right) - (left < right))


def _java_class(value: Any) -> str:
    names = {
        str: "java.lang.String", bool: "java.lang.Boolean", Byte: "java.lang.Byte",
        Short: "java.lang.Short", Int: "java.lang.Integer", Long: "java.lang.Long",
        Float: "java.lang.Float", Double: "java.lang.Double",
        BigDecimal: "java.math.BigDecimal", list: "java.util.List",
    }
    return names.get(type(value), "java.lang.Object")


def java_equals(left: Any, right: Any) -> bool:
    if type(left) is not type(right):
        return False
    if isinstance(left, float):
        return java.double_compare(float(left), float(right)) == 0
    return bool(left == right)


def _parse_for(text: str, cls: Any) -> Any:
    """Byte/Short/Integer/Long/Float/Double/Boolean.valueOf(text)."""
    if cls is bool:
        return java.parse_boolean(text)
    try:
        if cls is Float:
            return Float(java.parse_float(text))
        if cls is Double:
            return Double(java.parse_double(text))
        return cls(java.parse_integer(text, cls.bits))
    except java.JavaNumberFormatError:
        raise _NotConvertible(text) from None


class _NotConvertible(Exception):
    """A string that is not a number of the other operand's type: with
    convert_string_expressions ActiveMQ then answers FALSE."""


# Which class a left operand of class L converts to (or converts the right operand to)
# when the right operand has class R: ComparisonExpression.compare's ladder.
# `artemis`: Artemis's copy of the ladder, which converts where ActiveMQ throws.
def _unify(left: Any, right: Any, convert: bool, artemis: bool) -> tuple[Any, Any] | None:
    lc, rc = type(left), type(right)
    if lc is rc:
        return left, right
    if lc is bool:
        if convert and rc is str:
            if artemis:
                return left, java.parse_boolean(right)
            raise _class_cast("class java.lang.Boolean cannot be cast to class java.lang.String")
        return None
    if lc is Byte:
        target = {Short: Short, Int: Int, Long: Long, Float: Float, Double: Double}.get(rc)
        if target is not None:
            return target(left), right
    elif lc is Short:
        target = {Int: Int, Long: Long, Float: Float, Double: Double}.get(rc)
        if target is not None:
            return target(left), right
    elif lc is Int:
        target = {Long: Long, Float: Float, Double: Double}.get(rc)
        if target is not None:
            return target(left), right
    elif lc is Long:
        if rc is Int:
            return left, Long(right)
        if rc is Float:
            return Float(left), right
        if rc is Double:
            return Double(left), right
    elif lc is Float:
        if rc in (Int, Long):
            return left, Float(right)
        if rc is Double:
            return Double(left), right
    elif lc is Double:
        if rc in (Int, Long):
            return left, Double(right)
        if rc is Float:
            if artemis:
                return left, Double(right)
            # ActiveMQ converts the Float into a Float again, and Double.compareTo throws.
            raise _class_cast("class java.lang.Float cannot be cast to class java.lang.Double")
    elif lc is str and convert and rc in (bool, Byte, Short, Int, Long, Float, Double):
        return _parse_for(left, rc), right
    if convert and rc is str and lc in (Byte, Short, Int, Long, Float, Double):
        return left, _parse_for(right, lc)
    return None


def compare(left: Any, right: Any, convert: bool = False, artemis: bool = False) -> int | None:
    """compareTo after ActiveMQ's (or Artemis's) conversions; None where it answers FALSE
    outright."""
    if type(left) is list or type(right) is list:
        return None
    try:
        pair = _unify(left, right, convert, artemis)
    except _NotConvertible:
        return None
    if pair is None:
        return None
    return compare_to(*pair)


def eq(left: Any, right: Any, convert: bool = False, artemis: bool = False) -> bool | None:
    """EqualExpression: asymmetric with NULL, equals() first, then compare()."""
    if (left is None) != (right is None):
        return None if left is None else False
    if left is right or left is None or java_equals(left, right):
        return True
    c = compare(left, right, convert, artemis)
    return c == 0 if c is not None else False


def ne(left: Any, right: Any, convert: bool = False, artemis: bool = False) -> bool | None:
    result = eq(left, right, convert, artemis)
    return None if result is None else not result


def ordering(
    op: str, left: Any, right: Any, convert: bool = False, artemis: bool = False
) -> bool | None:
    """`<`, `<=`, `>`, `>=` once the left operand is known to be non-NULL."""
    if right is None:
        return None
    c = compare(left, right, convert, artemis)
    if c is None:
        return False
    return {"<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op]


def as_condition(value: Any) -> bool | None:
    """BooleanCastExpression: a Boolean is itself, NULL is NULL, anything else FALSE."""
    if value is None:
        return None
    return value if type(value) is bool else False


# -- arithmetic ------------------------------------------------------------------------------


def _as_number(value: Any, convert: bool = False) -> Any:
    """ArithmeticExpression.asNumber (Artemis's, under `convert`, parses strings)."""
    if _is_number(value):
        return value
    if convert and type(value) is str:
        # Artemis's asNumber under convert_string_expressions: Double.valueOf if the
        # text has a '.', else Long.valueOf.
        try:
            if "." in value:
                return Double(java.parse_double(value))
            return Long(java.parse_integer(value, 64))
        except java.JavaNumberFormatError:
            pass
    raise _runtime(f"Cannot convert value: {java_str(value)} into a number")


def _number_type(left: Any, right: Any) -> type:
    if isinstance(left, JavaFloating) or isinstance(right, JavaFloating):
        return Double
    if type(left) is Long or type(right) is Long:
        return Long
    return Int


def _integral(value: Any, cls: type) -> int:
    # intValue()/longValue(): BigDecimal and wider values keep their low bits.
    return int(cls(int(value)))


def arith(op: str, left: Any, right: Any, convert: bool = False, artemis: bool = False) -> Any:
    """ArithmeticExpression once both operands are known to be non-NULL; `convert`:
    Artemis's string operands under convert_string_expressions."""
    if op == "+" and type(left) is str:
        return left + java_str(right)
    if not artemis and not _is_number(left):
        # ActiveMQ Classic checks the left operand with instanceof Number before asNumber
        # reads the right one (measured on ActiveMQ 5.17.2: `a - 1` with a = 'x' throws
        # "Cannot call minus operation on: x and: 1", `1 - a` "Cannot convert value: x
        # into a number"); Artemis reads both with asNumber.
        name = {"+": "plus", "-": "minus", "*": "multiply", "/": "divide", "%": "mod"}[op]
        raise _runtime(f"Cannot call {name} operation on: {java_str(left)} and: {java_str(right)}")
    a = _as_number(left, convert)
    b = _as_number(right, convert)
    if op in ("/", "%"):
        x, y = float(a), float(b)
        return Double(java.ieee_div(x, y) if op == "/" else _java_fmod(x, y))
    kind = _number_type(a, b)
    if kind is Double:
        x, y = float(a), float(b)
        return Double({"+": x + y, "-": x - y, "*": x * y}[op])
    i, j = _integral(a, kind), _integral(b, kind)
    return kind({"+": i + j, "-": i - j, "*": i * j}[op])


def _java_fmod(x: float, y: float) -> float:
    if y == 0.0 or math.isinf(x) or x != x or y != y:
        return math.nan
    if math.isinf(y):
        return x
    return math.fmod(x, y)


def negate(value: Any) -> Any:
    """UnaryExpression.negate: NULL and non-numbers are NULL; bytes and shorts throw."""
    cls = type(value)
    if cls in (Int, Long, Float, Double):
        return cls(-value)
    if cls is BigDecimal:
        return Long(-value) if -value == -(2**63) else BigDecimal(-value)
    if cls in (Byte, Short):
        raise _runtime(f"Don't know how to negate: {int(value)}")
    return None


# -- text -------------------------------------------------------------------------------------


def java_str(value: Any) -> str:
    """String.valueOf(value) for a selector value, as Java 17 writes it."""
    return java.value_text(value)


# -- predicates ----------------------------------------------------------------------------------


def in_list(value: Any, items: frozenset[str], negated: bool) -> bool | None:
    if value is None or type(value) is not str:
        return None
    return (value in items) != negated


def like(value: Any, matcher: Callable[[str], bool]) -> bool | None:
    if value is None:
        return None
    if type(value) is not str:
        return False
    return matcher(value)


# -- functions ------------------------------------------------------------------------------------


def _string_arg(value: Any) -> str:
    if value is None:
        raise JavaException("java.lang.NullPointerException", "null argument")
    if type(value) is not str:
        raise _class_cast(f"class {_java_class(value)} cannot be cast to class java.lang.String")
    text: str = value
    return text


def call(name: str, args: list[Any], regex: Callable[[str], Any]) -> Any:
    """The built-in functions of FunctionCallExpression's registry."""
    from .activemq_like import PatternError, java_replacement, java_split

    try:
        if name == "MAKELIST":
            return list(args)
        if name == "INLIST":
            collection, value = args
            if type(collection) is not list:
                raise _class_cast(f"class {_java_class(collection)} cannot be cast to class "
                                  "java.util.List")
            for item in collection:
                if item is None:
                    raise JavaException("java.lang.NullPointerException", "null list item")
                if java_equals(item, value):
                    return True
            return False
        if name == "REGEX":
            # regexMatchFunction: NULL is FALSE, anything else is matched as its toString().
            pattern, target = args
            if pattern is None or target is None:
                return False
            return regex(java_str(pattern)).search(java_str(target)) is not None
        if name == "SPLIT":
            text, separator = (_string_arg(a) for a in args)
            return java_split(regex(separator), text)
        if name == "REPLACE":
            text, pattern, replacement = (_string_arg(a) for a in args)
            return regex(pattern).sub(java_replacement(replacement), text)
    except PatternError as error:
        raise JavaException("java.util.regex.PatternSyntaxException", str(error)) from None
    raise _runtime(f"invalid function name, \"{name}\"")


def failure(error: BaseException) -> EvaluationFailure:
    """The outcome for an exception raised while evaluating."""
    if isinstance(error, JavaException):
        return EvaluationFailure(error.java_class, error.message)
    return EvaluationFailure("java.lang.RuntimeException", repr(error))
