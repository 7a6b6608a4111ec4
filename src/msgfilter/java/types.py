"""Exact Java value types for the `activemq` and `qpid` dialects.

ActiveMQ keeps the Java type of every property and literal, and its answers depend on it:
`int` arithmetic wraps at 32 bits, a `float` compares after rounding to 32 bits, a `short`
on the right of an `int` comparison is FALSE. These wrappers carry that type along with the
value. They subclass Python's `int` and `float`, so they read, print and pickle as numbers;
the `activemq` and `qpid` dialects dispatch on them, other dialects treat them as plain numbers' kin
of no selector type (decode plain values for those).

Plain Python values given to those dialects map as a JMS client would set them:
`int` is a `Long`, `float` a `Double`, `bool` a `Boolean`, `str` a `String`.
"""

from __future__ import annotations

from typing import Any

from .arith import to_float32, wrap


class JavaInteger(int):
    """Base of the Java integral types; `bits` is the width values wrap at."""

    bits = 64
    java_name = "long"
    __slots__ = ()

    def __new__(cls, value: Any = 0) -> JavaInteger:
        return super().__new__(cls, wrap(int(value), cls.bits))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({int(self)})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (int(self),))


class Byte(JavaInteger):
    bits = 8
    java_name = "byte"
    __slots__ = ()


class Short(JavaInteger):
    bits = 16
    java_name = "short"
    __slots__ = ()


class Int(JavaInteger):
    bits = 32
    java_name = "int"
    __slots__ = ()


class Long(JavaInteger):
    bits = 64
    java_name = "long"
    __slots__ = ()


class BigDecimal(int):
    """An integral `java.math.BigDecimal`: ActiveMQ's type for decimal literals beyond the
    long range. It compares only with other BigDecimals and is cut to 32 or 64 bits in
    arithmetic."""

    java_name = "BigDecimal"
    __slots__ = ()

    def __repr__(self) -> str:
        return f"BigDecimal({int(self)})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (BigDecimal, (int(self),))


class JavaFloating(float):
    java_name = "double"
    __slots__ = ()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({float(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (float(self),))


class Float(JavaFloating):
    """A Java float: the value is rounded to 32 bits when the wrapper is made."""

    java_name = "float"
    __slots__ = ()

    def __new__(cls, value: Any = 0.0) -> Float:
        return super().__new__(cls, to_float32(float(value)))


class Double(JavaFloating):
    java_name = "double"
    __slots__ = ()


#: Java type name -> wrapper, as pulsar-jms `_jsmtype` companions and the oracle name them.
BY_NAME: dict[str, type] = {
    "byte": Byte, "short": Short, "int": Int, "long": Long, "float": Float, "double": Double,
}


def java(type_name: str, value: Any) -> Any:
    """`value` as the Java type called `type_name` (`string` and `boolean` pass through)."""
    if type_name == "boolean":
        return bool(value)
    if type_name == "string":
        return str(value)
    try:
        return BY_NAME[type_name](value)
    except KeyError:
        raise ValueError(f"unknown Java type {type_name!r}") from None


__all__ = [
    "BY_NAME", "BigDecimal", "Byte", "Double", "Float", "Int", "JavaFloating", "JavaInteger",
    "Long", "Short", "java", "to_float32",
]
