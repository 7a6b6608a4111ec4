"""Cases for external oracles that speak JSON Lines, such as the ActiveMQ selector oracle
(../shared/tools/activemq-oracle: one case per line in, one answer per line out).

    >>> import json
    >>> json.dumps(oracle_case(1, "a > 2", {"a": 3, "s": "x"}))
    '{"id": 1, "selector": "a > 2", "properties": {"a": {"type": "long", "value": 3}, \
"s": {"type": "string", "value": "x"}}}'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = [
    "ACTIVEMQ_HEADER_DEFAULTS",
    "ORACLE_HEADERS",
    "oracle_answer",
    "oracle_case",
    "oracle_view",
]

_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1

#: Header fields the ActiveMQ oracle sets from a case's `headers`, and what each holds.
ORACLE_HEADERS: Mapping[str, str] = {
    "JMSPriority": "int", "JMSTimestamp": "long", "JMSExpiration": "long",
    "JMSType": "string", "JMSCorrelationID": "string", "JMSMessageID": "message id",
    "JMSRedelivered": "boolean", "JMSDeliveryMode": "delivery mode",
}

#: What a fresh ActiveMQMessage holds for the headers a case does not set
#: (jms-selectors.md, appendix A).
ACTIVEMQ_HEADER_DEFAULTS: Mapping[str, object] = {
    "JMSPriority": 0, "JMSDeliveryMode": "NON_PERSISTENT", "JMSTimestamp": 0,
    "JMSExpiration": 0, "JMSRedelivered": False, "JMSXDeliveryCount": 1, "JMSXGroupSeq": 0,
    "JMSActiveMQBrokerInTime": 0, "JMSActiveMQBrokerOutTime": 0,
    "JMSActiveMQBrokerPath": "null", "JMSXGroupFirstForConsumer": False,
}


def _typed(value: object) -> dict[str, object] | None:
    """A property as the oracle reads it, or None for a value Java cannot hold."""
    # Exact classes, as the dialect types values (J21): subclasses have no Java type.
    if isinstance(value, bool):
        return {"type": "boolean", "value": value}
    if isinstance(value, int) and type(value) is int and _LONG_MIN <= value <= _LONG_MAX:
        return {"type": "long", "value": value}
    if isinstance(value, float) and type(value) is float:
        if math.isnan(value):
            return {"type": "double", "value": "NaN"}
        if math.isinf(value):
            return {"type": "double", "value": "Infinity" if value > 0 else "-Infinity"}
        return {"type": "double", "value": value}
    if type(value) is str:
        return {"type": "string", "value": value}
    return None


def _header_fits(kind: str, value: object) -> bool:
    if kind in ("int", "long"):
        if not isinstance(value, int) or type(value) is not int:
            return False
        low, high = (_INT_MIN, _INT_MAX) if kind == "int" else (_LONG_MIN, _LONG_MAX)
        return low <= value <= high
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "delivery mode":
        return value in ("PERSISTENT", "NON_PERSISTENT")
    if kind == "message id":
        # ActiveMQ rewrites message ids that do not start with "ID:".
        return type(value) is str and str(value).startswith("ID:")
    return type(value) is str


def oracle_case(case_id: int, selector: str, message: Mapping[str, object]) -> dict[str, Any]:
    """One input line for a JSON Lines selector oracle, as a dict for `json.dumps`.

    Values map to Java types as the conformance corpora do: `bool` -> boolean, `int` ->
    long, `float` -> double (non-finite ones as the strings "NaN", "Infinity",
    "-Infinity"), `str` -> string. The header fields of `ORACLE_HEADERS` go to
    `headers`; a header value of another type than the header's raises ValueError (the
    broker could not hold it). Other values Java cannot hold (None, bytes, lists, ...)
    are left out: to the broker those names are absent. `oracle_view(message)` is the
    message the oracle then evaluates.
    """
    properties: dict[str, object] = {}
    headers: dict[str, object] = {}
    for name, value in message.items():
        if name in ORACLE_HEADERS:
            if value is None:
                continue
            if not _header_fits(ORACLE_HEADERS[name], value):
                raise ValueError(f"the header {name} cannot hold {value!r}")
            headers[name] = value
            continue
        typed = _typed(value)
        if typed is not None:
            properties[name] = typed
    case: dict[str, Any] = {"id": case_id, "selector": selector, "properties": properties}
    if headers:
        case["headers"] = headers
    return case


def oracle_view(message: Mapping[str, object]) -> dict[str, object]:
    """The message the ActiveMQ oracle evaluates for `oracle_case(..., message)`: a fresh
    ActiveMQMessage's header values, then the values Java can hold. Compare its answer
    with `msgfilter.compile(text, "activemq").evaluate(oracle_view(message))`."""
    view: dict[str, object] = dict(ACTIVEMQ_HEADER_DEFAULTS)
    for name, value in message.items():
        if name in ORACLE_HEADERS:
            if value is not None and _header_fits(ORACLE_HEADERS[name], value):
                view[name] = value
        elif _typed(value) is not None:
            view[name] = value
    return view


def oracle_answer(line: Mapping[str, Any]) -> bool | str | None:
    """An oracle answer line as `evaluate()` would say it: True, False, None (UNKNOWN),
    or the string "error" when the oracle rejected the selector or failed evaluating."""
    if "error" in line or "input_error" in line:
        return "error"
    value = line.get("value")
    if value == "error":
        return "error"
    return None if value is None else bool(value)
