"""The key forms of values, per value model: what a literal is filed under and what a
message value is looked up by.

A literal's key and a message value's keys must meet whenever the dialect's comparison
says "equal": a key may be too wide (the evaluator then answers), never too narrow.
Keys of different kinds never compare equal: strings are `str`, JMS numbers are `float`,
RocketMQ integers `int`, RocketMQ doubles `("d", bits)`, booleans `("b", value)` (a bare
`True` would equal `1` and `1.0` in a dict).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from contextlib import suppress
from typing import Any

from .. import java
from ..semantics import amqp
from ..semantics import rocketmq as rq
from ..semantics.model import ValueModel
from ..syntax import nodes as n

TRUE_KEY = ("b", True)
FALSE_KEY = ("b", False)

#: Every integer below this is exact in a double: for such a literal the double key of a
#: long equals the literal's only when the long does (JMS compares two longs exactly).
EXACT_IN_DOUBLE = 2**53


def bool_key(value: bool) -> tuple[str, bool]:
    return TRUE_KEY if value else FALSE_KEY


def double_key(value: float) -> tuple[str, int]:
    """RocketMQ compares doubles with Double.compare: -0.0 is not 0.0, NaN equals NaN."""
    return ("d", java.double_bits(value))


# -- JMS ---------------------------------------------------------------------------------


def jms_literal(node: n.Expr) -> tuple[object, bool] | None:
    """(key, exact) of a JMS literal on one side of `=`; exact means that a hit alone
    proves the comparison TRUE. None when no key can stand for it (NULL, NaN)."""
    if isinstance(node, n.StringLit):
        return node.value, True
    if isinstance(node, n.BoolLit):
        return bool_key(node.value), True
    if isinstance(node, n.ExactLit):
        # J25: a long meets a double as to_double(long); two longs compare exactly, and
        # beyond 2**53 several longs share one double, so a hit there proves nothing.
        return java.to_double(node.value), abs(node.value) < EXACT_IN_DOUBLE
    if isinstance(node, n.ApproxLit):
        value = node.value
        if value != value:
            return None
        # + 0.0 files -0.0 under 0.0: the two are equal in JMS. An infinite literal meets
        # a long beyond the double range, whose float() the evaluator cannot take.
        return value + 0.0, math.isfinite(value)
    return None


def jms_value(value: Any) -> object | None:
    """The one key a JMS message value is looked up by (None: it equals no literal)."""
    cls = type(value)
    if cls is str:
        text: str = value
        return text
    if cls is float:
        return None if value != value else float(value) + 0.0
    if cls is int:
        return java.to_double(value)
    if cls is bool:
        return bool_key(value)
    return None


def jms_number(value: Any) -> float | None:
    """Where a JMS message value sits among numeric range bounds (None: not a number)."""
    cls = type(value)
    if cls is int:
        return java.to_double(value)
    if cls is float and value == value:
        return float(value)
    return None


def jms_text(value: Any) -> str | None:
    return value if type(value) is str else None


def jms_bound(node: n.Expr) -> float | None:
    """A numeric literal as a range bound in double space (None: not a number)."""
    if isinstance(node, n.ExactLit):
        return java.to_double(node.value)
    if isinstance(node, n.ApproxLit) and node.value == node.value:
        return float(node.value)
    return None


# -- RocketMQ ----------------------------------------------------------------------------

#: Kinds of RocketMQ keys: which conversions a message string needs.
STRING, INTEGER, DOUBLE, BOOLEAN = "s", "i", "d", "b"


def rocketmq_literal(node: n.Expr) -> tuple[object, str] | None:
    """(key, kind) of a RocketMQ literal on one side of `=`; a hit is exact."""
    negate = False
    if isinstance(node, n.Negate):
        negate, node = True, node.operand
    if isinstance(node, n.StringLit) and not negate:
        return node.value, STRING
    if isinstance(node, n.BoolLit) and not negate:
        return bool_key(node.value), BOOLEAN
    if isinstance(node, n.ExactLit):
        value = -node.value if negate else node.value
        return value, INTEGER
    if isinstance(node, n.ApproxLit):
        return double_key(-node.value if negate else node.value), DOUBLE
    return None


def rocketmq_text(value: Any) -> str | None:
    """The string RocketMQ sees for a message value (non-strings are written as Java
    writes them), or None when absent or of no Java type."""
    if value is None:
        return None
    text = rq.prop(value)
    return text if type(text) is str else None


def rocketmq_values(text: str, kinds: frozenset[str]) -> list[object]:
    """The keys a RocketMQ property string meets literals of `kinds` under: itself, and
    what Long.valueOf, Double.valueOf and Boolean.valueOf make of it."""
    keys: list[object] = []
    if STRING in kinds:
        keys.append(text)
    # A text that is not a number of a kind has no key of that kind.
    if INTEGER in kinds:
        with suppress(Exception):
            # Long.valueOf accepts whatever Integer.valueOf does, with the same value.
            keys.append(java.parse_integer(text, 64))
    if DOUBLE in kinds:
        with suppress(Exception):
            keys.append(double_key(java.parse_double(text)))
    if BOOLEAN in kinds:
        keys.append(bool_key(java.parse_boolean(text)))
    return keys


# -- ActiveMQ ----------------------------------------------------------------------------


def activemq_text(value: Any) -> str | None:
    """ActiveMQ's string equality and IN hold only for a String (exact class)."""
    return value if type(value) is str else None


# -- AMQP (amqp-sql, property filters) -----------------------------------------------------


def amqp_key(value: object) -> object | None:
    """The key of an AMQP value (as `semantics.amqp.value_of` gives it) under Erlang's
    `==`: a string as its UTF-8 bytes (it equals the binary of those bytes), a number as
    itself (`1` and `1.0` are one dict key, exactly when Python's `==` says so, as the
    evaluator's), a boolean tagged (it equals only a boolean)."""
    kind = type(value)
    if kind is str:
        return amqp.as_bytes(value)  # type: ignore[arg-type]
    if kind is bytes or kind is int or kind is float:
        return value
    if kind is bool:
        return bool_key(value)  # type: ignore[arg-type]
    return None


def amqp_literal(node: n.Expr) -> object | None:
    """The key of an amqp-sql literal (None: NULL, or not a literal)."""
    if isinstance(node, n.StringLit | n.BinaryLit | n.ExactLit | n.ApproxLit | n.BoolLit):
        return amqp_key(node.value)
    return None


def amqp_value(raw: Any) -> object | None:
    """The one key an application property is looked up by (None: absent, or a value
    the evaluator reads as absent)."""
    return amqp_key(amqp.value_of(raw))


def amqp_text(raw: Any) -> bytes | None:
    """The bytes a string or binary application property's prefixes are taken of."""
    value = amqp.value_of(raw)
    return amqp.as_bytes(value) if type(value) is str or type(value) is bytes else None


def amqp_present(raw: Any) -> object | None:
    """True when the evaluator reads the value as present (None: as absent)."""
    return None if amqp.value_of(raw) is None else True


#: The models whose values are AMQP values.
AMQP_MODELS = frozenset({ValueModel.AMQP, ValueModel.AMQP_PROPERTY})


# -- per model -----------------------------------------------------------------------------


def equality_key(model: ValueModel) -> Callable[[Any], object | None]:
    """The one key a message value is looked up by for `=` and IN in `model` (rocketmq
    has several per value: `rocketmq_values`)."""
    if model in AMQP_MODELS:
        return amqp_value
    return jms_value if model is ValueModel.JMS else activemq_text


def prefix_text(model: ValueModel) -> Callable[[Any], str | bytes | None]:
    """The text a message value's prefixes are looked up by in `model` (None: none);
    AMQP's are bytes."""
    if model in AMQP_MODELS:
        return amqp_text
    if model is ValueModel.JMS:
        return jms_text
    return rocketmq_text if model is ValueModel.ROCKETMQ else activemq_text
