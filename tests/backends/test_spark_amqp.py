"""amqp-sql in Spark: the native table's answers are the per-message evaluator's on a
frame of every column kind (NaN and infinities, longs beyond 2**53, UTF-8 order), and
`explain` says which filters run natively and which in the fallback UDF."""

from __future__ import annotations

import math
from typing import Any

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("pyarrow")

import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st
from pyspark.sql import types as T
from test_spark import frame as spark_frame

import msgfilter
import msgfilter.spark as ms
from msgfilter import EvaluationFailure, FilterError, Message
from msgfilter.amqp import property_filter
from msgfilter.backends.spark.fallback import evaluate_batch, message_dicts
from msgfilter.layout import DEFAULT_LAYOUT
from msgfilter.testing import amqp_selectors, property_settings

pytestmark = pytest.mark.spark

SCHEMA = T.StructType([
    T.StructField("a", T.LongType()), T.StructField("i", T.IntegerType()),
    T.StructField("d", T.DoubleType()), T.StructField("f", T.FloatType()),
    T.StructField("b", T.BooleanType()), T.StructField("s", T.StringType()),
    # AMQP fields, in the columns of their qualified names (msgfilter.layout).
    T.StructField("header.priority", T.ByteType()),
    T.StructField("properties.subject", T.StringType()),
    T.StructField("properties", T.MapType(T.StringType(), T.StringType())),
])
ROWS: list[tuple[Any, ...]] = [
    (1, 1, 2.5, 1.5, True, "x", 7, "orders.eu", {"k": "v"}),
    (2, -7, math.nan, None, False, "B", None, "B", {}),
    (None, 0, -0.0, -0.0, None, "a", 4, None, {"k": "w", "properties.subject": "map"}),
    (9007199254740993, 2, 1e300, math.inf, True, "é", 0, "orders.us", None),
    (-3, None, math.inf, 2.5, False, "", None, "", {"k": "1"}),
    (-(2**63), 2**31 - 1, None, 0.25, True, "日本", 9, "日本", {"s": "shadow"}),
    # Line breaks and a code point beyond the BMP for the regex LIKE patterns: `_` and
    # `%` never match a line feed (only a line feed), `$` matches before a final one.
    (None, None, None, None, None, "a\n", None, "or\rers\n", {"k": "a\n\n"}),
    (None, None, None, None, None, "a\u2028", None, "or\U0001F600ers.x\ny", {"k": "\U0001F600"}),
]
NATIVE = [
    "a = 1.0 OR s > 'B'", "a > 2.5", "a < -2.5", "a <= -9.3E18", "a = 9007199254740992.0",
    "a <> 2.5", "d > 2", "d = 0", "d IS NULL", "f = 1.5", "f > 0.1", "i = 2", "i >= 1.0E10",
    "s LIKE 'x%'", "s LIKE '%'", "s LIKE 'é%'", "s NOT LIKE '%a'", "s LIKE 'a%b'",
    "a IN (1, 2.0, 'x')", "a NOT IN (1)", "s IN ('x', 'é', 1)", "b", "NOT b", "b = TRUE",
    "b > FALSE", "s < 1", "s <> 1", "k = 'w'", "k IS NULL", "a", "NOT s", "b AND a > 0",
    "b OR d > 0", "s = 'é'", "s > 'z'", "-2 < a", "a LIKE 'x'", "missing IS NULL",
    "h.priority > 4", "header.priority = 4", "p.subject LIKE 'orders.%'", "p.subject = s",
    "p.subject < 'c'", "p.message_id IS NULL", "[properties.subject] = 'map'",
    "h.priority IN (0, 9)",
    # Arithmetic: exact integers (a long's product in a decimal), doubles, badarith.
    "a + 1 > 0", "a * a > 85070591730234615847396907784232501249", "-a > 0", "+a = a",
    "i * 2 - 1 > 7", "a % 3 = -1", "i % 0 = 0", "NOT a % 2.0 = 0", "a / 2 > 1",
    "d / 0 < 1", "d * 1.0E300 > 0", "NOT (d * 1.0E10 > 0)", "d * 1.0E10 > 0 OR b",
    "b OR d * 1.0E10 > 0", "f - a < 0", "s + 1 <> 1", "a * 2 = 18014398509481986",
    "h.priority * 2 > 9 AND p.subject <> 'B'", "-(i * i) IN (-1, -49)", "a - 1.5 <= -4.5",
    "(a * a) % 7 = 4", "a < 99999999999999999999", "a * 2 + d > 0", "i * 9223372036854775807 > 0",
]
# LIKE patterns RabbitMQ runs as regular expressions (`_`, several `%`), natively by rlike.
NATIVE += [
    "s LIKE 'a_'", "p.subject LIKE 'or_ers%'", "s LIKE '_'", "s NOT LIKE '__'", "k LIKE '_'",
    "k LIKE 'a%%'", "p.subject LIKE '%.%'", "s LIKE '%a%'", "s LIKE 'a!_' ESCAPE '!'",
    "p.subject LIKE 'or%ers%'", "k LIKE '%_%'", "s LIKE '日_'", "p.subject LIKE '[_]%'",
]
FALLBACK = ["UTC() > 0", "a = 0x01",
            "a > d", "a = 999999999999999999999999999999999999999", "a * a * a > 0"]


PROPERTIES: list[tuple[Any, Any]] = [
    (None, {"s": "&p:a"}), ({"subject": "&p:orders."}, None), ({"subject": "&s:s"}, {"b": True}),
    (None, {"a": 1}), (None, {"a": 2.0}), (None, {"d": None}), (None, {"k": "w"}),
    (None, {"s": "é", "i": 2}), ({"message-id": 1}, None), (None, {"a": 9007199254740993}),
    (None, {"f": 1.5}), (None, {"missing": None}), (None, {"s": "&&x"}),
]


@pytest.fixture(scope="module")
def frame(spark: Any) -> Any:
    # Through Arrow (test_spark.frame): no Python worker reads the rows.
    names = [f.name for f in SCHEMA.fields]
    return spark_frame(spark, SCHEMA, [dict(zip(names, row, strict=True)) for row in ROWS])


def _message(row: tuple[Any, ...]) -> Message:
    *values, props = row
    names = [f.name for f in SCHEMA.fields][:-1]
    properties: dict[str, object] = dict(props or {})
    fields: dict[str, object] = {}
    for name, value in zip(names, values, strict=True):
        _, _, field = name.partition(".")
        if field:
            fields[field] = value
        else:
            properties[name] = value
    return Message(properties, fields)


def test_native_filters_agree_with_the_evaluator(frame: Any) -> None:
    filters: list[Any] = [msgfilter.compile(t, "amqp-sql") for t in NATIVE + FALLBACK]
    for f in filters[: len(NATIVE)]:
        assert ms.explain(f, frame).native, f.text
    for f in filters[len(NATIVE):]:
        assert not ms.explain(f, frame).native, f.text
    # AMQP property filters are native too (backends/spark/amqp_properties.py).
    props = [property_filter(properties=p, application_properties=a) for p, a in PROPERTIES]
    assert all(ms.explain(f, frame).native for f in props)
    assert not ms.explain(property_filter(application_properties={"a": 2**64 - 1}), frame).native
    _agree(frame, filters[: len(NATIVE)] + props)


def test_drawn_selectors_agree_with_the_evaluator(frame: Any) -> None:
    # Several texts a query: each Spark job costs far more than a column in it.
    @property_settings(0.08)
    @given(st.lists(amqp_selectors(), min_size=1, max_size=10))
    def run(texts: list[str]) -> None:
        filters = []
        for text in texts:
            if "UTC()" in text:
                continue  # the clock moves between Spark's reading and the evaluator's
            try:
                filters.append(msgfilter.compile(text, "amqp-sql"))
            except FilterError:
                continue
        if filters:
            _agree(frame, filters)

    run()


def test_the_fallback_udf_reads_amqp_fields_on_kernels_and_row_by_row() -> None:
    # What the UDF runs on each batch, without a Spark job: a struct array of the columns.
    names = [f.name for f in SCHEMA.fields]
    columns = list(zip(*ROWS, strict=True))
    batch = pa.StructArray.from_arrays(
        [pa.array(list(values)) if name != "properties" else
         pa.array(list(values), pa.map_(pa.string(), pa.string()))
         for name, values in zip(names, columns, strict=True)],
        names=names,
    )
    messages = [_message(r) for r in ROWS]
    assert message_dicts(batch)[0] == messages[0]
    for text in ("h.priority * 2 > 9 AND p.subject <> 'B'", "p.subject LIKE 'or_ers%'",
                 "h.priority = 4 OR a = 99999999999999999999"):
        f = msgfilter.compile(text, "amqp-sql")
        expected = [f.evaluate(m) for m in messages]
        assert evaluate_batch(f, DEFAULT_LAYOUT, batch).to_pylist() == expected, text


def _agree(frame: Any, run: list[Any]) -> None:
    """Each filter's column over the frame is what the evaluator gives each row."""
    rows = frame.select(*[ms.to_column(f, frame).alias(f"c{i}") for i, f in
                          enumerate(run)]).collect()
    for index, f in enumerate(run):
        got = [row[index] for row in rows]
        # Where RabbitMQ's evaluation fails (badarith) the Column is NULL: no delivery.
        expected = [_answer(f.evaluate(_message(r))) for r in ROWS]
        assert got == expected, f.text


def _answer(outcome: Any) -> bool | None:
    return None if isinstance(outcome, EvaluationFailure) else outcome
