"""The older name of `msgfilter.java.types` (Java's typed values for the `activemq`, `qpid`
and `artemis` dialects), kept for the imports the guides show."""

from .java.types import (
    BY_NAME,
    BigDecimal,
    Byte,
    Double,
    Float,
    Int,
    JavaFloating,
    JavaInteger,
    Long,
    Short,
    java,
    to_float32,
)

__all__ = [
    "BY_NAME",
    "BigDecimal",
    "Byte",
    "Double",
    "Float",
    "Int",
    "JavaFloating",
    "JavaInteger",
    "Long",
    "Short",
    "java",
    "to_float32",
]
