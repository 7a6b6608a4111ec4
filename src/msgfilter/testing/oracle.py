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

__all__ = ["ORACLE_HEADERS", "oracle_answer", "oracle_case"]

#: Header fields the ActiveMQ oracle sets from a case's `headers` rather than properties.
ORACLE_HEADERS = frozenset(
    {"JMSPriority", "JMSType", "JMSCorrelationID", "JMSMessageID", "JMSTimestamp",
     "JMSDeliveryMode", "JMSExpiration", "JMSRedelivered"}
)


def _typed(value: object) -> dict[str, object] | None:
    # Exact classes, as the dialect types values (J21): subclasses have no Java type.
    if isinstance(value, bool):
        return {"type": "boolean", "value": value}
    if isinstance(value, int) and type(value) is int and -(2**63) <= value < 2**63:
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


def oracle_case(case_id: int, selector: str, message: Mapping[str, object]) -> dict[str, Any]:
    """One input line for a JSON Lines selector oracle.

    Values map to Java types as the conformance corpora do: `bool` -> boolean, `int` ->
    long, `float` -> double (non-finite ones as the strings "NaN", "Infinity",
    "-Infinity"), `str` -> string. The header fields of `ORACLE_HEADERS` go to
    `headers`. Values Java cannot hold (None, bytes, lists, ...) are left out: to a
    broker they are absent. Returns a dict for `json.dumps`.
    """
    properties: dict[str, object] = {}
    headers: dict[str, object] = {}
    for name, value in message.items():
        typed = _typed(value)
        if typed is None:
            continue
        if name in ORACLE_HEADERS:
            headers[name] = typed["value"]
        else:
            properties[name] = typed
    case: dict[str, Any] = {"id": case_id, "selector": selector, "properties": properties}
    if headers:
        case["headers"] = headers
    return case


def oracle_answer(line: Mapping[str, Any]) -> bool | str | None:
    """An oracle answer line as `evaluate()` would say it: True, False, None (UNKNOWN),
    or the string "error" when the oracle rejected the selector or failed evaluating."""
    if "error" in line:
        return "error"
    value = line.get("value")
    return None if value is None else bool(value)
