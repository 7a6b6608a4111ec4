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


def activemq_message_of(case: dict[str, Any]) -> dict[str, object]:
    """The message with Java-typed values, for the `activemq` dialect."""
    from msgfilter import jtypes

    header_types = {
        "JMSPriority": jtypes.Int, "JMSTimestamp": jtypes.Long, "JMSExpiration": jtypes.Long,
        "JMSXDeliveryCount": jtypes.Int, "JMSXGroupSeq": jtypes.Int,
        "JMSActiveMQBrokerInTime": jtypes.Long, "JMSActiveMQBrokerOutTime": jtypes.Long,
    }
    message: dict[str, object] = {}
    for name, value in [*ACTIVEMQ_HEADER_DEFAULTS.items(), *(case.get("headers") or {}).items()]:
        kind = header_types.get(name)
        message[name] = kind(value) if kind is not None and value is not None else value
    for name, prop in (case.get("properties") or {}).items():
        kind, value = prop["type"], prop["value"]
        if kind in ("float", "double") and isinstance(value, str):
            value = _FLOATS[value]
        message[name] = jtypes.java(kind, value)
    return message


def activemq_answer(selector: str, message: dict[str, object]) -> tuple[object, object]:
    """(result of matches(), value of evaluate()) as the oracle reports them."""
    import msgfilter
    from msgfilter import EvaluationFailure

    try:
        f = msgfilter.compile(selector, "activemq")
    except msgfilter.FilterError:
        return "error", "error"
    result = f.match_outcome(message)  # type: ignore[attr-defined]
    value = f.outcome(message)  # type: ignore[attr-defined]
    return (
        "error" if isinstance(result, EvaluationFailure) else result,
        "error" if isinstance(value, EvaluationFailure) else value,
    )


def oracle_answer(answer: dict[str, Any]) -> tuple[object, object]:
    """(result, value) of one oracle output line."""
    if "error" in answer:
        return "error", "error"
    return answer["result"], answer["value"]
