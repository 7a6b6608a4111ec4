"""The `artemis` dialect: ActiveMQ Artemis's selectors, checked against Artemis's own
selector code (tests/data/artemis), and the same answers from every backend."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

import msgfilter
import msgfilter.arrow as ma
from msgfilter import EvaluationFailure, FilterError, SubscriptionIndex, jtypes
from msgfilter.semantics import artemis
from msgfilter.testing import (
    DEFAULT_IDENTIFIERS,
    messages,
    property_settings,
    selector_cases,
    selectors,
)

from conformance import CONFORMANCE, java_properties

DATA = Path(__file__).parents[1] / "data" / "artemis"

#: A fresh core message's header fields (what the oracle's message holds unless told).
DEFAULTS: dict[str, object] = {
    "JMSPriority": 0, "JMSDeliveryMode": "NON_PERSISTENT", "JMSTimestamp": 0, "JMSExpiration": 0,
}


def message_of(case: dict[str, Any]) -> dict[str, object]:
    """A case's message as one mapping of Java values: the header fields under the names
    the case gives (JMS or AMQ), then the typed properties."""
    return {**DEFAULTS, **(case.get("headers") or {}), **java_properties(case)}


def answer(selector: str, message: dict[str, object]) -> tuple[object, object]:
    """(matches, evaluate) as the oracle reports them: FilterImpl.match (FALSE where the
    evaluation throws) and the three-valued evaluate() or "error"."""
    try:
        f = msgfilter.compile(selector, "artemis")
    except FilterError:
        return "error", "error"
    value = f.outcome(message)  # type: ignore[attr-defined]
    return f.matches(message), "error" if isinstance(value, EvaluationFailure) else value


def expected(line: dict[str, Any]) -> tuple[object, object]:
    if "error" in line:
        return "error", "error"
    return line["result"], line["value"]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@pytest.mark.parametrize(
    ("cases", "answers"),
    [
        (DATA / "cases-seed3.jsonl", DATA / "cases-seed3.expected.jsonl"),
        (
            CONFORMANCE / "activemq-corpus-seed1.jsonl",
            DATA / "activemq-corpus-seed1.expected.jsonl",
        ),
        (CONFORMANCE / "activemq-examples.jsonl", DATA / "activemq-examples.expected.jsonl"),
    ],
    ids=["artemis-seed3", "activemq-corpus", "activemq-examples"],
)
def test_the_dialect_answers_as_artemis_does(cases: Path, answers: Path) -> None:
    if not cases.exists():
        pytest.skip(f"{cases} is not here")
    by_id = {a["id"]: a for a in _lines(answers)}
    checked = [c for c in _lines(cases) if "input_error" not in by_id[c["id"]]]
    assert len(checked) >= 80
    wrong = [
        (c["selector"], answer(c["selector"], message_of(c)), expected(by_id[c["id"]]))
        for c in checked
        if answer(c["selector"], message_of(c)) != expected(by_id[c["id"]])
    ]
    assert wrong == []


# -- each difference from activemq and jms, by example (docs/artemis.md) ------------------

F, D, B = jtypes.Float, jtypes.Double, jtypes.Byte


@pytest.mark.parametrize(
    ("text", "message", "artemis_answer", "activemq_answer"),
    [
        # Empty and blank selectors are no filter.
        ("", {}, True, "error"),
        ("  \t", {}, True, "error"),
        # Header identifiers: the JMS client's names become the broker's.
        ("JMSPriority = 4", {"JMSPriority": 4}, True, True),
        ("AMQPriority = 4", {"JMSPriority": 4}, True, False),
        ("JMSDeliveryMode = 'PERSISTENT'", {"JMSDeliveryMode": "PERSISTENT"}, True, True),
        ("AMQDurable = 'DURABLE'", {"JMSDeliveryMode": "PERSISTENT"}, True, False),
        ("JMSMessageID = 'ID:m-1'", {"JMSMessageID": "m-1"}, True, False),
        ("JMSXGroupID = 'g'", {"JMSXGroupID": "g"}, True, True),
        ("AMQSize > 10", {"AMQSize": 100}, True, True),
        ("JMSRedelivered IS NULL", {"JMSRedelivered": True}, True, False),
        # ... and every 'PERSISTENT' literal becomes 'DURABLE', whatever it is compared with.
        ("s = 'PERSISTENT'", {"s": "PERSISTENT"}, False, True),
        # Quoted identifiers.
        ('"my-prop" = 1', {"my-prop": 1}, True, "error"),
        ("hyphenated_props:my-prop = 1", {"my-prop": 1}, True, "error"),
        # A Float meets a Double as a double (ActiveMQ throws).
        ("d = f", {"d": D(1.5), "f": F(1.5)}, True, "error"),
        ("1.5 = f", {"f": F(1.5)}, True, "error"),
        # convert_string_expressions: a string becomes a Boolean, and a number in arithmetic.
        ("convert_string_expressions:b = 'true'", {"b": True}, True, "error"),
        ("convert_string_expressions:s * 2 = 4", {"s": "2"}, True, "error"),
        ("no_convert_string_expressions:s = 1", {"s": "1"}, False, "error"),
        # The broker trims the text: a last `--` comment loses its line end.
        ("a = 1 -- note\n", {"a": 1}, False, True),
        # No functions.
        ("REGEX('a', s)", {"s": "a"}, "error", True),
        # An evaluation that throws is no match (ActiveMQ's outcome is the failure).
        ("-b = 1", {"b": B(1)}, False, "error"),
    ],
)
def test_where_artemis_and_activemq_differ(
    text: str, message: dict[str, object], artemis_answer: object, activemq_answer: object
) -> None:
    assert _matches(text, message, "artemis") == artemis_answer
    assert _matches(text, message, "activemq") == activemq_answer


def _matches(text: str, message: dict[str, object], dialect: str) -> object:
    try:
        f = msgfilter.compile(text, dialect)
    except FilterError:
        return "error"
    if dialect == "artemis":
        # FilterImpl.match: a failure is no match.
        return f.matches(message)
    got = f.match_outcome(message)  # type: ignore[attr-defined]
    return "error" if isinstance(got, EvaluationFailure) else got


def test_a_failed_evaluation_is_named_by_outcome_and_no_match() -> None:
    f = msgfilter.compile("-b = 1", "artemis")
    assert f.matches({"b": B(1)}) is False
    failure = f.outcome({"b": B(1)})  # type: ignore[attr-defined]
    assert isinstance(failure, EvaluationFailure) and "negate" in failure.message


def test_the_jms_clients_rewrite_respects_quotes_and_identifier_boundaries() -> None:
    assert artemis.translate("JMSPriority > 3 AND xJMSPriority = 'JMSPriority'") == (
        "AMQPriority > 3 AND xJMSPriority = 'JMSPriority'"
    )
    assert artemis.translate("JMSDeliveryMode IN ('PERSISTENT', 'x')") == (
        "AMQDurable IN ('DURABLE', 'x')"
    )
    assert artemis.translate('"JMSPriority" = 1') == '"AMQPriority" = 1'


def test_prefixes_switch_in_any_order_and_number() -> None:
    p = artemis.prepare(" hyphenated_props:convert_string_expressions:no_hyphenated_props:a = 1")
    assert (p.convert, p.hyphenated, p.empty) == (True, False, False)
    assert p.body.strip() == "a = 1" and len(p.body) == len(p.text)
    f = msgfilter.compile("convert_string_expressions:hyphenated_props:a-b = 1", "artemis")
    assert f.unparse() == "convert_string_expressions:hyphenated_props:a-b = 1"
    assert msgfilter.compile(f.unparse(), "artemis") == f


def test_errors_point_into_the_text_artemis_parses() -> None:
    with pytest.raises(msgfilter.FilterSyntaxError) as caught:
        msgfilter.compile("JMSDeliveryMode = = 1", "artemis")
    # The rewritten text is the one shown: AMQDurable = = 1.
    assert caught.value.offset == len("AMQDurable = ")
    with pytest.raises(msgfilter.FilterSyntaxError):
        msgfilter.compile("hyphenated_props:\"a\" = 1", "artemis")  # no quoted names there


def test_explain_names_the_departures() -> None:
    text = msgfilter.compile("NOT (JMSPriority > 3) AND \"a-b\" = 'x'", "artemis").explain()
    assert "rewrites the selector to" in text
    assert "AMQPriority reads the broker's header field (a message's JMSPriority)" in text
    assert "NOT binds tighter" in text
    assert "evaluation that throws makes the message not match" in text
    assert "every message matches" in msgfilter.compile("", "artemis").explain()


def test_a_filter_reads_the_jms_names_of_its_header_identifiers() -> None:
    f = msgfilter.compile("JMSPriority > 3 AND AMQSize > 0", "artemis")
    assert f.identifiers == {"AMQPriority", "JMSPriority", "AMQSize"}


# -- backends -------------------------------------------------------------------------

TEXTS = [
    "JMSPriority > 3", "JMSDeliveryMode = 'PERSISTENT'", "AMQDurable = 'NON_DURABLE'",
    "s LIKE 'a%' OR n > 2", "\"s\" IN ('a', 'b')", "n * 2 = d", "NOT n = 1", "d BETWEEN 1 AND n",
    "JMSMessageID = 'ID:m-1'", "s + n = 'a1'", "", "n / 0 > 1", "JMSType = 'car'",
]
ROWS: list[dict[str, object]] = [
    {"JMSPriority": 4, "JMSDeliveryMode": "PERSISTENT", "s": "a", "n": 1, "d": 2.0,
     "JMSMessageID": "m-1", "JMSType": "car"},
    {"JMSPriority": 2, "JMSDeliveryMode": "NON_PERSISTENT", "s": "b", "n": 3, "d": 1.5,
     "JMSMessageID": "ID:m-1", "JMSType": None},
    {"JMSPriority": None, "JMSDeliveryMode": None, "s": None, "n": None, "d": None,
     "JMSMessageID": None, "JMSType": "x"},
]


def _per_message(texts: list[str], rows: list[dict[str, object]]) -> list[list[object]]:
    filters = [msgfilter.compile(t, "artemis") for t in texts]
    return [[f.evaluate({k: v for k, v in row.items() if v is not None}) for f in filters]
            for row in rows]


def test_arrow_answers_as_the_per_message_backend() -> None:
    table = pa.Table.from_pylist(ROWS)
    columns = [ma.evaluate(t, table, dialect="artemis").to_pylist() for t in TEXTS]
    assert [list(row) for row in zip(*columns, strict=True)] == _per_message(TEXTS, ROWS)


@pytest.mark.spark
def test_spark_answers_as_the_per_message_backend(spark: Any) -> None:
    pytest.importorskip("pyspark")
    from pyspark.sql import types as T

    import msgfilter.spark as ms

    schema = T.StructType([
        T.StructField("JMSPriority", T.IntegerType()), T.StructField("JMSDeliveryMode",
                                                                      T.StringType()),
        T.StructField("s", T.StringType()), T.StructField("n", T.LongType()),
        T.StructField("d", T.DoubleType()), T.StructField("JMSMessageID", T.StringType()),
        T.StructField("JMSType", T.StringType()), T.StructField("f", T.FloatType()),
    ])
    rows = [dict(row, f=1.5) for row in ROWS]
    df = spark.createDataFrame([tuple(r.get(c) for c in schema.names) for r in rows], schema)
    texts = [*TEXTS, "f = 1.5", "f = d", "JMSPriority * 2147483647 < 0"]
    filters = [msgfilter.compile(t, "artemis") for t in texts]
    columns = [ms.to_column(f, df.schema).alias(f"r{i}") for i, f in enumerate(filters)]
    got = [list(row) for row in df.select(*columns).collect()]
    # An int column is an Integer and a float column a Float, as a JMS client sets them.
    messages = [{k: v for k, v in dict(row, JMSPriority=None if row["JMSPriority"] is None
                                         else jtypes.Int(row["JMSPriority"]),
                                         f=jtypes.Float(1.5)).items() if v is not None}
                for row in rows]
    assert got == [[f.evaluate(m) for f in filters] for m in messages]
    assert got[0][-1] is True  # Integer arithmetic wraps
    assert got[1][-2] is True  # Float 1.5 = Double 1.5


def test_the_subscription_index_answers_as_each_filter() -> None:
    idx = SubscriptionIndex(dialect="artemis")
    for i, text in enumerate(TEXTS):
        idx.add(i, text)
    for row in ROWS:
        message = {k: v for k, v in row.items() if v is not None}
        want = {i for i, t in enumerate(TEXTS) if msgfilter.compile(t, "artemis").matches(message)}
        assert idx.match(message) == want


# -- Hypothesis: compiled == Arrow on random selectors --------------------------------------

NAMES = ("a", "b", "s", "JMSPriority", "AMQPriority")


@property_settings(1.0)
@given(selector_cases(identifiers=NAMES, types=["long", "double", "string", "boolean"]))
def test_random_selectors_agree_in_python_and_arrow(
    case: tuple[str, list[dict[str, object]]]
) -> None:
    text, found = case
    try:
        f = msgfilter.compile(text, "artemis")
    except FilterError:
        return
    columns = {name: [m.get(name) for m in found] for name in NAMES}
    types = {"a": pa.int64(), "b": pa.float64(), "s": pa.string(), "JMSPriority": pa.int64(),
             "AMQPriority": pa.int64()}
    try:
        table = pa.table({k: pa.array(v, types[k]) for k, v in columns.items()})
    except (pa.ArrowException, TypeError, OverflowError):
        return  # a generated value of another type than the column's
    want = [f.evaluate({k: v for k, v in m.items() if k in NAMES and v is not None})
            for m in found]
    assert ma.evaluate(f, table).to_pylist() == want


def test_index_keys_skip_header_identifiers() -> None:
    idx = SubscriptionIndex(dialect="artemis")
    idx.add("p", "AMQDurable = 'DURABLE'")
    idx.add("q", "s = 'x' AND AMQUserID = 'ID:1'")
    assert idx.match({"JMSDeliveryMode": "PERSISTENT"}) == {"p"}
    assert idx.match({"s": "x", "JMSMessageID": "1"}) == {"q"}


# -- Hypothesis: compiled == Arrow == Spark ------------------------------------------------


@st.composite
def _frame_cases(draw: st.DrawFn) -> tuple[dict[str, str], list[str], list[dict[str, object]]]:
    """Several selectors over one table of plain-typed columns (`JMSPriority` among them,
    which the dialect reads for AMQPriority)."""
    kinds = ("long", "double", "string", "boolean")
    schema = draw(st.fixed_dictionaries({n: st.sampled_from(kinds) for n in DEFAULT_IDENTIFIERS
                                         if n.isascii()}))
    texts = draw(st.lists(selectors(max_depth=3), min_size=1, max_size=8))
    rows = draw(st.lists(messages(types=schema), min_size=1, max_size=10))
    return schema, texts, rows


@pytest.mark.spark
def test_random_selectors_agree_in_python_arrow_and_spark(spark: Any) -> None:
    pytest.importorskip("pyspark")
    from pyspark.sql import types as T

    import msgfilter.spark as ms

    spark_types = {"long": T.LongType(), "double": T.DoubleType(), "string": T.StringType(),
                   "boolean": T.BooleanType()}
    arrow_types = {"long": pa.int64(), "double": pa.float64(), "string": pa.string(),
                   "boolean": pa.bool_()}

    @property_settings(0.1)
    @given(_frame_cases())
    def run(case: tuple[dict[str, str], list[str], list[dict[str, object]]]) -> None:
        schema, texts, rows = case
        rows = [{k: v for k, v in r.items() if k in schema} for r in rows]
        if any(type(v) is int and not -(2**63) <= v < 2**63 for r in rows for v in r.values()):
            return
        filters = []
        for text in texts:
            try:
                filters.append(msgfilter.compile(text, "artemis"))
            except FilterError:
                continue
        if not filters:
            return
        want = [[f.evaluate({k: v for k, v in r.items() if v is not None}) for f in filters]
                for r in rows]
        table = pa.table({n: pa.array([r.get(n) for r in rows], arrow_types[k])
                          for n, k in schema.items()})
        arrow = [ma.evaluate(f, table).to_pylist() for f in filters]
        assert [list(r) for r in zip(*arrow, strict=True)] == want, texts
        struct = T.StructType(
            [T.StructField("_row", T.LongType(), False)]
            + [T.StructField(n, spark_types[k], True) for n, k in schema.items()]
        )
        frame = spark.createDataFrame(
            [(i, *(r.get(n) for n in schema)) for i, r in enumerate(rows)], schema=struct
        )
        columns = [ms.to_column(f, frame).alias(f"c{i}") for i, f in enumerate(filters)]
        got = sorted(frame.select("_row", *columns).collect(), key=lambda r: r["_row"])
        assert [[r[f"c{i}"] for i in range(len(filters))] for r in got] == want, texts

    run()
