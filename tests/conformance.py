"""The shared corpora as cases every backend must answer: ../shared/conformance (the
ActiveMQ corpus and examples), the examples of ../shared/spec/jms-selectors.md, and the
answers of RocketMQ's own filter (tests/data/rocketmq)."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
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
    message.update(java_properties(case))
    return message


def java_properties(case: dict[str, Any]) -> dict[str, object]:
    """A case's typed properties as Java values (`jtypes`); the oracles write a double's
    NaN and infinities as text."""
    from msgfilter import jtypes

    out: dict[str, object] = {}
    for name, prop in (case.get("properties") or {}).items():
        kind, value = prop["type"], prop["value"]
        if kind in ("float", "double") and isinstance(value, str):
            value = _FLOATS[value]
        out[name] = jtypes.java(kind, value)
    return out


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


# -- every corpus as cases for every backend ---------------------------------------------------

ROCKETMQ_DATA = Path(__file__).resolve().parent / "data" / "rocketmq"

#: The Java type of each header a message_of() message holds (the others are strings).
HEADER_TYPES: dict[str, str] = {
    "JMSPriority": "int", "JMSXDeliveryCount": "int", "JMSXGroupSeq": "int",
    "JMSTimestamp": "long", "JMSExpiration": "long",
    "JMSActiveMQBrokerInTime": "long", "JMSActiveMQBrokerOutTime": "long",
    "JMSRedelivered": "boolean", "JMSXGroupFirstForConsumer": "boolean",
}

#: The Java types an Arrow or Spark column hands the `activemq` dialect unchanged: a
#: column value is a plain Python value, and the dialect reads a plain int as a long
#: (docs/activemq.md), so a byte, short, int or float property has no column form.
PLAIN_JAVA_TYPES = frozenset({"long", "double", "string", "boolean"})

# The hand-written examples carry ActiveMQ's answers only. Where the `jms` dialect
# answers otherwise, this table says what it answers and which rule makes it so.
EXAMPLE_DEPARTURES: dict[int, tuple[object, str]] = {
    7: (False, "J34"), 8: (True, "J34"), 15: (None, "J30"), 17: (False, "J24"),
    18: (False, "J23"), 24: (True, "J2"), 25: (None, "J25"), 26: (None, "J25"),
    28: (None, "J25"), 34: (False, "J28"), 41: (None, "J40"), 42: (True, "J22"),
    44: (True, "J22"), 46: (True, "J21"), 47: (False, "J30"), 48: (False, "J26"),
    49: (False, "J26"), 50: (True, "J26"), 51: ("error", "J10"), 52: ("error", "J10"),
    58: (None, "J17"), 59: (False, "J17"), 60: (True, "J17"), 63: (None, "J40"),
    71: (False, "J36"), 75: (True, "J13"), 76: (None, "J14"), 78: ("error", "J7"),
    79: ("error", "J5"), 80: (None, "J5"), 81: (None, "J5"), 82: ("error", "J7"),
    83: ("error", "J7"),
}

#: What `evaluate` gives for each answer of RocketMQ's filter (docs/rocketmq.md: where the
#: broker throws, the message is not delivered and `evaluate` is UNKNOWN).
ROCKETMQ_VALUES: dict[str, bool | None] = {"true": True, "false": False, "null": None,
                                           "throw": None}


@dataclass(frozen=True)
class Case:
    """One selector on one message, and what every backend must answer."""

    corpus: str
    id: str
    dialect: str
    selector: str
    #: The message as the per-message backend is given it (Java-typed for `activemq`).
    message: dict[str, object]
    #: Each property as (Java type, plain value) for Arrow and Spark columns; None when
    #: no column holds this message as the dialect must see it.
    columns: dict[str, tuple[str, object]] | None
    #: `evaluate`'s answer (TRUE, FALSE, None for UNKNOWN), or "error": no compile.
    value: bool | str | None
    #: `matches`'s answer.
    delivered: bool
    #: ActiveMQ's (result of matches(), value of evaluate()), "error" for an exception.
    broker: tuple[object, object] | None = None
    #: Why this is the answer (a rule, the example's note, the broker's raw answer).
    note: str = ""

    def __str__(self) -> str:
        return f"{self.corpus}#{self.id} {self.selector!r} ({self.note}) on {self.message}"


def _plain_type(name: str, value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return HEADER_TYPES.get(name, "long")
    if isinstance(value, float):
        return "double"
    return "string"


def _columns(case: dict[str, Any]) -> dict[str, tuple[str, object]]:
    """message_of(case) with each value's Java type: the declared one for properties."""
    declared = case.get("properties") or {}
    return {
        name: (declared[name]["type"] if name in declared else _plain_type(name, value), value)
        for name, value in message_of(case).items()
        if value is not None
    }


def _holds_lone_surrogate(values: Any) -> bool:
    # No Arrow or Spark string can hold one (they are UTF-8).
    return any(isinstance(v, str) and any("\ud800" <= c <= "\udfff" for c in v) for v in values)


def _jms_corpus(name: str) -> list[Case]:
    return [
        Case(name, str(case["id"]), "jms", case["selector"], message_of(case), _columns(case),
             case["spec"], case["spec"] is True, note=f"departure {case['departure']}")
        for case in load("activemq-corpus-seed1.jsonl")
    ]


def _jms_examples(name: str) -> list[Case]:
    out = []
    for case in examples():
        answer = case["answer"]
        value, rule = EXAMPLE_DEPARTURES.get(
            case["id"], ("error" if "error" in answer else answer["value"], "")
        )
        note = f"{case['note']}; rule {rule or 'none: ActiveMQ agrees'}"
        out.append(Case(name, str(case["id"]), "jms", case["selector"], message_of(case),
                        _columns(case), value, value is True, note=note))
    return out


def _spec_examples(name: str) -> list[Case]:
    from spec_examples import examples as spec_examples

    out = []
    for i, example in enumerate(spec_examples()):
        message = example.message
        columns = None if _holds_lone_surrogate(message.values()) else {
            k: (_plain_type(k, v), v) for k, v in message.items()
        }
        out.append(Case(name, f"{i}", "jms", example.selector, message, columns,
                        example.expected, example.expected is True, note=example.rule))
    return out


def _activemq_case(name: str, case: dict[str, Any], broker: tuple[object, object],
                   parse_error: bool) -> Case:
    result, value = broker
    declared = (case.get("properties") or {}).values()
    plain = all(prop["type"] in PLAIN_JAVA_TYPES for prop in declared)
    return Case(
        name, str(case["id"]), "activemq", case["selector"], activemq_message_of(case),
        _columns(case) if plain else None,
        "error" if parse_error else (None if value == "error" else value),  # type: ignore[arg-type]
        result is True, broker=broker, note=case.get("note", ""),
    )


def _activemq_corpus(name: str) -> list[Case]:
    return [
        _activemq_case(name, case, (case["expect"], case["value"]), case.get("phase") == "parse")
        for case in load("activemq-corpus-seed1.jsonl")
    ]


def _activemq_examples(name: str) -> list[Case]:
    return [
        _activemq_case(name, case, oracle_answer(case["answer"]),
                       case["answer"].get("phase") == "parse")
        for case in examples()
    ]


def rocketmq_sample(file: str) -> list[dict[str, Any]]:
    with open(ROCKETMQ_DATA / file, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _rocketmq(name: str) -> list[Case]:
    out = []
    # A selector is asked of several property maps under one id: number them.
    for row, case in enumerate(rocketmq_sample(name.split(":", 1)[1] + ".jsonl")):
        properties: dict[str, object] = dict(case["properties"])
        answer = case["answer"]
        value = "error" if answer == "parse-error" else ROCKETMQ_VALUES[answer.split(":")[0]]
        out.append(Case(name, f"{case['id']}/{row}", "rocketmq", case["selector"], properties,
                        {k: ("string", v) for k, v in properties.items()}, value,
                        answer == "true", note=answer))
    return out


#: Every shared corpus, named "<dialect>:<corpus>", with the number of cases it holds.
CORPORA: dict[str, tuple[Callable[[str], list[Case]], int]] = {
    "jms:activemq-corpus-seed1": (_jms_corpus, 3000),
    "jms:activemq-examples": (_jms_examples, 83),
    "jms:spec-examples": (_spec_examples, 187),
    "activemq:activemq-corpus-seed1": (_activemq_corpus, 3000),
    "activemq:activemq-examples": (_activemq_examples, 83),
    "rocketmq:cases-seed9": (_rocketmq, 4500),
    "rocketmq:conversions-seed2": (_rocketmq, 4000),
    "rocketmq:logic-seed5": (_rocketmq, 4500),
}


@cache
def corpus(name: str) -> tuple[Case, ...]:
    build, size = CORPORA[name]
    cases = tuple(build(name))
    assert len(cases) == size, f"{name}: {len(cases)} cases, expected {size}"
    return cases


#: Spark's rule that evaluates in-memory rows while optimising; excluded, a frame runs as a
#: real job with generated code, as over files.
NO_LOCAL_RELATION = "org.apache.spark.sql.catalyst.optimizer.ConvertToLocalRelation"


@contextmanager
def sql_conf(spark: Any, settings: Mapping[str, str]) -> Iterator[None]:
    """Spark session settings for the duration of a block, restored after."""
    before = {k: spark.conf.get(k, None) for k in settings}
    for k, value in settings.items():
        spark.conf.set(k, value)
    try:
        yield
    finally:
        for k, value in before.items():
            if value is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, value)
