"""The `qpid` dialect answers as Qpid Broker-J does.

Truth is Qpid's own filter code run on the cases under tests/data/qpid (README there):
a generated corpus, hand-written examples with notes, and Qpid's answers to the shared
ActiveMQ corpus. Every answer must agree: the result of matches(), the three-valued
evaluate(), and where Qpid throws while evaluating, the exception's class and text.
The other backends (Arrow row by row, Spark's per-message fallback) and the
SubscriptionIndex must give the per-message evaluator's answers.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import msgfilter
from msgfilter import EvaluationFailure, jtypes
from msgfilter.testing import property_settings, selectors

from conformance import SHARED, java_properties

DATA = Path(__file__).resolve().parents[1] / "data" / "qpid"


def load(name: str) -> list[dict[str, Any]]:
    with open(DATA / name, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def qpid_message(case: dict[str, Any]) -> dict[str, object]:
    """The case's message: its headers as given (the dialect reads them as Qpid does,
    defaults included), each property a value of its Java type."""
    return {**(case.get("headers") or {}), **java_properties(case)}


def answer(selector: str, message: dict[str, object]) -> tuple[object, object, str | None]:
    """(matches(), evaluate(), what was thrown) as the oracle records them."""
    try:
        f = msgfilter.compile(selector, "qpid")
    except msgfilter.FilterError:
        return "error", "error", None
    result = f.match_outcome(message)  # type: ignore[attr-defined]
    value = f.outcome(message)  # type: ignore[attr-defined]
    if isinstance(result, EvaluationFailure):
        return "error", "error", f"{result.java_class}: {result.message}"
    return result, value, None


def mismatches(cases: list[dict[str, Any]]) -> list[str]:
    wrong = []
    for case in cases:
        got = answer(case["selector"], qpid_message(case))
        thrown = case.get("error") if case.get("phase") == "evaluate" else None
        want = (case["expect"], case["value"], thrown)
        if got != want:
            wrong.append(f"{case['id']}: {case['selector']!r} Qpid {want}, we {got}")
    return wrong


@pytest.mark.parametrize("name", ["corpus.jsonl", "examples.jsonl", "unit-tests.jsonl"])
def test_every_recorded_answer_of_qpid(name: str) -> None:
    cases = load(name)
    wrong = mismatches(cases)
    assert wrong == [], f"{len(wrong)} of {len(cases)}:\n" + "\n".join(wrong[:20])


def test_qpid_answers_to_the_activemq_corpus() -> None:
    answers = {a["id"]: a for a in load("activemq-corpus-seed1.qpid.jsonl")}
    with open(SHARED / "conformance" / "activemq-corpus-seed1.jsonl", encoding="utf-8") as f:
        cases = [json.loads(line) for line in f if line.strip()]
    assert len(cases) == len(answers)
    # ActiveMQ's answer fields give way to Qpid's.
    ours = ("expect", "value", "phase", "error")
    merged = [{**{k: v for k, v in case.items() if k not in ours}, **answers[case["id"]]}
              for case in cases]
    wrong = mismatches(merged)
    assert wrong == [], f"{len(wrong)} of {len(merged)}:\n" + "\n".join(wrong[:20])


def test_the_corpus_holds_every_kind_of_answer() -> None:
    cases = load("corpus.jsonl")
    kinds = {(c["expect"], c["value"], c.get("phase")) for c in cases}
    assert {(True, True, None), (False, False, None), (False, None, None)} <= kinds
    assert ("error", "error", "parse") in kinds and ("error", "error", "evaluate") in kinds


# -- behaviours, each named ------------------------------------------------------------------


def outcome(text: str, message: dict[str, object] | None = None) -> object:
    return msgfilter.compile(text, "qpid").outcome(message or {})  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "message", "expected"),
    [
        ("NOT a > 10", {"a": 5}, True),
        ("NOT a = 1 AND b IS NULL", {}, True),
        ("x = NOT a = 1", {"x": True}, True),
        ("a = 1", {}, False),
        ("a <> 1", {}, True),
        ("a = b", {}, True),
        ("a > 1", {}, None),
        ("a > 1 OR FALSE", {}, False),
        ("FALSE OR a > 1", {}, None),
        ("a > 1 AND FALSE", {}, None),
        ("FALSE AND a > 1", {}, False),
        ("f = 1.5", {"f": jtypes.Float(1.5)}, True),
        ("flag = 1", {"flag": True}, False),
        ("s = 1", {"s": "1"}, False),
        ("s LIKE '%%' ESCAPE '%'", {"s": ""}, True),
        ("s LIKE 'a!bc' ESCAPE '!'", {"s": "abc"}, True),
        ("JMSPriority = 4", {}, True),
        ("JMSPriority = 7", {"JMSPriority": 7}, True),
        ("JMSDeliveryMode = 'PERSISTENT'", {"JMSDeliveryMode": 2}, True),
        ("JMSDeliveryMode = 'NON_PERSISTENT'", {}, True),
        ("JMSDestination IS NULL", {"JMSDestination": "queue://q"}, True),
        ("AMQMessageID = 'id:1'", {"JMSMessageID": "id:1"}, True),
        ("JMSTimestamp + 1 = 1", {}, True),
        ("a * 2 = 4294967294", {"a": 2147483647}, True),  # a plain int is a Java long
        ("a * 2 = -2", {"a": jtypes.Int(2147483647)}, True),
    ],
)
def test_behaviour(text: str, message: dict[str, object], expected: object) -> None:
    assert outcome(text, message) == expected


def test_failures_name_qpids_exception() -> None:
    got = outcome("s - 1 = 0", {"s": "1"})
    assert isinstance(got, EvaluationFailure)
    assert got.java_class == "org.apache.qpid.server.filter.SelectorParsingException"
    assert got.message == "Cannot call minus operation on: 1 and: 1"


@pytest.mark.parametrize(
    "text", ["TRUE = 1", "a > 'x'", "a = NULL", "1 + 2", "REGEX('a', s)", "é = 1",
             "a LIKE 'x' ESCAPE 'ab'", "a IN (1)", "XQUERY '//a'", "a % "],
)
def test_rejected(text: str) -> None:
    with pytest.raises(msgfilter.FilterError):
        msgfilter.compile(text, "qpid")


def test_the_docs_page_runs() -> None:
    from doc_pages import run_blocks

    run_blocks("qpid.md")


def test_blank_matches_everything() -> None:
    assert msgfilter.compile("  ", "qpid").matches({})


def test_unparse_round_trips_on_the_corpus() -> None:
    for case in load("corpus.jsonl"):
        if case["expect"] == "error" and case.get("phase") == "parse":
            continue
        f = msgfilter.compile(case["selector"], "qpid")
        again = msgfilter.compile(str(f.unparse()), "qpid")  # type: ignore[attr-defined]
        assert again == f, case["id"]


def test_explain_names_the_departures() -> None:
    text = msgfilter.compile("NOT a = 1", "qpid").explain()
    assert "departures from the JMS specification:" in text
    assert "NULL OR FALSE is FALSE" in text and "AMQMessageID is JMSMessageID" in text
    assert "departures" not in msgfilter.compile("NOT a = 1", "jms").explain()


# -- other backends and the index -----------------------------------------------------------

#: Columns of each Java type, as Arrow and Spark hold them.
_ARROW_TYPES = {"by": "int8", "sh": "int16", "i": "int32", "l": "int64", "fl": "float32",
                "d": "float64", "s": "string", "bo": "bool"}
_JAVA = {"by": "byte", "sh": "short", "i": "int", "l": "long", "fl": "float", "d": "double",
         "s": "string", "bo": "boolean"}
NAMES = list(_ARROW_TYPES)


def _column_values(kind: str) -> st.SearchStrategy[object]:
    bits = {"byte": 8, "short": 16, "int": 32, "long": 64}
    if kind in bits:
        top = 2 ** (bits[kind] - 1)
        return st.one_of(st.integers(-top, top - 1), st.sampled_from([0, 1, 2, -1, 10]))
    if kind in ("float", "double"):
        return st.one_of(st.sampled_from([0.0, -0.0, 1.0, 1.5, 2.5, math.nan, math.inf]),
                         st.floats(width=32 if kind == "float" else 64))
    if kind == "boolean":
        return st.booleans()
    return st.sampled_from(["", "a", "1", "abc", "a%c", "PERSISTENT", "x y"])


ROWS = st.lists(
    st.fixed_dictionaries({n: st.one_of(st.none(), _column_values(_JAVA[n])) for n in NAMES}),
    min_size=1, max_size=6,
)
QPID_SELECTORS = selectors(identifiers=NAMES, max_depth=2)


def _java_row(row: dict[str, object]) -> dict[str, object]:
    return {n: None if v is None else jtypes.java(_JAVA[n], v) for n, v in row.items()}


def _compiled(text: str) -> Any:
    try:
        return msgfilter.compile(text, "qpid")
    except msgfilter.FilterError:
        return None


@property_settings()
@given(text=QPID_SELECTORS, rows=ROWS)
def test_arrow_gives_the_per_message_answers(text: str, rows: list[dict[str, object]]) -> None:
    pa = pytest.importorskip("pyarrow")
    import msgfilter.arrow

    f = _compiled(text)
    if f is None:
        return
    table = pa.table({n: pa.array([r[n] for r in rows], _ARROW_TYPES[n]) for n in NAMES})
    got = msgfilter.arrow.evaluate(f, table).to_pylist()
    # Arrow rows are plain Python values: ints are Java longs, floats doubles.
    plain = [{n: v for n, v in r.items() if v is not None} for r in rows]
    assert got == [f.evaluate(m) for m in plain]


_FIXED_TEXTS = ["fl = d", "i * 2 < 0", "NOT i = 1", "i = l", "-by = 1", "s + i = '11'",
                "bo = 1", "NOT (i > 1 OR FALSE)", "fl = 1.5", "JMSPriority = 4",
                "s LIKE '%%' ESCAPE '%'", "d BETWEEN 1 AND 2", "x = NOT by = sh"]


@pytest.mark.spark
def test_spark_gives_the_per_message_answers_with_java_types(spark: Any) -> None:
    pytest.importorskip("pyspark")
    from pyspark.sql import types as T

    import msgfilter.spark as ms

    spark_types = {"by": T.ByteType(), "sh": T.ShortType(), "i": T.IntegerType(),
                   "l": T.LongType(), "fl": T.FloatType(), "d": T.DoubleType(),
                   "s": T.StringType(), "bo": T.BooleanType()}
    schema = T.StructType([T.StructField("_row", T.LongType(), False)]
                          + [T.StructField(n, spark_types[n]) for n in NAMES])

    @property_settings(0.1)
    @given(texts=st.lists(QPID_SELECTORS, min_size=1, max_size=6), rows=ROWS)
    def run(texts: list[str], rows: list[dict[str, object]]) -> None:
        filters = [f for f in map(_compiled, texts + _FIXED_TEXTS) if f is not None]
        frame = spark.createDataFrame(
            [(k, *(r[n] for n in NAMES)) for k, r in enumerate(rows)], schema
        )
        columns = [ms.to_column(f, frame).alias(f"c{k}") for k, f in enumerate(filters)]
        got = [list(r)[1:] for r in sorted(frame.select("_row", *columns).collect())]
        # Spark columns keep their Java class: a byte column holds Bytes, and so on.
        java_rows = [{k: v for k, v in _java_row(r).items() if v is not None} for r in rows]
        assert got == [[f.evaluate(m) for f in filters] for m in java_rows]

    run()


def test_subscription_index_agrees_with_the_filters() -> None:
    from msgfilter.index import SubscriptionIndex

    cases = load("corpus.jsonl")[:1500]
    index = SubscriptionIndex()
    filters = {}
    for case in cases:
        try:
            f = msgfilter.compile(case["selector"], "qpid")
        except msgfilter.FilterError:
            continue
        filters[case["id"]] = f
        index.add_filter(case["id"], f)
    texts = ["JMSPriority = 4", "JMSDeliveryMode = 'NON_PERSISTENT'", "AMQMessageID = 'x'",
             "JMSDeliveryMode IN ('NON_PERSISTENT')", "JMSExpiration IS NOT NULL",
             "s = 'a'", "s IN ('a', 'b') AND NOT t = 1"]
    for k, t in enumerate(texts):
        filters[-1 - k] = msgfilter.compile(t, "qpid")
        index.add_filter(-1 - k, filters[-1 - k])
    extra = {"headers": {"JMSMessageID": "x"},
             "properties": {"s": {"type": "string", "value": "a"}}}
    for case in [*cases[:300], extra]:
        message = qpid_message(case)
        want = {key for key, f in filters.items() if f.matches(message)}
        assert set(index.match(message)) == want
