"""Loading ../shared/conformance cases as messages for the `jms` dialect."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

SHARED = Path(os.environ.get("MSGFILTER_SHARED", Path(__file__).resolve().parents[2] / "shared"))
CONFORMANCE = SHARED / "conformance"

#: Header values of a fresh ActiveMQMessage (jms-selectors.md, appendix A).
ACTIVEMQ_HEADER_DEFAULTS: dict[str, object] = {
    "JMSPriority": 0,
    "JMSDeliveryMode": "NON_PERSISTENT",
    "JMSTimestamp": 0,
    "JMSExpiration": 0,
    "JMSRedelivered": False,
    "JMSXDeliveryCount": 1,
    "JMSXGroupSeq": 0,
    "JMSActiveMQBrokerInTime": 0,
    "JMSActiveMQBrokerOutTime": 0,
    "JMSActiveMQBrokerPath": "null",
    "JMSXGroupFirstForConsumer": False,
}

_FLOATS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def typed_value(prop: dict[str, Any]) -> object:
    kind, value = prop["type"], prop["value"]
    if kind in ("float", "double"):
        return _FLOATS[value] if isinstance(value, str) else float(value)
    if kind in ("byte", "short", "int", "long"):
        return int(value)
    if kind == "boolean":
        return bool(value)
    return str(value)


def message_of(case: dict[str, Any]) -> dict[str, object]:
    """The one name -> value mapping the oracle's ActiveMQMessage shows a selector."""
    message: dict[str, object] = dict(ACTIVEMQ_HEADER_DEFAULTS)
    message.update(case.get("headers") or {})
    for name, prop in (case.get("properties") or {}).items():
        message[name] = typed_value(prop)
    return message


def load(name: str) -> list[dict[str, Any]]:
    with open(CONFORMANCE / name, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def examples() -> list[dict[str, Any]]:
    """The 83 hand-written examples with ActiveMQ's answers merged in."""
    answers = {a["id"]: a for a in load("activemq-examples.expected.jsonl")}
    cases = load("activemq-examples.jsonl")
    for case in cases:
        case["answer"] = answers[case["id"]]
    return cases
